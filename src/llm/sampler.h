// Sampler: picks the next token from a row of logits. Temperature 0 is greedy
// (the first of equal maxima, as torch.argmax); otherwise the logits are
// divided by the temperature, cut to the top k and then to the smallest set
// whose probability reaches top_p, and one token is drawn from what is left
// with a generator seeded by `seed` (the same seed, the same tokens).
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "host/host_error.h"

namespace kiln::llm {

/// A bad argument, a bad program or a failed call; the message names what
/// was wrong.
class LlmError : public HostError {
 public:
  using HostError::HostError;
};

struct SamplingOptions {
  double temperature = 0.0;  ///< 0: greedy; else > 0
  int64_t top_k = 0;         ///< 0: no cut
  double top_p = 1.0;        ///< in (0, 1]; 1: no cut
  uint64_t seed = 0;
};

class Sampler {
 public:
  /// Throws LlmError for a temperature below 0 or not finite, top_p outside
  /// (0, 1], or a negative top_k.
  explicit Sampler(const SamplingOptions& options);

  bool greedy() const { return options_.temperature == 0.0; }
  /// The index of the chosen token; throws LlmError for an empty row.
  int64_t sample(std::span<const float> logits);

 private:
  SamplingOptions options_;
  std::mt19937_64 generator_;
  std::vector<std::pair<float, int64_t>> candidates_;  // reused between calls
};

}  // namespace kiln::llm
