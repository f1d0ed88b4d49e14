#!/usr/bin/env python3
"""The model-zoo check: real architectures through Kiln, at both IR levels.

For each model (torchvision's classification families, three segmentation
models, a video model, BERT / GPT-2 / T5 built from small configs when
`transformers` is installed, and tools/models/zoo_more.py's: more Hugging Face
architectures from small configs and networks written here), with random
weights given a real scale (every all-zero parameter redrawn, batch norms
calibrated on a few random batches):

  1. torch.export.export (the training IR) and, as a second program,
     run_decompositions() (core ATen); both saved as .pt2;
  2. `kiln run MODEL.pt2` (the reference interpreter) on a fixed input,
     compared with PyTorch's output;
  3. `kiln lower MODEL.pt2 -o MODEL.pte`, then `kiln run MODEL.pte` on
     Kiln's runtime, compared again, and its median time over a few calls.

  4. the fast-backend pass (unless --no-fast): `kiln lower --backend
     OneDnnBackend`, loaded and run at 1 and 2 threads, compared the same way,
     and timed against ExecuTorch's XNNPACK .pte of the same export and ONNX
     Runtime (tools/models/peers.py makes both and times them with
     bench/worker.py; needs bench/requirements.txt), each row's ratio being
     Kiln's time over the faster peer's.

It writes docs/models.md: per model and IR level, pass or fail, the largest
error against PyTorch, the first op Kiln could not run (or the first line of
the error) and Kiln's time; then the fast backend's check, its times and the
peers' times, and a summary of the ratios. A row passes when every output is within
1e-3 * max(1, max |PyTorch|) on both paths, or, for a deep model whose
float32 result PyTorch itself cannot give to that tolerance, when Kiln's
output is no further from the model run in float64 than twice PyTorch's own
float32 output is. Needs torch and torchvision (the venv of
scripts/setup-venv.sh); not part of `make test`.

With --int8 it runs the int8 pass instead (tools/models/zoo_int8.py): the
zoo's CNNs (every classification model but vit_*, swin_* and maxvit_t)
quantized with bench/run.sh --int8's PT2E recipe, Kiln's OneDnnBackend .pte
timed at each thread count against ExecuTorch's XNNPACK .pte of the same
export, both checked against PyTorch's int8 output. It writes the
"## int8" section at the end of docs/models.md; each pass rewrites only its
own part of the file and keeps the other.

  .venv/bin/python tools/models/zoo.py                      # every model
  .venv/bin/python tools/models/zoo.py --models resnet18,swin_t --ir core
  .venv/bin/python tools/models/zoo.py --models vit_h_14 --merge   # update those rows only
  .venv/bin/python tools/models/zoo.py --models resnet34 --merge --fast-only  # the fast columns only
  .venv/bin/python tools/models/zoo.py --models resnet34 --merge --fast-only --rounds 3  # turns (a VM)
  .venv/bin/python tools/models/zoo.py --no-fast            # the portable path only (no peers needed)
  .venv/bin/python tools/models/zoo.py --int8 --models resnet18,mobilenet_v2 --merge   # their int8 rows
  .venv/bin/python tools/models/zoo.py --int8 --merge --rounds 3   # each time the median of three turns (a VM)
"""

import argparse
import copy
import datetime
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peers  # noqa: E402
import zoo_more  # noqa: E402

# zoo_int8.py imports this module as `zoo`: run as a script, this is that module.
sys.modules.setdefault("zoo", sys.modules[__name__])

REPO = pathlib.Path(__file__).resolve().parents[2]
TOLERANCE = 1e-3
INT8_HEADING = "## int8: the zoo's CNNs"  # where the int8 pass's section of --output starts (zoo_int8.py)

CLASSIFICATION = [
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2",
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3", "efficientnet_b4",
    "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
    "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l",
    "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf",
    "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf",
    "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf",
    "convnext_tiny", "convnext_small", "convnext_base", "convnext_large",
    "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14",
    "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b",
    "maxvit_t",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
    "squeezenet1_0", "squeezenet1_1",
    "densenet121", "densenet161", "densenet169", "densenet201",
    "googlenet", "inception_v3",
    "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
]
SEGMENTATION = ["fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
VIDEO = ["r2plus1d_18"]
TRANSFORMERS = ["bert", "gpt2", "t5"]
MORE = zoo_more.NAMES

# Inputs: small where the model allows it; ViT, MaxViT fix 224 (ViT-H/14: 518
# is its default, 224 works), Inception-V3 needs 75 or more.
IMAGE_SIZE = {"inception_v3": 96, "googlenet": 64, "maxvit_t": 224}
FIXED_224 = ("vit_", "maxvit")


def image_size(name):
    if name.startswith(FIXED_224):
        return 224
    return IMAGE_SIZE.get(name, 64)


def real_scale(model, make_input):
    """Random weights with a real scale: all-zero parameters redrawn, batch
    norms calibrated on random batches (cumulative statistics), then eval."""
    torch.manual_seed(0)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.numel() > 0 and not parameter.any():
                parameter.normal_(0.0, 0.02)
        norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
        if norms:
            for m in norms:
                m.reset_running_stats()
                m.momentum = None
            model.train()
            for _ in range(3):
                model(*make_input(2))
    return model.eval()


def build(name):
    """(model, example inputs as a tuple) for `name`."""
    import torchvision

    if name in TRANSFORMERS:
        return build_transformer(name)
    if name in zoo_more.MODELS:
        torch.manual_seed(0)
        model, make_input = zoo_more.MODELS[name]()
        model = model.eval() if name in zoo_more.KEEP_WEIGHTS else real_scale(model, make_input)
        return model, make_input(1)
    if name in SEGMENTATION:
        model = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None, aux_loss=False)
        size = 64
    elif name in VIDEO:
        model = getattr(torchvision.models.video, name)(weights=None)
        size = None
    else:
        extra = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}
        model = getattr(torchvision.models, name)(weights=None, **extra)
        size = image_size(name)

    def make_input(batch, seed=1):
        generator = torch.Generator().manual_seed(seed)
        if size is None:
            return (torch.randn(batch, 3, 4, 32, 32, generator=generator),)
        return (torch.randn(batch, 3, size, size, generator=generator),)

    model = real_scale(model, make_input)
    if name in SEGMENTATION:
        model = SegmentationOut(model)
    return model, make_input(1)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the zoo compares its 'out'."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build_transformer(name):
    try:
        import transformers
    except ModuleNotFoundError:
        raise RuntimeError("transformers is not installed: .venv/bin/pip install -r tools/models/requirements.txt")

    torch.manual_seed(0)
    if name == "bert":
        config = transformers.BertConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                         intermediate_size=128, max_position_embeddings=64)
        model = transformers.BertModel(config)
        ids = torch.randint(0, 512, (1, 16), generator=torch.Generator().manual_seed(1))
        wrapped = HiddenStates(model)
        return real_scale(wrapped, lambda b: (ids.repeat(b, 1),)), (ids,)
    if name == "gpt2":
        config = transformers.GPT2Config(vocab_size=512, n_embd=64, n_layer=2, n_head=4, n_positions=64)
        model = transformers.GPT2LMHeadModel(config)
        ids = torch.randint(0, 512, (1, 16), generator=torch.Generator().manual_seed(1))
        return real_scale(Logits(model), lambda b: (ids.repeat(b, 1),)), (ids,)
    config = transformers.T5Config(vocab_size=512, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                                   decoder_start_token_id=0)
    model = transformers.T5Model(config)
    ids = torch.randint(0, 512, (1, 16), generator=torch.Generator().manual_seed(1))
    decoder_ids = torch.randint(0, 512, (1, 8), generator=torch.Generator().manual_seed(2))
    wrapped = EncoderDecoder(model)
    return real_scale(wrapped, lambda b: (ids.repeat(b, 1), decoder_ids.repeat(b, 1))), (ids, decoder_ids)


class HiddenStates(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids).last_hidden_state


class Logits(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).logits


class EncoderDecoder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, decoder_ids):
        return self.model(input_ids=ids, decoder_input_ids=decoder_ids, use_cache=False).last_hidden_state


# ---- running Kiln ----

def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"
    return done.returncode, done.stdout + done.stderr


def first_problem(text):
    """The first op Kiln could not run, else the error's first line."""
    match = re.search(r"cannot run \(no kernel and no decomposition\):\n\s+\S+: (\S+)", text)
    if match:
        return "no kernel: " + match.group(1)
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:160]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else "failed"


def outputs_of(out_path, count):
    got = np.load(out_path)
    return [got[f"output_{i}"].astype(np.float64) for i in range(count)]


def max_error(actuals, reference):
    worst, passed = 0.0, True
    for actual, expected in zip(actuals, reference):
        expected = expected.astype(np.float64)
        if actual.shape != expected.shape:
            return float("inf"), False
        error = float(np.max(np.abs(actual - expected))) if expected.size else 0.0
        worst = max(worst, error)
        passed = passed and error <= TOLERANCE * max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    return worst, passed


def float64_gap(kiln_outputs, reference, reference64):
    """Kiln's and PyTorch float32's largest distance from the float64 result."""
    kiln = max(float(np.max(np.abs(a - e))) for outputs in kiln_outputs for a, e in zip(outputs, reference64))
    torch32 = max(float(np.max(np.abs(r.astype(np.float64) - e))) for r, e in zip(reference, reference64))
    return kiln, torch32


def save_program(program, inputs, pt2, in_npz):
    torch.export.save(program, pt2)
    np.savez(in_npz, *[x.numpy() for x in inputs])


def check(kiln, name, ir, program, inputs, reference, reference64, work, timeout):
    """One row: the .pt2 through the interpreter, then lowered and run on the runtime."""
    row = {"model": name, "ir": ir, "passed": False, "error": None, "problem": "", "ms": None}
    pt2 = work / f"{name}.{ir}.pt2"
    in_npz = work / f"{name}.in.npz"
    save_program(program, inputs, pt2, in_npz)
    out = work / f"{name}.{ir}.out.npz"
    status, text = run([kiln, "run", str(pt2), "--inputs", str(in_npz), "--output", str(out)], timeout)
    if status != 0:
        row["problem"] = "kiln run .pt2: " + first_problem(text)
        return row
    interpreter_outputs = outputs_of(out, len(reference))
    interpreter_error, interpreter_ok = max_error(interpreter_outputs, reference)
    pte = work / f"{name}.{ir}.pte"
    status, text = run([kiln, "lower", str(pt2), "-o", str(pte)], timeout)
    if status != 0:
        row["error"] = interpreter_error
        row["problem"] = "kiln lower: " + first_problem(text)
        return row
    out = work / f"{name}.{ir}.pte.out.npz"
    status, text = run([kiln, "run", str(pte), "--inputs", str(in_npz), "--output", str(out), "--iterations", "3",
                        "--warmup", "1", "--json"], timeout)
    if status != 0:
        row["error"] = interpreter_error
        row["problem"] = "kiln run .pte: " + first_problem(text)
        return row
    runtime_outputs = outputs_of(out, len(reference))
    runtime_error, runtime_ok = max_error(runtime_outputs, reference)
    row["error"] = max(interpreter_error, runtime_error)
    row["passed"] = interpreter_ok and runtime_ok
    if not row["passed"]:
        row["problem"] = f"outputs differ (interpreter {interpreter_error:.2e}, runtime {runtime_error:.2e})"
        # PyTorch's own float32 result may be that far from the exact one.
        kiln64, torch64 = float64_gap([interpreter_outputs, runtime_outputs], reference, reference64())
        if kiln64 <= 2 * torch64:
            row["passed"] = True
            row["problem"] = (f"within PyTorch's own float32 error: from the float64 result Kiln is {kiln64:.2e}, "
                              f"PyTorch float32 {torch64:.2e}")
        else:
            row["problem"] += f"; from the float64 result Kiln is {kiln64:.2e}, PyTorch float32 {torch64:.2e}"
    timings = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    if timings:
        row["ms"] = timings[-1].get("median_ms")
    for path in (pte, work / f"{name}.{ir}.out.npz", out):
        path.unlink(missing_ok=True)
    return row


def lower_fast(kiln, name, ir, pt2, work, args):
    """The fast-backend columns of a row so far, and the .pt2 lowered with
    OneDnnBackend (None when it failed: the row says why)."""
    row = {"fast_passed": False, "fast_problem": "", "fast_ms": {}, "fast_first_ms": None, "fast_turns": {}}
    pte = work / f"{name}.{ir}.onednn.pte"
    status, text = run([kiln, "lower", str(pt2), "--backend", "OneDnnBackend", "-o", str(pte)], args.timeout)
    if status != 0:
        row["fast_problem"] = "kiln lower: " + first_problem(text)
        return row, None
    return row, pte


def run_fast(kiln, row, name, ir, pte, in_npz, reference, reference64, work, args, first_turn):
    """One turn of the lowered program at each thread count, its median time
    added to the row's turns; the first turn also checks the outputs as
    check() does. False when a run failed (the row says why)."""
    worst, passed, outputs = 0.0, True, []
    for threads in args.threads:
        out = work / f"{name}.{ir}.onednn.{threads}.npz"
        status, text = run([kiln, "run", str(pte), "--inputs", str(in_npz), "--output", str(out), "--threads",
                            str(threads), "--iterations", str(args.runs), "--warmup", "2", "--json"], args.timeout)
        if status != 0:
            row["fast_problem"] = f"kiln run ({threads} threads): " + first_problem(text)
            row["fast_passed"] = False
            return False
        timings = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
        row["fast_turns"].setdefault(threads, []).append(timings["median_ms"])
        if first_turn:
            if threads == args.threads[0]:
                row["fast_first_ms"] = timings["load_ms"] + timings.get("first_ms", 0.0)
            outputs.append(outputs_of(out, len(reference)))
            error, ok = max_error(outputs[-1], reference)
            worst, passed = max(worst, error), passed and ok
        out.unlink(missing_ok=True)
    if first_turn:
        row["fast_error"] = worst
        row["fast_passed"] = passed
        if not passed:
            kiln64, torch64 = float64_gap(outputs, reference, reference64())
            row["fast_passed"] = kiln64 <= 2 * torch64
            row["fast_problem"] = f"outputs differ by {worst:.2e}; from the float64 result Kiln is {kiln64:.2e}, " \
                                  f"PyTorch float32 {torch64:.2e}"
    return True


def median_turn(times):
    """The median of a measurement's turns (the lower middle of an even count)."""
    return sorted(times)[(len(times) - 1) // 2]


def run_peers(name, directory, reference, args, turns, problems):
    """One turn of each peer that has not failed, at each thread count: its
    median time added to turns[peer][threads], or a problem. Returns
    ExecuTorch's time to a first result in this turn (None if it did not run)."""
    first_ms = None
    for peer in peers.PEERS:
        if peer in problems:
            continue
        for threads in args.threads:
            timings, outputs = peers.measure(peer, name, directory, threads, args.runs, 2, args.timeout)
            if timings is None:
                problems[peer] = outputs
                break
            error, ok = max_error([o.astype(np.float64) for o in outputs], reference)
            if not ok:
                problems[peer] = f"outputs differ by {error:.2e}"
                break
            turns.setdefault(peer, {}).setdefault(threads, []).append(timings["median_ms"])
            if peer == "executorch" and threads == args.threads[0]:
                first_ms = timings["load_ms"] + timings.get("first_ms", 0.0)
    return first_ms


def remove_peers(name, directory, work):
    for path in directory.glob("*"):
        path.unlink()
    directory.rmdir()
    (work / name).rmdir()


def float64_reference(model, inputs):
    """A function giving the model's outputs computed in float64 (made once, when first asked)."""
    cache = []

    def get():
        if not cache:
            double = copy.deepcopy(model).double()
            args = [x.double() if x.is_floating_point() else x for x in inputs]
            with torch.no_grad():
                result = double(*args)
            cache.extend(t.double().numpy() for t in (result if isinstance(result, (list, tuple)) else [result]))
        return cache

    return get


def sections(path):
    """(the float tables, the int8 section) of the file at `path` (each "" when
    missing): the two passes each rewrite their own part and keep the other."""
    text = pathlib.Path(path).read_text() if pathlib.Path(path).exists() else ""
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.rstrip("\n") == INT8_HEADING), len(lines))
    floats, int8 = "".join(lines[:at]).rstrip(), "".join(lines[at:])
    return (floats + "\n\n" if floats else ""), int8


def split_cells(line):
    """The cells of a markdown table row (an escaped \\| stays in its cell)."""
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in cells]


def per_threads(cell, threads):
    """"1.20 / 0.70" -> {1: 1.2, 2: 0.7} for threads (1, 2); "-" entries are left out."""
    found = {}
    for t, text in zip(threads, cell.split(" / ")):
        if text.strip() not in ("-", ""):
            found[t] = float(text)
    return found


def read_rows(path, threads):
    """The rows of a table this script wrote (for --merge)."""
    rows = []
    header = None
    for line in sections(path)[0].splitlines():
        if line.startswith("| model | IR |"):
            header = split_cells(line)
            continue
        if header is None or not line.startswith("| ") or line.startswith("|---"):
            continue
        cell = dict(zip(header, split_cells(line)))
        if cell.get("IR") not in ("training", "core"):
            continue
        number = lambda text: None if text in ("-", "", None) else float(text)  # noqa: E731
        row = {"model": cell["model"], "ir": cell["IR"], "passed": cell.get("result") == "pass",
               "error": number(cell.get("max error")), "problem": "" if cell.get("first problem") == "-"
               else cell.get("first problem", ""), "ms": number(cell.get("Kiln ms"))}
        if cell.get("oneDNN", "-") != "-":  # a row the fast-backend pass measured
            fast = cell["oneDNN"]
            row.update({"fast_passed": fast == "pass", "fast_problem": "" if fast in ("pass", "-") else fast,
                        "fast_ms": per_threads(cell.get(FAST_COLUMNS[1], "-"), threads),
                        "peer_ms": {"executorch": per_threads(cell.get(FAST_COLUMNS[2], "-"), threads),
                                    "ort": per_threads(cell.get(FAST_COLUMNS[3], "-"), threads)},
                        "fast_first_ms": None, "et_first_ms": None})
            first = cell.get(FAST_COLUMNS[5], "-").split(" / ")
            if len(first) == 2:
                row["fast_first_ms"], row["et_first_ms"] = number(first[0]), number(first[1])
        rows.append(row)
    return rows


def zoo(args):
    names = args.models.split(",") if args.models else CLASSIFICATION + SEGMENTATION + VIDEO + TRANSFORMERS + MORE
    levels = args.ir.split(",")
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    # --merge: the table's other rows stay, in place; this run's rows replace theirs.
    kept = read_rows(args.output, args.threads) if args.merge else []
    args.notes = notes_of(args.output) if args.merge else []
    int8_section = sections(args.output)[1]  # the int8 pass's part of the file stays as it is

    def record(row):
        # The table so far, rewritten after every row: a run cut short keeps it.
        rows.append(row)
        table = rows
        if args.merge:
            table = [r for r in kept if not any(r["model"] == n["model"] and r["ir"] == n["ir"] for n in rows)]
            positions = {(r["model"], r["ir"]): i for i, r in enumerate(kept)}
            for new in rows:
                at = positions.get((new["model"], new["ir"]))
                table.insert(min(at, len(table)) if at is not None else len(table), new)
        pathlib.Path(args.output).write_text(markdown(table, args) + ("\n" + int8_section if int8_section else ""))

    for name in names:
        started = time.monotonic()
        peer_directory = work / name / "peers"
        try:
            model, inputs = build(name)
            with torch.no_grad():
                result = model(*inputs)
            reference = [t.numpy() for t in (result if isinstance(result, (list, tuple)) else [result])]
            exported = torch.export.export(model, inputs)
            reference64 = float64_reference(model, inputs)
            peer_errors = peers.prepare(model, inputs, exported, peer_directory) if args.fast else {}
        except Exception as error:  # a model torch cannot build or export here
            for ir in levels:
                record({"model": name, "ir": ir, "passed": False, "error": None, "ms": None,
                        "problem": "export: " + str(error).splitlines()[0][:160]})
            print(f"{name}: export failed: {error}", file=sys.stderr)
            if peer_directory.exists():
                shutil.rmtree(work / name)
            continue
        # Each IR's row through the portable path, and its program lowered to the fast backend.
        pending = []
        for ir in levels:
            pte = None
            try:
                program = exported if ir == "training" else exported.run_decompositions()
                earlier = next((r for r in kept if r["model"] == name and r["ir"] == ir), None)
                if args.fast_only and earlier is not None:
                    # The portable columns stay as the earlier run measured them.
                    row = {key: earlier[key] for key in ("model", "ir", "passed", "error", "problem", "ms")}
                    save_program(program, inputs, work / f"{name}.{ir}.pt2", work / f"{name}.in.npz")
                else:
                    row = check(args.kiln, name, ir, program, inputs, reference, reference64, work, args.timeout)
                if args.fast:
                    fast, pte = lower_fast(args.kiln, name, ir, work / f"{name}.{ir}.pt2", work, args)
                    row.update(fast)
            except Exception as error:
                row = {"model": name, "ir": ir, "passed": False, "error": None, "ms": None,
                       "problem": "run_decompositions: " + str(error).splitlines()[0][:160]}
            (work / f"{name}.{ir}.pt2").unlink(missing_ok=True)
            pending.append((row, pte))
        if args.fast:
            # The peers and each row's program take turns (--rounds times), so
            # a slow spell of the machine falls on all of them.
            peer_problems = {peer: error for peer, error in peer_errors.items() if error}
            peer_turns, et_first_ms = {}, None
            for turn in range(args.rounds):
                first_ms = run_peers(name, peer_directory, reference, args, peer_turns, peer_problems)
                et_first_ms = first_ms if turn == 0 else et_first_ms
                for i, (row, pte) in enumerate(pending):
                    if pte is not None and not run_fast(args.kiln, row, name, row["ir"], pte, work / f"{name}.in.npz",
                                                        reference, reference64, work, args, turn == 0):
                        pte.unlink(missing_ok=True)
                        pending[i] = (row, None)
            peer_ms = {peer: {threads: median_turn(times) for threads, times in by_threads.items()}
                       for peer, by_threads in peer_turns.items() if peer not in peer_problems}
            remove_peers(name, peer_directory, work)
            for row, pte in pending:
                row["fast_ms"] = {threads: median_turn(times) for threads, times in row.pop("fast_turns", {}).items()}
                if pte is None:
                    row["fast_ms"] = {}
                else:
                    pte.unlink(missing_ok=True)
                row.update({"peer_ms": peer_ms, "peer_problems": peer_problems, "et_first_ms": et_first_ms})
        for row, _ in pending:
            record(row)
            state = "pass" if row["passed"] else "FAIL " + row["problem"]
            if args.fast:
                state += "; oneDNN " + ("pass" if row["fast_passed"] else "FAIL " + row["fast_problem"])
                state += " " + " ".join(f"{t}T {ratio_text(r)}" for t, r in row_ratios(row, args.threads).items())
            print(f"{name} [{row['ir']}]: {state} ({time.monotonic() - started:.0f} s)", flush=True)
    return rows


FAST_COLUMNS = ("oneDNN", "oneDNN ms", "ExecuTorch ms", "ORT ms", "Kiln / best peer", "first result ms Kiln / ET")


def row_ratios(row, threads):
    """{threads: Kiln oneDNN ms / the faster peer's ms} where both ran and matched."""
    ratios = {}
    if not row.get("fast_passed"):
        return ratios
    for t in threads:
        times = [row.get("peer_ms", {}).get(p, {}).get(t) for p in peers.PEERS]
        times = [ms for ms in times if ms is not None]
        kiln = row.get("fast_ms", {}).get(t)
        if kiln is not None and times:
            ratios[t] = kiln / min(times)
    return ratios


def ratio_text(value):
    return "-" if value is None else f"{value:.2f}x"


def per_threads_text(values, threads, digits=2):
    if not values:
        return "-"
    return " / ".join("-" if values.get(t) is None else f"{values[t]:.{digits}f}" for t in threads)


def summary(rows, threads):
    """Per thread count: the geometric mean and the worst of the ratios."""
    lines = []
    for t in threads:
        ratios = [(r["model"], r["ir"], row_ratios(r, threads)[t]) for r in rows if t in row_ratios(r, threads)]
        if not ratios:
            continue
        geomean = math.exp(sum(math.log(x) for _, _, x in ratios) / len(ratios))
        worst = max(ratios, key=lambda x: x[2])
        ahead = sum(1 for _, _, x in ratios if x <= 1.0)
        lines.append(f"- {t} thread{'s' if t > 1 else ''}: over {len(ratios)} rows, geometric mean {geomean:.2f}x, "
                     f"worst {worst[2]:.2f}x ({worst[0]}, {worst[1]}); at or ahead of the faster peer on {ahead}.")
    fast = [r for r in rows if "fast_passed" in r]
    if fast:
        lines.insert(0, f"- The fast backend: **{sum(r['fast_passed'] for r in fast)} of {len(fast)} rows load, run "
                        "and match PyTorch** (the zoo's rule) through OneDnnBackend.")
    return lines


def notes_of(path):
    """The "Notes on this table:" block of a table this script wrote (kept by --merge)."""
    lines, keep = [], False
    for line in sections(path)[0].splitlines():
        if line.startswith("Notes on this table"):
            keep = True
        elif keep and (line.startswith("| ") or line.startswith("The fast backend:") or line.startswith("Summary of")):
            break
        if keep:
            lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def markdown(rows, args):
    passed = sum(r["passed"] for r in rows)
    fast = any("fast_passed" in r for r in rows)
    threads_text = " / ".join(f"{t}T" for t in args.threads)
    lines = [
        "# The model zoo",
        "",
        f"Made by `tools/models/zoo.py` ({' '.join(sys.argv[1:]) or 'no options'}) on "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, torch {torch.__version__.split('+')[0]}. "
        f"**{passed} of {len(rows)} rows pass.** A row passes when `kiln run` on the .pt2 (the interpreter) and on "
        f"the `kiln lower -o` .pte (the runtime) both match PyTorch within {TOLERANCE:g} * max(1, max |PyTorch|), "
        "or, where PyTorch's own float32 result is not that close to the exact one, when both are no further "
        "from the model run in float64 than twice PyTorch's float32 output is. "
        "Error: the larger of the two against PyTorch float32; Kiln ms: the runtime's median of 3 calls, "
        "portable kernels only."
        + (" Rows of models not named in the options are from earlier runs (`--merge`)." if args.merge else ""),
    ]
    if getattr(args, "notes", None):
        lines += [""] + args.notes
    header = ["model", "IR", "result", "max error", "first problem", "Kiln ms"]
    if fast:
        lines += [
            "",
            f"The fast backend: the .pt2 lowered with `--backend OneDnnBackend`, run at {threads_text} threads "
            f"(median of {args.runs} calls after 2"
            + (f"; the peers and Kiln took turns {args.rounds} times, each time the median over the turns"
               if args.rounds > 1 else "")
            + "), checked by the same rule (oneDNN: pass, or what went wrong). "
            "The peers run the same model: ExecuTorch's XNNPACK .pte of the same export and ONNX Runtime "
            "(the dynamo ONNX export), each in its own process by bench/worker.py, their outputs checked too "
            "(a peer that fails or differs has no time). Kiln / best peer: Kiln's oneDNN time over the faster "
            "peer's, per thread count. First result: load plus the first call, one thread, Kiln / ExecuTorch.",
            "",
            "Summary of this table:",
            "",
        ]
        lines += summary(rows, args.threads)
        header += list(FAST_COLUMNS)
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        error = "-" if r["error"] is None else f"{r['error']:.2e}"
        ms = "-" if r["ms"] is None else f"{r['ms']:.1f}"
        problem = r["problem"].replace("|", "\\|") or "-"
        cells = [r["model"], r["ir"], "pass" if r["passed"] else "fail", error, problem, ms]
        if fast:
            if "fast_passed" not in r:
                cells += ["-"] * len(FAST_COLUMNS)
            else:
                status = "pass" if r["fast_passed"] else (r["fast_problem"] or "fail").replace("|", "\\|")
                ratios = row_ratios(r, args.threads)
                first = (f"{r['fast_first_ms']:.1f}" if r.get("fast_first_ms") is not None else "-") + " / " + \
                        (f"{r['et_first_ms']:.1f}" if r.get("et_first_ms") is not None else "-")
                cells += [status, per_threads_text(r.get("fast_ms"), args.threads),
                          per_threads_text(r.get("peer_ms", {}).get("executorch"), args.threads),
                          per_threads_text(r.get("peer_ms", {}).get("ort"), args.threads),
                          " / ".join(ratio_text(ratios.get(t)) for t in args.threads), first]
        lines.append("| " + " | ".join(cells) + " |")
    problems = sorted({(r["model"], peer, text) for r in rows for peer, text in r.get("peer_problems", {}).items()})
    if problems:
        lines += ["", "Peers without a time:", ""]
        lines += [f"- {model}: {peers.NAMES[peer]}: {text}" for model, peer, text in problems]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated names (default: the whole zoo)")
    parser.add_argument("--ir", default=None, help="training, core or both (default: both)")
    parser.add_argument("--kiln", default=str(REPO / "build" / "bin" / "kiln"))
    parser.add_argument("--work", default=str(REPO / "build" / "zoo"), help="where the .pt2 files go")
    parser.add_argument("--output", default=str(REPO / "docs" / "models.md"))
    parser.add_argument("--timeout", type=int, default=900, help="seconds per kiln command")
    parser.add_argument("--merge", action="store_true",
                        help="keep the other rows of --output and replace only this run's models")
    parser.add_argument("--no-fast", dest="fast", action="store_false",
                        help="skip the fast-backend pass (OneDnnBackend against ExecuTorch and ONNX Runtime)")
    parser.add_argument("--fast-only", action="store_true",
                        help="with --merge: rerun only the fast-backend pass; a row already in the table keeps "
                             "its portable-path columns")
    parser.add_argument("--threads", default="1,2", help="thread counts of the fast-backend pass (default 1,2)")
    parser.add_argument("--runs", type=int, default=20, help="timed calls per measurement of that pass (default 20)")
    parser.add_argument("--int8", action="store_true",
                        help="the int8 pass instead (zoo_int8.py): the zoo's CNNs (every classification model but "
                             "vit_*, swin_* and maxvit_t) quantized with bench/run.sh --int8's PT2E recipe, Kiln's "
                             "OneDnnBackend .pte at --threads against ExecuTorch's XNNPACK .pte of the same export, "
                             "checked against PyTorch's int8 output; writes the int8 section of --output only")
    parser.add_argument("--rounds", type=int, default=1,
                        help="Kiln and the peers take turns this many times (at each thread count with --int8), "
                             "and each time is the median over the rounds (default 1): on a machine whose speed "
                             "drifts (a VM), a slow spell then falls on all of them")
    parser.add_argument("--int8-tolerance", type=float, default=None,
                        help="with --int8: an output passes when max |out - PyTorch int8| <= TOL * max |PyTorch int8| "
                             "(default 0.1, as bench/run.sh --int8)")
    args = parser.parse_args()
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        parser.error(f"--threads takes comma-separated positive integers, not {args.threads!r}")
    if not args.threads or min(args.threads) < 1:
        parser.error(f"--threads takes comma-separated positive integers, not {','.join(map(str, args.threads))!r}")
    if args.fast_only and not (args.merge and args.fast):
        parser.error("--fast-only needs --merge (the portable columns come from the table) and the fast pass")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.access(args.kiln, os.X_OK):
        raise SystemExit(f"zoo.py: no kiln tool at {args.kiln}: build it first (make)")
    if args.int8:
        check_int8_options(parser, args)
        import zoo_int8

        torch.set_num_threads(1)
        zoo_int8.run_pass(args)
        print(sections(args.output)[1])
        return
    if args.int8_tolerance is not None:
        parser.error("--int8-tolerance is an option of --int8")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.ir = args.ir or "training,core"
    for ir in args.ir.split(","):
        if ir not in ("training", "core"):
            parser.error(f"--ir takes training and/or core, not {ir!r}")
    torch.set_num_threads(1)
    print(markdown(zoo(args), args))


def check_int8_options(parser, args):
    """--int8's options: the float pass's own are refused, the models must be the zoo's CNNs."""
    if args.ir is not None or not args.fast or args.fast_only:
        parser.error("--int8 runs one export per model on the fast backend: no --ir, --no-fast or --fast-only")
    import zoo_int8

    names = args.models.split(",") if args.models else []
    others = [name for name in names if name not in zoo_int8.INT8_MODELS]
    if others:
        parser.error(f"--int8 takes {zoo_int8.MODELS_RULE}; not {', '.join(others)}")
    if args.int8_tolerance is None:
        args.int8_tolerance = zoo_int8.measure.INT8_TOLERANCE
    if args.int8_tolerance <= 0:
        parser.error("--int8-tolerance must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")


if __name__ == "__main__":
    main()
