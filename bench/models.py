"""The benchmark's models, in plain PyTorch, with fixed-seed random weights.

Each model is built by a function of no arguments; `build(name)` seeds torch's
generator first, so every process that builds a model gets the same weights.
`example_inputs(name)` are the inputs every runtime is given (batch 1,
from their own fixed seed); `calibration_inputs(name)` the few batches the
int8 rows calibrate on (another fixed seed), and `quantization(name)` how
those rows quantize the model (static for the CNNs, dynamic for the
transformers). The zoo's models (tools/models/zoo.py, for
`bench/run.sh --zoo`) are built, weighted and fed as the zoo does. `count_flops` counts a forward pass once
with torch's FlopCounterMode (multiply and add are two FLOPs; only the ops
that FlopCounterMode knows -- convolutions, matmuls, attention -- are counted,
which is where nearly all the arithmetic of these models is).
"""
import torch
import torch.nn as nn
import torchvision

WEIGHT_SEED = 0
INPUT_SEED = 1
CALIBRATION_SEED = 2
CALIBRATION_BATCHES = 4


def resnet18():
    return torchvision.models.resnet18(weights=None)


def mobilenet_v2():
    return torchvision.models.mobilenet_v2(weights=None)


class Encoder(nn.Module):
    """4 layers of nn.TransformerEncoderLayer: hidden 256, 4 heads, FFN 1024,
    batch-first, no dropout; the input is (batch, 128, 256)."""

    def __init__(self, layers=4, hidden=256, heads=4, ffn=1024):
        super().__init__()
        layer = nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=ffn, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def encoder():
    return Encoder()


def vit_b_16():
    return torchvision.models.vit_b_16(weights=None)


# name -> (builder, input shape, label printed in the table, int8 quantization:
# "static" (weights and activations, calibrated) or "dynamic" (int8 weights,
# activations quantized per call))
MODELS = {
    "resnet18": (resnet18, (1, 3, 224, 224), "ResNet-18", "static"),
    "mobilenet_v2": (mobilenet_v2, (1, 3, 224, 224), "MobileNetV2", "static"),
    "encoder": (encoder, (1, 128, 256), "encoder", "dynamic"),
    "vit_b_16": (vit_b_16, (1, 3, 224, 224), "ViT-B/16", "dynamic"),
}


def names():
    return list(MODELS)


# ---- the model zoo (tools/models/zoo.py): bench/run.sh --zoo

def _zoo():
    import importlib.util
    import os
    import sys

    if "kiln_zoo" not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "models", "zoo.py")
        spec = importlib.util.spec_from_file_location("kiln_zoo", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["kiln_zoo"] = module
        spec.loader.exec_module(module)
    return sys.modules["kiln_zoo"]


def zoo_names():
    """Every model of the zoo, in its order."""
    zoo = _zoo()
    return zoo.CLASSIFICATION + zoo.SEGMENTATION + zoo.VIDEO + zoo.TRANSFORMERS + zoo.MORE


def is_zoo(name):
    return name not in MODELS


def label(name):
    return MODELS[name][2] if name in MODELS else name


def check_name(name):
    if name not in MODELS and name not in zoo_names():
        raise SystemExit(f"unknown model '{name}' (known: {', '.join(MODELS)}, and the zoo's with --zoo)")


def randomize_norms_and_heads(model):
    """Gives the layers torchvision initialises to constants random values,
    so that outputs depend on every weight and a wrong lowering shows:
    batch norms get random scale, shift and running statistics (an identity
    batch norm would hide a wrong fold into the convolution), layer norms a
    random scale and shift, and a linear layer initialised to zeros (ViT's
    head) small random weights. Without this, MobileNetV2's outputs are
    ~1e-9 and ViT-B/16's are all zeros, and any runtime would pass the check."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
                module.running_mean.normal_(0.0, 0.1)
                module.running_var.uniform_(0.5, 1.5)
            elif isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
            elif isinstance(module, nn.Linear) and not module.weight.any():
                module.weight.normal_(0.0, 0.02)
                if module.bias is not None:
                    module.bias.normal_(0.0, 0.02)
    return model


def build(name):
    """The model in eval mode, its weights drawn from WEIGHT_SEED (a zoo
    model's as the zoo draws them)."""
    check_name(name)
    if is_zoo(name):
        return _zoo().build(name)[0]
    torch.manual_seed(WEIGHT_SEED)
    model = randomize_norms_and_heads(MODELS[name][0]())
    return model.eval()


def build_empty(name):
    """The model's structure on the meta device (no weights drawn): a
    state_dict is then loaded into it with assign=True."""
    check_name(name)
    if is_zoo(name):
        return build(name)  # the zoo draws its weights itself; the state_dict replaces them
    with torch.device("meta"):
        model = MODELS[name][0]()
    return model.eval()


def build_with_inputs(name):
    """(the model as build() makes it, its inputs as example_inputs() makes them),
    a zoo model built once."""
    if is_zoo(name):
        check_name(name)
        model, inputs = _zoo().build(name)
        return model, tuple(inputs)
    return build(name), example_inputs(name)


def example_inputs(name):
    """The inputs every runtime is given, as a tuple."""
    check_name(name)
    if is_zoo(name):
        return tuple(_zoo().build(name)[1])
    generator = torch.Generator().manual_seed(INPUT_SEED)
    return (torch.randn(MODELS[name][1], generator=generator),)


def calibration_inputs(name, count=CALIBRATION_BATCHES):
    """The batches the int8 rows calibrate on: `count` input tuples shaped
    as example_inputs(name)'s, drawn from CALIBRATION_SEED (not the
    measured input)."""
    check_name(name)
    if is_zoo(name):
        raise ValueError(f"no calibration inputs for the zoo model '{name}': the int8 rows take models.py's models")
    return calibration_batches([MODELS[name][1]], count)


def calibration_batches(shapes, count=CALIBRATION_BATCHES):
    """`count` input tuples of float tensors of these shapes, drawn from
    CALIBRATION_SEED: the batches any model's static int8 version is
    calibrated on (tools/models/zoo.py --int8 passes its inputs' shapes)."""
    generator = torch.Generator().manual_seed(CALIBRATION_SEED)
    return [tuple(torch.randn(shape, generator=generator) for shape in shapes) for _ in range(count)]


def quantization(name):
    """How the int8 rows quantize model `name`: "static" or "dynamic"."""
    check_name(name)
    if is_zoo(name):
        raise ValueError(f"no int8 scheme for the zoo model '{name}': the int8 rows take models.py's models")
    return MODELS[name][3]


def count_flops(model, inputs):
    """FLOPs of one forward pass (FlopCounterMode: 2 per multiply-add)."""
    from torch.utils.flop_counter import FlopCounterMode

    # With autograd on, nn.MultiheadAttention and nn.TransformerEncoderLayer
    # take their composite path (matmuls FlopCounterMode sees) rather than
    # their fused inference kernels (which it does not count).
    counter = FlopCounterMode(display=False)
    with counter, torch.enable_grad():
        model(*inputs)
    return counter.get_total_flops()
