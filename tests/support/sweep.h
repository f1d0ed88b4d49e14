// The size of a long sweep (every 257th float bit pattern, a thousand random
// graphs, 10^5 planner records, every allocation of a method made to fail):
// whole in the main test run, a sample under the sanitizers, where each step
// costs ten to fifty times more and what the sanitizers look for (a bad read,
// an overflow, a leak) shows on the first steps of a kind as well as on the
// thousandth; a sample too under an emulator (KILN_SAMPLE_SWEEPS set: the
// aarch64 cross build's tests under qemu), where the target's code paths are
// what is checked and the host ran the whole sweep on the same source.
//
// Decided when the test runs, not when it is compiled: a test whose own code
// the sanitizer build does not instrument (all but INSTRUMENTED ones,
// cmake/KilnTargets.cmake) is the very object `make test` compiled, which
// ccache hands over, and still samples its sweeps there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

// Defined by AddressSanitizer's runtime, which every executable of the
// sanitizer build links (instrumented or not); null elsewhere.
extern "C" void* __asan_region_is_poisoned(void* begin, size_t size) __attribute__((weak));

namespace kiln::testing {

/// Whether this process runs on the sanitizers' runtime.
inline bool under_sanitizers() { return &__asan_region_is_poisoned != nullptr; }

/// Whether this process runs a sample of each sweep: under the sanitizers,
/// or with KILN_SAMPLE_SWEEPS set in the environment.
inline bool sample_sweeps() {
  static const bool sample = under_sanitizers() || std::getenv("KILN_SAMPLE_SWEEPS") != nullptr;
  return sample;
}

/// How many of a sweep's `full` steps to run: all of them, or one in
/// `sanitizer_stride` (at least one) under the sanitizers.
inline size_t sweep_count(size_t full, size_t sanitizer_stride = 17) {
  if (!sample_sweeps()) return full;
  const size_t sampled = full / sanitizer_stride;
  return sampled > 0 ? sampled : (full > 0 ? 1 : 0);
}

/// The stride between a sweep's steps: `stride`, or `stride` times
/// `sanitizer_stride` under the sanitizers (the same range, sampled).
inline uint64_t sweep_stride(uint64_t stride, uint64_t sanitizer_stride = 17) {
  return sample_sweeps() ? stride * sanitizer_stride : stride;
}

/// Whether step `index` of a sweep over `count` points runs: all of them, or
/// under the sanitizers the first `head`, one in `sanitizer_stride` after
/// them and the last.
inline bool sweep_includes(size_t index, size_t count, size_t head = 16, size_t sanitizer_stride = 5) {
  if (!sample_sweeps() || index < head || index + 1 == count) return true;
  return (index - head) % sanitizer_stride == 0;
}

}  // namespace kiln::testing
