#!/usr/bin/env python3
"""Renders the chat template fixtures as transformers renders them, for the C++
interpreter's test (src/llm/test/chat_template_test.cpp) to match byte for byte.

For each template tests/fixtures/chat_templates/*.jinja and each conversation
below, with and without add_generation_prompt, transformers'
`render_jinja_template` (jinja2's immutable sandbox with trim_blocks and
lstrip_blocks, transformers' tojson, raise_exception and namespace) renders the
text; a conversation the template refuses records the exception's message
instead. Writes tests/fixtures/chat_templates/cases.json:

  {"jinja2": version, "transformers": version,
   "cases": [{"template": "chatml.jinja", "conversation": "single_user",
              "messages": [...], "add_generation_prompt": true,
              "variables": {"bos_token": ..., "eos_token": ...},
              "expected": text | "error": message}, ...]}

With --tokenizer-dir, renders a real model's template instead: the directory's
tokenizer as transformers loads it (tokenizer_config.json, chat_template.jinja
when there is one), `apply_chat_template(messages, tokenize=False,
add_generation_prompt=...)` for the same conversations, written to --out with
the config's path (relative to --out's folder, which --copy-config copies the
config and the template into) for ChatTemplateModelTest:

  {"tokenizer_config": path, "cases": [{"conversation", "messages",
   "add_generation_prompt", "expected" | "error"}, ...]}

tests/fixtures/chat_templates/smollm2 is SmolLM2-135M-Instruct's (the
tokenizer tools/llm/export.py --model smollm2 writes), made with
  .venv/bin/python tools/llm/chat_template_cases.py --tokenizer-dir build/llm/smollm2 \
      --out tests/fixtures/chat_templates/smollm2/cases.json --copy-config

Run with the virtual environment that scripts/setup-venv.sh makes:
  .venv/bin/python tools/llm/chat_template_cases.py
  .venv/bin/python tools/llm/chat_template_cases.py --tokenizer-dir DIR --out /tmp/cases.json
  KILN_CHAT_TEMPLATE_CASES=/tmp/cases.json build/tests/llm_test --gtest_filter='ChatTemplateModelTest.*'
"""

import argparse
import json
import pathlib
import shutil

import jinja2
import transformers
from transformers.utils.chat_template_utils import render_jinja_template

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "chat_templates"

# The special tokens each template is rendered with, as its model's
# tokenizer_config.json would give them.
SPECIAL_TOKENS = {
    "chatml.jinja": {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"},
    "gemma.jinja": {"bos_token": "<bos>", "eos_token": "<eos>"},
    "llama2.jinja": {"bos_token": "<s>", "eos_token": "</s>"},
    "llama3.jinja": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "namespace_last.jinja": {"bos_token": "<s>", "eos_token": "</s>"},
    "tojson_slicing.jinja": {"bos_token": "<s>", "eos_token": "<|endoftext|>"},
}

CONVERSATIONS = {
    "single_user": [
        {"role": "user", "content": "What is the capital of France?"},
    ],
    "system_user": [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Name three primes."},
    ],
    "multi_turn": [
        {"role": "system", "content": "Answer in one line."},
        {"role": "user", "content": "Hi!"},
        {"role": "assistant", "content": "Hello. How can I help?"},
        {"role": "user", "content": "  Tell me a joke.\n"},
    ],
    "unicode": [
        {"role": "user", "content": "Grüße aus Köln! 日本語で答えて 🙂 \u2014 \u00abça va?\u00bb"},
        {"role": "assistant", "content": "\u00a0Ja, naturellement \u2713\n\n"},
        {"role": "user", "content": "Ελληνικά; Кириллица. \"quotes\" and \\backslash\\ <tag> & tab\t"},
    ],
    "roles_out_of_order": [
        {"role": "user", "content": "First."},
        {"role": "user", "content": "Second, with no answer between."},
    ],
}


def render(template, messages, add_generation_prompt, variables):
    rendered, _ = render_jinja_template(
        conversations=[messages],
        chat_template=template,
        add_generation_prompt=add_generation_prompt,
        **variables,
    )
    return rendered[0]


def render_model_cases(tokenizer_dir, out, copy_config):
    tokenizer = transformers.AutoTokenizer.from_pretrained(tokenizer_dir)
    cases = []
    for conversation, messages in CONVERSATIONS.items():
        for add_generation_prompt in (True, False):
            case = {"conversation": conversation, "messages": messages, "add_generation_prompt": add_generation_prompt}
            try:
                case["expected"] = tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=add_generation_prompt)
            except jinja2.TemplateError as error:
                case["error"] = str(error)
            cases.append(case)
    config = (tokenizer_dir / "tokenizer_config.json").resolve()
    if copy_config:
        # The config and its template beside the cases, named relative to them:
        # a fixture the repository can hold (the tokenizer itself is not needed).
        for name in ("tokenizer_config.json", "chat_template.jinja"):
            if (tokenizer_dir / name).exists():
                shutil.copyfile(tokenizer_dir / name, out.parent / name)
        return {"tokenizer_config": "tokenizer_config.json", "cases": cases}
    return {"tokenizer_config": str(config), "cases": cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=FIXTURES / "cases.json")
    parser.add_argument("--tokenizer-dir", type=pathlib.Path,
                        help="render this model's template with apply_chat_template instead of the fixtures")
    parser.add_argument("--copy-config", action="store_true",
                        help="with --tokenizer-dir: copy tokenizer_config.json and chat_template.jinja beside --out")
    args = parser.parse_args()

    if args.tokenizer_dir is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        document = render_model_cases(args.tokenizer_dir, args.out, args.copy_config)
        args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {len(document['cases'])} cases to {args.out}")
        return

    cases = []
    for path in sorted(FIXTURES.glob("*.jinja")):
        template = path.read_text(encoding="utf-8")
        variables = SPECIAL_TOKENS[path.name]
        for conversation, messages in CONVERSATIONS.items():
            for add_generation_prompt in (True, False):
                case = {
                    "template": path.name,
                    "conversation": conversation,
                    "messages": messages,
                    "add_generation_prompt": add_generation_prompt,
                    "variables": variables,
                }
                try:
                    case["expected"] = render(template, messages, add_generation_prompt, variables)
                except jinja2.TemplateError as error:
                    case["error"] = str(error)
                cases.append(case)

    document = {"jinja2": jinja2.__version__, "transformers": transformers.__version__, "cases": cases}
    args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {args.out}")


if __name__ == "__main__":
    main()
