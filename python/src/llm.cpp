// kiln.Tokenizer and kiln.ChatTemplate: src/llm's tokenizer.json reader and
// chat template interpreter, the text side of a language model runner; and
// kiln.LanguageModel's engine, src/llm's LanguageModel with a Conversation
// that keeps its KV cache across turns (python/kiln/_llm.py streams it).
// What they refuse raises kiln.KilnError, as every Kiln error does
// (bindings.h).
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/function.h>
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
#include "runtime/backend/backend_interface.h"
#include "llm/chat_template.h"
#include "llm/generate.h"
#include "llm/language_model.h"
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

/// A model and the one conversation it runs (kiln.LanguageModel): the
/// conversation holds a reference to the model, so neither moves.
struct ChatModel {
  explicit ChatModel(const std::string& path) : model(path), conversation(model) {}
  ChatModel(const ChatModel&) = delete;
  ChatModel& operator=(const ChatModel&) = delete;

  llm::LanguageModel model;
  llm::Conversation conversation;
};

/// Conversation::add_turn with the sampling options as arguments; `on_token`
/// is called with each id (the GIL taken for it, released otherwise). An
/// exception it raises stops the turn and leaves the conversation as it was.
std::vector<int64_t> add_turn(ChatModel& chat, const std::vector<int64_t>& ids, int64_t max_new_tokens,
                              double temperature, int64_t top_k, double top_p, uint64_t seed, bool stop_at_eos,
                              const std::function<void(int64_t)>& on_token) {
  llm::GenerationOptions options;
  options.max_new_tokens = max_new_tokens;
  options.sampling.temperature = temperature;
  options.sampling.top_k = top_k;
  options.sampling.top_p = top_p;
  options.sampling.seed = seed;
  options.stop_at_eos = stop_at_eos;
  try {
    llm::Sampler check(options.sampling);
  } catch (const llm::LlmError& error) {
    throw InputError{error.what()};
  }
  nb::gil_scoped_release release;
  const llm::GenerationResult result = chat.conversation.add_turn(ids, options, [&](int64_t token) {
    if (!on_token) return;
    nb::gil_scoped_acquire acquire;
    on_token(token);
  });
  return result.tokens;
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

  nb::class_<ChatModel>(m, "_LanguageModel", "The engine of kiln.LanguageModel (python/kiln/_llm.py).")
      .def(
          "__init__",
          [](ChatModel* self, const std::filesystem::path& path, int threads) {
            if (threads < 1 || threads > 256) {
              throw InputError{"threads must be 1 to 256, got " + std::to_string(threads)};
            }
            runtime::set_backend_threads(threads);
            new (self) ChatModel(path.string());
          },
          "path"_a, "threads"_a = 1)
      .def("add_turn", &add_turn, "ids"_a, "max_new_tokens"_a, "temperature"_a, "top_k"_a, "top_p"_a, "seed"_a,
           "stop_at_eos"_a, "on_token"_a = nb::none())
      .def("reset", [](ChatModel& chat) { chat.conversation.reset(); })
      .def_prop_ro("tokens", [](const ChatModel& chat) { return chat.conversation.tokens(); })
      .def_prop_ro("position", [](const ChatModel& chat) { return chat.conversation.position(); })
      .def_prop_ro("bos_id", [](const ChatModel& chat) { return chat.model.info().bos_id; })
      .def_prop_ro("eos_ids", [](const ChatModel& chat) { return chat.model.info().eos_ids; })
      .def_prop_ro("max_context", [](const ChatModel& chat) { return chat.model.info().max_context; })
      .def_prop_ro("vocab_size", [](const ChatModel& chat) { return chat.model.info().vocab_size; });
}

}  // namespace kiln::python
