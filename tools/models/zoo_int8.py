"""The zoo's int8 pass (`zoo.py --int8`): its CNNs quantized as
`bench/run.sh --int8` quantizes, run by Kiln's fast backend and by ExecuTorch.

The models: INT8_MODELS, the zoo's image classifiers built from convolutions
-- every CLASSIFICATION model but the transformer families (vit_*, swin_*,
maxvit_t); the segmentation, video and text models are left out too. Each is
built and fed as the zoo does (zoo.build: its architecture, its input), but
weighted as bench/models.py weights its own models (see build()), then:

  1. quantized with bench/prepare.py's PT2E recipe (quantize_pt2e: ExecuTorch's
     XNNPACKQuantizer, per-channel symmetric int8 weights, static activations
     calibrated on bench/models.py's calibration batches, shaped as the
     model's input); the converted module's output is the reference (PyTorch
     int8), and the module is exported again with torch.export;
  2. that export lowered by `kiln lower --backend OneDnnBackend` and run by
     `kiln run` at each thread count;
  3. ExecuTorch's XNNPACK .pte of the same export run by bench/worker.py
     --int8 at each thread count (the peer; no ONNX Runtime here);
each output checked with bench's int8 rule: max |out - PyTorch int8| <=
TOL * max |PyTorch int8| (--int8-tolerance, bench/measure.py's default).
A model that cannot be built, quantized or exported is a failing row.

It writes the "## int8" section of docs/models.md, after the float tables,
which stay as they are; with --merge the section's other rows stay too.
"""
import datetime
import json
import math
import pathlib
import re
import shutil
import sys
import time

import numpy as np
import torch

import zoo

sys.path.insert(0, str(zoo.REPO / "bench"))
import measure  # noqa: E402
import models  # noqa: E402
import prepare  # noqa: E402

TRANSFORMER_FAMILIES = ("vit_", "swin_", "maxvit")
INT8_MODELS = [name for name in zoo.CLASSIFICATION if not name.startswith(TRANSFORMER_FAMILIES)]
MODELS_RULE = ("the zoo's image classifiers built from convolutions: every classification model but "
               "vit_*, swin_* and maxvit_t (no segmentation, video or text models)")

HEADING = zoo.INT8_HEADING
NOTES = "Notes on the int8 table:"
SUMMARY = "Summary of the int8 table:"
NO_TIME = "ExecuTorch without a time:"
COLUMNS = ("model", "result", "error / max int8", "PyTorch int8 vs float", "Kiln ms", "ExecuTorch ms",
           "Kiln / ExecuTorch", "ops on portable kernels")


def new_row(name):
    return {"model": name, "passed": False, "problem": "", "error": None, "reference_error": None,
            "kiln_ms": {}, "et_ms": {}, "et_problem": "", "portable_ops": None}


def short(error):
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return (lines[0] if lines else type(error).__name__)[:160]


def as_outputs(result):
    """{"output_0": array, ...} of a module's result, as kiln run and bench/worker.py name them."""
    tensors = result if isinstance(result, (list, tuple)) else [result]
    return {f"output_{i}": t.detach().numpy() for i, t in enumerate(tensors)}


def build(name):
    """The zoo's model and input, the model weighted as bench/models.py weights
    its own: the float zoo fits its batch norms to its one input, which leaves
    the nets so ill-conditioned that int8 rounding alone moves their outputs
    by a large part of their range; random batch-norm statistics do not."""
    torch.manual_seed(models.WEIGHT_SEED)
    model, inputs = zoo.build(name)
    torch.manual_seed(models.WEIGHT_SEED)
    return models.randomize_norms_and_heads(model).eval(), tuple(inputs)


def quantize(name, directory):
    """Builds `name`, quantizes it with bench's recipe, writes in.npz,
    ref.q8.npz and model.q8.pt2; returns (the int8 export, PyTorch int8's
    largest difference from the float model over max |float|)."""
    stage = "build"
    try:
        model, inputs = build(name)
        with torch.no_grad():
            floats = as_outputs(model(*inputs))
        stage = "PT2E quantization"
        calibration = models.calibration_batches([x.shape for x in inputs])
        converted = prepare.quantize_pt2e(model, inputs, calibration, dynamic=False)
        with torch.no_grad():
            reference = as_outputs(converted(*inputs))
        stage = "torch.export of the int8 module"
        exported = torch.export.export(converted, inputs)
        torch.export.save(exported, directory / "model.q8.pt2")
    except Exception as error:  # noqa: BLE001 -- a model that cannot be quantized is a row, not a crash
        raise RuntimeError(f"{stage}: {short(error)}") from error
    np.savez(directory / "in.npz", *[x.numpy() for x in inputs])
    np.savez(directory / "ref.q8.npz", **reference)
    _, relative, _, _ = measure.judge(measure.differences_of(reference, floats), 0.0, relative=True)
    return exported, relative


def lower_kiln(row, directory, args):
    """kiln.q8.pte (OneDnnBackend) from model.q8.pt2; False, with the row's problem, when it fails."""
    status, text = zoo.run([args.kiln, "lower", str(directory / "model.q8.pt2"), "--backend", "OneDnnBackend",
                            "-o", str(directory / "kiln.q8.pte")], args.timeout)
    if status != 0:
        row["problem"] = "kiln lower: " + zoo.first_problem(text)
        return False
    kept = re.search(r"Kept on the portable kernels \((\d+) ops?\)", text)
    row["portable_ops"] = int(kept.group(1)) if kept else 0
    return True


def run_kiln(row, directory, threads, args):
    """Kiln's time and check at `threads` threads; False when kiln run fails."""
    out = directory / f"out_kiln_{threads}.npz"
    status, text = zoo.run([args.kiln, "run", str(directory / "kiln.q8.pte"), "--inputs", str(directory / "in.npz"),
                            "--output", str(out), "--threads", str(threads), "--iterations", str(args.runs),
                            "--warmup", "2", "--json"], args.timeout)
    if status != 0:
        row["problem"] = f"kiln run ({threads}T): " + zoo.first_problem(text)
        return False
    timings = [line for line in text.splitlines() if line.startswith("{")]
    row["kiln_ms"][threads] = json.loads(timings[-1])["median_ms"]
    _, relative, passed, why = measure.compare(out, directory / "ref.q8.npz", args.int8_tolerance, relative=True)
    if why or not passed:
        problem = f"{threads}T: " + (why or f"differs by {relative:.2e} of max |PyTorch int8|")
        row["problem"] = "; ".join(filter(None, [row["problem"], problem]))
    row["error"] = max(row["error"] or 0.0, relative if relative is not None else math.inf)
    return True


def lower_executorch(row, exported, directory):
    """executorch.q8.pte (XNNPACK) from the same export; False, with the row's ExecuTorch problem, when it fails."""
    try:
        zoo.peers.write_executorch(exported, directory / "executorch.q8.pte")
    except Exception as error:  # noqa: BLE001 -- a peer that cannot lower is a cell, not a crash
        row["et_problem"] = "lowering: " + short(error)
        return False
    return True


def run_executorch(row, name, directory, threads, args):
    """ExecuTorch's time at `threads` threads (bench/worker.py --int8); False,
    its times dropped, when it fails or differs from PyTorch int8."""
    timings, outputs = zoo.peers.measure("executorch", name, directory, threads, args.runs, 2, args.timeout, int8=True)
    if timings is None:
        row["et_problem"], row["et_ms"] = f"{threads}T: {outputs}", {}
        return False
    with np.load(directory / "ref.q8.npz") as archive:
        reference = {key: archive[key] for key in archive.files}
    found = measure.differences_of({f"output_{i}": o for i, o in enumerate(outputs)}, reference)
    _, relative, passed, why = measure.judge(found, args.int8_tolerance, relative=True)
    if not passed:
        row["et_problem"] = f"{threads}T: " + (why or f"differs by {relative:.2e} of max |PyTorch int8|")
        row["et_ms"] = {}
        return False
    row["et_ms"][threads] = timings["median_ms"]
    return True


def check_model(name, work, args):
    """One model's row. Kiln and ExecuTorch take turns at each thread count
    (--rounds times), so that a busy spell on the machine falls on both
    rather than on one."""
    row = new_row(name)
    directory = work / name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    try:
        exported, row["reference_error"] = quantize(name, directory)
    except RuntimeError as error:
        row["problem"] = str(error)
        shutil.rmtree(directory, ignore_errors=True)
        return row
    kiln_ok = lower_kiln(row, directory, args)
    executorch_ok = lower_executorch(row, exported, directory)
    for threads in args.threads:
        kiln_times, executorch_times = [], []
        for _ in range(args.rounds):
            kiln_ok = kiln_ok and run_kiln(row, directory, threads, args)
            if kiln_ok:
                kiln_times.append(row["kiln_ms"][threads])
            executorch_ok = executorch_ok and run_executorch(row, name, directory, threads, args)
            if executorch_ok:
                executorch_times.append(row["et_ms"][threads])
        # Each time the median over the rounds (the lower middle of an even count).
        if kiln_ok:
            row["kiln_ms"][threads] = sorted(kiln_times)[(len(kiln_times) - 1) // 2]
        if executorch_ok:
            row["et_ms"][threads] = sorted(executorch_times)[(len(executorch_times) - 1) // 2]
    row["passed"] = kiln_ok and not row["problem"]
    shutil.rmtree(directory, ignore_errors=True)
    return row


# ---- the section of docs/models.md

def ratios(row, threads):
    """{threads: Kiln ms / ExecuTorch ms} where Kiln passed and both have a time."""
    if not row["passed"]:
        return {}
    return {t: row["kiln_ms"][t] / row["et_ms"][t] for t in threads if t in row["kiln_ms"] and t in row["et_ms"]}


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summary(rows, threads):
    lines = [f"- Kiln's int8 .pte: **{sum(r['passed'] for r in rows)} of {len(rows)} models lower, run and match "
             "PyTorch int8** through OneDnnBackend."]
    for t in threads:
        found = [(r["model"], ratios(r, threads)[t]) for r in rows if t in ratios(r, threads)]
        if not found:
            continue
        worst = max(found, key=lambda pair: pair[1])
        ahead = sum(1 for _, ratio in found if ratio <= 1.0)
        lines.append(f"- {t} thread{'s' if t > 1 else ''}: Kiln / ExecuTorch over {len(found)} models, geometric "
                     f"mean {geometric_mean([ratio for _, ratio in found]):.2f}x, worst {worst[1]:.2f}x ({worst[0]}); "
                     f"Kiln at or ahead of ExecuTorch on {ahead}.")
    return lines


def section(rows, args, notes):
    """The "## int8" section of docs/models.md."""
    threads = args.threads
    lines = [
        HEADING,
        "",
        f"Made by `tools/models/zoo.py` (`{' '.join(sys.argv[1:])}`) on "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, torch {torch.__version__.split('+')[0]}. "
        f"The models: {MODELS_RULE}, with the float tables' inputs, but weighted as bench/models.py weights its "
        "models (random batch-norm statistics: the float zoo fits its batch norms to its one input, which leaves "
        "the nets so ill-conditioned that int8 rounding alone moves many of their outputs by more than their range). "
        "Each is quantized with bench/prepare.py's PT2E recipe "
        "(`bench/run.sh --int8`'s: XNNPACKQuantizer, per-channel symmetric int8 weights, static activations "
        f"calibrated on {models.CALIBRATION_BATCHES} random batches) and exported again; Kiln lowers that export "
        "with `--backend OneDnnBackend`, ExecuTorch with its XNNPACK partitioner (run by bench/worker.py "
        f"--int8). Both run at {' / '.join(f'{t}T' for t in threads)} threads (median of {args.runs} calls after "
        f"2{f', taking turns {args.rounds} times, each time the median over the turns' if args.rounds > 1 else ''}"
        f") and pass when max |out - PyTorch int8| <= {args.int8_tolerance:g} * max |PyTorch int8|. Result: pass, "
        "or Kiln's problem; error: Kiln's largest such difference over max |PyTorch int8|; PyTorch int8 vs float: "
        "the same measure of the quantized model against the float one, for scale. An ExecuTorch run that fails "
        "or differs has no time (listed below the table)."
        + (" Rows of models not named in the options are from earlier runs (`--merge`)." if args.merge else ""),
    ]
    if notes:
        lines += [""] + notes
    lines += ["", SUMMARY, ""] + summary(rows, threads)
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        row_ratios = ratios(r, threads)
        number = lambda value: "-" if value is None else f"{value:.2e}"  # noqa: E731
        cells = [r["model"], "pass" if r["passed"] else (r["problem"] or "fail").replace("|", "\\|"),
                 number(r["error"]), number(r["reference_error"]), zoo.per_threads_text(r["kiln_ms"], threads, 3),
                 zoo.per_threads_text(r["et_ms"], threads, 3),
                 " / ".join(zoo.ratio_text(row_ratios.get(t)) for t in threads) if row_ratios else "-",
                 "-" if r["portable_ops"] is None else str(r["portable_ops"])]
        lines.append("| " + " | ".join(cells) + " |")
    missing = [r for r in rows if r["et_problem"]]
    if missing:
        lines += ["", NO_TIME, ""] + [f"- {r['model']}: {r['et_problem']}" for r in missing]
    return "\n".join(lines) + "\n"


def read_section(text, threads):
    """(rows, notes) of a section this module wrote (for --merge)."""
    rows, notes, header, part = [], [], None, None
    problems = {}
    for line in text.splitlines():
        if line == NOTES:
            part = "notes"
        elif line == SUMMARY:
            part = "summary"
        elif line == NO_TIME:
            part = "no time"
        elif line.startswith("| model | result |"):
            header, part = zoo.split_cells(line), "table"
            continue
        if part == "notes":
            notes.append(line)
        elif part == "table" and line.startswith("| ") and header:
            cell = dict(zip(header, zoo.split_cells(line)))
            number = lambda text: None if text in ("-", "", None) else float(text)  # noqa: E731
            row = new_row(cell["model"])
            row.update({"passed": cell["result"] == "pass", "problem": "" if cell["result"] == "pass"
                        else cell["result"], "error": number(cell.get("error / max int8")),
                        "reference_error": number(cell.get("PyTorch int8 vs float")),
                        "kiln_ms": zoo.per_threads(cell.get("Kiln ms", "-"), threads),
                        "et_ms": zoo.per_threads(cell.get("ExecuTorch ms", "-"), threads)})
            ops = cell.get("ops on portable kernels", "-")
            row["portable_ops"] = None if ops == "-" else int(ops)
            rows.append(row)
        elif part == "no time" and line.startswith("- "):
            model, _, problem = line[2:].partition(": ")
            problems[model] = problem
    for row in rows:
        row["et_problem"] = problems.get(row["model"], "")
    while notes and not notes[-1].strip():
        notes.pop()
    return rows, notes


def merge(kept, new):
    """The kept rows with the new ones in their places (a new model at the end)."""
    names = [r["model"] for r in new]
    merged = [r for r in kept if r["model"] not in names]
    positions = {r["model"]: i for i, r in enumerate(kept)}
    for row in new:
        at = positions.get(row["model"])
        merged.insert(min(at, len(merged)) if at is not None else len(merged), row)
    return merged


def run_pass(args):
    names = args.models.split(",") if args.models else INT8_MODELS
    work = pathlib.Path(args.work) / "int8"
    work.mkdir(parents=True, exist_ok=True)
    floats, earlier = zoo.sections(args.output)
    kept, notes = read_section(earlier, args.threads) if args.merge else ([], [])
    rows = []
    for name in names:
        started = time.monotonic()
        row = check_model(name, work, args)
        rows.append(row)
        # Rewritten after every model: a run cut short keeps what it measured.
        pathlib.Path(args.output).write_text(floats + section(merge(kept, rows), args, notes))
        state = "pass" if row["passed"] else "FAIL " + row["problem"]
        state += "".join(f" {t}T {zoo.ratio_text(r)}" for t, r in ratios(row, args.threads).items())
        if row["et_problem"]:
            state += f" (ExecuTorch: {row['et_problem']})"
        print(f"{name} [int8]: {state} ({time.monotonic() - started:.0f} s)", flush=True)
    return rows
