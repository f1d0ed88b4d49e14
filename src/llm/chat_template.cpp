#include "llm/chat_template.h"

#include <fstream>
#include <sstream>

#include "llm/jinja/ast.h"
#include "llm/jinja/error.h"
#include "llm/jinja/parser.h"
#include "llm/jinja/renderer.h"
#include "llm/jinja/value.h"

namespace kiln::llm {
namespace {

// The special tokens transformers passes to templates (its tokenizer's
// SPECIAL_TOKENS_ATTRIBUTES).
constexpr const char* kSpecialTokens[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                          "pad_token", "cls_token", "mask_token"};

ChatTemplateError located_error(const std::string& origin, const jinja::TemplateError& error) {
  const jinja::SourceLocation where = error.where();
  if (!where.known()) return ChatTemplateError(origin + ": " + error.what());
  return ChatTemplateError(origin + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
                           error.what());
}

// Runs `step`, turning the interpreter's errors (and a failure it did not
// foresee, which must not escape as anything but a ChatTemplateError) into
// ChatTemplateErrors naming the template.
template <typename Step>
auto with_template_errors(const std::string& origin, Step step) {
  try {
    return step();
  } catch (const jinja::TemplateError& error) {
    throw located_error(origin, error);
  } catch (const ChatTemplateError&) {
    throw;
  } catch (const std::exception& error) {
    throw ChatTemplateError(origin + ": internal error while rendering: " + error.what());
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ChatTemplateError(path.string() + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw ChatTemplateError(path.string() + ": cannot read");
  return text.str();
}

// A special token as the config writes it: "<s>" or {"content": "<s>", ...}.
std::optional<std::string> token_text(const nlohmann::ordered_json& config, const std::string& name,
                                      const std::string& file) {
  const auto found = config.find(name);
  if (found == config.end() || found->is_null()) return std::nullopt;
  if (found->is_string()) return found->get<std::string>();
  if (found->is_object() && found->contains("content") && (*found)["content"].is_string()) {
    return (*found)["content"].get<std::string>();
  }
  throw ChatTemplateError(file + ": " + name + " is neither a string nor an object with a string \"content\"");
}

// The config's template source: a string, or the entry named "default" of a
// list of {"name", "template"}.
std::optional<std::string> config_template(const nlohmann::ordered_json& config, const std::string& file) {
  const auto found = config.find("chat_template");
  if (found == config.end() || found->is_null()) return std::nullopt;
  if (found->is_string()) return found->get<std::string>();
  if (!found->is_array()) throw ChatTemplateError(file + ": chat_template is neither a string nor a list");
  std::string names;
  for (const auto& entry : *found) {
    if (!entry.is_object() || !entry.contains("name") || !entry.contains("template") || !entry["name"].is_string() ||
        !entry["template"].is_string()) {
      throw ChatTemplateError(file + ": chat_template list entries must be {\"name\": ..., \"template\": ...}");
    }
    if (entry["name"] == "default") return entry["template"].get<std::string>();
    names += (names.empty() ? "" : ", ") + entry["name"].get<std::string>();
  }
  throw ChatTemplateError(file + ": chat_template has no template named \"default\" (it has: " + names + ")");
}

jinja::ValueDict template_variables(jinja::Value messages, const ChatContext& context) {
  jinja::ValueDict variables = {
      {"messages", std::move(messages)},
      {"tools", jinja::Value::none()},
      {"documents", jinja::Value::none()},
      {"add_generation_prompt", context.add_generation_prompt},
  };
  if (context.bos_token) variables.emplace_back("bos_token", *context.bos_token);
  if (context.eos_token) variables.emplace_back("eos_token", *context.eos_token);
  if (!context.variables.is_object()) throw ChatTemplateError("ChatContext::variables must be a JSON object");
  for (const auto& [name, value] : context.variables.items()) {
    if (name == "messages") throw ChatTemplateError("ChatContext::variables cannot set 'messages'");
    variables.emplace_back(name, jinja::value_from_json(value));
  }
  return variables;
}

}  // namespace

ChatTemplate::ChatTemplate(std::string source, std::string origin, std::shared_ptr<const jinja::Template> program)
    : source_(std::move(source)), origin_(std::move(origin)), program_(std::move(program)) {}

ChatTemplate ChatTemplate::parse(std::string source, std::string origin) {
  auto program =
      with_template_errors(origin, [&] { return std::make_shared<const jinja::Template>(jinja::parse(source)); });
  return ChatTemplate(std::move(source), std::move(origin), std::move(program));
}

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages, const ChatContext& context) const {
  jinja::ValueList list;
  for (const ChatMessage& message : messages) {
    list.emplace_back(jinja::ValueDict{{"role", message.role}, {"content", message.content}});
  }
  return with_template_errors(origin_, [&] { return jinja::render(*program_, template_variables(list, context)); });
}

std::string ChatTemplate::render_json(const nlohmann::ordered_json& messages, const ChatContext& context) const {
  if (!messages.is_array()) throw ChatTemplateError("messages must be a JSON array of message objects");
  for (const auto& message : messages) {
    if (!message.is_object()) throw ChatTemplateError("each message must be a JSON object, got " + message.dump());
  }
  return with_template_errors(
      origin_, [&] { return jinja::render(*program_, template_variables(jinja::value_from_json(messages), context)); });
}

ChatConfig read_chat_config(const std::filesystem::path& tokenizer_config) {
  const std::string file = tokenizer_config.string();
  nlohmann::ordered_json config;
  try {
    config = nlohmann::ordered_json::parse(read_file(tokenizer_config));
  } catch (const nlohmann::json::exception& error) {
    throw ChatTemplateError(file + ": not valid JSON: " + error.what());
  }
  if (!config.is_object()) throw ChatTemplateError(file + ": not a JSON object");

  // As transformers loads it: a chat_template.jinja beside the config wins.
  const std::filesystem::path jinja_file = tokenizer_config.parent_path() / "chat_template.jinja";
  std::optional<std::string> source;
  std::string origin;
  if (std::filesystem::exists(jinja_file)) {
    source = read_file(jinja_file);
    origin = jinja_file.string();
  } else {
    source = config_template(config, file);
    origin = file + " (chat_template)";
  }
  if (!source) {
    throw ChatTemplateError(file + ": has no chat_template, and there is no chat_template.jinja beside it");
  }

  ChatContext context;
  context.bos_token = token_text(config, "bos_token", file);
  context.eos_token = token_text(config, "eos_token", file);
  for (const char* name : kSpecialTokens) {
    const std::string key = name;
    if (key == "bos_token" || key == "eos_token") continue;
    if (std::optional<std::string> token = token_text(config, key, file)) context.variables[key] = *token;
  }
  return ChatConfig{ChatTemplate::parse(std::move(*source), std::move(origin)), std::move(context)};
}

}  // namespace kiln::llm
