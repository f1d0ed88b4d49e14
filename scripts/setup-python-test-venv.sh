#!/usr/bin/env bash
# Makes the small virtual environment that builds and tests Kiln's Python
# package (python/): numpy, nanobind, scikit-build-core and pytest at the
# versions of python/requirements-test.txt, from PyPI. Never the big
# development venv (.venv/, torch; scripts/setup-venv.sh). Quick when done
# already: a stamp keeps the hash of the requirements and of the interpreter.
#
#   scripts/setup-python-test-venv.sh [DIR]     (default build/python-venv)
#
# PYTHON names the interpreter to base it on (default python3, 3.10 or newer).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/python-venv}
python=${PYTHON:-python3}
requirements=$root/python/requirements-test.txt

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "setup-python-test-venv: $python is not Python 3.10 or newer" >&2
  exit 1
fi
hash=$({ cat "$requirements"; "$python" -c 'import sys; print(sys.executable, sys.version)'; } | sha256sum | cut -c1-16)
stamp=$dir/.kiln-requirements-$hash
if [ -f "$stamp" ] && [ -x "$dir/bin/python" ]; then
  exit 0
fi

echo "setup-python-test-venv: $dir ($("$python" --version), python/requirements-test.txt)"
rm -rf "$dir"
if ! "$python" -m venv "$dir"; then
  echo "setup-python-test-venv: '$python -m venv' failed; on Debian run \`bash scripts/install-deps.sh\` (python3-venv)" >&2
  rm -rf "$dir"
  exit 1
fi
PIP_DISABLE_PIP_VERSION_CHECK=1 "$dir/bin/python" -m pip install --quiet -r "$requirements"
touch "$stamp"
