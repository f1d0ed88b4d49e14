// tokenizer_config.json, as a runner reads it beside tokenizer.json: the BOS
// and EOS tokens (a string, or an object with "content"), and the chat
// template (chat_template.h reads that part).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace kiln::llm {

struct SpecialTokens {
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
};

/// The special tokens of `tokenizer_config`; none if the file does not
/// exist. Throws LlmError naming the file if it is not JSON or a token is
/// neither a string nor {"content": string}.
SpecialTokens read_special_tokens(const std::filesystem::path& tokenizer_config);

}  // namespace kiln::llm
