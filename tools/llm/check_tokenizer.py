#!/usr/bin/env python3
"""Checks Kiln's tokenizer against Hugging Face's `tokenizers` on a real
tokenizer.json, outside the default test suite.

For each TOKENIZER_JSON it writes, with `tokenizers`, the cases that the
fixture's cases.json holds (tools/llm/tokenizer_cases.py: ids with and without
special tokens, decoded text, DecodeStream chunks) for a larger corpus: the
fixture's texts, the repository's documents and sources cut into pieces, texts
in many scripts made up from a seeded generator (letters, marks, digits,
spaces of every kind, emoji sequences), texts with the tokenizer's own added
tokens put in at random places, and edge cases (long runs, empty text); and
id lists (random ones, and encoded texts cut apart) to decode. Then it runs
llm_test's TokenizerExternalTest on them and prints how many agree.

  .venv/bin/python tools/llm/check_tokenizer.py /tmp/llm/smollm2/tokenizer.json [more.json ...]
      [--texts 1500] [--test-binary build/tests/llm_test] [--keep DIR]
"""
import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tokenizer_cases  # noqa: E402

from tokenizers import Tokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Code point ranges to make up words from, by script.
SCRIPTS = {
    "latin": [(0x41, 0x5A), (0x61, 0x7A)],
    "latin accented": [(0xC0, 0xFF), (0x100, 0x17F), (0x1E00, 0x1EFF)],
    "greek": [(0x391, 0x3A9), (0x3B1, 0x3C9), (0x1F00, 0x1F7D)],
    "cyrillic": [(0x410, 0x44F), (0x400, 0x40F), (0x490, 0x4FF)],
    "armenian": [(0x531, 0x556), (0x561, 0x587)],
    "hebrew": [(0x5D0, 0x5EA), (0x591, 0x5C7)],
    "arabic": [(0x621, 0x64A), (0x64B, 0x65F), (0x660, 0x669), (0x6F0, 0x6F9)],
    "devanagari": [(0x905, 0x939), (0x93E, 0x94D), (0x966, 0x96F)],
    "bengali": [(0x985, 0x9B9), (0x9BE, 0x9CD)],
    "tamil": [(0xB85, 0xBB9), (0xBBE, 0xBCD)],
    "thai": [(0xE01, 0xE30), (0xE31, 0xE3A), (0xE40, 0xE4E), (0xE50, 0xE59)],
    "georgian": [(0x10D0, 0x10FA)],
    "hangul": [(0xAC00, 0xD7A3), (0x1100, 0x1112), (0x1161, 0x1175)],
    "hiragana": [(0x3041, 0x3096)],
    "katakana": [(0x30A1, 0x30FA), (0xFF66, 0xFF9D)],
    "cjk": [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF)],
    "symbols": [(0x2000, 0x206F), (0x20A0, 0x20C0), (0x2100, 0x214F), (0x2190, 0x21FF), (0x2200, 0x22FF),
                (0x2500, 0x257F), (0x3000, 0x303F), (0xFF01, 0xFF5E)],
    "marks": [(0x300, 0x36F), (0x1AB0, 0x1ACE), (0x20D0, 0x20F0), (0xFE20, 0xFE2F)],
    "digits": [(0x30, 0x39), (0xFF10, 0xFF19), (0x660, 0x669), (0xB2, 0xB3), (0x2460, 0x2473), (0x2160, 0x2188)],
    "ascii punctuation": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
    "controls": [(0x1, 0x8), (0xE, 0x1F), (0x7F, 0x9F)],
}
SEPARATORS = [" ", " ", " ", "  ", "\n", "\n\n", "\t", ", ", ". ", "\u00a0", "\u3000", "\u2009", "\u200b", "\u180e",
              "\u0085", "\r\n", "", "'s ", "'LL ", " - "]
EMOJI = ["😀", "😂", "🥲", "🎉", "👍", "👍🏽", "👍🏿", "❤️", "❤", "✨", "🔥", "👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🏴‍☠️",
         "🇫🇷", "🇯🇵", "🇺🇸", "🧑🏾‍🚀", "🫠", "🪿", "©️", "1️⃣", "🤌🏼", "👁️‍🗨️"]


def random_word(rng, script):
    ranges = SCRIPTS[script]
    return "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(1, 12)))


def made_up_text(rng):
    """A line of words from a few scripts, numbers and emoji."""
    scripts = rng.sample(sorted(SCRIPTS), rng.randint(1, 3))
    parts = []
    for _ in range(rng.randint(1, 14)):
        choice = rng.random()
        if choice < 0.1:
            parts.append("".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 3))))
        elif choice < 0.2:
            parts.append(str(rng.randint(0, 10 ** rng.randint(1, 12))))
        else:
            parts.append(random_word(rng, rng.choice(scripts)))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts).rstrip(" ") if rng.random() < 0.5 else "".join(parts)


def repository_texts(rng, count):
    """Pieces of the repository's documents and sources (English prose, code)."""
    files = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")) + [os.path.join(ROOT, "README.md")] +
                   glob.glob(os.path.join(ROOT, "src", "*", "*.cpp")) + glob.glob(os.path.join(ROOT, "tools", "*", "*.py")))
    texts = []
    for path in rng.sample(files, min(len(files), count)):
        with open(path, encoding="utf-8", errors="replace") as file:
            content = file.read()
        if not content:
            continue
        start = rng.randrange(len(content))
        texts.append(content[start:start + rng.randint(20, 1500)])
    return texts


def with_added_tokens(rng, tokenizer_json, texts, count):
    """Texts with the tokenizer's added tokens put in, spaces around some."""
    added = [token["content"] for token in tokenizer_json.get("added_tokens", [])]
    if not added:
        return []
    out = []
    for _ in range(count):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(0, len(text))
            token = rng.choice(added)
            text = text[:at] + rng.choice(["", " ", "  ", "\n"]) + token + rng.choice(["", " ", "\n"]) + text[at:]
        out.append(text)
    # A chat as templates write it.
    first = added[0]
    out.append(f"{first}system\nYou are helpful.{added[-1]}\n{first}user\nHi!{added[-1]}\n{first}assistant\n")
    return out


def edge_texts():
    return ["", " ", "  ", "\n", "\t", "\r\n", " " * 100, "\n" * 50, "a" * 1000, "9" * 200, "é" * 300,
            "!" * 64, "ab " * 200, "\u3000" * 10, "\u00a0\u00a0x", "x\u0301\u0301\u0301", "'s'S'll'LL", "İstanbul ſ ß ẞ",
            "\ufeff\ufeff", "a\u200db", "\U0010FFFD\U000E0001", "中" * 100, "🎉" * 50, "👨‍👩‍👧‍👦" * 10]


def corpus(tokenizer_json, count, seed):
    rng = random.Random(seed)
    texts = list(tokenizer_cases.CORPUS) + list(tokenizer_cases.TEXTS) + edge_texts()
    texts += repository_texts(rng, count // 5)
    texts += [made_up_text(rng) for _ in range(count // 2)]
    texts += with_added_tokens(rng, tokenizer_json, texts, count // 10)
    return texts


def id_lists(tokenizer, texts, count, seed):
    rng = random.Random(seed)
    vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
    lists = [[rng.randrange(vocab_size) for _ in range(rng.randint(1, 30))] for _ in range(count)]
    for text in rng.sample(texts, min(len(texts), count)):
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        if len(ids) > 1:
            lists.append(ids[rng.randrange(1, len(ids)):][:60])
    return lists


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tokenizers", nargs="+", metavar="TOKENIZER_JSON")
    parser.add_argument("--texts", type=int, default=1500, help="about how many texts to encode")
    parser.add_argument("--id-lists", type=int, default=300, help="random id lists to decode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-binary", default=os.path.join(ROOT, "build", "tests", "llm_test"))
    parser.add_argument("--keep", help="write cases.json here and keep it")
    args = parser.parse_args()

    out_dir = args.keep or tempfile.mkdtemp(prefix="kiln-tokenizer-check-")
    os.makedirs(out_dir, exist_ok=True)
    entries = []
    for path in args.tokenizers:
        path = os.path.abspath(path)
        with open(path, encoding="utf-8") as file:
            tokenizer_json = json.load(file)
        tokenizer = Tokenizer.from_file(path)
        texts = corpus(tokenizer_json, args.texts, args.seed)
        started = time.perf_counter()
        entry = {"name": path, "file": path, "patch": {}}
        entry.update(tokenizer_cases.make_cases(tokenizer, texts, id_lists(tokenizer, texts, args.id_lists, args.seed)))
        print(f"{path}: {len(texts)} texts ({sum(len(t.encode()) for t in texts)} bytes), {len(entry['decode'])} id "
              f"lists; tokenizers took {time.perf_counter() - started:.1f} s", flush=True)
        entries.append(entry)
    cases_path = os.path.join(out_dir, "cases.json")
    with open(cases_path, "w", encoding="utf-8") as out:
        json.dump({"generator": "tools/llm/check_tokenizer.py", "tokenizers": entries}, out, ensure_ascii=False)

    result = subprocess.run([args.test_binary, "--gtest_filter=TokenizerExternalTest.*"],
                            env=dict(os.environ, KILN_TOKENIZER_CASES=cases_path), capture_output=True, text=True)
    for line in result.stdout.splitlines():
        if "agree with tokenizers" in line or "Failure" in line or line.startswith(("/", "[  FAILED", "[  PASSED")):
            print(line)
    for line in result.stdout.splitlines():
        if ": encode gave" in line or ": decode" in line or ": streaming" in line:
            print("  ", line[:400])
    if not args.keep:
        os.remove(cases_path)
        os.rmdir(out_dir)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
