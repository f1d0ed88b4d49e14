#include "llm/generate.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace kiln::llm {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Eos: return "end of sequence";
    case StopReason::MaxNewTokens: return "max new tokens";
    case StopReason::ContextFull: return "context full";
  }
  return "?";
}

GenerationResult Conversation::add_turn(std::span<const int64_t> turn, const GenerationOptions& options,
                                        const std::function<void(int64_t)>& on_token) {
  const ModelInfo& info = model_.info();
  const std::string what = tokens_.empty() ? "prompt" : "turn";
  if (turn.empty()) throw LlmError("the " + what + " has no tokens");
  if (options.max_new_tokens < 0) throw LlmError("max new tokens must be 0 or more");
  for (int64_t id : turn) {
    if (id < 0 || (info.vocab_size && id >= *info.vocab_size)) {
      throw LlmError(what + " token id " + std::to_string(id) + " is outside the vocabulary (0 to " +
                     std::to_string(info.vocab_size.value_or(0) - 1) + ")");
    }
  }
  // What the cache has not seen yet: the last turn's final token (chosen,
  // never run) or a turn that generated nothing, then this turn.
  std::vector<int64_t> unseen(tokens_.begin() + position_, tokens_.end());
  unseen.insert(unseen.end(), turn.begin(), turn.end());
  const int64_t total = position_ + static_cast<int64_t>(unseen.size());
  if (info.max_context && total > *info.max_context) {
    throw LlmError((position_ == 0 ? "the prompt has " + std::to_string(total) + " tokens"
                                   : "the conversation would hold " + std::to_string(total) + " tokens with this turn's " +
                                         std::to_string(turn.size())) +
                   "; the model's cache holds " + std::to_string(*info.max_context));
  }

  Sampler sampler(options.sampling);
  GenerationResult result;
  result.prompt_tokens = static_cast<int64_t>(unseen.size());
  if (options.max_new_tokens == 0) {
    tokens_.insert(tokens_.end(), turn.begin(), turn.end());
    return result;
  }

  const auto start = Clock::now();
  std::span<const float> logits = model_.forward(unseen, position_);
  result.prefill_ms = ms_since(start);
  int64_t position = total;
  const auto decode_start = Clock::now();
  while (true) {
    const int64_t token = sampler.sample(logits);
    if (result.tokens.empty()) result.first_token_ms = ms_since(start);
    result.tokens.push_back(token);
    if (on_token) on_token(token);
    const bool eos = std::find(info.eos_ids.begin(), info.eos_ids.end(), token) != info.eos_ids.end();
    if (options.stop_at_eos && eos) {
      result.stop = StopReason::Eos;
      break;
    }
    if (static_cast<int64_t>(result.tokens.size()) >= options.max_new_tokens) {
      result.stop = StopReason::MaxNewTokens;
      break;
    }
    if (info.max_context && position >= *info.max_context) {
      result.stop = StopReason::ContextFull;
      break;
    }
    const int64_t next[1] = {token};
    try {
      logits = model_.forward(next, position);
    } catch (const LlmError& error) {
      if (info.max_context) throw;
      throw LlmError(std::string(error.what()) + " (the program does not say how many positions its cache holds: " +
                     "position " + std::to_string(position) + " may be past its end; --max-context sets it)");
    }
    ++position;
    ++result.decode_calls;
  }
  result.decode_ms = result.decode_calls > 0 ? ms_since(decode_start) - (result.first_token_ms - result.prefill_ms) : 0;
  tokens_.insert(tokens_.end(), turn.begin(), turn.end());
  tokens_.insert(tokens_.end(), result.tokens.begin(), result.tokens.end());
  position_ = position;
  return result;
}

void Conversation::reset() {
  tokens_.clear();
  position_ = 0;
}

GenerationResult generate(LanguageModel& model, std::span<const int64_t> prompt, const GenerationOptions& options,
                          const std::function<void(int64_t)>& on_token) {
  Conversation conversation(model);
  return conversation.add_turn(prompt, options, on_token);
}

int64_t peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace kiln::llm
