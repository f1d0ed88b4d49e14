#include "llm/sampler.h"

#include <algorithm>
#include <cmath>

namespace kiln::llm {
namespace {

int64_t argmax(std::span<const float> logits) {
  int64_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int64_t>(i);
  }
  return best;
}

}  // namespace

Sampler::Sampler(const SamplingOptions& options) : options_(options), generator_(options.seed) {
  if (!std::isfinite(options.temperature) || options.temperature < 0) {
    throw LlmError("temperature " + std::to_string(options.temperature) + " must be 0 (greedy) or above");
  }
  if (!(options.top_p > 0 && options.top_p <= 1)) {
    throw LlmError("top-p " + std::to_string(options.top_p) + " must be in (0, 1]");
  }
  if (options.top_k < 0) throw LlmError("top-k " + std::to_string(options.top_k) + " must be 0 (no cut) or above");
}

int64_t Sampler::sample(std::span<const float> logits) {
  if (logits.empty()) throw LlmError("no logits to sample from");
  if (greedy()) return argmax(logits);

  // Scaled logits, best first; only the top k need sorting.
  candidates_.clear();
  for (size_t i = 0; i < logits.size(); ++i) {
    candidates_.emplace_back(static_cast<float>(logits[i] / options_.temperature), static_cast<int64_t>(i));
  }
  const size_t keep = options_.top_k > 0 ? std::min(candidates_.size(), static_cast<size_t>(options_.top_k))
                                         : candidates_.size();
  auto better = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(keep), candidates_.end(), better);
  candidates_.resize(keep);

  // Softmax over what is kept, then the nucleus: the shortest prefix whose
  // probability reaches top_p (at least one token).
  const float top = candidates_.front().first;
  double total = 0;
  for (auto& [value, index] : candidates_) {
    value = std::exp(value - top);
    total += value;
  }
  size_t nucleus = candidates_.size();
  if (options_.top_p < 1) {
    double reached = 0;
    for (size_t i = 0; i < candidates_.size(); ++i) {
      reached += candidates_[i].first / total;
      if (reached >= options_.top_p) {
        nucleus = i + 1;
        break;
      }
    }
  }
  double mass = 0;
  for (size_t i = 0; i < nucleus; ++i) mass += candidates_[i].first;
  double draw = std::uniform_real_distribution<double>(0.0, mass)(generator_);
  for (size_t i = 0; i < nucleus; ++i) {
    draw -= candidates_[i].first;
    if (draw < 0) return candidates_[i].second;
  }
  return candidates_[nucleus - 1].second;
}

}  // namespace kiln::llm
