"""The zoo's peers: ExecuTorch's XNNPACK .pte and ONNX Runtime's session made
from the same model and export, each timed in a process of its own by
bench/worker.py (the benchmark's worker: one JSON line of timings, the
outputs as .npz).

Needs executorch and onnxruntime (+ onnx, onnxscript) in the venv:
bench/requirements.txt.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import torch

REPO = pathlib.Path(__file__).resolve().parents[2]
WORKER = REPO / "bench" / "worker.py"
PEERS = ("executorch", "ort")
FILES = {"executorch": "executorch.pte", "ort": "model.onnx"}
NAMES = {"executorch": "ExecuTorch", "ort": "ONNX Runtime"}


def short(error):
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "failed")[:160]


def prepare(model, inputs, exported, directory):
    """Writes in.npz, executorch.pte and model.onnx into `directory`;
    returns {peer: error or None}."""
    directory.mkdir(parents=True, exist_ok=True)
    np.savez(directory / "in.npz", *[x.numpy() for x in inputs])
    errors = {}
    try:
        write_executorch(exported, directory / FILES["executorch"])
        errors["executorch"] = None
    except Exception as error:  # noqa: BLE001 -- a peer that cannot lower is a cell, not a crash
        errors["executorch"] = "lowering: " + short(error)
    try:
        torch.onnx.export(model, tuple(inputs), str(directory / FILES["ort"]), dynamo=True, external_data=False,
                          verbose=False)
        errors["ort"] = None
    except Exception as error:  # noqa: BLE001
        errors["ort"] = "export: " + short(error)
    return errors


def write_executorch(exported, path):
    """The ExportedProgram lowered to ExecuTorch with the XNNPACK partitioner, written to `path`."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
    with open(path, "wb") as out:
        program.write_to_file(out)


def measure(peer, name, directory, threads, runs, warmup, timeout, int8=False):
    """(timings dict, outputs as a list of arrays) of one peer at `threads`
    threads, or (None, error text). With int8 the worker runs the .q8 files
    (executorch.q8.pte, with ExecuTorch's quantized kernels registered)."""
    out = directory / f"out_{peer}_{threads}.npz"
    command = [sys.executable, str(WORKER), peer, str(directory), "--model", name, "--threads", str(threads),
               "--runs", str(runs), "--warmup", str(warmup), "--output", str(out)] + (["--int8"] if int8 else [])
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return None, short(done.stderr or done.stdout)
    with np.load(out) as archive:
        outputs = [archive[f"output_{i}"] for i in range(len(archive.files))]
    out.unlink(missing_ok=True)
    return json.loads(lines[-1]), outputs
