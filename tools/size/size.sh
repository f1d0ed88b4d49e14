#!/usr/bin/env bash
# Builds the minimal runtime apps MinSizeRel (sections garbage-collected) and
# prints their stripped sizes. Usage: tools/size/size.sh [BUILD_DIR] (default build-size).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/build-size}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_AOT=OFF -DKILN_BUILD_BENCH=ON "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-ffunction-sections -fdata-sections" >/dev/null
cmake --build "$dir" -j "${JOBS:-2}" --target kiln_size_minimal kiln_size_portable
echo
echo "stripped sizes (MinSizeRel, -ffunction-sections -fdata-sections, --gc-sections; libc/libstdc++ shared):"
for app in kiln_size_minimal kiln_size_portable; do
  strip -o "$dir/bin/$app.stripped" "$dir/bin/$app"
  bytes=$(stat -c %s "$dir/bin/$app.stripped")
  awk -v app="$app" -v bytes="$bytes" 'BEGIN { printf "  %-20s %8d bytes (%.1f KB)\n", app, bytes, bytes / 1024 }'
done
echo
size "$dir/bin/kiln_size_minimal.stripped" "$dir/bin/kiln_size_portable.stripped"
echo "  (kiln_size_minimal: runtime core + executor + buffer loader, no kernels;"
echo "   kiln_size_portable: the same plus every portable kernel)"
