// How close Kiln's numbers must be to PyTorch's, element by element: the
// rule of the fixture tests (golden_fixtures.h) and of the CLI test's
// npz_compare. Header-only, no test framework.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"

namespace kiln::aot::testing {

/// How far a float element may be from PyTorch's:
/// |actual - expected| <= atol + rtol * |expected|, element by element.
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// The fixtures' tolerance. Kiln's float32 kernels differ from PyTorch's by
/// a few ulps where they sum in another order. Measured over every fixture
/// (interpreted, decomposed and lowered): at most 4.8e-7 on values below 10
/// (5.4e-5 relative, on a small element of conv_relu_tan's tan output) and
/// 0.002 on text_model's pooled -2e4 (1e-7 relative); no element needs more
/// than 7e-8 of atol beside rtol 1e-5. An error of 1e-2 on a value of 1, or of
/// 1e-4 on a value of 1e-2, fails.
inline constexpr Tolerance kFixtureTolerance{1e-5, 1e-5};

/// Whether one element matches: floats within `tolerance`, NaN only with NaN,
/// an infinity only with the same infinity; other dtypes exactly.
inline bool element_matches(double actual, double expected, bool floating, Tolerance tolerance) {
  if (!floating) return actual == expected;
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

/// "[1, 0, 2]": the index of element `flat` of a row-major tensor of `sizes`.
inline std::string index_text(size_t flat, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = static_cast<int64_t>(flat % static_cast<size_t>(sizes[d]));
    flat /= static_cast<size_t>(sizes[d]);
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d) text += (d > 0 ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

/// Where `actual` differs from `expected`: the dtype or shape, or up to five
/// elements and the count of all mismatching ones. Empty if they match.
inline std::string tensor_mismatch(const HostTensor& actual, const HostTensor& expected,
                                   Tolerance tolerance = kFixtureTolerance) {
  if (actual.describe() != expected.describe()) return "is " + actual.describe() + ", expected " + expected.describe();
  if (runtime::is_complex_type(expected.dtype())) {  // part by part
    return tensor_mismatch(actual.view_as_real(), expected.view_as_real(), tolerance);
  }
  const bool floating = runtime::is_floating_type(expected.dtype());
  const auto a = actual.to_doubles();
  const auto e = expected.to_doubles();
  std::ostringstream report;
  report.precision(9);
  size_t mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (element_matches(a[i], e[i], floating, tolerance)) continue;
    if (++mismatches <= 5) {
      report << (mismatches > 1 ? "; " : "") << index_text(i, expected.sizes()) << " is " << a[i] << ", expected "
             << e[i];
    }
  }
  if (mismatches > 5) report << "; " << mismatches << " of " << a.size() << " elements differ";
  return report.str();
}

}  // namespace kiln::aot::testing
