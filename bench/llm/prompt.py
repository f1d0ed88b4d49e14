#!/usr/bin/env python3
"""Prints the benchmark's prompt as comma-separated token ids: BOS, then a
fixed English paragraph encoded with the model's tokenizer.json, cut to
--length ids in all. The same ids go to every runtime."""
import argparse
import sys

PARAGRAPH = (
    "The history of the bicycle begins in the early nineteenth century, when inventors in Europe "
    "experimented with two-wheeled machines pushed along by the rider's feet. Over the following "
    "decades, pedals, chains and air-filled tyres turned these curiosities into practical vehicles. "
    "Today, millions of people ride bicycles to work, to school and for pleasure, and cities around "
    "the world are building new lanes to make cycling safer. In this essay, we describe how the "
    "design of the bicycle changed over time, and why"
)


def prompt_ids(tokenizer_path, length=64, bos=1):
    """BOS, then the paragraph's ids, cut to `length` ids in all."""
    from tokenizers import Tokenizer

    ids = [bos] + Tokenizer.from_file(tokenizer_path).encode(PARAGRAPH, add_special_tokens=False).ids
    if len(ids) < length:
        raise SystemExit(f"the paragraph makes {len(ids)} ids, fewer than {length}")
    return ids[:length]


def prompt_text(tokenizer_path, ids):
    """The ids as text, BOS written as its special token: what a tool that
    tokenizes text itself (special tokens parsed, no BOS of its own) is given."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(tokenizer_path).decode(ids, skip_special_tokens=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokenizer", required=True, help="Hugging Face's tokenizer.json")
    parser.add_argument("--length", type=int, default=64, help="ids in all, BOS included")
    parser.add_argument("--bos", type=int, default=1, help="the BOS id put first")
    parser.add_argument("--text", action="store_true", help="print the ids as text instead")
    args = parser.parse_args()
    ids = prompt_ids(args.tokenizer, args.length, args.bos)
    print(prompt_text(args.tokenizer, ids) if args.text else ",".join(str(i) for i in ids))


if __name__ == "__main__":
    sys.exit(main())
