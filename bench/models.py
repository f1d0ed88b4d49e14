"""The benchmark's models, in plain PyTorch, with fixed-seed random weights.

Each model is built by a function of no arguments; `build(name)` seeds torch's
generator first, so every process that builds a model gets the same weights.
`example_input(name)` is the one input every runtime is given (batch 1,
float32, from its own fixed seed). `count_flops` counts a forward pass once
with torch's FlopCounterMode (multiply and add are two FLOPs; only the ops
that FlopCounterMode knows -- convolutions, matmuls, attention -- are counted,
which is where nearly all the arithmetic of these models is).
"""
import torch
import torch.nn as nn
import torchvision

WEIGHT_SEED = 0
INPUT_SEED = 1


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


# name -> (builder, input shape, label printed in the table)
MODELS = {
    "resnet18": (resnet18, (1, 3, 224, 224), "ResNet-18"),
    "mobilenet_v2": (mobilenet_v2, (1, 3, 224, 224), "MobileNetV2"),
    "encoder": (encoder, (1, 128, 256), "encoder"),
    "vit_b_16": (vit_b_16, (1, 3, 224, 224), "ViT-B/16"),
}


def names():
    return list(MODELS)


def label(name):
    return MODELS[name][2]


def check_name(name):
    if name not in MODELS:
        raise SystemExit(f"unknown model '{name}' (known: {', '.join(MODELS)})")


def build(name):
    """The model in eval mode, its weights drawn from WEIGHT_SEED."""
    check_name(name)
    torch.manual_seed(WEIGHT_SEED)
    model = MODELS[name][0]()
    return model.eval()


def build_empty(name):
    """The model's structure on the meta device (no weights drawn): a
    state_dict is then loaded into it with assign=True."""
    check_name(name)
    with torch.device("meta"):
        model = MODELS[name][0]()
    return model.eval()


def example_input(name):
    check_name(name)
    generator = torch.Generator().manual_seed(INPUT_SEED)
    return torch.randn(MODELS[name][1], generator=generator)


def count_flops(model, x):
    """FLOPs of one forward pass (FlopCounterMode: 2 per multiply-add)."""
    from torch.utils.flop_counter import FlopCounterMode

    # With autograd on, nn.MultiheadAttention and nn.TransformerEncoderLayer
    # take their composite path (matmuls FlopCounterMode sees) rather than
    # their fused inference kernels (which it does not count).
    counter = FlopCounterMode(display=False)
    with counter, torch.enable_grad():
        model(x)
    return counter.get_total_flops()
