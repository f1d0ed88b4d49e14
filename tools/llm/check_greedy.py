#!/usr/bin/env python3
"""Checks that Kiln's greedy decoding equals PyTorch's, token for token.

For each model directory that tools/llm/export.py wrote (model.pt2 and
reference.json: PyTorch's greedy continuation of each prompt through the
exported program), lowers the program with each backend set given, runs
`kiln generate --print-ids` on every reference prompt and compares the ids.
Exits non-zero on any difference, printing where the sequences part.

  .venv/bin/python tools/llm/check_greedy.py /tmp/llm/tiny-qwen2 /tmp/llm/smollm2 --backends ,OneDnnBackend
  .venv/bin/python tools/llm/check_greedy.py --export tiny-llama,tiny-qwen2,tiny-qwen3,tiny-mistral,tiny-phi3,tiny-gemma
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
    args = parser.parse_args()

    dirs = list(args.dirs)
    for model in filter(None, args.export.split(",")):
        out = os.path.join(args.work, model)
        run([sys.executable, os.path.join(ROOT, "tools/llm/export.py"), "--model", model, "--out", out])
        dirs.append(out)
    if not dirs:
        parser.error("no model directories (give some, or --export)")

    failures = 0
    for directory in dirs:
        with open(os.path.join(directory, "reference.json")) as f:
            references = json.load(f)
        for backend in args.backends.split(","):
            pte = os.path.join(directory, f"check-{backend or 'portable'}.pte")
            lower = [args.kiln, "lower", os.path.join(directory, "model.pt2"), "-o", pte]
            if backend:
                lower += ["--backend", backend]
            run(lower)
            for reference in references:
                ids = reference["prompt_ids"]
                expected = reference["greedy_ids"]
                out = run([args.kiln, "generate", pte, "--prompt-ids", ",".join(map(str, ids)), "--print-ids",
                           "--max-new-tokens", str(len(expected)), "--threads", args.threads])
                got = [int(t) for t in out.strip().splitlines()[0].split(",")] if out.strip() else []
                same = 0
                while same < min(len(got), len(expected)) and got[same] == expected[same]:
                    same += 1
                ok = got == expected
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(directory):<14} {backend or 'portable':<14} "
                      f"prompt {len(ids):>3} tokens: {same}/{len(expected)} tokens equal"
                      + ("" if ok else f" (kiln {got[same:same + 4]}..., torch {expected[same:same + 4]}...)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
