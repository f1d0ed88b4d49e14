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


LLAMA = FIXTURES / "llm" / "tiny_llama"


def test_a_language_model_streams_pytorchs_greedy_ids():
    reference = json.loads((LLAMA / "reference.json").read_text())[0]
    model = kiln.LanguageModel(LLAMA / "model.pte")
    assert (model.bos_id, model.eos_ids, model.max_context, model.vocab_size) == (1, [2], 64, 256)
    stream = model.generate(reference["prompt_ids"], max_new_tokens=6, stop_at_eos=False)
    assert next(stream) == reference["greedy_ids"][0]
    assert list(stream) == reference["greedy_ids"][1:6]
    assert model.position == 10
    assert model.tokens == reference["prompt_ids"] + reference["greedy_ids"][:6]


def test_a_language_model_keeps_its_cache_across_turns():
    model = kiln.LanguageModel(LLAMA / "model.pte")
    list(model.generate([1, 17, 42, 99, 7], max_new_tokens=6, stop_at_eos=False))
    reply = list(model.generate([33, 12, 250, 9], max_new_tokens=5, stop_at_eos=False))
    assert model.position == 19
    fresh = kiln.LanguageModel(LLAMA / "model.pte")
    conversation = model.tokens[: -len(reply)]
    assert list(fresh.generate(conversation, max_new_tokens=5, stop_at_eos=False)) == reply
    model.reset()
    assert model.position == 0 and model.tokens == []


def test_leaving_a_turn_early_leaves_the_conversation_as_it_was():
    model = kiln.LanguageModel(LLAMA / "model.pte")
    stream = model.generate([1, 17, 42, 99, 7], max_new_tokens=20)
    next(stream)
    stream.close()
    assert model.position == 0 and model.tokens == []


def test_a_language_model_refuses_bad_input_by_name():
    with pytest.raises(kiln.KilnError, match=r"is not a language model's \(token ids \[1, seq\], cache positions"):
        kiln.LanguageModel(FIXTURES / "pte" / "add.pte")
    model = kiln.LanguageModel(LLAMA / "model.pte")
    with pytest.raises(kiln.KilnError, match=r"prompt token id 256 is outside the vocabulary \(0 to 255\)"):
        list(model.generate([1, 256]))
    with pytest.raises(kiln.InputError, match=r"top-p 0\.000000 must be in \(0, 1\]"):
        list(model.generate([1], top_p=0))
    with pytest.raises(kiln.KilnError, match="the prompt has 65 tokens; the model's cache holds 64"):
        list(model.generate([3] * 65))
    assert model.position == 0
