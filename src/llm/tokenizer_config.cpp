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
  tokens.found = true;
  const std::string path = tokenizer_config.string();
  nlohmann::json config = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) throw LlmError(path + " is not a JSON object");
  tokens.bos_token = token(config, "bos_token", path);
  tokens.eos_token = token(config, "eos_token", path);
  return tokens;
}

EosIds choose_eos_ids(const std::vector<int64_t>& program_eos_ids, const Tokenizer* tokenizer,
                      const std::filesystem::path& tokenizer_config, const SpecialTokens& tokens) {
  if (!program_eos_ids.empty()) return {program_eos_ids, {}};
  const std::string path = tokenizer_config.string();
  EosIds eos;
  if (tokenizer == nullptr) {
    eos.notes.push_back("the program names no EOS ids (get_eos_ids), and there is no tokenizer to take one from");
  } else if (!tokens.found) {
    eos.notes.push_back("the program names no EOS ids (get_eos_ids), and there is no " + path +
                        " to take the EOS token from");
  } else if (!tokens.eos_token) {
    eos.notes.push_back("the program names no EOS ids (get_eos_ids), and " + path + " has no eos_token");
  } else if (const std::optional<int32_t> id = tokenizer->token_id(*tokens.eos_token)) {
    eos.ids = {*id};
    eos.notes.push_back("EOS id " + std::to_string(*id) + " ('" + *tokens.eos_token + "') from " + path);
    return eos;
  } else {
    eos.notes.push_back("the program names no EOS ids (get_eos_ids), and the eos_token '" + *tokens.eos_token +
                        "' of " + path + " is not in the vocabulary of " + tokenizer->name());
  }
  eos.notes.push_back("no EOS id is known: generation stops only at the token limit or at the cache's end");
  return eos;
}

}  // namespace kiln::llm
