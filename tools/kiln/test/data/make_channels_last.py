"""Writes channels_last.pte (ExecuTorch's to_executorch() of x * 2 + 1 exported with a
channels-last input, so the method's input has dim order [0, 2, 3, 1]) with its inputs (row-major,
as np.savez writes them) and PyTorch's output, for cli_test.sh. Not run by `make test`:
  /work/main/.venv/bin/python tools/kiln/test/data/make_channels_last.py
"""

import pathlib

import numpy as np
import torch
from executorch.exir import to_edge

HERE = pathlib.Path(__file__).resolve().parent


class ScaleShift(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0


def main():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 4, 5).to(memory_format=torch.channels_last)
    program = torch.export.export(ScaleShift(), (x,))
    (HERE / "channels_last.pte").write_bytes(to_edge(program).to_executorch().buffer)
    np.savez(HERE / "channels_last.inputs.npz", x.contiguous().numpy())
    np.savez(HERE / "channels_last.expected.npz", output_0=ScaleShift()(x).contiguous().numpy())


if __name__ == "__main__":
    main()
