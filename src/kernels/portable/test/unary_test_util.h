// Helpers for the unary math and activation tests: 16-bit float tensors from
// float values, and comparisons that check NaN and the sign of zero.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {


/// Success if the values are equal one by one, NaN matching NaN and -0 not
/// matching +0.
template <typename T>
::testing::AssertionResult same_values(const std::vector<T>& actual, const std::vector<T>& expected) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const bool same = std::isnan(expected[i]) ? std::isnan(actual[i])
                                              : actual[i] == expected[i] && std::signbit(actual[i]) == std::signbit(expected[i]);
    if (!same) return ::testing::AssertionFailure() << "element " << i << " is " << actual[i] << ", expected " << expected[i];
  }
  return ::testing::AssertionSuccess();
}

/// Success if each value is within `relative` times the expected one's
/// magnitude of it (so an expected 0 or infinity must be met exactly); NaN
/// matches NaN.
template <typename T>
::testing::AssertionResult close_values(const std::vector<T>& actual, const std::vector<T>& expected, double relative) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const bool ok = std::isnan(e)   ? std::isnan(a)
                    : std::isinf(e) ? a == e
                                    : std::fabs(a - e) <= relative * std::fabs(e);
    if (!ok) {
      return ::testing::AssertionFailure() << "element " << i << " is " << a << ", expected " << e;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::kernels::portable::testing
