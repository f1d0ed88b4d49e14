#!/usr/bin/env python3
"""Prints PyTorch's greedy continuation of the given prompt ids through a
program tools/llm/export.py wrote (DIR/model.pt2, loaded with
torch.export.load and run as its module()): the ids a runtime running that
program, float or torchao-quantized, should choose. EOS does not stop it, as
the benchmark's runs go on past EOS. Prints one JSON line:
{"greedy_ids": [...]}.

  python bench/llm/torch_reference.py build/llm/smollm2-8da4w --prompt-ids 1,504,... --tokens 32
"""
import argparse
import importlib.util
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_export_module():
    spec = importlib.util.spec_from_file_location("kiln_llm_export", os.path.join(REPO, "tools", "llm", "export.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_dir", help="tools/llm/export.py's output: model.pt2, metadata.json")
    parser.add_argument("--prompt-ids", required=True)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch
    import torchao  # noqa: F401 -- registers the torchao ops a quantized program calls

    torch.set_num_threads(args.threads)
    with open(os.path.join(args.model_dir, "metadata.json")) as f:
        metadata = json.load(f)
    ep = torch.export.load(os.path.join(args.model_dir, "model.pt2"))
    prompt = [int(i) for i in args.prompt_ids.split(",")]
    with torch.no_grad():
        ids = load_export_module().greedy(ep, prompt, args.tokens, metadata["get_max_seq_len"],
                                          metadata["get_max_prompt_len"], eos_ids=())
    print(json.dumps({"greedy_ids": ids}))


if __name__ == "__main__":
    sys.exit(main())
