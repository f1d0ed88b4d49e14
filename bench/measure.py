"""One row: a runtime run on one model at one thread count, in a process of
its own; its timings and its peak RSS from the JSON line it prints last, its
outputs compared with PyTorch's.

Peak RSS is the process's own VmHWM (/proc/<pid>/status), which exec starts
afresh. Not ru_maxrss from wait4: a child forked from this process (torch
and the models loaded) and then exec'd keeps the forked copy's high-water
mark in ru_maxrss, so every row would show this process's size. If a row
does not report VmHWM, the largest VmHWM polled while it ran is used.

Kiln's row runs the tool itself: `kiln run kiln.pte --inputs in.npz
--output out.npz --iterations N --warmup W --json --threads T`; the peers'
rows run worker.py.

An int8 row (prepared.int8) runs the .q8 files and is checked against
PyTorch's int8 output (ref.q8.npz): max |out - ref| <= int8_tolerance *
max |ref|, a relative bound, since the runtimes round differently from the
converted module and one quantum's difference moves an output by a fraction
of its range. Its error against the float model's output (ref.npz) is kept
beside it, for context.
"""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
# An int8 output passes when max |out - PyTorch int8| <= INT8_TOLERANCE * max |PyTorch int8|
# (bench.py --int8-tolerance, tools/models/zoo.py --int8-tolerance).
INT8_TOLERANCE = 0.1


class Row:
    """What one runtime measured on one model at one thread count."""

    def __init__(self, model, threads, runtime, mode):
        self.model = model
        self.threads = threads
        self.runtime = runtime
        self.mode = mode
        self.median_ms = None
        self.runs = None
        self.load_ms = None
        self.first_ms = None
        self.peak_rss_kb = None
        self.baseline_rss_kb = None
        self.lowering_s = None
        self.size_bytes = None
        self.max_abs_error = None
        self.relative_error = None  # max_abs_error / max |reference|
        self.float_max_abs_error = None  # int8 rows: against the float model's output
        self.float_relative_error = None
        self.passed = None
        self.note = ""
        self.error = None

    def as_dict(self):
        return dict(self.__dict__)


def polled_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def run_child(command, log_path, timeout_s):
    """Runs command with its output in log_path; returns (exit status, the
    largest VmHWM polled while it ran in KiB, output text). Kills it after
    timeout_s seconds (status -1)."""
    polled = None
    with open(log_path, "w") as log:
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while True:
            polled = max(filter(None, [polled, polled_hwm_kb(child.pid)]), default=None)
            try:
                status = child.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() > deadline:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                status = -1
                break
    with open(log_path) as log:
        text = log.read()
    return status, polled, text


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return json.loads(line)
    return None


def failure(text, status):
    if status == -1:
        return "timed out"
    lines = [line for line in text.strip().splitlines() if line.strip()]
    message = lines[-1].strip() if lines else f"exit status {status}"
    return message[:200]


def differences(out_path, ref_path):
    """[(largest |out - ref|, largest |ref|)] for each output, or a string
    saying why the outputs cannot be compared."""
    with np.load(out_path) as out, np.load(ref_path) as ref:
        return differences_of({key: out[key] for key in out.files}, {key: ref[key] for key in ref.files})


def differences_of(out, ref):
    """differences() of outputs already loaded: two {name: array} dicts."""
    if sorted(out) != sorted(ref):
        return f"outputs {sorted(out)}, expected {sorted(ref)}"
    found = []
    for key in ref:
        expected, got = ref[key].astype(np.float64), out[key].astype(np.float64)
        if expected.shape != got.shape:
            return f"{key} has shape {got.shape}, expected {expected.shape}"
        error = float(np.max(np.abs(expected - got))) if expected.size else 0.0
        found.append((error if np.isfinite(error) else float("inf"),
                      float(np.max(np.abs(expected))) if expected.size else 0.0))
    return found


def compare(out_path, ref_path, tolerance, relative=False):
    """(largest absolute difference over all outputs, largest difference over
    its output's largest |reference value|, whether every output is within
    tolerance * max(1, largest |reference value|) -- or, relative, tolerance *
    largest |reference value| --, why they could not be compared or "")."""
    return judge(differences(out_path, ref_path), tolerance, relative)


def judge(found, tolerance, relative=False):
    """compare()'s answer from differences() or differences_of()."""
    if isinstance(found, str):
        return None, None, False, found
    worst = max((error for error, _ in found), default=0.0)
    worst_relative = max((error / scale if scale else (0.0 if error == 0 else float("inf"))
                          for error, scale in found), default=0.0)
    bound = (lambda scale: tolerance * scale) if relative else (lambda scale: tolerance * max(1.0, scale))
    passed = all(error <= bound(scale) for error, scale in found)
    return worst, worst_relative, passed, ""


def kiln_command(kiln, prepared, threads, runs, warmup, out_path):
    return [kiln, "run", prepared.own("kiln.pte"), "--inputs", prepared.file("in.npz"), "--output", out_path,
            "--iterations", str(runs), "--warmup", str(warmup), "--json", "--threads", str(threads)]


def peer_command(runtime, prepared, threads, runs, warmup, out_path):
    return [sys.executable, WORKER, runtime, prepared.dir, "--model", prepared.name, "--threads", str(threads),
            "--runs", str(runs), "--warmup", str(warmup), "--output", out_path] + (["--int8"] if prepared.int8 else [])


def check(row, out_path, prepared, options):
    """Fills the row's errors and check: against PyTorch's output (float
    rows), or against PyTorch's int8 output and, for context, the float
    model's (int8 rows)."""
    if prepared.int8:
        row.max_abs_error, row.relative_error, row.passed, problem = compare(
            out_path, prepared.own("ref.npz"), options.int8_tolerance, relative=True)
        row.float_max_abs_error, row.float_relative_error, _, _ = compare(out_path, prepared.file("ref.npz"), 0.0)
    else:
        row.max_abs_error, row.relative_error, row.passed, problem = compare(
            out_path, prepared.file("ref.npz"), options.tolerance)
    if problem:
        row.note = "; ".join(filter(None, [row.note, problem]))


def measure(runtime, prepared, threads, options):
    """The row of `runtime` on `prepared` at `threads` threads."""
    artefact = prepared.artefacts[runtime]
    row = Row(prepared.name, threads, runtime, artefact.mode)
    row.lowering_s = artefact.lowering_s
    row.size_bytes = artefact.size_bytes if runtime != "eager" else None
    row.note = artefact.note
    if artefact.error:
        row.error = artefact.error
        return row
    out_path = prepared.own(f"out_{runtime}_{threads}.npz")
    if os.path.exists(out_path):
        os.remove(out_path)
    if runtime == "kiln":
        command = kiln_command(options.kiln, prepared, threads, options.runs, options.warmup, out_path)
    else:
        command = peer_command(runtime, prepared, threads, options.runs, options.warmup, out_path)
    log_path = prepared.own(f"run_{runtime}_{artefact.mode}_{threads}.log")
    status, peak_kb, text = run_child(command, log_path, options.timeout_s)
    row.peak_rss_kb = peak_kb
    timings = last_json(text) if status == 0 else None
    if timings is None:
        row.error = failure(text, status)
        return row
    row.median_ms = timings["median_ms"]
    row.runs = timings.get("runs", timings.get("iterations"))
    row.load_ms = timings["load_ms"]
    row.first_ms = timings.get("first_ms")
    reported = timings.get("peak_rss_kb")
    row.peak_rss_kb = reported if reported is not None and reported > 0 else peak_kb
    base = timings.get("baseline_rss_kb", timings.get("start_rss_kb"))
    row.baseline_rss_kb = base if base is not None and base > 0 else None
    check(row, out_path, prepared, options)
    return row
