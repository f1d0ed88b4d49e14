"""Kiln against its peers on whole models (issue #11's benchmark).

For each model: prepare.py makes the input, PyTorch's reference output, the
FLOP count and each runtime's lowered file; then for each thread count every
runtime runs in a process of its own (measure.py) and report.py makes the
tables, printed and written to results/latest.md. Run it through run.sh,
which sets up the Python environment and the kiln tool. With --int8 the
rows are the models' int8 versions (PT2E-quantized for Kiln, ExecuTorch and
PyTorch; ONNX Runtime's own quantization for it and OpenVINO). See README.md.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

import models
import measure
import prepare
import report

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RUNTIMES = ("kiln", "executorch", "ort", "openvino", "eager")


def log(message):
    print(message, flush=True)


def comma_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="bench/run.sh", description="Kiln against ExecuTorch (XNNPACK), ONNX "
                                     "Runtime and PyTorch eager on whole models.")
    parser.add_argument("--models", default=None,
                        help=f"comma-separated, from {', '.join(models.names())} (default: all four)")
    parser.add_argument("--zoo", nargs="?", const="all", default=None, metavar="NAMES",
                        help="the model zoo's models instead (tools/models/zoo.py: torchvision's and small Hugging "
                        "Face configs, built, weighted and fed as the zoo check does): comma-separated names, "
                        "or every zoo model when none are given (hours on two cores)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default: 1,2)")
    parser.add_argument("--runtimes", default=",".join(RUNTIMES), help=f"comma-separated subset of {', '.join(RUNTIMES)}")
    parser.add_argument("--runs", type=int, default=50, help="timed calls per row (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before them (default 5)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each model's rows this many times, the runtimes taking turns in each round, "
                        "and keep each row's median round (default 1): where the machine's speed drifts (a VM "
                        "whose host is busy), a slow spell then falls on every runtime rather than on one")
    parser.add_argument("--quick", action="store_true", help="5 runs after 1 warm-up: for development, not numbers")
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="an output passes when max |out - PyTorch| <= TOL * max(1, max |PyTorch|) (default 1e-3)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds before a row's process is killed")
    parser.add_argument("--int8", action="store_true",
                        help="int8 rows instead of float32: resnet18 and mobilenet_v2 quantized statically, encoder "
                        "and vit_b_16 dynamically (PT2E with XNNPACKQuantizer for Kiln, ExecuTorch and PyTorch; "
                        "ONNX Runtime's quantize_static (QDQ) or quantize_dynamic for ONNX Runtime and OpenVINO); "
                        "checked against PyTorch's int8 output. Not with --zoo")
    parser.add_argument("--int8-tolerance", type=float, default=measure.INT8_TOLERANCE,
                        help="an int8 output passes when max |out - PyTorch int8| <= TOL * max |PyTorch int8| "
                        "(default 0.1: int8 noise is a few percent of the range on these models, a wrong "
                        "lowering all of it)")
    parser.add_argument("--kiln-portable", action="store_true",
                        help="lower Kiln's programs to the portable kernels only (no --backend OneDnnBackend)")
    parser.add_argument("--kiln", default=os.path.join(REPO, "build", "bin", "kiln"), help="the kiln tool")
    parser.add_argument("--work", default=os.path.join(HERE, "work"), help="where the models' files go")
    parser.add_argument("--output", default=None,
                        help="the markdown tables (default results/latest.md, results/latest-int8.md with --int8)")
    args = parser.parse_args(argv)
    if args.output is None:
        args.output = os.path.join(HERE, "results", "latest-int8.md" if args.int8 else "latest.md")
    if args.zoo is not None and args.models is not None:
        parser.error("--zoo names its own models: give them to --zoo, not --models")
    if args.zoo is not None and args.int8:
        parser.error("--int8 takes the models of --models (the zoo's have no quantization set up)")
    if args.zoo is not None:
        args.models = models.zoo_names() if args.zoo == "all" else comma_list(args.zoo)
        unknown = [name for name in args.models if name not in models.zoo_names()]
        if unknown:
            parser.error(f"not in the zoo: {', '.join(unknown)} (tools/models/zoo.py lists its models)")
    else:
        args.models = comma_list(args.models) if args.models is not None else models.names()
    for name in args.models:
        models.check_name(name)
    args.threads = [int(t) for t in comma_list(args.threads)]
    if not args.threads or min(args.threads) < 1:
        parser.error("--threads needs positive integers")
    args.runtimes = comma_list(args.runtimes)
    for runtime in args.runtimes:
        if runtime not in RUNTIMES:
            parser.error(f"unknown runtime '{runtime}' (known: {', '.join(RUNTIMES)})")
    if args.quick:
        args.runs, args.warmup = 5, 1
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be at least 1 and --warmup at least 0")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def versions():
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("torch", "torchvision", "torchao", "executorch", "onnxruntime", "openvino"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "missing"
    return found


def machine():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def kiln_commit():
    done = subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":!bench/results"],
                           capture_output=True, text=True).stdout.strip()
    return done.stdout.strip()[:90] + (" (+ uncommitted changes)" if dirty else "")


def measure_peak_gflops(work_dir):
    """One core's FP32 FMA peak on this machine, measured by bench/peak/fma_peak.c
    built for it (-march=native); None, with a warning, when no C compiler builds it."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peak", "fma_peak.c")
    binary = os.path.join(work_dir, "fma_peak")
    os.makedirs(work_dir, exist_ok=True)
    compiler = os.environ.get("CC", "cc")
    try:
        subprocess.run([compiler, "-O2", "-march=native", "-o", binary, source], check=True, capture_output=True)
        out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
        return float(out.strip())
    except (OSError, subprocess.CalledProcessError, ValueError) as error:
        log(f"warning: could not measure the FMA peak ({error}); the % peak column stays empty")
        return None


def precision_line(args):
    """What the rows run: float32, or int8 and how it is checked."""
    if not args.int8:
        return "float32"
    return ("int8: PT2E (XNNPACKQuantizer, per-channel symmetric int8 weights; activations static for the CNNs, "
            f"calibrated on {models.CALIBRATION_BATCHES} random batches, dynamic for the transformers) for Kiln, "
            "ExecuTorch and PyTorch; ONNX Runtime's quantize_static (QDQ, uint8 activations, per-channel int8 "
            "weights, the same batches) or quantize_dynamic for ONNX Runtime and OpenVINO. A check passes when "
            f"max |out - PyTorch int8| <= {args.int8_tolerance:g} * max |PyTorch int8|")


def header_lines(args, load_before, load_after, started, took_s, peak_gflops):
    v = versions()
    return [
        "# Kiln against its peers",
        "",
        f"Measured {started:%Y-%m-%d %H:%M} UTC in {took_s / 60:.1f} min by `bench/run.sh` "
        f"(`{' '.join(sys.argv[1:]) or 'no options'}`) on {machine()}.",
        f"Kiln at `{kiln_commit()}`; torch {v['torch']}, torchvision {v['torchvision']}, torchao {v['torchao']}, "
        f"ExecuTorch {v['executorch']}, ONNX Runtime {v['onnxruntime']}, OpenVINO {v['openvino']}.",
        f"Median of {args.runs} timed calls after {args.warmup} warm-up calls per row"
        + (f" (each row the median of {args.rounds} rounds in which the runtimes took turns)" if args.rounds > 1 else "")
        + ", batch 1, "
        f"{precision_line(args)}. "
        f"Load average (1 min) {load_before:.2f} before, {load_after:.2f} after (the benchmark's own threads "
        "raise the second): "
        + ("**the machine was busy before it started: the numbers are noisy**." if load_before > 0.5
           else "the machine was quiet when it started."),
        ("" if args.int8 else  # the int8 tables have no % peak
         f"% peak is against {peak_gflops:.0f} GFLOP/s per thread (one core's FP32 FMA peak, measured at the start "
         "by bench/peak/fma_peak.c). " if peak_gflops else "% peak: not measured (no C compiler). ")
        + ("" if args.int8 else
           f"A check passes when max |out - PyTorch| <= {args.tolerance:g} * max(1, max |PyTorch|). ")
        + "Columns: bench/README.md.",
    ]


def median_round(rounds):
    """The row of the round whose median is the median over the rounds (the
    lower one of an even count), all its columns from that one process; a
    row that failed in any round stands for them all (the failure is the
    news). Its note lists every round's median."""
    failed = [row for row in rounds if row.error or row.median_ms is None or not row.passed]
    if failed or len(rounds) == 1:
        return failed[0] if failed else rounds[0]
    ordered = sorted(rounds, key=lambda row: row.median_ms)
    chosen = ordered[(len(ordered) - 1) // 2]
    spread = ", ".join(report.fmt(row.median_ms) for row in rounds)
    chosen.note = "; ".join(filter(None, [chosen.note, f"median round of {len(rounds)}: {spread} ms"]))
    return chosen


def run(args):
    started = datetime.datetime.now(datetime.timezone.utc)
    start = time.monotonic()
    load_before = os.getloadavg()[0]
    if "kiln" in args.runtimes and not os.access(args.kiln, os.X_OK):
        raise SystemExit(f"no kiln tool at {args.kiln}: build it (cmake --build build --target kiln) or pass --kiln")
    options = argparse.Namespace(kiln=args.kiln, runs=args.runs, warmup=args.warmup, tolerance=args.tolerance,
                                 int8_tolerance=args.int8_tolerance, timeout_s=args.timeout)
    peak_gflops = measure_peak_gflops(args.work)
    if peak_gflops:
        log(f"one core's FP32 FMA peak: {peak_gflops:.0f} GFLOP/s")
    rows, flops, quantized = [], {}, {}
    for name in args.models:
        log(f"{models.label(name)}: preparing{' int8' if args.int8 else ''}")
        prepared = prepare.prepare(name, args.work, args.kiln, args.runtimes, log,
                                   None if args.kiln_portable else prepare.ONEDNN, args.int8)
        flops[name] = prepared.flops
        if args.int8:
            quantized[name] = {"quantization": prepared.quantization, "reference_error": prepared.reference_error}
        for threads in args.threads:
            rounds = {runtime: [] for runtime in args.runtimes}
            for turn in range(args.rounds):
                for runtime in args.runtimes:
                    row = measure.measure(runtime, prepared, threads, options)
                    rounds[runtime].append(row)
                    result = row.error or f"{report.fmt(row.median_ms)} ms, " + ("pass" if row.passed else "FAIL")
                    where = f" (round {turn + 1} of {args.rounds})" if args.rounds > 1 else ""
                    log(f"  {threads} thread{'s' if threads > 1 else ''} {report.NAMES[runtime]}{where}: {result}")
            rows.extend(median_round(rounds[runtime]) for runtime in args.runtimes)
    took = time.monotonic() - start
    text = "\n".join(header_lines(args, load_before, os.getloadavg()[0], started, took, peak_gflops)) + "\n\n"
    if args.int8:
        text += "## Summary (int8)\n\n" + report.int8_summary_table(rows, args.models, args.threads, quantized)
        text += "\n\n## Files and errors (int8)\n\n" + report.int8_files_table(rows, args.models, quantized) + "\n\n"
        text += "## Every row (int8)\n\n" + report.int8_detail_table(rows) + "\n"
    else:
        text += "## Summary\n\n" + report.summary_table(rows, args.models, args.threads) + "\n\n"
        text += "## Every row\n\n" + report.detail_table(rows, flops, peak_gflops) + "\n"
    print("\n" + text)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as out:
        out.write(text)
    with open(os.path.join(args.work, "results-int8.json" if args.int8 else "results.json"), "w") as out:
        json.dump({"flops": flops, "int8": quantized or None, "rows": [r.as_dict() for r in rows]}, out, indent=1)
    log(f"wrote {args.output}")


def main():
    run(parse_args(sys.argv[1:]))


if __name__ == "__main__":
    main()
