#!/usr/bin/env python3
"""What the Python binding adds to a call: a method run from Python
(``method(*inputs)``: inputs bound, executed, outputs copied to numpy) against
``kiln run`` on the same .pte in the same run (its median execute time, the
runtime alone), on programs small enough for the binding's cost to show.

    PYTHONPATH=build/python build/python-venv/bin/python bench/python_overhead.py [--kiln build/bin/kiln]

Prints, per program, the medians and their difference in microseconds. A
benchmark, not a test: nothing fails on speed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import kiln

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def programs(directory: Path) -> list[tuple[str, Path, Path]]:
    """(label, .pte, inputs .npz): ExecuTorch's add.pte, and fixtures lowered
    here to the portable kernels and to OneDnnBackend (inputs planned, as
    `kiln lower` writes them, and unplanned)."""
    result = [("add.pte (ExecuTorch's)", FIXTURES / "pte" / "add.pte", FIXTURES / "pte" / "add.inputs.npz")]
    backends = [()] + ([("OneDnnBackend",)] if "OneDnnBackend" in kiln.registered_backends() else [])
    for name in ("mlp", "small_cnn"):
        for backend in backends:
            for plan_inputs in (True, False):
                label = f"{name} {backend[0] if backend else 'portable'}{'' if plan_inputs else ', inputs unplanned'}"
                path = directory / f"{name}-{len(backend)}-{int(plan_inputs)}.pte"
                kiln.lower(FIXTURES / name / "model.pt2", backends=backend, plan_inputs=plan_inputs).save(path)
                result.append((label, path, FIXTURES / name / "case0.inputs.npz"))
    return result


def python_median_us(path: Path, inputs: list[np.ndarray], calls: int, repeats: int) -> float:
    method = kiln.load(path).load_method()
    for _ in range(max(10, calls // 10)):
        method(*inputs)
    medians = []
    for _ in range(repeats):
        times = []
        for _ in range(calls):
            start = time.perf_counter_ns()
            method(*inputs)
            times.append(time.perf_counter_ns() - start)
        medians.append(statistics.median(times) / 1e3)
    return min(medians)


def kiln_run_median_us(tool: str, path: Path, inputs: Path, calls: int, repeats: int) -> float:
    medians = []
    for _ in range(repeats):
        output = subprocess.run(
            [tool, "run", str(path), "--inputs", str(inputs), "--iterations", str(calls), "--warmup",
             str(max(10, calls // 10)), "--json"],
            check=True, capture_output=True, text=True).stdout
        medians.append(json.loads(output.strip().splitlines()[-1])["median_ms"] * 1e3)
    return min(medians)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=str(ROOT / "build" / "bin" / "kiln"), help="the kiln tool")
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per side (the best median is kept)")
    args = parser.parse_args()
    kiln.set_threads(1)
    print(f"kiln {kiln.__version__}; {args.calls} calls x {args.repeats} (best median); 1 thread")
    print(f"{'program':42} {'kiln run':>10} {'Python':>10} {'added':>9}")
    with tempfile.TemporaryDirectory() as directory:
        for label, path, inputs_path in programs(Path(directory)):
            with np.load(inputs_path) as archive:
                inputs = [archive[f"arr_{i}"] for i in range(len(archive.files))]
            native = kiln_run_median_us(args.kiln, path, inputs_path, args.calls, args.repeats)
            python = python_median_us(path, inputs, args.calls, args.repeats)
            print(f"{label:42} {native:8.2f}us {python:8.2f}us {python - native:7.2f}us")


if __name__ == "__main__":
    main()
