// generate: the token loop. The prompt is run once (prefill), then one token
// at a time (decode), each chosen by the sampler from the last position's
// logits, until an EOS id, the token budget or the end of the cache.
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

/// Generates after `prompt` (ids, BOS included if the model wants one),
/// calling `on_token` with each id as it is chosen. Throws LlmError for an
/// empty prompt, a prompt the cache cannot hold (naming both lengths), an id
/// outside the vocabulary, or a failed call.
GenerationResult generate(LanguageModel& model, std::span<const int64_t> prompt, const GenerationOptions& options,
                          const std::function<void(int64_t)>& on_token = {});

/// The process's peak resident set, in KiB (getrusage).
int64_t peak_rss_kib();

}  // namespace kiln::llm
