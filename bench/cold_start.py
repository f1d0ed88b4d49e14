#!/usr/bin/env python3
"""Time to a first result (load + first call, one thread) of Kiln's fast
backend against ExecuTorch's XNNPACK .pte, on zoo models.

Each model is built and exported as tools/models/zoo.py does (random weights
at a real scale, 64x64 images), lowered with `kiln lower --backend
OneDnnBackend` and with ExecuTorch's XNNPACK partitioner into WORK/MODEL/.
Then every round starts one fresh process per runtime -- `kiln run --json
--iterations 1 --warmup 0 --threads 1` and bench/worker.py's ExecuTorch loader
-- in an order that rotates from round to round, so that neither runtime
always follows the other on a shared machine. It prints each model's median
load and first-call times, Kiln's ratio to ExecuTorch and their geometric
mean (the target: at most 1.0).

  .venv/bin/python bench/cold_start.py --models mobilenet_v2,bert --rounds 5
  .venv/bin/python bench/cold_start.py --work /tmp/cold --reuse   # the files made by an earlier run
  .venv/bin/python bench/cold_start.py --output bench/results/latest-cold-start.md

Needs the zoo's venv (torch, torchvision, transformers) and executorch.

Huge pages: `kiln run` gives a method's large blocks MADV_HUGEPAGE
(runtime/module/malloc_memory_allocator.h). Before weights were packed at
lowering (src/backends/onednn/aot/packing.h) they were copied into such blocks
at load, and a large model's load then depended on the kernel's memory state:
fresh 2 MiB pages that the kernel must compact for, or that a VM's host must
back again (free page reporting), took ResNeXt-50's load from 37 ms to 150-300
ms. Packed weights are read in place from the mapped file; only intermediates
get fresh memory.
"""
import argparse
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_MODELS = "mobilenet_v2,efficientnet_b0,resnet18,resnext50_32x4d,mnasnet1_0,shufflenet_v2_x1_0,bert,gpt2"


def prepare(name, directory, kiln):
    """Writes in.npz, model.pt2, kiln.pte and executorch.pte into `directory`."""
    import numpy as np
    import torch

    sys.path.insert(0, str(REPO / "tools" / "models"))
    import zoo
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = zoo.build(name)
    exported = torch.export.export(model, inputs)
    torch.export.save(exported, directory / "model.pt2")
    np.savez(directory / "in.npz", *[x.numpy() for x in inputs])
    program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
    with open(directory / "executorch.pte", "wb") as out:
        program.write_to_file(out)
    subprocess.run([kiln, "lower", str(directory / "model.pt2"), "--backend", "OneDnnBackend", "-o",
                    str(directory / "kiln.pte")], check=True, capture_output=True)
    (directory / "model.pt2").unlink()


def last_json(text):
    lines = [line for line in text.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def time_kiln(kiln, directory):
    done = subprocess.run([kiln, "run", str(directory / "kiln.pte"), "--inputs", str(directory / "in.npz"), "--json",
                           "--iterations", "1", "--warmup", "0", "--threads", "1"], capture_output=True, text=True)
    timings = last_json(done.stdout)
    if done.returncode != 0 or timings is None:
        raise RuntimeError(f"kiln run {directory}: {(done.stderr or done.stdout).strip()[-300:]}")
    return timings["load_ms"], timings["first_ms"]


def time_executorch(name, directory):
    out = directory / "executorch_out.npz"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "worker.py"), "executorch", str(directory), "--model",
                           name, "--threads", "1", "--runs", "1", "--warmup", "0", "--output", str(out)],
                          capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    out.unlink(missing_ok=True)
    timings = last_json(done.stdout)
    if done.returncode != 0 or timings is None:
        raise RuntimeError(f"ExecuTorch {directory}: {done.stderr.strip()[-300:]}")
    return timings["load_ms"], timings["first_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kiln", default=str(REPO / "build" / "bin" / "kiln"))
    parser.add_argument("--work", default="/tmp/kiln-cold-start")
    parser.add_argument("--reuse", action="store_true", help="keep the .pte files an earlier run made")
    parser.add_argument("--output", help="also write the table as markdown to this file")
    args = parser.parse_args()

    ratios, rows = [], []
    print(f"{'model':22s} {'Kiln load + first ms':>22s} {'ExecuTorch load + first ms':>28s} {'Kiln / ET':>10s}")
    for name in args.models.split(","):
        directory = pathlib.Path(args.work) / name
        if not (args.reuse and (directory / "kiln.pte").exists() and (directory / "executorch.pte").exists()):
            prepare(name, directory, args.kiln)
        runs = {"kiln": [], "executorch": []}
        for r in range(args.rounds):
            for runtime in (("kiln", "executorch") if r % 2 == 0 else ("executorch", "kiln")):
                time.sleep(0.2)  # the last process's memory returned
                runs[runtime].append(time_kiln(args.kiln, directory) if runtime == "kiln"
                                     else time_executorch(name, directory))
        kiln = [load + first for load, first in runs["kiln"]]
        et = [load + first for load, first in runs["executorch"]]
        ratio = statistics.median(kiln) / statistics.median(et)
        ratios.append(ratio)
        k_load, k_first = (statistics.median(x) for x in zip(*runs["kiln"]))
        e_load, e_first = (statistics.median(x) for x in zip(*runs["executorch"]))
        print(f"{name:22s} {k_load:9.1f} + {k_first:5.1f} = {statistics.median(kiln):6.1f}"
              f" {e_load:13.1f} + {e_first:5.1f} = {statistics.median(et):6.1f} {ratio:9.2f}x", flush=True)
        rows.append(f"| {name} | {k_load:.1f} | {k_first:.1f} | {statistics.median(kiln):.1f} | {e_load:.1f} | "
                    f"{e_first:.1f} | {statistics.median(et):.1f} | {ratio:.2f}x |")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean of Kiln / ExecuTorch: {geomean:.2f}x")
    if args.output:
        with open(args.output, "w") as out:
            out.write(f"# Cold start: load + first call, 1 thread, median of {args.rounds} fresh processes each\n\n"
                      f"`bench/cold_start.py --rounds {args.rounds}`, {time.strftime('%Y-%m-%d')}, "
                      f"{os.cpu_count()} CPUs.\n\n"
                      "| model | Kiln load ms | Kiln first call ms | Kiln total | ExecuTorch load ms | "
                      "ExecuTorch first call ms | ExecuTorch total | Kiln / ExecuTorch |\n"
                      "|---|---:|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) +
                      f"\n\nGeometric mean of Kiln / ExecuTorch: {geomean:.2f}x\n")


if __name__ == "__main__":
    main()
