#!/usr/bin/env bash
# Stripped sizes of Kiln's runtime (`make size`), as a Markdown table: the
# minimal app (tools/size/minimal_app.cpp: read a .pte, load 'forward' into
# static pools, execute) built MinSizeRel with every function and datum in a
# section of its own and unused sections dropped by the linker, linked with
#   - the runtime core, executor and buffer loader alone (no kernels),
#   - every portable and prim kernel (the full runtime),
#   - only the kernels MobileNetV2 calls (selective build from
#     tools/size/mobilenet_v2.ops),
# and the `kiln` tool when the build directory makes one (a runtime-only
# tree that builds the device tool), plus any binary given with --binary.
#
# Usage: tools/size/size.sh [--toolchain FILE] [--binary LABEL=PATH]... [--run MODEL.pte] [BUILD_DIR]
#   BUILD_DIR          where to build (default build-size; configured here:
#                      runtime only, no tests, no oneDNN)
#   --toolchain FILE   cross-build with this CMake toolchain file, e.g.
#                      cmake/aarch64-linux-gnu.cmake (stripped with its strip)
#   --binary LABEL=PATH  also measure an existing binary (stripped copy), e.g.
#                      "kiln (full build)=build/bin/kiln"
#   --run MODEL.pte    also run the full and the MobileNetV2-only apps on a
#                      program (under the toolchain's emulator when cross-built)
#                      and print what each says
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=
toolchain=
run_pte=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --toolchain) toolchain=$(realpath "${2:?--toolchain needs a file}"); shift 2 ;;
    --binary) extra+=("${2:?--binary needs LABEL=PATH}"); shift 2 ;;
    --run) run_pte=$(realpath "${2:?--run needs a .pte file}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "size.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "size.sh: one build directory, got '$dir' and '$1'" >&2; exit 2; }; dir=$1; shift ;;
  esac
done
dir=${dir:-$root/build-size}
for entry in "${extra[@]+"${extra[@]}"}"; do
  path=${entry#*=}
  if [ "$path" = "$entry" ] || [ ! -f "$path" ]; then
    echo "size.sh: --binary '$entry': expected LABEL=PATH of an existing file" >&2
    exit 2
  fi
done

configure=(-DCMAKE_BUILD_TYPE=MinSizeRel -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_AOT=OFF -DKILN_BUILD_BENCH=ON
           -DKILN_WITH_ONEDNN=OFF "-DCMAKE_CXX_FLAGS=-ffunction-sections -fdata-sections")
if [ -n "$toolchain" ]; then configure+=("-DCMAKE_TOOLCHAIN_FILE=$toolchain"); fi
cmake -S "$root" -B "$dir" -G Ninja "${configure[@]}" >/dev/null
targets=(kiln_size_minimal kiln_size_portable kiln_size_mobilenet_v2)
if ninja -C "$dir" -t targets all | grep -q '^kiln: '; then targets+=(kiln); fi
cmake --build "$dir" -j "${JOBS:-2}" --target "${targets[@]}"

strip_tool=$(sed -n 's/^CMAKE_STRIP:[A-Z]*=//p' "$dir/CMakeCache.txt")
strip_tool=${strip_tool:-strip}
size_tool=$(dirname "$strip_tool")/$(basename "$strip_tool" | sed 's/strip$/size/')
# tools/size/CMakeLists.txt: the target processor, the compiler, the emulator.
{ read -r arch; read -r compiler; read -r emulator || true; } < "$dir/size-info.txt"
count_ops() { grep -cv '^[[:space:]]*\(#\|$\)' "$1" || true; }
kernels=$(( $(grep -c '^KILN_' "$root/src/kernels/portable/portable_kernels.def") + \
            $(grep -c '^KILN_' "$root/src/kernels/prim/prim_kernels.def") ))

# row LABEL PATH: a stripped copy's file size, and its code and data (text +
# data, without the file's padding between segments: aarch64's linker aligns
# them to 64 KiB pages).
rows=()
row() {
  local label="$1" path="$2" stripped="$dir/size-stripped/$(basename "$2")"
  mkdir -p "$dir/size-stripped"
  "$strip_tool" -o "$stripped" "$path"
  local loaded
  loaded=$("$size_tool" "$stripped" | awk 'NR == 2 { print $1 + $2 }')
  rows+=("$(stat -c %s "$stripped")|$loaded|$label")
}
row "runtime alone: core, executor, buffer loader; no kernels" "$dir/bin/kiln_size_minimal"
row "full runtime: every kernel ($kernels portable and prim)" "$dir/bin/kiln_size_portable"
row "MobileNetV2-only runtime: its $(count_ops "$root/tools/size/mobilenet_v2.ops") kernels (selective build)" \
  "$dir/bin/kiln_size_mobilenet_v2"
if [ -f "$dir/bin/kiln" ]; then row "kiln tool of this runtime-only build" "$dir/bin/kiln"; fi
for entry in "${extra[@]+"${extra[@]}"}"; do row "${entry%%=*}" "${entry#*=}"; done

echo
echo "Stripped sizes, $arch ($compiler, MinSizeRel, -ffunction-sections" \
     "-fdata-sections, --gc-sections; libc and libstdc++ shared):"
echo
echo "| $arch, stripped | file bytes | KiB | text + data bytes |"
echo "|---|---:|---:|---:|"
for r in "${rows[@]}"; do
  IFS='|' read -r bytes loaded label <<<"$r"
  awk -v bytes="$bytes" -v loaded="$loaded" -v label="$label" \
    'BEGIN { printf "| %s | %d | %.1f | %d |\n", label, bytes, bytes / 1024, loaded }'
done

full=$(stat -c %s "$dir/size-stripped/kiln_size_portable")
selected=$(stat -c %s "$dir/size-stripped/kiln_size_mobilenet_v2")
if [ "$selected" -ge "$full" ]; then
  echo "size.sh: the MobileNetV2-only runtime ($selected bytes) is not smaller than the full one ($full):" \
       "selective build did not let the linker drop the other kernels" >&2
  exit 1
fi

if [ -n "$run_pte" ]; then
  echo
  for app in kiln_size_portable kiln_size_mobilenet_v2; do
    printf '%s %s: ' "$app" "$(basename "$run_pte")"
    # shellcheck disable=SC2086  # the emulator is a command with arguments
    $emulator "$dir/bin/$app" "$run_pte" 2>&1 | tail -n 3 | tr '\n' ' ' || true
    echo
  done
fi
