#!/usr/bin/env bash
# Runs the kernel microbenchmarks of the portable kernels (kiln_kernel_bench)
# and torch's kernels on the same cases at one thread, and prints one table:
# op, shape, Kiln us, torch us, Kiln / torch (CPU time per call, median).
#
#   cmake -S . -B build -DKILN_BUILD_BENCH=ON && cmake --build build --target kiln_kernel_bench
#   bench/kernels/run_kernel_bench.sh [build dir] [case regex]
#
# PYTHON picks the interpreter with torch (default /work/main/.venv/bin/python
# if it exists, else python3); REPETITIONS the number of repeats (default 5).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
filter="${2:-.}"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  if [[ -x /work/main/.venv/bin/python ]]; then python=/work/main/.venv/bin/python; else python=python3; fi
fi
bench="$build/bin/kiln_kernel_bench"
if [[ ! -x "$bench" ]]; then
  echo "error: $bench not found: configure with -DKILN_BUILD_BENCH=ON and build the kiln_kernel_bench target first (it needs libbenchmark-dev)" >&2
  exit 1
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bench" --benchmark_filter="$filter" --benchmark_repetitions="${REPETITIONS:-5}" \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/kiln.json" --benchmark_out_format=json >&2
"$python" "$here/torch_kernels.py" --filter "$filter" --json "$out/torch.json" >&2
"$python" "$here/compare_kernels.py" "$out/kiln.json" "$out/torch.json"
