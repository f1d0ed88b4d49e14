// tokenizer_config.json, as a runner reads it beside tokenizer.json: the BOS
// and EOS tokens (a string, or an object with "content"), and the chat
// template (chat_template.h reads that part); and the EOS ids a runner stops
// at when the program names none.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "llm/tokenizer.h"

namespace kiln::llm {

struct SpecialTokens {
  bool found = false;  ///< the file exists
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
};

/// The special tokens of `tokenizer_config`; none (and `found` false) if the
/// file does not exist. Throws LlmError naming the file if it is not JSON or
/// a token is neither a string nor {"content": string}.
SpecialTokens read_special_tokens(const std::filesystem::path& tokenizer_config);

/// The EOS ids a runner stops at, and what it tells its user about them.
struct EosIds {
  std::vector<int64_t> ids;
  /// Where the ids came from when not from the program, or why none is
  /// known: one line each.
  std::vector<std::string> notes;
};

/// The program's EOS ids (get_eos_ids) if it names any; else the id of the
/// eos_token of `tokens`, read from `tokenizer_config` beside `tokenizer`
/// (null: no tokenizer). Every fallback is said in the notes: the id taken
/// from the config, or why there is none (no tokenizer, no
/// tokenizer_config.json, no eos_token in it, an eos_token that is not in
/// the tokenizer's vocabulary), and then that no EOS id is known at all.
EosIds choose_eos_ids(const std::vector<int64_t>& program_eos_ids, const Tokenizer* tokenizer,
                      const std::filesystem::path& tokenizer_config, const SpecialTokens& tokens);

}  // namespace kiln::llm
