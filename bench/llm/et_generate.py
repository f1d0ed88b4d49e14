#!/usr/bin/env python3
"""Greedy generation with ExecuTorch's runtime (`executorch.runtime`) on a
`.pte` that optimum-executorch exported for text generation: method
'forward' takes input_ids [1, seq] and cache_position [seq] and returns
logits, the KV cache kept in the program's buffers. Timed as `kiln generate`
times itself: prefill is the prompt's one call; the time to first token runs
from its start to the first id chosen; decode is the calls after that, one
token each. It runs --max-new-tokens tokens whatever they are (an EOS id does
not stop it; how many there were is reported). Prints one JSON line.

  python bench/llm/et_generate.py MODEL.pte --prompt-ids 1,504,... --max-new-tokens 64 --threads 2
"""
import argparse
import json
import sys
import time


def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--prompt-ids", required=True)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--eos-ids", default="2")
    args = parser.parse_args()

    import torch
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
    from executorch.runtime import Runtime
    import executorch.kernels.quantized  # noqa: F401 -- quantized kernels for what XNNPACK did not take
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401 -- custom_sdpa and the cache update

    torch.set_num_threads(args.threads)
    # ExecuTorch's CPU threadpool (XNNPACK's and the optimized kernels') is a
    # process-wide singleton sized at first use; this resizes it.
    _unsafe_reset_threadpool(args.threads)
    baseline_kib = status_kib("VmRSS")

    start = time.perf_counter()
    method = Runtime.get().load_program(args.model).load_method("forward")
    load_ms = (time.perf_counter() - start) * 1e3

    prompt = [int(i) for i in args.prompt_ids.split(",")]
    eos_ids = {int(i) for i in args.eos_ids.split(",")}
    start = time.perf_counter()
    logits = method.execute([torch.tensor([prompt], dtype=torch.long), torch.arange(len(prompt), dtype=torch.long)])[0]
    prefill_ms = (time.perf_counter() - start) * 1e3
    tokens = []
    position = len(prompt)
    decode_start = time.perf_counter()
    first_token_ms = 0.0
    while True:
        token = int(torch.argmax(logits[0, -1]))
        if not tokens:
            first_token_ms = (time.perf_counter() - start) * 1e3
            decode_start = time.perf_counter()
        tokens.append(token)
        if len(tokens) >= args.max_new_tokens:
            break
        logits = method.execute([torch.tensor([[token]], dtype=torch.long),
                                 torch.tensor([position], dtype=torch.long)])[0]
        position += 1
    decode_ms = (time.perf_counter() - decode_start) * 1e3
    decode_calls = len(tokens) - 1
    print(json.dumps({
        "load_ms": load_ms,
        "first_token_ms": first_token_ms,
        "prompt_tokens": len(prompt),
        "prefill_tokens_per_s": len(prompt) * 1e3 / prefill_ms,
        "decode_calls": decode_calls,
        "decode_tokens_per_s": decode_calls * 1e3 / decode_ms if decode_calls else 0.0,
        "eos_hits": sum(1 for t in tokens if t in eos_ids),
        "baseline_rss_kib": baseline_kib,
        "peak_rss_kib": status_kib("VmHWM"),
        "tokens": tokens,
    }))


if __name__ == "__main__":
    sys.exit(main())
