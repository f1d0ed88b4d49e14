// Helpers the runtime core's tests share.
#pragma once

#include <vector>

#include "runtime/core/span.h"

namespace kiln::runtime::testing {

/// The elements of `span`, copied.
template <typename T>
std::vector<T> to_vector(Span<const T> span) {
  return std::vector<T>(span.begin(), span.end());
}

}  // namespace kiln::runtime::testing
