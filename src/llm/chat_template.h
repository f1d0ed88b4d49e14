// Chat templates: the `chat_template` of a model's tokenizer_config.json
// (Jinja source) rendered in C++ to the text transformers'
// `apply_chat_template(messages, tokenize=False, add_generation_prompt=...)`
// gives, byte for byte.
//
// The interpreter (src/llm/jinja) takes the Jinja subset chat templates are
// written in, with the settings transformers renders them with (trim_blocks,
// lstrip_blocks, the immutable sandbox, its `tojson`, `raise_exception`,
// `strftime_now` and `namespace`):
//   tags          {{ }}, {% if/elif/else %}, {% for ... in ... [if ...] %} with
//                 loop.index/index0/revindex/first/last/length/previtem/
//                 nextitem/cycle and {% else %}, {% break %}, {% continue %},
//                 {% set %} (names, tuples, namespace attributes, blocks),
//                 {% macro %}, {% generation %}, {% raw %}, {# #}, and the
//                 whitespace controls -, + on every tag
//   expressions   string (with Python's escapes), integer, float, true/false/
//                 none, list, tuple and dict literals; a.b, a['b'], a[1:-1:2],
//                 calls; + - * / // % ** ~, == != < <= > >= (chained), in,
//                 not in, and, or, not, x if c else y
//   filters       abs capitalize count default/d first float indent int
//                 items join last length list lower map reject rejectattr
//                 replace reverse safe select selectattr string title tojson
//                 trim upper
//   tests         defined undefined none boolean true false integer float
//                 number string mapping iterable sequence callable lower upper
//                 odd even divisibleby sameas in eq ne lt le gt ge (and their
//                 aliases)
//   methods       str: strip lstrip rstrip split rsplit splitlines startswith
//                 endswith lower upper capitalize title replace find count
//                 join isspace isdigit; dict: items keys values get;
//                 list: index count
//   globals       raise_exception, strftime_now, namespace, dict, range
// Undefined names render as "" and are false, as Jinja's default Undefined.
// Anything else is a ChatTemplateError naming the construct and its place.
//
// Strings are UTF-8 and counted in code points as Python counts them; upper
// and lower case map Latin, Greek and Cyrillic letters one to one (Python
// maps all of Unicode, and ß to "SS"). Dict keys are strings.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "host/host_error.h"

namespace kiln::llm {

namespace jinja {
struct Template;
}

/// A chat template Kiln cannot parse or render, or a tokenizer_config.json
/// it cannot read. The message names the template (its origin: the
/// chat_template.jinja file, or ".../tokenizer_config.json (chat_template)"),
/// the line and column, and the reason:
///   tokenizer_config.json (chat_template):1:184: unknown filter 'shout'
/// A template's `raise_exception('...')` reads "the template raised an
/// exception: ...".
class ChatTemplateError : public HostError {
 public:
  using HostError::HostError;
};

/// One message of a conversation.
struct ChatMessage {
  std::string role;  ///< "system", "user", "assistant", ...
  std::string content;
};

/// The variables a template sees besides `messages`, as transformers passes
/// them: the special tokens of the tokenizer's config, then the caller's
/// keyword arguments. `tools` and `documents` are none.
struct ChatContext {
  bool add_generation_prompt = true;
  std::optional<std::string> bos_token;  ///< absent: undefined in the template
  std::optional<std::string> eos_token;
  /// Further variables by name: the other special tokens (unk_token,
  /// pad_token, ...), switches some templates read (`enable_thinking`), a
  /// fixed `date_string`. They override the fields above of the same name.
  nlohmann::ordered_json variables = nlohmann::ordered_json::object();
};

/// A parsed chat template; render it for any number of conversations.
/// Copies share the parsed form; rendering is const and thread-safe.
class ChatTemplate {
 public:
  /// Parses Jinja `source`. `origin` names it in errors. Throws
  /// ChatTemplateError for a syntax error, an unclosed block, an unknown
  /// filter or test, a tag outside the subset.
  static ChatTemplate parse(std::string source, std::string origin = "chat template");

  /// The prompt text for `messages`. Throws ChatTemplateError when the
  /// template fails or refuses the conversation (raise_exception).
  std::string render(const std::vector<ChatMessage>& messages, const ChatContext& context) const;
  /// The same for messages given as a JSON array of objects, with any fields
  /// templates read (`content` as a list of parts, `tool_calls`, ...).
  std::string render_json(const nlohmann::ordered_json& messages, const ChatContext& context) const;

  const std::string& source() const { return source_; }
  const std::string& origin() const { return origin_; }

 private:
  ChatTemplate(std::string source, std::string origin, std::shared_ptr<const jinja::Template> program);

  std::string source_;
  std::string origin_;
  std::shared_ptr<const jinja::Template> program_;
};

/// What a model's tokenizer config says about formatting chats.
struct ChatConfig {
  ChatTemplate chat_template;
  /// bos_token and eos_token, and the other special tokens (unk, sep, pad,
  /// cls, mask) in `variables`; add_generation_prompt true.
  ChatContext context;
};

/// Reads tokenizer_config.json: `chat_template` as a string, or as a list of
/// {"name", "template"} (the one named "default"); without one, the
/// chat_template.jinja beside it (where transformers 5 saves it). Special
/// tokens may be strings or {"content": ...} objects. Throws
/// ChatTemplateError naming the file when it cannot be read, holds no
/// template, or the template does not parse.
ChatConfig read_chat_config(const std::filesystem::path& tokenizer_config);

}  // namespace kiln::llm
