// Chat templates against Python's jinja2 as transformers renders them. The
// fixture cases (tests/fixtures/chat_templates, written by
// tools/llm/chat_template_cases.py) must match byte for byte; the language
// tests pin each construct to what jinja2 printed for it; templates that are
// broken or refuse a conversation get errors naming the place and the
// reason. ChatTemplateModelTest checks a real model's config and template
// against the cases tools/llm/chat_template_cases.py --tokenizer-dir writes
// for it: SmolLM2's (tests/fixtures/chat_templates/smollm2) always, any
// other model's when KILN_CHAT_TEMPLATE_CASES names its cases.
#include "llm/chat_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::llm::chat_template_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Json = nlohmann::ordered_json;

const std::filesystem::path kFixtureDir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/fixtures/chat_templates";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << path;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

// The conversation the language tests render with.
const std::vector<ChatMessage> kConversation = {
    {"system", "Be brief."},
    {"user", "Hi there"},
    {"assistant", " Hello! "},
    {"user", "héllo wörld ✓"},
};

ChatContext default_context() {
  ChatContext context;
  context.bos_token = "<s>";
  context.eos_token = "</s>";
  return context;
}

std::string render(const std::string& source, const ChatContext& context = default_context()) {
  return ChatTemplate::parse(source).render(kConversation, context);
}

// What rendering `source` throws, or "" when it renders.
std::string error_of(const std::string& source, const ChatContext& context = default_context()) {
  try {
    render(source, context);
  } catch (const ChatTemplateError& error) {
    return error.what();
  }
  return "";
}

struct Rendering {
  const char* source;
  const char* expected;  ///< what jinja2 rendered in transformers' environment
};

void expect_renderings(const std::vector<Rendering>& renderings) {
  for (const Rendering& rendering : renderings) {
    SCOPED_TRACE(rendering.source);
    try {
      EXPECT_EQ(render(rendering.source), rendering.expected);
    } catch (const ChatTemplateError& error) {
      ADD_FAILURE() << error.what();
    }
  }
}

// Runs the cases of a cases.json file: each renders to `expected` or fails
// with a ChatTemplateError holding `error` (the message jinja2 raised).
void expect_cases(const Json& cases, const std::function<std::string(const Json&)>& render_case) {
  for (const Json& entry : cases) {
    SCOPED_TRACE(entry.value("template", std::string()) + " / " + entry.at("conversation").get<std::string>() +
                 (entry.at("add_generation_prompt").get<bool>() ? " + generation prompt" : ""));
    if (entry.contains("error")) {
      try {
        render_case(entry);
        ADD_FAILURE() << "rendered, but transformers raised: " << entry.at("error").get<std::string>();
      } catch (const ChatTemplateError& error) {
        EXPECT_THAT(error.what(), HasSubstr(entry.at("error").get<std::string>()));
      }
      continue;
    }
    try {
      EXPECT_EQ(render_case(entry), entry.at("expected").get<std::string>());
    } catch (const ChatTemplateError& error) {
      ADD_FAILURE() << error.what();
    }
  }
}

TEST(ChatTemplateTest, MatchesTransformersOnTheFixtureCases) {
  const Json document = Json::parse(read_text(kFixtureDir / "cases.json"));
  ASSERT_GE(document.at("cases").size(), 60u);
  std::map<std::string, ChatTemplate> templates;
  expect_cases(document.at("cases"), [&](const Json& entry) {
    const std::string name = entry.at("template").get<std::string>();
    if (!templates.contains(name)) templates.emplace(name, ChatTemplate::parse(read_text(kFixtureDir / name), name));
    ChatContext context;
    context.add_generation_prompt = entry.at("add_generation_prompt").get<bool>();
    context.variables = entry.at("variables");
    return templates.at(name).render_json(entry.at("messages"), context);
  });
}

// The cases tools/llm/chat_template_cases.py --tokenizer-dir wrote for a
// model: its tokenizer_config.json (named relative to the cases) read as
// kiln generate --chat reads it, each conversation rendered as
// apply_chat_template rendered it.
void check_model_cases(const std::filesystem::path& cases_path) {
  const Json document = Json::parse(read_text(cases_path));
  const ChatConfig config =
      read_chat_config(cases_path.parent_path() / document.at("tokenizer_config").get<std::string>());
  ASSERT_FALSE(document.at("cases").empty());
  expect_cases(document.at("cases"), [&](const Json& entry) {
    ChatContext context = config.context;
    context.add_generation_prompt = entry.at("add_generation_prompt").get<bool>();
    return config.chat_template.render_json(entry.at("messages"), context);
  });
}

// A real model's: SmolLM2-135M-Instruct's config and template.
TEST(ChatTemplateModelTest, MatchesTransformersOnSmolLM2sTemplate) { check_model_cases(kFixtureDir / "smollm2/cases.json"); }

// Any other model's, from the cases file KILN_CHAT_TEMPLATE_CASES names.
TEST(ChatTemplateModelTest, MatchesTransformersOnTheGivenCases) {
  const char* path = std::getenv("KILN_CHAT_TEMPLATE_CASES");
  if (path == nullptr) {
    GTEST_SKIP() << "checks a model of your choice: set KILN_CHAT_TEMPLATE_CASES to the cases "
                    "tools/llm/chat_template_cases.py --tokenizer-dir writes";
  }
  check_model_cases(path);
}

// The structs API gives what the JSON one gives.
TEST(ChatTemplateTest, RendersChatMessages) {
  const ChatTemplate chat_template = ChatTemplate::parse(read_text(kFixtureDir / "llama2.jinja"), "llama2.jinja");
  ChatContext context = default_context();
  EXPECT_EQ(chat_template.render({{"system", "Be brief."}, {"user", "Hi"}}, context),
            "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]");
  // Variables override the tokens.
  context.variables = {{"bos_token", "<BOS>"}};
  EXPECT_EQ(chat_template.render({{"user", "Hi"}}, context), "<BOS>[INST] Hi [/INST]");
  // Without a bos_token the name is undefined: it prints as nothing, and
  // adding it to a string fails as in Python.
  context = ChatContext{};
  EXPECT_EQ(ChatTemplate::parse("[{{ bos_token }}]").render({}, context), "[]");
  EXPECT_THROW(chat_template.render({{"user", "Hi"}}, context), ChatTemplateError);
  ChatContext with_flag;
  with_flag.variables = {{"flag", false}};
  EXPECT_EQ(ChatTemplate::parse("{{ flag }} {{ tools }} {{ documents is none }}").render({}, with_flag),
            "False None True");
}

// Arithmetic as Python computes it (floor division and modulo round down), `~` joining the
// str() of anything, chained comparisons, `and`/`or` returning an operand.
TEST(ChatTemplateLanguageTest, Operators) {
  expect_renderings({
      {"{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 / 2 }} "
       "{{ 2 ** 10 }} {{ 2 ** -1 }}",
       "7 9 3 -4 2 3.5 1024 0.5"},
      {"{{ 1 ~ 2 }} {{ 'a' ~ none ~ x ~ true }} {{ 'a' + 'b' }} {{ [1] + [2] }} {{ 'ab' * 2 }} "
       "{{ 2 * [0] }}",
       "12 aNoneTrue ab [1, 2] abab [0, 0]"},
      {"{{ 1 == 1.0 }} {{ true == 1 }} {{ '1' == 1 }} {{ 1 != 2 }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 5 }} "
       "{{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }}",
       "True True False True True False True True"},
      {"{{ 'ell' in 'hello' }} {{ 2 in [1, 2] }} {{ 'role' in messages[0] }} {{ 'x' not in 'abc' }} "
       "{{ 1 in x }}",
       "True True True True False"},
      {"{{ 'a' or 'b' }} {{ '' or 'b' }} {{ 0 and 1 }} {{ 1 and 2 }} {{ not '' }} {{ not 1 == 2 }}",
       "a b 0 2 True True"},
      {"{{ 'yes' if messages else 'no' }} {{ 'yes' if x else 'no' }} [{{ 'only' if false }}]", "yes no []"},
      {"{{ -3 }} {{ - 2 ** 2 }} {{ -(2) }} {{ +1 }}", "-3 4 -2 1"},
  });
}

// Python's str() and repr(): None, True, floats in their shortest form, quotes chosen as
// Python chooses them, tuples.
TEST(ChatTemplateLanguageTest, Literals) {
  expect_renderings({
      {"{{ none }} {{ true }} {{ False }} {{ 42 }} {{ 1_000 }} {{ 1.0 }} {{ 2.5e-4 }} {{ 1e16 }} "
       "{{ 0.1 + 0.2 }}",
       "None True False 42 1000 1.0 0.00025 1e+16 0.30000000000000004"},
      {"{{ 'it\\'s' }} {{ \"say \\\"hi\\\"\" }} {{ 'tab\\there' }} {{ '\\u00e9\\x41\\101' }} "
       "{{ 'adjacent' ' strings' }}",
       "it's say \"hi\" tab\there éAA adjacent strings"},
      {"{{ [1, 'a', none, true, 2.5] }} {{ {'k': 'v', 'n': [1, {}]} }} {{ (1, 'two') }} "
       "{{ ('one',) }} {{ \"it's\" }} {{ ['q\"'] }}",
       "[1, 'a', None, True, 2.5] {'k': 'v', 'n': [1, {}]} (1, 'two') ('one',) it's ['q\"']"},
  });
}

// Items and attributes are one lookup; missing ones are undefined and print as nothing.
// Strings index and slice by code point.
TEST(ChatTemplateLanguageTest, Access) {
  expect_renderings({
      {"{{ messages[1]['role'] }} {{ messages[1].role }} {{ messages[-1].content }} "
       "{{ messages.0.role }}",
       "user user héllo wörld ✓ system"},
      {"[{{ messages[0].missing }}] [{{ messages[9] }}] [{{ none.attribute }}]", "[] [] []"},
      {"{{ messages[1:] | length }} {{ messages[:1][0].role }} {{ messages[::-1][0].role }} "
       "{{ 'abcdef'[1:4] }} {{ 'abcdef'[::2] }} {{ 'abcdef'[-2:] }}",
       "3 system user bcd ace ef"},
      {"{{ 'héllo'[1] }} {{ 'héllo'[::-1] }} {{ 'héllo' | length }}", "é olléh 5"},
  });
}

// Jinja's filters, with transformers' tojson (no HTML escaping, json.dumps separators).
TEST(ChatTemplateLanguageTest, Filters) {
  expect_renderings({
      {"[{{ '  a b \\n'|trim }}] [{{ 'xxaxx'|trim('x') }}] {{ 'a-b-c'|replace('-', '+') }} "
       "{{ 'a-b-c'|replace('-', '+', 1) }}",
       "[a b] [a] a+b+c a+b-c"},
      {"{{ 'hELLO wORLD'|capitalize }} {{ 'hELLO wORLD'|title }} {{ 'ab'|upper }} {{ 'AB'|lower }} "
       "{{ 'Ünï'|upper }}",
       "Hello world Hello World AB ab ÜNÏ"},
      {"{{ [1, 2, 3]|join(', ') }} {{ [1, 2, 3]|first }} {{ [1, 2, 3]|last }} {{ 'abc'|first }} "
       "{{ [1, 2]|length }} {{ 'abc'|count }} {{ x|length }}",
       "1, 2, 3 1 3 a 2 3 0"},
      {"{{ x|default('d') }} [{{ ''|default('d') }}] {{ ''|default('d', true) }} "
       "{{ none|default('d') }} {{ x|d('short') }}",
       "d [] d None short"},
      {"{{ {'a': 1, 'b': [1, 2]}|tojson }} {{ 'é\"\\n<'|tojson }} {{ [1, 2.5, none, true]|tojson }} "
       "{{ {'b': 1, 'a': 2}|tojson(sort_keys=true) }}",
       "{\"a\": 1, \"b\": [1, 2]} \"é\\\"\\n<\" [1, 2.5, null, true] {\"a\": 2, \"b\": 1}"},
      {"{{ {'a': {'b': [1, {}]}, 'c': []}|tojson(indent=2) }}",
       "{\n  \"a\": {\n    \"b\": [\n      1,\n      {}\n    ]\n  },\n  \"c\": []\n}"},
      {"{{ {'a': 1, 'b': 2}|items|list }} {{ [3, 1, 2]|reverse|list }} {{ 'abc'|reverse }} "
       "{{ 'abc'|list }} {{ 5|string }} {{ [1]|string }}",
       "[('a', 1), ('b', 2)] [2, 1, 3] cba ['a', 'b', 'c'] 5 [1]"},
      {"{{ messages|map(attribute='role')|join(',') }} "
       "{{ messages|selectattr('role', 'equalto', 'user')|list|length }} "
       "{{ messages|rejectattr('role', 'eq', 'user')|map(attribute='role')|list }}",
       "system,user,assistant,user 2 ['system', 'assistant']"},
      {"{{ [0, 1, 2, 3]|select|list }} {{ [1, 2, 3, 4]|select('odd')|list }} "
       "{{ [1, 2, 3]|reject('even')|list }} {{ ['a', 'b']|map('upper')|list }}",
       "[1, 2, 3] [1, 3] [1, 3] ['A', 'B']"},
      {"{{ '3'|int + 1 }} {{ '2.5'|float }} {{ 'x'|int }} {{ -3|abs }} "
       "{{ 'a\\nb\\n\\nc'|indent(2) }}",
       "4 2.5 0 3 a\n  b\n\n  c"},
  });
}

TEST(ChatTemplateLanguageTest, Tests) {
  expect_renderings({
      {"{{ x is defined }} {{ x is undefined }} {{ messages is defined }} {{ none is none }} "
       "{{ 1 is not none }}",
       "False True True True True"},
      {"{{ 'a' is string }} {{ 1 is number }} {{ true is number }} {{ true is integer }} "
       "{{ 1.5 is float }} {{ true is boolean }} {{ messages[0] is mapping }} "
       "{{ messages is iterable }} {{ messages is sequence }}",
       "True True True False True True True True True"},
      {"{{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(2) }} "
       "{{ 2 is in [1, 2] }} {{ 'a' is eq 'a' }} {{ 2 is gt 1 }} {{ 'abc' is lower }} "
       "{{ 'ABC' is upper }}",
       "True True True False True True True True True"},
  });
}

// The str, dict and list methods the sandbox lets templates call.
TEST(ChatTemplateLanguageTest, Methods) {
  expect_renderings({
      {"[{{ '  x y  '.strip() }}] [{{ 'xxyxx'.strip('x') }}] [{{ '  x'.lstrip() }}] [{{ 'x  '.rstrip() }}]",
       "[x y] [y] [x] [x]"},
      {"{{ 'abc'.startswith('a') }} {{ 'abc'.endswith(('x', 'c')) }} {{ 'ABC'.lower() }} "
       "{{ 'abc'.upper() }} {{ 'hello world'.title() }} {{ 'hello World'.capitalize() }}",
       "True True abc ABC Hello World Hello world"},
      {"{{ 'a b  c'.split() }} {{ 'a,b,,c'.split(',') }} {{ 'a b c'.split(' ', 1) }} "
       "{{ 'a b c'.rsplit(' ', 1) }} {{ 'l1\\nl2'.splitlines() }}",
       "['a', 'b', 'c'] ['a', 'b', '', 'c'] ['a', 'b c'] ['a b', 'c'] ['l1', 'l2']"},
      {"{{ 'a-b'.replace('-', '+') }} {{ 'abcabc'.find('c') }} {{ 'abcabc'.count('bc') }} "
       "{{ '-'.join(['a', 'b']) }}",
       "a+b 2 2 a-b"},
      {"{{ {'a': 1}.items()|list }} {{ {'a': 1}.keys()|list }} {{ {'a': 1}.values()|list }} "
       "{{ {'a': 1}.get('a') }} {{ {'a': 1}.get('z', 'fallback') }} {{ {'a': 1}.get('z') }}",
       "[('a', 1)] ['a'] [1] 1 fallback None"},
      {"{{ [1, 2, 2].count(2) }} {{ ['a', 'b'].index('b') }}", "2 1"},
  });
}

// Loops and their `loop` variable, Jinja's scoping (a `set` inside a loop is lost after it;
// inside an `if` it is not), namespaces, tuples, block sets, macros.
TEST(ChatTemplateLanguageTest, Statements) {
  expect_renderings({
      {"{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ "
       "loop.revindex }}{{ loop.revindex0 }};{% endfor %}",
       "10TrueFalse443;21FalseFalse432;32FalseFalse421;43FalseTrue410;"},
      {"{% for m in messages if m.role != 'system' %}{{ loop.index }}/{{ loop.length }} "
       "{{ m.role }}{{ ', ' if not loop.last }}{% else %}none{% endfor %}",
       "1/3 user, 2/3 assistant, 3/3 user"},
      {"{% for m in [] %}x{% else %}empty{% endfor %} "
       "{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %} "
       "{% for c in 'ab' %}{{ c }}.{% endfor %}",
       "empty a=1;b=2; a.b."},
      {"{% for m in messages %}{{ loop.cycle('odd', 'even') }}{{ '<' ~ loop.previtem.role ~ '>' if loop.previtem is "
       "defined }} {% endfor %}",
       "odd even<system> odd<user> even<assistant> "},
      {"{% for i in range(6) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{% "
       "endfor %} {{ range(3)|list }} {{ range(1, 8, 3)|list }}",
       "023 [0, 1, 2] [1, 4, 7]"},
      {"{% if x %}a{% elif messages|length > 3 %}b{% else %}c{% endif %}", "b"},
      {"{% set x = 0 %}{% for i in [1, 2, 3] %}{{ x }}{% set x = i %}{% endfor %}{{ x }}", "0000"},
      {"{% if true %}{% set y = 5 %}{% endif %}{{ y }}", "5"},
      {"{% set ns = namespace(count=0, text='') %}{% for m in messages %}{% set ns.count = ns.count + 1 %}{% set "
       "ns.text = ns.text ~ m.role[0] %}{% endfor %}{{ ns.count }} {{ ns.text }}",
       "4 suau"},
      {"{% set a, b = [1, 2] %}{{ a }}{{ b }} {% set t = 1, 2 %}{{ t }} "
       "{% set d = dict(k='v') %}{{ d }}",
       "12 (1, 2) {'k': 'v'}"},
      {"{% set block %}inner {{ 1 + 1 }}{% endset %}[{{ block }}]", "[inner 2]"},
      {"{% macro turn(role, text='...') %}<{{ role }}>{{ text }}</{{ role }}>{% endmacro %}{{ turn('user') }}{{ "
       "turn('bot', text='hi') }}",
       "<user>...</user><bot>hi</bot>"},
      {"{% generation %}assistant text{% endgeneration %} {% raw %}{{ kept }}{% endraw %}",
       "assistant text {{ kept }}"},
  });
}

// trim_blocks and lstrip_blocks as transformers sets them, `-` and `+` on tags, comments,
// newlines normalized to \n and the template's last newline dropped.
TEST(ChatTemplateLanguageTest, Whitespace) {
  expect_renderings({
      {"a\n  {% if true %}\n  b\n  {% endif %}\nc\n", "a\n  b\nc"},
      {"a\n  {%- if true -%}\n  b\n  {%+ endif %}\nc", "ab\n  c"},
      {"  {{ 'x' }}  \n  {% set z = 1 %}  \n{{ z }}", "  x  \n  \n1"},
      {"x {{- ' y ' -}} z", "x y z"},
      {"{# comment #}\n  {# indented comment #}\nx {#- stripped -#}  y", "xy"},
      {"{% for m in messages %}\n  {{ m.role }}\n{% endfor %}\n", "  system\n  user\n  assistant\n  user\n"},
      {"a {% if true +%}\nb{% endif %}", "a \nb"},
      {"line\r\n  {% if true %}\r\n  in\r\n  {% endif %}\r\nend\r\n", "line\n  in\nend"},
      {"trailing newline dropped\n", "trailing newline dropped"},
  });
}

TEST(ChatTemplateErrorTest, SyntaxErrorsNameThePlace) {
  EXPECT_EQ(error_of("Hello {{ name "), "chat template:1:7: unclosed tag: '{{' without '}}'");
  EXPECT_EQ(error_of("{% if messages %}\n{{ 'never closed' }}"),
            "chat template:1:1: '{% if %}' is never closed: expected '{% endif %}' before the end of the template");
  EXPECT_EQ(error_of("ok\n{# a note"), "chat template:2:1: unclosed comment: '{#' without '#}'");
  EXPECT_EQ(error_of("{{ 'abc }}"), "chat template:1:4: unclosed string literal");
  EXPECT_EQ(error_of("{{ (1 }}"), "chat template:1:7: unexpected '}', expected ')'");
  EXPECT_EQ(error_of("{{ 1 $ 2 }}"), "chat template:1:6: unexpected character '$'");
  EXPECT_EQ(error_of("{% if %}{% endif %}"), "chat template:1:7: expected an expression, got '%}'");
  EXPECT_EQ(error_of("{% for m in messages %}\n  {% endif %}\n{% endfor %}"),
            "chat template:2:3: unexpected '{% endif %}': the innermost open block is '{% for %}' at line 1, closed by "
            "'{% endfor %}'");
}

// Jinja checks filter and test names when it compiles: a misspelled one
// fails even in a branch no conversation reaches.
TEST(ChatTemplateErrorTest, UnknownFiltersAndTestsFailWhenParsed) {
  EXPECT_EQ(error_of("{% if false %}{{ x | shout }}{% endif %}"), "chat template:1:22: unknown filter 'shout'");
  EXPECT_EQ(error_of("{{ messages | sort }}"), "chat template:1:15: filter 'sort' is not supported");
  EXPECT_EQ(error_of("{% if x is loud %}{% endif %}"), "chat template:1:12: unknown test 'loud'");
}

TEST(ChatTemplateErrorTest, TagsOutsideTheSubsetAreRefused) {
  EXPECT_EQ(error_of("{% include 'header.jinja' %}"),
            "chat template:1:1: '{% include %}' is outside the Jinja subset Kiln renders chat templates with");
  EXPECT_EQ(error_of("{% break %}"), "chat template:1:1: '{% break %}' outside a loop");
  EXPECT_EQ(error_of("{% for m in messages recursive %}{% endfor %}"),
            "chat template:1:22: recursive loops are not supported");
  EXPECT_EQ(error_of("{{ f(*args) }}"), "chat template:1:6: '*' and '**' arguments are not supported");
}

TEST(ChatTemplateErrorTest, RaiseExceptionRefusesTheConversation) {
  const ChatTemplate chat_template = ChatTemplate::parse(read_text(kFixtureDir / "llama2.jinja"), "llama2.jinja");
  try {
    chat_template.render({{"user", "First."}, {"user", "Second."}}, default_context());
    ADD_FAILURE() << "rendered two user messages in a row";
  } catch (const ChatTemplateError& error) {
    EXPECT_STREQ(error.what(),
                 "llama2.jinja:12:13: the template raised an exception: Conversation roles must alternate "
                 "user/assistant/user/assistant/...");
  }
  EXPECT_EQ(error_of("{{ raise_exception('no ' ~ messages|length ~ ' messages') }}"),
            "chat template:1:4: the template raised an exception: no 4 messages");
}

// Python's errors, at the expression that raised them.
TEST(ChatTemplateErrorTest, RenderErrorsNameTheExpression) {
  EXPECT_EQ(error_of("{{ nothing.here }}"), "chat template:1:11: 'nothing' is undefined");
  EXPECT_EQ(error_of("{{ messages[0].missing.deeper }}"),
            "chat template:1:23: 'dict object' has no attribute 'missing'");
  EXPECT_EQ(error_of("{{ 'a' + 1 }}"), "chat template:1:8: can only concatenate str (not \"int\") to str");
  EXPECT_EQ(error_of("{{ messages | length / 0 }}"), "chat template:1:22: integer division or modulo by zero");
  EXPECT_EQ(error_of("{{ messages() }}"), "chat template:1:4: 'list' object is not callable");
  EXPECT_EQ(error_of("{{ 'x' | trim(1, 2) }}"), "chat template:1:10: trim() takes at most 1 argument (2 given)");
  EXPECT_EQ(error_of("{% set x = 1 %}{% set x.y = 2 %}"),
            "chat template:1:16: cannot assign attribute on non-namespace object");
  EXPECT_EQ(error_of("{% for a, b in [[1, 2, 3]] %}{% endfor %}"),
            "chat template:1:1: too many values to unpack (expected 2, got 3)");
  EXPECT_EQ(
      error_of("{{ messages.append(1) }}"),
      "chat template:1:12: list.append() would change a value; chat templates render in Jinja's immutable sandbox");
  EXPECT_EQ(error_of("{{ {'a': 1} | tojson(ensure_ascii=true) }}"),
            "chat template:1:15: tojson(ensure_ascii=true) is not supported");
}

// A template that would run away (in time, memory or stack) stops with an
// error instead.
TEST(ChatTemplateErrorTest, RunawayTemplatesStop) {
  EXPECT_EQ(error_of("{{ range(1000000) | length }}"),
            "chat template:1:4: range too big: the sandbox allows at most 100000 elements");
  EXPECT_EQ(error_of("{{ 'ab' * 100000000 }}"), "chat template:1:9: string longer than 67108864 bytes");
  EXPECT_EQ(error_of("{{ [0] * 2000000 }}"), "chat template:1:8: list longer than 1048576 elements");
  EXPECT_THAT(error_of("{% macro again() %}{{ again() }}{% endmacro %}{{ again() }}"),
              HasSubstr("calls nested deeper than 64"));
  EXPECT_THAT(error_of("{{ " + std::string(500, '(') + "1" + std::string(500, ')') + " }}"),
              HasSubstr("template nested too deeply"));
  EXPECT_THAT(error_of("{{ 9223372036854775807 + 1 }}"), HasSubstr("integer overflow"));
}

// Every prefix of every fixture template either parses or fails with a
// ChatTemplateError, and what parses renders or fails the same way.
TEST(ChatTemplateErrorTest, EveryTruncatedFixtureFailsCleanly) {
  size_t parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtureDir)) {
    if (entry.path().extension() != ".jinja") continue;
    const std::string source = read_text(entry.path());
    for (size_t length = 0; length <= source.size(); ++length) {
      try {
        const ChatTemplate chat_template = ChatTemplate::parse(source.substr(0, length));
        ++parsed;
        chat_template.render(kConversation, default_context());
      } catch (const ChatTemplateError&) {
      }
    }
  }
  EXPECT_GT(parsed, 100u);
}

// A scratch directory for config files, removed afterwards.
class ChatTemplateConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        std::filesystem::temp_directory_path() / ("kiln_chat_config_" + std::to_string(::getpid()) + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path write_config(const Json& config) {
    write_text(directory_ / "tokenizer_config.json", config.dump());
    return directory_ / "tokenizer_config.json";
  }

  std::filesystem::path directory_;
};

TEST_F(ChatTemplateConfigTest, ReadsTheTemplateAndTheSpecialTokens) {
  const ChatConfig config = read_chat_config(write_config({
      {"chat_template", "{{ bos_token }}{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}"},
      {"bos_token", {{"content", "<s>"}, {"lstrip", false}}},
      {"eos_token", "</s>"},
      {"pad_token", nullptr},
      {"unk_token", "<unk>"},
  }));
  EXPECT_EQ(config.context.bos_token, "<s>");
  EXPECT_EQ(config.context.eos_token, "</s>");
  EXPECT_EQ(config.context.variables, (Json{{"unk_token", "<unk>"}}));
  EXPECT_TRUE(config.context.add_generation_prompt);
  EXPECT_EQ(config.chat_template.render({{"user", "Hi"}}, config.context), "<s>Hi</s>");
}

TEST_F(ChatTemplateConfigTest, PicksTheDefaultOfSeveralTemplates) {
  const ChatConfig config = read_chat_config(write_config({
      {"chat_template",
       Json::array({{{"name", "tool_use"}, {"template", "tools"}}, {{"name", "default"}, {"template", "default"}}})},
  }));
  EXPECT_EQ(config.chat_template.render(std::vector<ChatMessage>{}, config.context), "default");
  EXPECT_FALSE(config.context.bos_token.has_value());

  const std::filesystem::path without_default =
      write_config({{"chat_template", Json::array({{{"name", "rag"}, {"template", "x"}}})}});
  try {
    read_chat_config(without_default);
    ADD_FAILURE() << "read a config without a default template";
  } catch (const ChatTemplateError& error) {
    EXPECT_EQ(error.what(),
              without_default.string() + ": chat_template has no template named \"default\" (it has: rag)");
  }
}

// transformers 5 saves the template beside the config, and reads it first.
TEST_F(ChatTemplateConfigTest, PrefersChatTemplateJinjaBesideTheConfig) {
  const std::filesystem::path config_path = write_config({{"chat_template", "from the config"}});
  write_text(directory_ / "chat_template.jinja", "from the file\n");
  const ChatConfig config = read_chat_config(config_path);
  EXPECT_EQ(config.chat_template.render(std::vector<ChatMessage>{}, config.context), "from the file");
  EXPECT_EQ(config.chat_template.origin(), (directory_ / "chat_template.jinja").string());
}

TEST_F(ChatTemplateConfigTest, ErrorsNameTheFile) {
  const std::filesystem::path path = directory_ / "tokenizer_config.json";
  EXPECT_THROW(read_chat_config(directory_ / "absent.json"), ChatTemplateError);
  const auto error_reading = [&](const std::string& text) -> std::string {
    write_text(path, text);
    try {
      read_chat_config(path);
    } catch (const ChatTemplateError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_THAT(error_reading("{\"chat_template\": "), StartsWith(path.string() + ": not valid JSON"));
  EXPECT_EQ(error_reading("{\"bos_token\": \"<s>\"}"),
            path.string() + ": has no chat_template, and there is no chat_template.jinja beside it");
  EXPECT_EQ(error_reading("{\"chat_template\": \"{{ x | nope }}\"}"),
            path.string() + " (chat_template):1:8: unknown filter 'nope'");
  EXPECT_EQ(error_reading("{\"chat_template\": \"x\", \"eos_token\": 7}"),
            path.string() + ": eos_token is neither a string nor an object with a string \"content\"");
}

}  // namespace
}  // namespace kiln::llm::chat_template_test
