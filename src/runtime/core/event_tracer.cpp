#include "runtime/core/event_tracer.h"

#include <chrono>

namespace kiln::runtime {

uint64_t trace_clock_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

}  // namespace kiln::runtime
