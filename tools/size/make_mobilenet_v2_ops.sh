#!/usr/bin/env bash
# Writes tools/size/mobilenet_v2.ops, the op list of the MobileNetV2-only
# runtime `make size` measures: torchvision's MobileNetV2 (random weights,
# eval mode, a 1x3x224x224 input) exported with torch.export, lowered to the
# portable kernels by `kiln lower`, its operators listed by `kiln ops --used`.
# Keeps the .pte in WORK_DIR (to run it: tools/size/size.sh --run WORK_DIR/mobilenet_v2.pte).
# Usage: tools/size/make_mobilenet_v2_ops.sh PYTHON KILN [WORK_DIR]
#   PYTHON  a Python with torch and torchvision (the venv of scripts/setup-venv.sh)
#   KILN    the kiln tool of a full build (build/bin/kiln)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${1:?usage: make_mobilenet_v2_ops.sh PYTHON KILN [WORK_DIR]}
kiln=${2:?usage: make_mobilenet_v2_ops.sh PYTHON KILN [WORK_DIR]}
work=${3:-$root/build-size/mobilenet_v2}
mkdir -p "$work"
"$python" - "$work/mobilenet_v2.pt2" <<'PY'
import sys
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.mobilenet_v2().eval()
program = torch.export.export(model, (torch.randn(1, 3, 224, 224),))
torch.export.save(program, sys.argv[1])
PY
"$kiln" lower "$work/mobilenet_v2.pt2" -o "$work/mobilenet_v2.pte"
"$kiln" ops --used "$work/mobilenet_v2.pte" -o "$root/tools/size/mobilenet_v2.ops"
