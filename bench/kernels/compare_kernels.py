"""Prints one markdown table from kiln_kernel_bench's JSON (Google Benchmark,
with repetitions) and torch_kernels.py's JSON: op, shape, Kiln us, torch us,
Kiln / torch. Kiln's time is the median over repetitions of the CPU time per
iteration.

  python compare_kernels.py kiln.json torch.json
"""
import json
import sys


def kiln_times(path):
    with open(path) as f:
        report = json.load(f)
    times, plain = {}, {}
    for b in report["benchmarks"]:
        if b.get("error_occurred"):
            times[b["run_name"]] = None
            continue
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
        if b.get("run_type") == "aggregate":
            if b["aggregate_name"] == "median":
                times[b["run_name"]] = b["cpu_time"] * scale
        else:  # no repetitions: one run per case
            plain[b["run_name"]] = b["cpu_time"] * scale
    return times or plain


def main():
    kiln = kiln_times(sys.argv[1])
    with open(sys.argv[2]) as f:
        torch = json.load(f)["us"]
    print("| op | shape | Kiln us | torch us | Kiln / torch |")
    print("|---|---|---:|---:|---:|")
    for name in list(kiln) + [n for n in torch if n not in kiln]:
        op, shape = name.split("/", 1)
        k, t = kiln.get(name), torch.get(name)
        ratio = f"{k / t:.2f}" if k and t else "-"
        fmt = lambda v: "-" if v is None else f"{v:.1f}"
        print(f"| {op} | {shape} | {fmt(k)} | {fmt(t)} | {ratio} |")


if __name__ == "__main__":
    main()
