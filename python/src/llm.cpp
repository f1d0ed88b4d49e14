// kiln.Tokenizer and kiln.ChatTemplate: src/llm's tokenizer.json reader and
// chat template interpreter, the text side of a language model runner. What
// they refuse raises kiln.KilnError, as every Kiln error does (bindings.h).
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "llm/chat_template.h"
#include "llm/tokenizer.h"

namespace kiln::python {

namespace {

using namespace nb::literals;
using Message = std::map<std::string, std::string>;

std::vector<llm::ChatMessage> chat_messages(const std::vector<Message>& messages) {
  std::vector<llm::ChatMessage> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    const auto role = messages[i].find("role"), content = messages[i].find("content");
    if (role == messages[i].end() || content == messages[i].end()) {
      throw InputError{"message " + std::to_string(i) + " needs a 'role' and a 'content'"};
    }
    out.push_back({role->second, content->second});
  }
  return out;
}

std::string render(const llm::ChatTemplate& chat_template, const std::vector<Message>& messages,
                   bool add_generation_prompt, std::optional<std::string> bos_token,
                   std::optional<std::string> eos_token) {
  llm::ChatContext context;
  context.add_generation_prompt = add_generation_prompt;
  context.bos_token = std::move(bos_token);
  context.eos_token = std::move(eos_token);
  return chat_template.render(chat_messages(messages), context);
}

}  // namespace

void bind_llm(nb::module_& m) {
  nb::class_<llm::Tokenizer>(m, "Tokenizer",
                             "Hugging Face's tokenizer.json (BPE, byte-level or with byte fallback), encoding and "
                             "decoding as the tokenizers package does.")
      .def_static("from_file", [](const std::filesystem::path& path) { return llm::Tokenizer::from_file(path); },
                  "path"_a, "Reads a tokenizer.json. Raises KilnError naming the file and what Kiln cannot use.")
      .def_static("from_json", &llm::Tokenizer::from_json, "json"_a, "name"_a = "tokenizer.json",
                  "Reads tokenizer.json's text; `name` stands for the file in messages.")
      .def("encode", &llm::Tokenizer::encode, "text"_a, "add_special_tokens"_a = false,
           "The ids of `text`; with add_special_tokens, the post-processor's tokens too (a BOS, ...).")
      .def(
          "decode",
          [](const llm::Tokenizer& tokenizer, const std::vector<int32_t>& ids, bool skip_special_tokens) {
            return tokenizer.decode(ids, skip_special_tokens);
          },
          "ids"_a, "skip_special_tokens"_a = false,
          "The text of `ids`. Raises KilnError for an id the tokenizer does not have.")
      .def("token_id", &llm::Tokenizer::token_id, "token"_a,
           "The id of an added token or a vocabulary entry as the vocabulary spells it; None if there is none.")
      .def_prop_ro("vocab_size", &llm::Tokenizer::vocab_size, "One past the largest id.");

  nb::class_<llm::ChatTemplate>(m, "ChatTemplate",
                                "A chat template (Jinja) rendered as transformers' apply_chat_template renders it.")
      .def_static("parse", &llm::ChatTemplate::parse, "source"_a, "origin"_a = "chat template",
                  "Parses a template; `origin` names it in errors. Raises KilnError for what Kiln cannot parse, "
                  "naming the line and column.")
      .def("render", &render, "messages"_a, "add_generation_prompt"_a = true, "bos_token"_a = nb::none(),
           "eos_token"_a = nb::none(),
           "The prompt text for `messages` (dicts with 'role' and 'content'). Raises KilnError when the template "
           "fails or refuses the conversation.")
      .def_prop_ro("source", &llm::ChatTemplate::source, "The template's Jinja source.");
}

}  // namespace kiln::python
