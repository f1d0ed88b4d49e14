"""kiln.Tokenizer and kiln.ChatTemplate: the fixtures' tokenizers and chat
templates as the C++ tests read them (tests/fixtures/tokenizer,
tests/fixtures/chat_templates), and what they refuse raised as
kiln.KilnError with the message naming the file, the place and the reason."""

from __future__ import annotations

import json

import pytest

import kiln
from conftest import FIXTURES

TOKENIZERS = FIXTURES / "tokenizer"
TEMPLATES = FIXTURES / "chat_templates"


def test_a_tokenizer_encodes_and_decodes_as_tokenizers_does():
    cases = json.loads((TOKENIZERS / "cases.json").read_text(encoding="utf-8"))
    entry = next(e for e in cases["tokenizers"] if e["name"] == "gpt2_digits")
    tokenizer = kiln.Tokenizer.from_file(TOKENIZERS / entry["file"])
    item = next(i for i in entry["encode"] if i["text"] == "Hello world")
    assert tokenizer.encode(item["text"]) == item["ids"]
    assert tokenizer.decode(item["ids"]) == "Hello world"
    assert tokenizer.token_id("<|endoftext|>") == 0
    assert tokenizer.vocab_size == 600


def test_a_tokenizer_error_is_a_kiln_error():
    with pytest.raises(kiln.KilnError, match=r"bad\.json: not a Hugging Face tokenizer \(no \"model\" object\)"):
        kiln.Tokenizer.from_json("[1, 2, 3]", "bad.json")
    tokenizer = kiln.Tokenizer.from_file(TOKENIZERS / "gpt2_digits.json")
    with pytest.raises(kiln.KilnError, match="600"):
        tokenizer.decode([600])
    with pytest.raises(kiln.KilnError, match="no-such-tokenizer.json"):
        kiln.Tokenizer.from_file(TOKENIZERS / "no-such-tokenizer.json")


def test_a_chat_template_renders_as_transformers_does():
    cases = json.loads((TEMPLATES / "cases.json").read_text(encoding="utf-8"))
    case = next(c for c in cases["cases"] if c["template"] == "chatml.jinja" and "expected" in c
                and all(set(m) == {"role", "content"} and isinstance(m["content"], str) for m in c["messages"]))
    template = kiln.ChatTemplate.parse((TEMPLATES / "chatml.jinja").read_text(encoding="utf-8"), "chatml.jinja")
    tokens = case["variables"]
    text = template.render(case["messages"], add_generation_prompt=case["add_generation_prompt"],
                           bos_token=tokens.get("bos_token"), eos_token=tokens.get("eos_token"))
    assert text == case["expected"]


def test_a_chat_template_error_is_a_kiln_error():
    with pytest.raises(kiln.KilnError, match=r"shouting\.jinja:1:.*unknown filter 'shout'"):
        kiln.ChatTemplate.parse("{{ messages[0].content | shout }}", "shouting.jinja")
    refusing = kiln.ChatTemplate.parse("{{ raise_exception('roles must alternate') }}", "refusing.jinja")
    with pytest.raises(kiln.KilnError, match="the template raised an exception: roles must alternate"):
        refusing.render([{"role": "user", "content": "Hi"}])


def test_a_message_without_a_role_is_an_input_error():
    template = kiln.ChatTemplate.parse("{{ messages | length }}")
    with pytest.raises(kiln.InputError, match="message 0 needs a 'role' and a 'content'"):
        template.render([{"content": "Hi"}])
