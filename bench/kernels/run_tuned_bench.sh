#!/usr/bin/env bash
# The tuned kernels' benchmark beside the machine's own limits: one core's
# and two cores' read bandwidth (bench/llm/bandwidth.c) and one core's FMA
# peak (bench/peak/fma_peak.c), both built for this CPU, then
# kiln_tuned_bench (GEMV GB/s, GEMM GFLOP/s). Run by `make bench-tuned`.
#   bench/kernels/run_tuned_bench.sh BUILD_DIR [kiln_tuned_bench flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run_tuned_bench.sh BUILD_DIR [flags]}
shift
cc -O3 -march=native -pthread bench/llm/bandwidth.c -o "$build/bandwidth"
cc -O2 -march=native bench/peak/fma_peak.c -o "$build/fma_peak"
echo "## Machine"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- read bandwidth: $("$build/bandwidth" 1 512 5 | cut -d: -f2 | cut -d'(' -f1 | xargs) (1 thread)," \
     "$("$build/bandwidth" 2 512 5 | cut -d: -f2 | cut -d'(' -f1 | xargs) (2 threads)"
echo "- FMA peak: $("$build/fma_peak") GFLOP/s (1 core)"
echo
"$build/bin/kiln_tuned_bench" "$@"
