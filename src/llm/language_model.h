// LanguageModel: a decoder-only language model's `.pte` on Kiln's runtime, as
// transformers' export recipe makes it: the method `forward(input_ids [1, seq],
// cache_position [seq]) -> logits [1, seq, vocab]`, its KV cache in mutable
// buffers that keep their values between calls, `seq` dynamic up to a bound.
// What a runner needs beyond that (BOS and EOS ids, the cache's length, the
// vocabulary) comes from the program's constant methods when it has them
// (get_bos_id, get_eos_ids, get_max_seq_len, get_vocab_size, ...), else from
// the caller and the method's input bounds; `ModelInfo` says which.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "llm/sampler.h"

namespace kiln::runtime {
class Module;
class EventTracer;
}

namespace kiln::llm {

struct ModelInfo {
  std::optional<int64_t> bos_id;
  std::vector<int64_t> eos_ids;
  /// Positions the KV cache holds (prompt and generated tokens together);
  /// unset when the program does not say.
  std::optional<int64_t> max_context;
  /// Tokens one call takes at most: the bound of input_ids' dynamic dim.
  int64_t max_tokens_per_call = 1;
  std::optional<int64_t> vocab_size;
  /// Where each fact came from, for the user: "get_bos_id", "input bounds", ...
  std::vector<std::string> notes;
  /// The program's constant methods, as text: name -> value.
  std::vector<std::pair<std::string, std::string>> constant_methods;
};

class LanguageModel {
 public:
  /// Loads `path` (mapped) and its method `forward`, with the backends'
  /// threads already set by the caller. Throws LlmError if the file does not
  /// load or its method is not (token ids [1, seq], cache positions [seq]) ->
  /// float logits.
  explicit LanguageModel(const std::string& path);
  ~LanguageModel();
  LanguageModel(LanguageModel&&) noexcept;

  const ModelInfo& info() const { return info_; }
  /// The cache's length, for a program that does not say (or to use less of it).
  void set_max_context(int64_t positions) { info_.max_context = positions; }
  /// The ids that end generation, for a program that does not say.
  void set_eos_ids(std::vector<int64_t> ids) { info_.eos_ids = std::move(ids); }
  double load_ms() const { return load_ms_; }
  /// Reports every following call of `forward` to `tracer` (null: off); the
  /// tracer must outlive those calls.
  void set_event_tracer(runtime::EventTracer* tracer);

  /// Runs `ids` at positions `start`, `start` + 1, ..., in calls of at most
  /// max_tokens_per_call, and returns the logits of the last position (valid
  /// until the next call). Throws LlmError if a call fails, naming the
  /// positions.
  std::span<const float> forward(std::span<const int64_t> ids, int64_t start);

 private:
  std::span<const float> call(std::span<const int64_t> ids, int64_t start);
  void read_constant_methods();

  std::unique_ptr<runtime::Module> module_;
  ModelInfo info_;
  double load_ms_ = 0;
  std::vector<int64_t> positions_;
};

}  // namespace kiln::llm
