#!/usr/bin/env python3
"""Checks that Kiln's greedy decoding equals PyTorch's, token for token.

For each model directory that tools/llm/export.py wrote (model.pt2 and
reference.json: PyTorch's greedy continuation of each prompt through the
exported program), lowers the program with each backend set given, runs
`kiln generate --print-ids` on every reference prompt and compares the ids.
Exits non-zero on any difference, printing where the sequences part.

  .venv/bin/python tools/llm/check_greedy.py /tmp/llm/tiny-qwen2 /tmp/llm/smollm2 --backends ,OneDnnBackend
  .venv/bin/python tools/llm/check_greedy.py --export tiny-llama,tiny-qwen2,tiny-qwen3,tiny-mistral,tiny-phi3,tiny-gemma
  .venv/bin/python tools/llm/check_greedy.py --export tiny-llama,tiny-gemma --quantize int8wo,int4wo,8da4w --backends ''

With --quantize, each exported model is also quantized with torchao in each
form (export.py --quantize) and compared with PyTorch's quantized module.
The weight-only forms must agree for --must-agree tokens (default 32); the
forms that quantize activations (8da4w, and --quantize-activations) only
report how far they agree: their int8 rounding flips on float noise.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr.strip()}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", help="directories written by tools/llm/export.py")
    parser.add_argument("--export", default="", help="models to export first (comma-separated), into --work")
    parser.add_argument("--work", default="/tmp/llm", help="where --export writes")
    parser.add_argument("--backends", default=",OneDnnBackend",
                        help="comma-separated backend sets to check ('' is the portable kernels)")
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build/bin/kiln"))
    parser.add_argument("--threads", default="1")
    parser.add_argument("--quantize", default="", help="torchao forms to export too (comma-separated; export.py)")
    parser.add_argument("--quantize-activations", action="store_true",
                        help="also lower the weight-only forms with kiln lower --quantize-activations (reported only)")
    parser.add_argument("--must-agree", type=int, default=32,
                        help="leading tokens a weight-only form must share with PyTorch's (default 32)")
    args = parser.parse_args()

    dirs = [(d, None) for d in args.dirs]
    for model in filter(None, args.export.split(",")):
        for form in [None] + [f for f in args.quantize.split(",") if f]:
            out = os.path.join(args.work, model + (f"-{form}" if form else ""))
            run([sys.executable, os.path.join(ROOT, "tools/llm/export.py"), "--model", model, "--out", out]
                + (["--quantize", form] if form else []))
            dirs.append((out, form))
    if not dirs:
        parser.error("no model directories (give some, or --export)")

    failures = 0
    for directory, form in dirs:
        with open(os.path.join(directory, "reference.json")) as f:
            references = json.load(f)
        # export.py records the torchao form it quantized with.
        form = form or next((r.get("quantize") for r in references if r.get("quantize")), None)
        variants = [(backend, False) for backend in args.backends.split(",")]
        if args.quantize_activations and form in ("int8wo", "int4wo"):
            variants += [(backend, True) for backend in args.backends.split(",")]
        for backend, quantize_activations in variants:
            name = (backend or "portable") + ("+qa" if quantize_activations else "")
            pte = os.path.join(directory, f"check-{name}.pte")
            lower = [args.kiln, "lower", os.path.join(directory, "model.pt2"), "-o", pte]
            if backend:
                lower += ["--backend", backend]
            if quantize_activations:
                lower += ["--quantize-activations"]
            run(lower)
            # Forms that quantize activations are reported, not held to PyTorch's tokens.
            exact = not quantize_activations and form not in ("8da4w", "8da4w-emb8")
            for reference in references:
                ids = reference["prompt_ids"]
                expected = reference["greedy_ids"]
                out = run([args.kiln, "generate", pte, "--prompt-ids", ",".join(map(str, ids)), "--print-ids",
                           "--max-new-tokens", str(len(expected)), "--threads", args.threads])
                got = [int(t) for t in out.strip().splitlines()[0].split(",")] if out.strip() else []
                same = 0
                while same < min(len(got), len(expected)) and got[same] == expected[same]:
                    same += 1
                ok = got == expected if form is None else same >= min(args.must_agree, len(expected))
                failures += exact and not ok
                verdict = ("ok  " if ok else "FAIL") if exact else "info"
                print(f"{verdict} {os.path.basename(directory):<20} {name:<17} "
                      f"prompt {len(ids):>3} tokens: {same}/{len(expected)} tokens equal"
                      + ("" if ok else f" (kiln {got[same:same + 4]}..., torch {expected[same:same + 4]}...)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
