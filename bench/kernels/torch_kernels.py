"""Times torch's CPU kernels on the cases of kiln_kernel_bench (same names, shapes
and input ranges), at one thread, through the same out-variants the portable
kernels implement (torch.ops.aten.<op>.out: ~1.5 us of Python dispatch per call
on top of the kernel).

Times are CPU time of the process per call (median of repeats), like Google
Benchmark's "CPU" column: on a machine shared with other jobs, wall time mostly
measures the others.

  /work/main/.venv/bin/python bench/kernels/torch_kernels.py [--json out.json] [--filter REGEX]
"""
import argparse
import json
import re
import statistics
import time

import torch

aten = torch.ops.aten


def uniform(sizes, low, high, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(sizes, generator=g) * (high - low) + low


def unary(op, sizes, low, high):
    x = uniform(sizes, low, high)
    y = torch.empty(sizes)
    return lambda: op(x, out=y)


def softmax(op, sizes):
    x = uniform(sizes, -8, 8)
    y = torch.empty(sizes)
    return lambda: op(x, -1, False, out=y)


def gelu(approximate, sizes):
    x = uniform(sizes, -6, 6)
    y = torch.empty(sizes)
    return lambda: aten.gelu.out(x, approximate=approximate, out=y)


def elu(sizes):
    x = uniform(sizes, -6, 6)
    y = torch.empty(sizes)
    return lambda: aten.elu.out(x, 1.0, 1.0, 1.0, out=y)


def layer_norm(rows, width):
    x = uniform([rows, width], -3, 3)
    w = uniform([width], 0.5, 1.5, 2)
    b = uniform([width], -0.5, 0.5, 3)
    y, mean, rstd = torch.empty(rows, width), torch.empty(rows, 1), torch.empty(rows, 1)
    return lambda: aten.native_layer_norm.out(x, [width], w, b, 1e-5, out0=y, out1=mean, out2=rstd)


def binary(op, sizes, other):
    a = uniform(sizes, -1, 1)
    b = uniform(other, -1, 1, 2)
    y = torch.empty(sizes)
    return lambda: op(a, b, out=y)


def mean_hw(sizes):
    x = uniform(sizes, -1, 1)
    y = torch.empty(sizes[0], sizes[1], 1, 1)
    return lambda: aten.mean.out(x, [2, 3], True, out=y)


def rfft(sizes, dims):
    x = uniform(sizes, -1, 1)
    y = torch.empty(0, dtype=torch.complex64)
    return lambda: aten._fft_r2c.out(x, dims, 0, True, out=y)


def irfft(rows, n):
    x = torch.complex(uniform([rows, n // 2 + 1], -1, 1), uniform([rows, n // 2 + 1], -1, 1, 2))
    y = torch.empty(rows, n)
    return lambda: aten._fft_c2r.out(x, [1], 2, n, out=y)


MILLION = [1024, 1024]
CASES = {
    "softmax/1x4x128x128": lambda: softmax(aten._softmax.out, [1, 4, 128, 128]),
    "log_softmax/1x4x128x128": lambda: softmax(aten._log_softmax.out, [1, 4, 128, 128]),
    "gelu/1024x1024": lambda: gelu("none", MILLION),
    "gelu_tanh/1024x1024": lambda: gelu("tanh", MILLION),
    "silu/1024x1024": lambda: unary(aten.silu.out, MILLION, -6, 6),
    "sigmoid/1024x1024": lambda: unary(aten.sigmoid.out, MILLION, -6, 6),
    "tanh/1024x1024": lambda: unary(aten.tanh.out, MILLION, -6, 6),
    "exp/1024x1024": lambda: unary(aten.exp.out, MILLION, -10, 10),
    "erf/1024x1024": lambda: unary(aten.erf.out, MILLION, -4, 4),
    "elu/1024x1024": lambda: elu(MILLION),
    "layer_norm/128x256": lambda: layer_norm(128, 256),
    "add_bcast/1x64x56x56+1x64x1x1": lambda: binary(aten.add.out, [1, 64, 56, 56], [1, 64, 1, 1]),
    "add/1x64x56x56+1x64x56x56": lambda: binary(aten.add.out, [1, 64, 56, 56], [1, 64, 56, 56]),
    "mul_bcast/8x128x256*256": lambda: binary(aten.mul.out, [8, 128, 256], [256]),
    "mean_hw/1x512x7x7": lambda: mean_hw([1, 512, 7, 7]),
    "mean_hw/1x256x56x56": lambda: mean_hw([1, 256, 56, 56]),
    "rfft/64x1024": lambda: rfft([64, 1024], [1]),
    "irfft/64x1024": lambda: irfft(64, 1024),
    "rfft2/16x64x64": lambda: rfft([16, 64, 64], [1, 2]),
    "rfft_odd/64x1000": lambda: rfft([64, 1000], [1]),
}


def cpu_us_per_call(fn, min_seconds=0.2, repeats=5):
    for _ in range(3):
        fn()
    iterations = 1
    while True:  # grow the batch until one batch takes min_seconds of CPU
        start = time.process_time()
        for _ in range(iterations):
            fn()
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            break
        iterations *= 2 if elapsed <= 0 else max(2, min(10, int(min_seconds / elapsed * 1.2) + 1))
    samples = [elapsed / iterations]
    for _ in range(repeats - 1):
        start = time.process_time()
        for _ in range(iterations):
            fn()
        samples.append((time.process_time() - start) / iterations)
    return statistics.median(samples) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write {case: microseconds} here")
    parser.add_argument("--filter", default="", help="only cases matching this regex")
    parser.add_argument("--min-seconds", type=float, default=0.2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    results = {}
    for name, make in CASES.items():
        if not re.search(args.filter, name):
            continue
        results[name] = cpu_us_per_call(make(), args.min_seconds)
        print(f"{name:40s} {results[name]:12.1f} us", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "threads": 1, "us": results}, f, indent=1)


if __name__ == "__main__":
    main()
