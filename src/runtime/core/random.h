// The random generator the sampling kernels draw from (aten::rand, randn,
// their _like forms, normal, uniform, randint, randperm): PyTorch's CPU
// generator, MT19937 seeded with the seed's low 32 bits, so that a program
// run after manual_seed(s) draws the numbers PyTorch draws after
// torch.manual_seed(s).
//
// One generator per process, as PyTorch's default CPU generator: each call of
// a method advances it, so two calls draw different numbers. A kernel holds
// its lock for the whole tensor it fills.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

namespace kiln::runtime {

class RandomGenerator {
 public:
  explicit RandomGenerator(uint64_t seed) { this->seed(seed); }

  /// Restarts the sequence (torch.manual_seed): the engine and the cached
  /// normal sample.
  void seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }

  /// The engine's next 32 bits.
  uint32_t random() { return static_cast<uint32_t>(engine_()); }
  /// The next two outputs, the first as the high half.
  uint64_t random64() {
    const uint64_t high = random();
    return (high << 32) | random();
  }

  /// A double normal sample's Box-Muller twin, kept for the next draw
  /// (PyTorch's normal_distribution<double> caches it in the generator).
  bool has_next_normal = false;
  double next_normal = 0;

  std::mutex mutex;

 private:
  std::mt19937 engine_;
  uint64_t seed_ = 0;
};

/// The process's generator, seeded from the operating system's entropy on
/// first use (as PyTorch seeds its default generator), until manual_seed.
RandomGenerator& default_generator();

/// Seeds the process's generator (kiln run --seed).
void manual_seed(uint64_t seed);

}  // namespace kiln::runtime
