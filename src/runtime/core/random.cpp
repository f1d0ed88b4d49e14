#include "runtime/core/random.h"

namespace kiln::runtime {

void RandomGenerator::seed(uint64_t seed) {
  seed_ = seed;
  engine_.seed(static_cast<uint32_t>(seed));
  has_next_normal = false;
  next_normal = 0;
}

RandomGenerator& default_generator() {
  static RandomGenerator generator([] {
    std::random_device entropy;
    return (static_cast<uint64_t>(entropy()) << 32) | entropy();
  }());
  return generator;
}

void manual_seed(uint64_t seed) {
  RandomGenerator& generator = default_generator();
  const std::lock_guard<std::mutex> lock(generator.mutex);
  generator.seed(seed);
}

}  // namespace kiln::runtime
