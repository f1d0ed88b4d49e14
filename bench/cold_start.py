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

Needs the zoo's venv (torch, torchvision, transformers) and executorch.

Huge pages: `kiln run` gives a method's large blocks MADV_HUGEPAGE
(runtime/module/malloc_memory_allocator.h). Where the kernel must compact
memory to find 2 MiB pages (/proc/vmstat compact_stall rising during the
run), a large model's load pays for it: ResNeXt-101 32x8d (350 MB of weights)
took 888 ms of CPU to load with the advice and 254 ms without it in one
interleaved run, and 170 ms with the advice when no compaction was needed.
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
    args = parser.parse_args()

    ratios = []
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
    print(f"geometric mean of Kiln / ExecuTorch: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}x")


if __name__ == "__main__":
    main()
