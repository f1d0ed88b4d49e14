// The size of a long sweep (every 257th float bit pattern, a thousand random
// graphs, 10^5 planner records, every allocation of a method made to fail):
// whole in the main test run, a sample under the sanitizers, where each step costs ten to fifty times more and what the
// sanitizers look for (a bad read, an overflow) shows on the first steps of a
// kind as well as on the thousandth.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::testing {

#if defined(KILN_SANITIZER_BUILD)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

/// How many of a sweep's `full` steps to run: all of them, or one in
/// `sanitizer_stride` (at least one) in the sanitizer build.
constexpr size_t sweep_count(size_t full, size_t sanitizer_stride = 17) {
  if (!kSanitizerBuild) return full;
  const size_t sampled = full / sanitizer_stride;
  return sampled > 0 ? sampled : (full > 0 ? 1 : 0);
}

/// The stride between a sweep's steps: `stride`, or `stride` times
/// `sanitizer_stride` in the sanitizer build (the same range, sampled).
constexpr uint64_t sweep_stride(uint64_t stride, uint64_t sanitizer_stride = 17) {
  return kSanitizerBuild ? stride * sanitizer_stride : stride;
}

/// Whether step `index` of a sweep over `count` points runs: all of them, or
/// in the sanitizer build the first `head`, one in `sanitizer_stride` after
/// them and the last.
constexpr bool sweep_includes(size_t index, size_t count, size_t head = 16, size_t sanitizer_stride = 5) {
  if (!kSanitizerBuild || index < head || index + 1 == count) return true;
  return (index - head) % sanitizer_stride == 0;
}

}  // namespace kiln::testing
