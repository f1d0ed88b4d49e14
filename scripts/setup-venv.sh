#!/usr/bin/env bash
# Makes .venv/ with the Python packages that fixture generation and the
# ExecuTorch interop check (tests/interop/) need: torch, torchvision, executorch
# (from PyPI: several GB, install once per machine; never in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet -r tools/fixtures/requirements.txt
.venv/bin/python -c "
import torch, torchvision, executorch.exir, executorch.runtime
from importlib.metadata import version
print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'executorch', version('executorch'))"
