#!/usr/bin/env python3
"""Writes the fixture of Kiln's tokenizer tests (tests/fixtures/tokenizer/).

Small BPE tokenizers are trained here with Hugging Face's `tokenizers` on the
corpus below (English, French, German, Spanish, Vietnamese, Russian, Greek,
Arabic, Hebrew, Hindi, Chinese, Japanese, Korean, emoji, code, numbers), each
in the shape of a real model family's tokenizer.json:

  split_bytelevel.json     Llama 3 / Qwen 2: a Split pre-tokenizer with Llama 3's
                           pattern, then ByteLevel(use_regex=False); ignore_merges
                           (and a token no merge makes, "Ġkilnworks");
                           a TemplateProcessing that puts <|begin_of_text|> first;
                           added tokens with lstrip/rstrip, single_word, normalized
  gpt2_digits.json         GPT-2 / SmolLM2: Digits(individual) then ByteLevel with
                           GPT-2's pattern; merges in the "a b" string form
  metaspace_fallback.json  Llama 2 / Mistral 7B / Phi-3: sentencepiece-style BPE with
                           byte_fallback and <unk>, the Prepend + Replace normalizer,
                           the Replace/ByteFallback/Fuse/Strip decoder, a <s> BOS;
                           variants: Phi-3's chat tokens (rstrip), Mistral v0.3's
                           Metaspace pre-tokenizer and [INST] tokens
  qwen_nfc.json            Qwen 2 / Qwen 3: the NFC normalizer, Qwen's Split pattern
                           (digits one by one), ByteLevel pieces as Qwen's file sets
                           them, <think> added but not special, a normalized added
                           token; variants with NFKC, NFD, NFKD and NFKC + Lowercase
  qwen_tiny.json           the same pipeline in 256 ids (every byte UTF-8 uses, the
                           special tokens, 10 merges): for tools/llm/export.py's tiny
                           models in `kiln generate --tokenizer`
  gemma_fallback.json      Gemma: byte fallback without a prefix space, the Replace
                           normalizer, Split(" ", MergedWithPrevious), the
                           Replace/ByteFallback/Fuse decoder, a <bos> BOS

cases.json lists them with variants (a JSON-pointer patch applied to the file
before reading it: add_prefix_space on, a Metaspace pre-tokenizer instead of
the normalizer) and, for each, what `tokenizers` gives for texts the corpus
does not hold (UNICODE_TEXTS for the normalizers): `ids` (encode without
special tokens), `ids_special` (with), `decoded` and `decoded_skip` (decode of
the ids keeping and skipping special tokens) and `stream` (DecodeStream's
chunks over the ids); and for id lists that cut characters apart, the decoded
texts and stream chunks.

tools/llm/check_tokenizer.py writes the same kind of cases for a real
tokenizer.json, from `make_cases` here.

  .venv/bin/python tools/llm/tokenizer_cases.py [--out tests/fixtures/tokenizer]
"""
import argparse
import json
import os
import random

from tokenizers import (AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors,
                        trainers)

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                  r"\s*[\r\n]+|\s+(?!\S)|\s+")
# Qwen 2 and 3 split digits one by one where Llama 3 takes up to three.
QWEN_PATTERN = LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It wasn't the first time, and it won't be the last.",
    "We're going to the market tomorrow; they've said they'll meet us there at 10:30 AM.",
    "Language models read text as tokens: short pieces of words, whole words, or single bytes.",
    "In 2024 the company shipped 1,234,567 units, up 12.5% from 987654 in 2023.",
    "Le café était fermé, alors nous sommes allés à la boulangerie près de l'église.",
    "Die Straße war nass, und die Kinder spielten fröhlich im Garten hinter dem Haus.",
    "¿Dónde está la estación? Mañana viajaremos a Sevilla con nuestros niños.",
    "Tiếng Việt có nhiều dấu: ă, â, ê, ô, ơ, ư, đ và các thanh điệu.",
    "Москва — столица России. Мы читали книги и пили чай весь вечер.",
    "Η γλώσσα είναι ζωντανή· οι λέξεις αλλάζουν με τον χρόνο.",
    "اللغة العربية جميلة، ونحن نتعلمها كل يوم في المدرسة.",
    "שלום עולם, זהו משפט בעברית עם כמה מילים.",
    "हिन्दी भाषा में बहुत सारे शब्द हैं, और हम उन्हें सीख रहे हैं।",
    "机器学习是人工智能的一个分支。我们今天学习了很多新的知识。",
    "東京は日本の首都です。ひらがなとカタカナと漢字を使います。",
    "한국어는 아름다운 언어입니다. 우리는 매일 공부합니다.",
    "Emoji: 😀 😂 🎉 👍🏽 ❤️ 👩‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 🇫🇷 🇯🇵 ✨🔥",
    "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    "int main(int argc, char** argv) {\n\tfor (int i = 0; i < argc; ++i) {\n\t\tprintf(\"%s\\n\", argv[i]);\n\t}\n}\n",
    "    indented   with   runs   of   spaces\n\n\n\nand blank lines\r\n\r\nand CRLF",
    "Numbers: 0 1 2 3 4 5 6 7 8 9 10 100 1000 3.14159 2.71828 -42 +7 1e10 0xFF",
    "<html><body><p class=\"note\">Hello, world!</p></body></html>",
    "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;",
    "Punctuation!!! Question??? Ellipsis... Dashes -- and — and – and quotes “like” ‘these’.",
]

TEXTS = [
    "",
    "Hello",
    "Hello world",
    " Hello world",
    "Hello world ",
    "  two leading, two trailing  ",
    "Unseenwordsaresplitintopieces",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "I'm sure you'll see they've gone; WE'LL SEE, IT'S FINE",
    "Numbers 12345678901234567890 and 3.14 and 1,000,000",
    "Café crème brûlée naïve façade Ångström",
    "Привет, мир! Как дела?",
    "مرحبا بالعالم",
    "你好，世界！机器翻译",
    "こんにちは世界。カタカナ",
    "안녕하세요 세계",
    "नमस्ते दुनिया",
    "Mixed: English, русский, 中文, العربية, 日本語 in one line",
    "😀😃😄 👍🏿 👩🏽‍🚀 👨‍👨‍👧 🏴‍☠️ 🇩🇪🇧🇷",
    "e\u0301 vs é (combining vs precomposed), \ufeffBOM, zero\u200bwidth, nbsp\u00a0here",
    "U+180E\u180e!Mongolian vowel separator, U+0085\u0085!next line, U+3000\u3000!ideographic space, a\u0301\u203fb",
    "tabs\tand\t\ttabs\t",
    "line one\nline two\n\n\nline five\n",
    "\n\n\n",
    "   ",
    "\r\n\r\nwindows\r\n",
    "    def greet(name: str) -> str:\n        return f\"Hi {name}!\"\n",
    "for(i=0;i<10;i++){x+=i*2;}//done",
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>",
    "text<|endoftext|>more text<|endoftext|><|endoftext|>",
    "<|im_start|> spaced <|im_end|>",
    "a <mask> b  <mask>  c<mask>d",
    "kiln kilns kiln_ xkiln kiln.",
    "made in the kilnworks today",
    "call <tool_call> now",
    "<s>hello</s> <unk>",
    "Ünïcödé ÇÀPS and ſ long s",
    "x" * 40,
    "🎉" * 6,
]

# The texts a variant of a fixture is also checked on.
VARIANT_TEXTS = [TEXTS[i] for i in (0, 3, 5, 8, 11, 14, 18, 20, 22, 28)] + ["<s>hello</s> <unk>"]

# Added tokens beyond the special ones each fixture trains with.
EXTRA_ADDED = [
    AddedToken("<mask>", lstrip=True, rstrip=True, special=True, normalized=False),
    AddedToken("kiln", single_word=True, special=False, normalized=True),
    AddedToken("<tool_call>", special=False, normalized=False),
]


# Texts whose normalized forms differ (NFC, NFD, NFKC, NFKD, lowercase).
UNICODE_TEXTS = [
    "Cafe\u0301 cre\u0300me bru\u0302le\u0301e vs Café crème brûlée",
    "a\u0323\u0302 a\u0302\u0323 ậ ệ\u0301 q\u0307\u0323 o\u031b\u0303 ỡ",
    "Tiê\u0301ng Viê\u0323t: ự ữ ằ ẩ ợ",
    "Å \u212b A\u030a Ω \u2126 K \u212a \u00b5 µ \u03bc",
    "ﬁne ﬂow ﬃx ﬄ ﬅ ﬆ ǆ ǅ Ǆ Ĳ ĳ ŉ",
    "ＡＢＣ ａｂｃ １２３ ！？ （括弧） ｶﾀｶﾅ ﾊﾟ ｶﾞ",
    "x² y³ H₂O 10⁻⁶ ½ ¾ ⅞ ① ⑳ ⒜ Ⅻ ⅻ ㎏ ㎞ ㍿ ℃ № ™ ℡",
    "…‥ ‼ ⁇ ‐ ‑ ― ′″ ‴ ´ ¨ ¯ ˜ ΐ",
    "한국어 \u1112\u1161\u11ab\u1100\u1173\u11af \u1100\u1161 \u1100\u1161\u11a8 \uac00\u11a8 \uac00\u11a7 ᄀ ᅡ ᆨ ㄱ ㅏ ㆍ",
    "豈 更 車 \uf900\uf901 \U0002f800 丽 ﹅ 𝐀𝐁𝐂 𝒜 𝔄 𝕬 ℌ ℑ",
    "क़ ख़ \u0915\u093c ড় \u09a1\u09bc ਲ਼ ொ \u0bc6\u0bbe ൊ ো \u09c7\u09be ཱི",
    "\ufdfa ﷲ ﻻ ﺍﻟﻌﺮﺑﻴﺔ ٱلْعَرَبِيَّة ١٢٣ ۴۵۶ ߁߂",
    "نص \u0651\u064e \u064e\u0651 א\u05b7\u05bc \u05bc\u05b7 שׁ שׂ",
    "ǈ ǋ ǲ ẛ̣ \u1e9b\u0323 ſ ẞ ß ΪΫ ϓ ϔ ᾼ ᾳ ῼ",
    "İSTANBUL ıi ΣΊΣΥΦΟΣ ΟΔΟΣ ǅungla Ⅻ ⓐⒶ ＡＢＣ 𐐀𐐨",
    "NBSP\u00a0and\u2002en\u2003em\u3000ideo\u202fnarrow\u2007figure\u200bzw \u180e mongolian",
    "👍🏽 👩\u200d💻 ❤\ufe0f ❤\ufe0e 1\ufe0f\u20e3 🇫🇷 e\u20dd a\u20e3",
    "Ａ <|im_start|>ｕｓｅｒ\nｈｉ<|im_end|> <think>ﬁ</think> ①②",
    "x" + "\u0301" * 20 + " " + "\u0315\u0300\u0301\u0302\u0316\u0317" + "y\u0335\u0336\u0337",
    "\u0000nul\u0001 \ufffd \ufeff \U0010fffd \U000e0001 \ufffe\uffff",
]


def train(tokenizer, vocab_size, special_tokens, initial_alphabet=(), corpus=CORPUS):
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=1, special_tokens=special_tokens,
                                  initial_alphabet=list(initial_alphabet), show_progress=False)
    tokenizer.train_from_iterator(corpus * 3, trainer=trainer)
    return tokenizer


def common_characters_only(corpus, count):
    """The corpus without the characters past the `count` most frequent (the
    trainer's own limit_alphabet breaks ties differently from run to run)."""
    frequency = {}
    for text in corpus:
        for character in text:
            frequency[character] = frequency.get(character, 0) + 1
    kept = set(sorted(frequency, key=lambda c: (-frequency[c], c))[:count])
    return ["".join(c for c in text if c in kept or c == " ") for text in corpus]


def split_bytelevel():
    specials = ["<|begin_of_text|>", "<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokenizer = Tokenizer(models.BPE(ignore_merges=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    train(tokenizer, 700, specials, pre_tokenizers.ByteLevel.alphabet())
    # A token no merge makes, which only ignore_merges finds whole.
    document = json.loads(tokenizer.to_str())
    document["model"]["vocab"]["Ġkilnworks"] = len(document["model"]["vocab"])
    tokenizer = Tokenizer.from_str(json.dumps(document))
    tokenizer.add_tokens(EXTRA_ADDED)
    bos = tokenizer.token_to_id("<|begin_of_text|>")
    tokenizer.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)]),
    ])
    return json.loads(tokenizer.to_str())


def gpt2_digits():
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)
    train(tokenizer, 600, specials, pre_tokenizers.ByteLevel.alphabet())
    document = json.loads(tokenizer.to_str())
    document["model"]["merges"] = [" ".join(pair) for pair in document["model"]["merges"]]
    return document


def metaspace_fallback():
    # Trained on Metaspace words with a small alphabet, so rarer characters
    # take the byte fallback; then laid out as Llama 2's file is: <unk>, <s>,
    # </s>, the 256 byte tokens, the merged tokens.
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    train(tokenizer, 450, [], corpus=common_characters_only(CORPUS, 120))
    trained = json.loads(tokenizer.to_str())["model"]
    specials = ["<unk>", "<s>", "</s>"]
    vocab = {token: i for i, token in enumerate(specials + [f"<0x{b:02X}>" for b in range(256)])}
    for token, _ in sorted(trained["vocab"].items(), key=lambda item: item[1]):
        vocab.setdefault(token, len(vocab))
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) for m in trained["merges"]], unk_token="<unk>",
                                     fuse_unk=True, byte_fallback=True))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                           decoders.Strip(content=" ", left=1, right=0)])
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in specials])
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A $B:1",
                                                             special_tokens=[("<s>", 1)])
    return json.loads(tokenizer.to_str())


# What Qwen 2 and Qwen 3's files set on their ByteLevel pieces.
QWEN_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}


def bytes_to_unicode():
    """GPT-2's table: printable Latin-1 bytes stand for themselves, the
    others for U+0100 onwards in byte order."""
    printable = [b for b in range(256) if ord("!") <= b <= ord("~") or 0xA1 <= b <= 0xAC or b >= 0xAE]
    table, next_char = {}, 0x100
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(next_char)
            next_char += 1
    return table


def qwen_pipeline(model):
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def qwen_document(tokenizer):
    document = json.loads(tokenizer.to_str())
    document["post_processor"] = dict(QWEN_BYTE_LEVEL)
    document["decoder"] = dict(QWEN_BYTE_LEVEL)
    return document


def qwen_nfc():
    # <think> is an added token that is not special, as in Qwen 3; "cafe\u0301"
    # is matched in the normalized text, so as "café".
    tokenizer = train(qwen_pipeline(models.BPE()), 700, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                      pre_tokenizers.ByteLevel.alphabet())
    tokenizer.add_tokens([AddedToken("<think>", special=False, normalized=False),
                          AddedToken("</think>", special=False, normalized=False),
                          AddedToken("cafe\u0301", special=False, normalized=True)])
    return qwen_document(tokenizer)


# Bytes that UTF-8 never uses: left out of qwen_tiny's alphabet.
NOT_UTF8_BYTES = {0xC0, 0xC1} | set(range(0xF5, 0x100))


def qwen_tiny():
    # The Qwen pipeline within the 256 ids of tools/llm/export.py's tiny
    # models: every byte UTF-8 uses, the special tokens, a few merges.
    table = bytes_to_unicode()
    alphabet = [table[b] for b in range(256) if b not in NOT_UTF8_BYTES]
    tokenizer = train(qwen_pipeline(models.BPE()), 256, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], alphabet)
    assert tokenizer.get_vocab_size() == 256, tokenizer.get_vocab_size()
    return qwen_document(tokenizer)


def gemma_fallback():
    # Gemma: sentencepiece-style BPE with byte fallback and no prefix space.
    # The normalizer turns spaces into "▁", so the pre-tokenizer's Split on
    # " " finds none and the model takes the whole text as one word.
    trainer = Tokenizer(models.BPE())
    trainer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    train(trainer, 450, [], corpus=common_characters_only(CORPUS, 120))
    trained = json.loads(trainer.to_str())["model"]
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<start_of_turn>", "<end_of_turn>"]
    vocab = {token: i for i, token in enumerate(specials + [f"<0x{b:02X}>" for b in range(256)])}
    for token, _ in sorted(trained["vocab"].items(), key=lambda item: item[1]):
        vocab.setdefault(token, len(vocab))
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) for m in trained["merges"]], unk_token="<unk>",
                                     fuse_unk=True, byte_fallback=True))
    tokenizer.normalizer = normalizers.Replace(" ", "▁")
    tokenizer.pre_tokenizer = pre_tokenizers.Split(" ", "merged_with_previous")
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in specials])
    tokenizer.post_processor = processors.TemplateProcessing(single="<bos> $A", pair="<bos> $A <bos> $B:1",
                                                             special_tokens=[("<bos>", 2)])
    return json.loads(tokenizer.to_str())


def added_token(token_id, content, special=True, rstrip=False):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": rstrip,
            "normalized": False, "special": special}


# Phi-3's chat tokens after metaspace_fallback's vocabulary (709 ids); all
# but <|endoftext|> take the whitespace after them.
PHI3_ADDED = {f"/added_tokens/{3 + i}": added_token(709 + i, content, rstrip=content != "<|endoftext|>")
              for i, content in enumerate(["<|endoftext|>", "<|assistant|>", "<|system|>", "<|end|>", "<|user|>"])}
MISTRAL_ADDED = {"/added_tokens/3": added_token(709, "[INST]"), "/added_tokens/4": added_token(710, "[/INST]")}
CHAT_TEXTS = [
    "<|user|>\nCan you say hello?<|end|>\n<|assistant|>\nHello!<|end|>\n<|endoftext|>",
    "<|system|>  Be brief. <|end|><|user|>\n\n  two  spaces<|end|>",
    "[INST] What is 2+2? [/INST] 4</s>[INST]again[/INST]",
    "<s>[INST]  Café\u00a0au lait? [/INST]</s>",
    "<start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\n",
    "<bos><bos> double <eos><pad>",
]


def apply_patch(document, patch):
    """Sets each JSON pointer of `patch` (as the C++ test does)."""
    document = json.loads(json.dumps(document))
    for pointer, value in patch.items():
        parts = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
        target = document
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        last = parts[-1]
        if isinstance(target, list) and int(last) == len(target):
            target.append(value)
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return document


def stream_chunks(tokenizer, ids, skip_special_tokens):
    from tokenizers.decoders import DecodeStream
    stream = DecodeStream(skip_special_tokens=skip_special_tokens)
    chunks = []
    for token_id in ids:
        chunk = stream.step(tokenizer, token_id)
        if chunk is not None:
            chunks.append(chunk)
    return chunks


def cutting_id_lists(tokenizer, texts, count, seed):
    """Id lists that cut characters apart: ids of text pieces that end and
    start inside a multi-byte character, and random ids."""
    rng = random.Random(seed)
    vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
    lists = []
    for _ in range(count):
        lists.append([rng.randrange(vocab_size) for _ in range(rng.randrange(1, 16))])
    for text in texts:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        if len(ids) > 2:
            start = rng.randrange(1, len(ids) - 1)
            lists.append(ids[start:])
            lists.append(ids[:start])
    return lists


def make_cases(tokenizer, texts, id_lists, stream=True):
    """What `tokenizers` gives for each text and each id list. To keep the
    fixture small, fields equal to another are left out: `ids_special` (the
    ids with special tokens) when it equals `ids`, `decoded` (decode of `ids`)
    when it equals the text, `decoded_skip` (the same skipping special
    tokens) when it equals `decoded`."""
    encode = []
    for text in texts:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        ids_special = tokenizer.encode(text, add_special_tokens=True).ids
        decoded = tokenizer.decode(ids, skip_special_tokens=False)
        decoded_skip = tokenizer.decode(ids, skip_special_tokens=True)
        case = {"text": text, "ids": ids}
        if ids_special != ids:
            case["ids_special"] = ids_special
        if decoded != text:
            case["decoded"] = decoded
        if decoded_skip != decoded:
            case["decoded_skip"] = decoded_skip
        if stream:
            case["stream"] = stream_chunks(tokenizer, ids, False)
        encode.append(case)
    decode = []
    for ids in id_lists:
        try:
            streams = stream_chunks(tokenizer, ids, False), stream_chunks(tokenizer, ids, True)
        except Exception as error:  # noqa: BLE001 (tokenizers raises a bare Exception)
            # DecodeStream gives up where a later byte token rewrites text it
            # returned ("Invalid prefix"); such random lists are left out.
            if "Invalid prefix" not in str(error):
                raise
            continue
        decode.append({"ids": ids, "text": tokenizer.decode(ids, skip_special_tokens=False),
                       "text_skip": tokenizer.decode(ids, skip_special_tokens=True),
                       "stream": streams[0], "stream_skip": streams[1]})
    return {"encode": encode, "decode": decode}


# Each fixture file with its variants: (name, patch, texts, with stream
# chunks of the texts, texts whose ids are cut for decode cases, random id lists).
FIXTURES = [
    ("split_bytelevel", split_bytelevel, [
        ("split_bytelevel", {}, TEXTS, True, TEXTS[10:16], 3),
    ]),
    ("gpt2_digits", gpt2_digits, [
        ("gpt2_digits", {}, TEXTS, False, TEXTS[10:16], 2),
        ("gpt2_digits_prefix_space", {"/pre_tokenizer/pretokenizers/1/add_prefix_space": True}, VARIANT_TEXTS, False,
         TEXTS[11:14], 1),
        # What the Whitespace pre-tokenizer does, as a Split: \w+|[^\w\s]+ kept, the rest removed.
        ("gpt2_split_words", {"/pre_tokenizer/pretokenizers/0": {
            "type": "Split", "pattern": {"Regex": r"\w+|[^\w\s]+"}, "behavior": "Removed", "invert": True}},
         VARIANT_TEXTS, False, [], 0),
        ("gpt2_split_behaviors", {"/pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
            {"type": "Split", "pattern": {"Regex": r"\d+"}, "behavior": "MergedWithNext", "invert": False},
            {"type": "Split", "pattern": {"Regex": r"\p{P}"}, "behavior": "Contiguous", "invert": False},
            {"type": "Digits", "individual_digits": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}},
         VARIANT_TEXTS, False, [], 0),
    ]),
    ("metaspace_fallback", metaspace_fallback, [
        ("metaspace_fallback", {}, TEXTS, False, TEXTS[10:16], 3),
        ("metaspace_fallback_pre_tokenizer", {
            "/normalizer": None,
            "/pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False},
        }, VARIANT_TEXTS, False, TEXTS[11:14], 1),
        ("metaspace_split_decoder", {
            "/normalizer": None,
            "/pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            "/decoder": {"type": "Sequence", "decoders": [
                {"type": "ByteFallback"},
                {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}]},
        }, VARIANT_TEXTS, False, TEXTS[11:14], 1),
        ("metaspace_never", {
            "/normalizer": None,
            "/pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True},
            "/decoder": {"type": "Sequence", "decoders": [
                {"type": "ByteFallback"},
                {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True}]},
        }, VARIANT_TEXTS, False, TEXTS[11:14], 1),
        ("phi3_chat_tokens", PHI3_ADDED, VARIANT_TEXTS + CHAT_TEXTS, False, CHAT_TEXTS[:2], 1),
        ("mistral_v3_chat_tokens", {
            "/normalizer": None,
            "/pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False},
            **MISTRAL_ADDED,
        }, VARIANT_TEXTS + CHAT_TEXTS, False, CHAT_TEXTS[2:4], 1),
    ]),
    ("qwen_nfc", qwen_nfc, [
        ("qwen_nfc", {}, TEXTS + UNICODE_TEXTS, False, UNICODE_TEXTS[:10], 2),
        ("qwen_nfkc", {"/normalizer": {"type": "NFKC"}}, UNICODE_TEXTS + VARIANT_TEXTS, False, UNICODE_TEXTS[4:8], 1),
        ("qwen_nfd", {"/normalizer": {"type": "NFD"}}, UNICODE_TEXTS + VARIANT_TEXTS, False, UNICODE_TEXTS[:4], 1),
        ("qwen_nfkd", {"/normalizer": {"type": "NFKD"}}, UNICODE_TEXTS + VARIANT_TEXTS, False, [], 0),
        ("qwen_nfkc_lowercase", {"/normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": True, "strip_right": False}]}},
         UNICODE_TEXTS + VARIANT_TEXTS, False, [], 0),
    ]),
    ("qwen_tiny", qwen_tiny, [
        ("qwen_tiny", {}, VARIANT_TEXTS + UNICODE_TEXTS, True, UNICODE_TEXTS[:6], 2),
    ]),
    ("gemma_fallback", gemma_fallback, [
        ("gemma_fallback", {}, TEXTS + CHAT_TEXTS, False, TEXTS[10:16], 3),
        ("gemma_fallback_nfkc", {"/normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFKC"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}},
         UNICODE_TEXTS, False, [], 0),
    ]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures",
                                                      "tokenizer"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    listed = []
    for index, (file_name, build, variants) in enumerate(FIXTURES):
        document = build()
        with open(os.path.join(args.out, file_name + ".json"), "w", encoding="utf-8") as out:
            json.dump(document, out, ensure_ascii=False, separators=(",", ":"))
        for name, patch, texts, streams, cut_texts, random_lists in variants:
            tokenizer = Tokenizer.from_str(json.dumps(apply_patch(document, patch)))
            id_lists = cutting_id_lists(tokenizer, cut_texts, random_lists, seed=index)
            entry = {"name": name, "file": file_name + ".json", "patch": patch}
            entry.update(make_cases(tokenizer, texts, id_lists, stream=streams))
            listed.append(entry)
            print(f"{name}: {len(entry['encode'])} texts, {len(entry['decode'])} id lists, vocabulary "
                  f"{tokenizer.get_vocab_size()}")
    with open(os.path.join(args.out, "cases.json"), "w", encoding="utf-8") as out:
        out.write("{\"generator\": \"tools/llm/tokenizer_cases.py\", \"tokenizers\": [\n")
        out.write(",\n".join(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in listed))
        out.write("\n]}\n")


if __name__ == "__main__":
    main()
