"""Exports a stack of nn.Linear(8, 8) + ReLU for timing `kiln lower` on a real
.pt2 (the C++ benchmark builds the same shape without torch).

    python bench/lowering/export_linear_chain.py 1250 /tmp/chain_1250.pt2
    time build/bin/kiln lower /tmp/chain_1250.pt2 --backend DemoBackend > /dev/null

The program is saved after run_decompositions(): permute + addmm + relu per
layer, 5 nodes each. Files of thousands of layers are large: keep them out of
the repository.
"""
import sys
import time

import torch


class Chain(torch.nn.Module):
    def __init__(self, layers: int):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def main() -> None:
    layers, path = int(sys.argv[1]), sys.argv[2]
    start = time.time()
    program = torch.export.export(Chain(layers), (torch.randn(2, 8),)).run_decompositions()
    torch.export.save(program, path)
    print(f"{layers} layers, {len(program.graph.nodes)} nodes, {time.time() - start:.1f} s -> {path}")


if __name__ == "__main__":
    main()
