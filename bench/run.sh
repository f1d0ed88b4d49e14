#!/usr/bin/env bash
# Kiln against ExecuTorch (XNNPACK), ONNX Runtime and PyTorch eager on whole
# models: see bench/README.md. Every option goes to bench/bench.py
# (bench/run.sh --help lists them; --quick for a fast look, --int8 for the
# models quantized to int8).
#
# Environment:
#   VENV=DIR   the Python environment (default: the repository's .venv; made
#              by scripts/setup-venv.sh when it does not exist; another DIR
#              must exist already). bench/requirements.txt is installed into
#              it when onnxruntime, onnx, onnxscript or openvino is missing.
#   KILN=PATH  the kiln tool (default build/bin/kiln, built with
#              `cmake --build build --target kiln` when build/ is configured
#              and the tool is missing; nothing is built when --kiln PATH is
#              given).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-$repo/.venv}"

if [ ! -x "$venv/bin/python" ]; then
  if [ -n "${VENV:-}" ] && [ "$(cd "$(dirname "$venv")" 2>/dev/null && pwd)/$(basename "$venv")" != "$repo/.venv" ]; then
    echo "bench/run.sh: VENV=$venv has no bin/python (make it, or leave VENV unset for the repository's .venv)" >&2
    exit 2
  fi
  echo "bench/run.sh: no $venv: making it with scripts/setup-venv.sh (several GB, once)"
  bash "$repo/scripts/setup-venv.sh"
fi
if ! "$venv/bin/python" -c "import onnxruntime, onnx, onnxscript, openvino" 2>/dev/null; then
  echo "bench/run.sh: installing bench/requirements.txt into $venv"
  "$venv/bin/pip" install --quiet -r "$repo/bench/requirements.txt"
fi

kiln="${KILN:-$repo/build/bin/kiln}"
wants_kiln=1
args=" $* "
if [[ "$args" == *" --runtimes "* || "$args" == *" --runtimes="* ]] && [[ "$args" != *kiln* ]]; then wants_kiln=0; fi
# A tool named with --kiln is the one bench.py runs: build/bin/kiln is not needed.
if [[ "$args" == *" --kiln "* || "$args" == *" --kiln="* ]]; then wants_kiln=0; fi
if [ -z "${KILN:-}" ] && [ ! -x "$kiln" ] && [ "$wants_kiln" = 1 ]; then
  if [ ! -f "$repo/build/build.ninja" ]; then
    make -C "$repo" deps
    cmake -S "$repo" -B "$repo/build" -G Ninja -DKILN_DEPS_PREFIX="$repo/build/deps"
  fi
  cmake --build "$repo/build" -j "$(nproc)" --target kiln
fi

exec "$venv/bin/python" "$repo/bench/bench.py" --kiln "$kiln" "$@"
