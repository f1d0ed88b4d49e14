#!/usr/bin/env python3
"""Kiln's .pte against ExecuTorch's, on both runtimes: the proof that Kiln writes files ExecuTorch
runs and that Kiln's runtime runs the files ExecuTorch writes.

For every program in tests/fixtures/manifest.json (model.pt2 and model.core.pt2), torchvision's
ResNet-18, MobileNetV2 and a small VisionTransformer (random weights, exported into a temporary
directory), a model whose buffer is a shift register and one whose buffer accumulates (run twice):
  Kiln half:  `kiln lower X.pt2 --no-kiln-ops -o X.pte` (portable kernels only, ATen ops only, timed), the file loaded and run
              with executorch.runtime, its outputs compared with PyTorch's, its size and its
              memory-planned bytes (non_const_buffer_sizes read with ExecuTorch's deserializer).
  ET half:    ExecuTorch's own to_edge(...).to_executorch() of the same program (timed), the same
              run and comparison, its size and planned bytes, and `kiln inspect ET.pte` (must exit 0).
  Runtimes:   both .pte files also run on Kiln's runtime through `kiln run --inputs --output
              --iterations` (kiln_runtime.py) and are compared with PyTorch; the same .pte must give
              the same outputs on the two runtimes. Load and median execute times of every pair.
Prints two markdown tables (lowering; runtimes), then each failure by row, and exits 1 if any failed.

A row fails when a half cannot lower, load or run the model, or an output differs from PyTorch's
by more than 1e-4 of the output's scale (its largest magnitude; exact for integer outputs).
Outputs are compared in ExecuTorch's method order: user inputs mutated in place first (compared
with the input after the call), then the user outputs. Cases of one fixture run in order on one
loaded method, so buffer state carries from case to case as it did when PyTorch made them.

Not part of the default test suite (it needs the Python venv: scripts/setup-venv.sh). Run:
  .venv/bin/python tests/interop/run_interop.py [--kiln build/bin/kiln] [--only NAME,...]
"""

import argparse
import copy
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
from pte_facts import method_facts  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from kiln_runtime import run_on_kiln, runtime_difference  # noqa: E402

TOLERANCE = 1e-4
KILN_TIMEOUT_SECONDS = 600
RUN_TIMEOUT_SECONDS = 600


class Subject:
    """One program to lower: where its .pt2 is and the cases to run it on.

    cases: list of (inputs, expected) where inputs is the flat list of input tensors and expected
    maps "output_<i>" / "input_<i>" to what PyTorch computed (as in the fixtures' expected.npz)."""

    def __init__(self, name, pt2, cases):
        self.name, self.pt2, self.cases = name, pt2, cases


# ---------------------------------------------------------------- subjects


def load_npz(path):
    with np.load(path) as data:
        return {key: torch.from_numpy(data[key]) for key in data.files}


def fixture_subjects():
    manifest = json.loads((ROOT / "tests" / "fixtures" / "manifest.json").read_text())
    for fixture in manifest["fixtures"]:
        directory = ROOT / "tests" / "fixtures" / fixture["name"]
        cases = []
        for case in fixture["cases"]:
            inputs = load_npz(directory / f"{case}.inputs.npz")
            flat = [inputs[f"arr_{i}"] for i in range(len(inputs))]
            cases.append((flat, load_npz(directory / f"{case}.expected.npz")))
        for program in fixture["programs"]:
            suffix = ".core" if program == "model.core.pt2" else ""
            yield fixture["name"], lambda d=directory, p=program, n=fixture["name"] + suffix, c=cases: \
                Subject(n, d / p, c)


class ShiftRegister(torch.nn.Module):
    """A buffer of the last four inputs, shifted on every call (slice copies into a buffer)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("history", torch.zeros(4, 8))

    def forward(self, x):
        shifted = torch.cat([self.history[1:], x], dim=0)
        self.history.copy_(shifted)
        return self.history.sum(0) * 0.25


class Accumulator(torch.nn.Module):
    """A buffer that adds up its inputs (add_ into a buffer); run twice on one input."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(2, 8))

    def forward(self, x):
        self.total.add_(x)
        return self.total * 2.0


def small_vit():
    """torchvision's VisionTransformer at a small size (vit_b_16's layers and ops, 1/12 the depth)."""
    from torchvision.models.vision_transformer import VisionTransformer

    model = VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64,
                              mlp_dim=128, num_classes=10)
    # torchvision starts the classification head at zero, which would make every output 0.
    torch.nn.init.normal_(model.heads.head.weight, std=0.5)
    return model


def exported_subject(name, module, example, calls, workdir):
    """Exports module to workdir/<name>.pt2 and records PyTorch's outputs for each call."""
    module.eval()
    program = torch.export.export(copy.deepcopy(module), (example,))
    path = workdir / f"{name}.pt2"
    torch.export.save(program, path)
    cases = []
    with torch.no_grad():
        for inputs in calls:
            outputs = module(inputs)
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            cases.append(([inputs], {f"output_{i}": t for i, t in enumerate(outputs)}))
    return Subject(name, path, cases)


def built_subjects(workdir):
    import torchvision

    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224)
    yield "resnet18", lambda: exported_subject(
        "resnet18", torchvision.models.resnet18(weights=None), image, [image], workdir)
    yield "mobilenet_v2", lambda: exported_subject(
        "mobilenet_v2", torchvision.models.mobilenet_v2(weights=None), image, [image], workdir)
    small_image = torch.randn(1, 3, 64, 64)
    yield "vit_small", lambda: exported_subject("vit_small", small_vit(), small_image, [small_image], workdir)
    steps = [torch.randn(1, 8) for _ in range(3)]
    yield "shift_register", lambda: exported_subject(
        "shift_register", ShiftRegister(), steps[0], steps, workdir)
    step = torch.randn(2, 8)
    yield "accumulator", lambda: exported_subject("accumulator", Accumulator(), step, [step, step], workdir)


# ---------------------------------------------------------------- running a .pte


def mutated_user_inputs(pt2):
    """Positions of the user inputs the program mutates, in the order a .pte returns them."""
    signature = torch.export.load(pt2).run_decompositions().graph_signature
    names = [s.arg.name for s in signature.input_specs if s.kind.name == "USER_INPUT"]
    return [names.index(s.target) for s in signature.output_specs
            if s.kind.name == "USER_INPUT_MUTATION"]


def mutates_buffers(pt2):
    """True if a call changes a buffer (the training IR mutates in place, so look at core ATen's
    signature, where each mutation is an output)."""
    signature = torch.export.load(pt2).run_decompositions().graph_signature
    return any(s.kind.name == "BUFFER_MUTATION" for s in signature.output_specs)


def expected_outputs(expected, mutated):
    outputs = [expected[f"input_{i}"] for i in mutated]
    count = sum(1 for key in expected if key.startswith("output_"))
    return outputs + [expected[f"output_{i}"] for i in range(count)]


def output_error(want, got):
    """The largest difference relative to the output's scale (its largest finite |value|). A NaN
    or an infinity where PyTorch has none, or a missing one, is an infinite error; complex outputs
    compare part by part; other non-float outputs must be equal."""
    if tuple(want.shape) != tuple(got.shape):
        raise RuntimeError(f"output shape {list(got.shape)}, PyTorch's is {list(want.shape)}")
    if want.is_complex():
        if not got.is_complex():
            return float("inf")
        want, got = torch.view_as_real(want), torch.view_as_real(got.to(want.dtype))
    if not want.is_floating_point():
        return 0.0 if torch.equal(want, got.to(want.dtype)) else float("inf")
    if want.numel() == 0:
        return 0.0
    want, got = want.double(), got.double()
    special = torch.isnan(want) | torch.isinf(want)
    if not torch.equal(torch.isnan(want), torch.isnan(got)):
        return float("inf")
    infinite = torch.isinf(want)
    if not torch.equal(want[infinite], got[infinite]) or bool(torch.isinf(got[~special]).any()):
        return float("inf")
    if bool(special.all()):
        return 0.0
    scale = float(want[~special].abs().max())
    error = float((want[~special] - got[~special]).abs().max())
    return error / scale if scale > 0 else error


def run_pte(data, subject, mutated, stateful, iterations):
    """Loads the .pte bytes with ExecuTorch's runtime and runs every case. Returns the worst error,
    case 0's outputs, the load time and the median execute time (of the cases for a stateful
    subject; else of `iterations` more calls on case 0)."""
    from executorch.runtime import Runtime
    # ExecuTorch's quantized kernels (quantize_per_tensor.out, ...), which a
    # quantized program calls, are a library of their own; loading it registers them.
    import executorch.kernels.quantized  # noqa: F401

    start = time.perf_counter()
    method = Runtime.get().load_program(data).load_method("forward")
    load = time.perf_counter() - start
    worst, first, times = 0.0, None, []
    for index, (inputs, expected) in enumerate(subject.cases):
        start = time.perf_counter()
        outputs = method.execute([t.clone() for t in inputs])
        times.append(time.perf_counter() - start)
        first = first if first is not None else [t.clone() for t in outputs]
        wanted = expected_outputs(expected, mutated)
        if len(outputs) != len(wanted):
            raise RuntimeError(f"case {index}: {len(outputs)} outputs, PyTorch has {len(wanted)}")
        for want, got in zip(wanted, outputs):
            worst = max(worst, output_error(want, got))
    if not stateful:
        times = []
        for _ in range(iterations):
            start = time.perf_counter()
            method.execute([t.clone() for t in subject.cases[0][0]])
            times.append(time.perf_counter() - start)
    return {"error": worst, "outputs": first, "load": load, "execute": float(np.median(times))}


def runtime_worker(connection):
    """Runs .pte files sent over the connection until it is closed (see RuntimeWorker)."""
    while True:
        try:
            data, subject, mutated, stateful, iterations = connection.recv()
        except EOFError:
            return
        try:
            connection.send(("ok", run_pte(data, subject, mutated, stateful, iterations)))
        except Exception as exc:  # the runtime raises RuntimeError with ET's error code
            connection.send(("error", first_line(exc)))


class RuntimeWorker:
    """A spawned process that runs .pte files on ExecuTorch's runtime, so a file that crashes or
    hangs the runtime fails its row instead of the script. (A forked child can deadlock on thread
    pools the parent already started; a spawned one starts clean.) Restarted after a crash."""

    def __init__(self, timeout_seconds):
        import multiprocessing

        self.context = multiprocessing.get_context("spawn")
        self.timeout_seconds = timeout_seconds
        self.process = self.connection = None

    def start(self):
        self.connection, child_end = self.context.Pipe()
        self.process = self.context.Process(target=runtime_worker, args=(child_end,), daemon=True)
        self.process.start()
        child_end.close()

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.join()
        self.process = self.connection = None

    def run(self, data, subject, mutated, stateful, iterations):
        """run_pte's result for the .pte on the subject's cases; RuntimeError if it fails."""
        if self.process is None or not self.process.is_alive():
            self.stop()
            self.start()
        self.connection.send((data, subject, mutated, stateful, iterations))
        if not self.connection.poll(self.timeout_seconds):
            self.stop()
            raise RuntimeError(f"the runtime did not finish in {self.timeout_seconds} s")
        try:
            status, value = self.connection.recv()
        except EOFError:
            self.process.join(5)
            code = self.process.exitcode
            self.stop()
            raise RuntimeError(f"the runtime crashed (exit code {code})") from None
        if status != "ok":
            raise RuntimeError(value)
        return value


# ---------------------------------------------------------------- the two halves


class Half:
    """What one lowering (Kiln's or ExecuTorch's) gave: sizes, times, the run, errors."""

    def __init__(self):
        self.size = self.planned = self.seconds = self.error = None
        self.runs = None  # None: not tried (--skip-kiln); False: lowering or running failed
        self.failure = None
        self.pte = None  # the written .pte's path
        self.et_runtime = None  # run_pte's result on ExecuTorch's runtime
        self.kiln_runtime = None  # kiln_runtime.RuntimeRun on Kiln's runtime

    def fail(self, message):
        self.failure = self.failure or message


def planned_bytes(data):
    return sum(method_facts(data)["memory_planned_buffer_sizes"])


def check_run(worker, half, data, subject, mutated, options):
    try:
        half.et_runtime = worker.run(data, subject, mutated, options.stateful, options.iterations)
        half.error = half.et_runtime["error"]
        half.runs = True
    except Exception as exc:  # the runtime raises RuntimeError with ET's error code
        half.fail(f"does not run on ExecuTorch: {first_line(exc)}")
        return
    if half.error > TOLERANCE:
        half.fail(f"differs from PyTorch by {half.error:.3g} of the output's scale")


def first_line(thing):
    text = str(thing).strip()
    return text.splitlines()[0] if text else type(thing).__name__


def run_kiln(kiln, arguments):
    """Runs kiln; returns (exit code, stdout, stderr, seconds). Exit code None if it could not start."""
    start = time.perf_counter()
    try:
        done = subprocess.run([str(kiln), *arguments], capture_output=True, text=True,
                              timeout=KILN_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, "", first_line(exc), time.perf_counter() - start
    return done.returncode, done.stdout, done.stderr, time.perf_counter() - start


def kiln_half(worker, kiln, subject, mutated, workdir, repeat, options):
    half = Half()
    half.runs = False
    output = workdir / f"{subject.name}.kiln.pte"
    seconds = float("inf")
    for _ in range(repeat):
        code, stdout, stderr, took = run_kiln(kiln, ["lower", str(subject.pt2), "--no-kiln-ops", "-o", str(output)])
        seconds = min(seconds, took)
        if code != 0:
            break
    if code is None:
        half.fail(f"could not run {kiln}: {stderr}")
        return half
    if code != 0:
        reason = first_line(stderr or stdout) if (stderr or stdout) else "no message"
        half.fail(f"kiln lower exited {code}: {reason}")
        return half
    half.seconds = seconds
    if not output.exists():
        half.fail(f"kiln lower exited 0 but wrote no {output.name}")
        return half
    data = output.read_bytes()
    half.size, half.pte = len(data), output
    try:
        half.planned = planned_bytes(data)
    except Exception as exc:
        half.fail(f"ExecuTorch's deserializer rejects Kiln's .pte: {first_line(exc)}")
    check_run(worker, half, data, subject, mutated, options)
    return half


def warm_up_executorch():
    """One throwaway lowering, so the first row's time does not include ExecuTorch's imports and
    first-call setup."""
    from executorch.exir import to_edge

    class Add(torch.nn.Module):
        def forward(self, x):
            return x + 1

    to_edge(torch.export.export(Add(), (torch.ones(2),))).to_executorch()


def et_lower(pt2):
    """ExecuTorch's portable lowering of a saved program: (the .pte bytes, to_edge + to_executorch
    wall time). Loading the .pt2 is not timed."""
    from executorch.exir import to_edge
    # The out variants of the quantized ops, which to_executorch emits.
    import executorch.kernels.quantized  # noqa: F401

    program = torch.export.load(pt2)
    start = time.perf_counter()
    data = to_edge(program).to_executorch().buffer
    return data, time.perf_counter() - start


def et_half(worker, subject, mutated, workdir, repeat, options):
    half = Half()
    half.runs = False
    try:
        lowerings = [et_lower(subject.pt2) for _ in range(repeat)]
        data = lowerings[0][0]
        half.seconds = min(seconds for _, seconds in lowerings)
    except Exception as exc:
        half.fail(f"ExecuTorch cannot lower it: {first_line(exc)}")
        return half, None
    path = workdir / f"{subject.name}.et.pte"
    path.write_bytes(data)
    half.size, half.planned, half.pte = len(data), planned_bytes(data), path
    check_run(worker, half, data, subject, mutated, options)
    return half, path


def kiln_inspects(kiln, et_pte, kiln_result):
    """Runs `kiln inspect` on ExecuTorch's file; a non-zero exit is a failure of Kiln's half."""
    code, stdout, stderr, _ = run_kiln(kiln, ["inspect", str(et_pte)])
    if code != 0:
        kiln_result.fail(f"kiln inspect ET.pte exited {code}: "
                         f"{first_line(stderr or stdout) if (stderr or stdout) else 'no message'}")
    return code == 0


# ---------------------------------------------------------------- report


def kb(size):
    if size is None:
        return "-"
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MB"


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def ratio(kiln, et):
    return "-" if kiln is None or et is None or et == 0 else f"{kiln / et:.2f}x"


def count(value):
    return "-" if value is None else f"{value:,}"


def err(value):
    return "-" if value is None else f"{value:.1e}"


def yes_no(value):
    return "-" if value is None else ("yes" if value else "no")


def table_row(name, kiln, et, inspect):
    status = "ok" if kiln.failure is None and et.failure is None else "FAIL"
    return (f"| {name} | {kb(kiln.size)} / {kb(et.size)} "
            f"| {count(kiln.planned)} / {count(et.planned)} "
            f"| {ms(kiln.seconds)} / {ms(et.seconds)} ({ratio(kiln.seconds, et.seconds)}) "
            f"| {yes_no(kiln.runs)} / {yes_no(et.runs)} "
            f"| {err(kiln.error)} / {err(et.error)} | {yes_no(inspect)} | {status} |")


HEADER = ("| model | .pte size Kiln / ET | planned bytes Kiln / ET | lowering time Kiln / ET (ratio) "
          "| runs on ExecuTorch Kiln / ET | max error Kiln / ET | kiln inspect ET.pte | status |\n"
          "|---|---|---|---|---|---|---|---|")


RUNTIME_HEADER = ("| model | .pte | runtime | load | execute (median) | max error vs PyTorch "
                  "| vs the other runtime | what ran |\n|---|---|---|---|---|---|---|---|")


def runtime_rows(name, half, pte_label):
    """Two rows for one .pte: on ExecuTorch's runtime and on Kiln's."""
    et, kiln = half.et_runtime, half.kiln_runtime
    difference = runtime_difference(et["outputs"] if et else None, kiln.outputs if kiln else None)
    rows = [f"| {name} | {pte_label} | ExecuTorch | {ms_fine(et and et['load'])} "
            f"| {ms_fine(et and et['execute'])} | {err(et and et['error'])} | - | cases in one method |"]
    if kiln is not None:
        outcome = err(kiln.error) if kiln.failure is None else f"FAIL: {kiln.failure}"
        rows.append(f"| {name} | {pte_label} | Kiln | {ms_fine(kiln.load)} | {ms_fine(kiln.execute)} "
                    f"| {outcome} | {err(difference)} | {kiln.note} |")
    return rows, difference


def ms_fine(seconds):
    return "-" if seconds is None else f"{seconds * 1000:.3f} ms"


def parse_arguments():
    parser = argparse.ArgumentParser(
        description="Lower Kiln's fixtures, ResNet-18, MobileNetV2 and a buffer-mutating model with "
                    "`kiln lower` and with ExecuTorch, run both .pte files on ExecuTorch's runtime, "
                    "compare with PyTorch, and print a markdown table. Exits 1 if any row fails.")
    parser.add_argument("--kiln", default=str(ROOT / "build" / "bin" / "kiln"),
                        help="the kiln binary (default: build/bin/kiln)")
    parser.add_argument("--only", default="",
                        help="comma-separated names to run: a fixture name (both IR levels), "
                             "resnet18, mobilenet_v2, vit_small, shift_register or accumulator")
    parser.add_argument("--skip-kiln", action="store_true",
                        help="run only ExecuTorch's half (the exit status then reflects it alone)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="lower N times with each tool and report the fastest (default 1)")
    parser.add_argument("--iterations", type=int, default=5, metavar="N",
                        help="timed calls per .pte on each runtime (stateless subjects; default 5)")
    parser.add_argument("--skip-kiln-runtime", action="store_true",
                        help="do not run the .pte files on Kiln's runtime (kiln run)")
    parser.add_argument("--keep", metavar="DIR",
                        help="write the .pt2 and .pte files here instead of a temporary directory")
    return parser.parse_args()


def selected(subjects, only):
    names = {name for name in only.split(",") if name}
    chosen = [(name, make) for name, make in subjects if not names or name in names]
    unknown = names - {name for name, _ in subjects}
    if unknown:
        raise SystemExit(f"--only: no subject named {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted({n for n, _ in subjects}))})")
    return chosen


class RunOptions:
    def __init__(self, stateful, iterations):
        self.stateful, self.iterations = stateful, iterations


def on_kiln_runtime(arguments, half, subject, mutated, stateful, workdir):
    """Runs the half's .pte on Kiln's runtime; returns the failures it found."""
    if half.pte is None:
        return []
    half.kiln_runtime = run_on_kiln(
        arguments.kiln, half.pte, subject, lambda expected: expected_outputs(expected, mutated), output_error,
        stateful, workdir, arguments.iterations, RUN_TIMEOUT_SECONDS)
    if half.kiln_runtime.failure is not None:
        return [f"does not run on Kiln's runtime: {half.kiln_runtime.failure}"]
    if half.kiln_runtime.error > TOLERANCE:
        return [f"on Kiln's runtime, differs from PyTorch by {half.kiln_runtime.error:.3g} of the output's scale"]
    return []


def run_all(arguments, workdir, worker):
    subjects = selected(list(fixture_subjects()) + list(built_subjects(workdir)), arguments.only)
    warm_up_executorch()
    rows, runtime_table, failures = [], [], []
    for _, make in subjects:
        subject = make()
        print(f"... {subject.name}", file=sys.stderr, flush=True)
        mutated = mutated_user_inputs(subject.pt2)
        options = RunOptions(mutates_buffers(subject.pt2), arguments.iterations)
        kiln = (Half() if arguments.skip_kiln
                else kiln_half(worker, arguments.kiln, subject, mutated, workdir, arguments.repeat, options))
        et, et_pte = et_half(worker, subject, mutated, workdir, arguments.repeat, options)
        inspect = None
        if et_pte is not None and not arguments.skip_kiln:
            inspect = kiln_inspects(arguments.kiln, et_pte, kiln)
        rows.append(table_row(subject.name, kiln, et, inspect))
        failures += [f"- {subject.name}: Kiln: {kiln.failure}"] if kiln.failure else []
        failures += [f"- {subject.name}: ET: {et.failure}"] if et.failure else []
        if arguments.skip_kiln_runtime:
            continue
        for half, label in ((kiln, "Kiln"), (et, "ET")):
            found = on_kiln_runtime(arguments, half, subject, mutated, options.stateful, workdir)
            failures += [f"- {subject.name}: {label}.pte: {failure}" for failure in found]
            if half.et_runtime is None and half.kiln_runtime is None:
                continue
            half_rows, difference = runtime_rows(subject.name, half, label)
            runtime_table += half_rows
            if difference is not None and difference > TOLERANCE:
                failures.append(f"- {subject.name}: {label}.pte: the two runtimes differ by {difference:.3g} "
                                "of the output's scale")
    return rows, runtime_table, failures


def main():
    arguments = parse_arguments()
    with tempfile.TemporaryDirectory(prefix="kiln-interop-") as temporary:
        workdir = pathlib.Path(arguments.keep or temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        worker = RuntimeWorker(RUN_TIMEOUT_SECONDS)
        try:
            rows, runtime_table, failures = run_all(arguments, workdir, worker)
        finally:
            worker.stop()
    print(HEADER)
    print("\n".join(rows))
    if runtime_table:
        print()
        print(RUNTIME_HEADER)
        print("\n".join(runtime_table))
    if failures:
        print(f"\n{len(failures)} failure(s):")
        print("\n".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
