"""Kiln's runtime in the interop check: a .pte (Kiln's or ExecuTorch's) run through
`kiln run X.pte --inputs --output --iterations --warmup`, its outputs read back from the .npz and
compared with PyTorch's, its load and execute times read from what kiln run prints.

Used by run_interop.py. One `kiln run` process is one fresh method, so:
- a subject that mutates no buffer runs each case in its own process (timed over --iterations
  after one warm-up call, on case 0);
- a subject that mutates a buffer and whose cases all have the same inputs runs them as the
  iterations of one process (the state carries over from call to call, as in PyTorch); the last
  call is compared with PyTorch's last;
- any other stateful subject runs case 0 only (the state then starts as the file gives it).
"""

import re
import subprocess

import numpy as np
import torch

LOAD_LINE = re.compile(r"^load: ([0-9.]+) ms", re.M)
EXECUTE_LINE = re.compile(r"^execute: median ([0-9.]+) ms", re.M)


class RuntimeRun:
    """One .pte on one runtime: times (seconds), the worst error against PyTorch, case 0's
    outputs (to compare the two runtimes), what was run, and why it failed if it did."""

    def __init__(self):
        self.load = self.execute = self.error = None
        self.outputs = None
        self.note = ""
        self.failure = None


def first_line(text):
    text = str(text).strip()
    return text.splitlines()[0] if text else "no message"


def write_inputs(path, inputs):
    np.savez(path, *[t.detach().numpy() for t in inputs])


def kiln_run(kiln, pte, inputs_npz, output_npz, iterations, warmup, timeout):
    """Runs `kiln run` on the .pte; returns (load s, median execute s, outputs)."""
    command = [str(kiln), "run", str(pte), "--inputs", str(inputs_npz), "--output", str(output_npz),
               "--iterations", str(iterations), "--warmup", str(warmup)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"kiln run did not finish in {timeout} s") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        # The first line says what failed; the indented ones after it name each cause (e.g. every
        # missing kernel).
        raise RuntimeError(f"kiln run exited {done.returncode}: {' / '.join(lines[:6]) or 'no message'}")
    load, execute = LOAD_LINE.search(done.stdout), EXECUTE_LINE.search(done.stdout)
    if load is None or execute is None:
        raise RuntimeError("kiln run printed no load or execute time")
    with np.load(output_npz) as data:
        outputs = [torch.from_numpy(data[f"output_{i}"]) for i in range(len(data.files))]
    return float(load.group(1)) / 1000, float(execute.group(1)) / 1000, outputs


def same_inputs(cases):
    first = cases[0][0]
    return all(len(inputs) == len(first) and all(torch.equal(a, b) for a, b in zip(inputs, first))
               for inputs, _ in cases[1:])


def worst_error(wanted, outputs, output_error):
    if len(outputs) != len(wanted):
        raise RuntimeError(f"{len(outputs)} outputs, PyTorch has {len(wanted)}")
    return max((output_error(want, got) for want, got in zip(wanted, outputs)), default=0.0)


def run_on_kiln(kiln, pte, subject, wanted_of, output_error, stateful, workdir, iterations, timeout):
    """Runs the .pte on Kiln's runtime for the subject's cases (see the module comment).

    wanted_of(expected) -> PyTorch's outputs in the method's order; output_error(want, got) -> the
    scaled difference. Never raises: a failure is recorded in the result."""
    result = RuntimeRun()
    stem = workdir / f"{pte.stem}.kilnrt"
    try:
        cases = subject.cases
        write_inputs(f"{stem}.case0.inputs.npz", cases[0][0])
        if not stateful:
            result.load, result.execute, result.outputs = kiln_run(
                kiln, pte, f"{stem}.case0.inputs.npz", f"{stem}.case0.out.npz", iterations, 1, timeout)
            result.error = worst_error(wanted_of(cases[0][1]), result.outputs, output_error)
            for index, (inputs, expected) in enumerate(cases[1:], start=1):
                write_inputs(f"{stem}.case{index}.inputs.npz", inputs)
                _, _, outputs = kiln_run(kiln, pte, f"{stem}.case{index}.inputs.npz",
                                         f"{stem}.case{index}.out.npz", 1, 0, timeout)
                result.error = max(result.error, worst_error(wanted_of(expected), outputs, output_error))
            result.note = f"{len(cases)} case(s), {iterations} timed iteration(s) after 1 warm-up"
            return result
        result.load, result.execute, result.outputs = kiln_run(
            kiln, pte, f"{stem}.case0.inputs.npz", f"{stem}.case0.out.npz", 1, 0, timeout)
        result.error = worst_error(wanted_of(cases[0][1]), result.outputs, output_error)
        if len(cases) > 1 and same_inputs(cases):
            result.load, result.execute, outputs = kiln_run(
                kiln, pte, f"{stem}.case0.inputs.npz", f"{stem}.calls.out.npz", len(cases), 0, timeout)
            result.error = max(result.error, worst_error(wanted_of(cases[-1][1]), outputs, output_error))
            result.note = f"stateful: {len(cases)} calls in one process, the last one compared"
        else:
            result.note = "stateful: case 0 only" if len(cases) > 1 else "stateful: 1 call"
    except Exception as exc:  # kiln run's failure, an unreadable .npz, a shape mismatch
        result.failure = first_line(exc)
    return result


def runtime_difference(a, b):
    """The largest difference between two runs' outputs, scaled as output_error scales it
    (None when either is missing)."""
    if a is None or b is None:
        return None
    if len(a) != len(b):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b):
        if tuple(x.shape) != tuple(y.shape):
            return float("inf")
        if x.numel() == 0:
            continue
        if not x.is_floating_point():
            worst = max(worst, 0.0 if torch.equal(x, y.to(x.dtype)) else float("inf"))
            continue
        scale = max(float(x.abs().max()), 1e-30)
        worst = max(worst, float((x.double() - y.double()).abs().max()) / scale)
    return worst
