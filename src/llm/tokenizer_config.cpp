#include "llm/tokenizer_config.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "llm/sampler.h"

namespace kiln::llm {
namespace {

std::optional<std::string> token(const nlohmann::json& config, const char* key, const std::string& path) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    return (*it)["content"].get<std::string>();
  }
  throw LlmError(path + ": '" + key + "' is neither a string nor {\"content\": string}");
}

}  // namespace

SpecialTokens read_special_tokens(const std::filesystem::path& tokenizer_config) {
  SpecialTokens tokens;
  std::ifstream file(tokenizer_config);
  if (!file) return tokens;
  const std::string path = tokenizer_config.string();
  nlohmann::json config = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) throw LlmError(path + " is not a JSON object");
  tokens.bos_token = token(config, "bos_token", path);
  tokens.eos_token = token(config, "eos_token", path);
  return tokens;
}

}  // namespace kiln::llm
