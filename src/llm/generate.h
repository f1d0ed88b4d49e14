// generate: the token loop. The prompt is run once (prefill), then one token
// at a time (decode), each chosen by the sampler from the last position's
// logits, until an EOS id, the token budget or the end of the cache. A
// Conversation runs that loop turn after turn on one KV cache.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "llm/language_model.h"
#include "llm/sampler.h"

namespace kiln::llm {

struct GenerationOptions {
  int64_t max_new_tokens = 256;
  SamplingOptions sampling;
  /// Stop at one of the model's EOS ids (the id is reported, not printed).
  bool stop_at_eos = true;
};

enum class StopReason { Eos, MaxNewTokens, ContextFull };
const char* to_string(StopReason reason);

struct GenerationResult {
  std::vector<int64_t> tokens;  ///< the generated ids, an EOS that stopped them included
  StopReason stop = StopReason::MaxNewTokens;
  int64_t prompt_tokens = 0;
  double prefill_ms = 0;        ///< the prompt's calls, to the first token's logits
  double first_token_ms = 0;    ///< from the start to the first token chosen
  double decode_ms = 0;         ///< the calls after the first token
  int64_t decode_calls = 0;

  double prefill_tokens_per_s() const { return prefill_ms > 0 ? prompt_tokens * 1e3 / prefill_ms : 0; }
  double decode_tokens_per_s() const { return decode_ms > 0 ? decode_calls * 1e3 / decode_ms : 0; }
};

/// A conversation with a model that keeps its KV cache from turn to turn:
/// each turn's tokens are run at the position where the last turn ended, so
/// that the model never prefills what it has already seen. Turn after turn,
/// the tokens it generates are those that generating after the whole
/// conversation, prefilled from scratch, gives.
///
/// The conversation owns the cache's positions [0, position()) of `model`
/// while it is used: one conversation per model at a time (another one, or
/// generate(), starts again from position 0 and overwrites them).
class Conversation {
 public:
  explicit Conversation(LanguageModel& model) : model_(model) {}

  /// Runs `turn` (the next message's ids, as the chat template renders them)
  /// after everything said so far, then generates as generate() does,
  /// calling `on_token` with each id as it is chosen. The result's
  /// prompt_tokens counts the tokens this turn ran before the first new one:
  /// the turn's, and the last turn's final token, which was chosen but not
  /// yet run. With max_new_tokens 0 nothing runs: the turn waits for the
  /// next one. Throws LlmError for an empty turn, an id outside the
  /// vocabulary, a turn the cache has no room left for (naming the lengths),
  /// or a failed call; the conversation is then as it was before the turn.
  GenerationResult add_turn(std::span<const int64_t> turn, const GenerationOptions& options,
                            const std::function<void(int64_t)>& on_token = {});

  /// Every id of the conversation: each turn's, then what was generated after it.
  const std::vector<int64_t>& tokens() const { return tokens_; }
  /// Positions of the cache the conversation has filled (the ids of tokens()
  /// that the model has run).
  int64_t position() const { return position_; }
  /// Forgets the conversation: the next turn starts at position 0.
  void reset();

 private:
  LanguageModel& model_;
  std::vector<int64_t> tokens_;
  int64_t position_ = 0;
};

/// Generates after `prompt` (ids, BOS included if the model wants one),
/// calling `on_token` with each id as it is chosen: the first turn of a new
/// Conversation. Throws LlmError for an empty prompt, a prompt the cache
/// cannot hold (naming both lengths), an id outside the vocabulary, or a
/// failed call.
GenerationResult generate(LanguageModel& model, std::span<const int64_t> prompt, const GenerationOptions& options,
                          const std::function<void(int64_t)>& on_token = {});

/// The process's peak resident set, in KiB (getrusage).
int64_t peak_rss_kib();

}  // namespace kiln::llm
