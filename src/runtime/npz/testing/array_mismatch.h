// How close numbers must be to the ones they are checked against, element by
// element, over the arrays of .npz files: the rule of the fixture tests
// (aot/import/testing/tolerance.h applies it to host tensors), of the CLI
// tests' npz_compare and of the runtime's recorded-output tests.
// Header-only, no test framework, no compiler types: the runtime-only tree
// builds it.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/npz/npz.h"

namespace kiln::runtime::testing {

/// How far a float element may be from the expected one:
/// |actual - expected| <= atol + rtol * |expected|, element by element.
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

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
/// elements (a complex array's parts, each as an element of sizes + [2]) and
/// the count of all mismatching ones. Empty if they match.
inline std::string array_mismatch(const NpyArray& actual, const NpyArray& expected, Tolerance tolerance) {
  const auto describe = [](const NpyArray& array) { return describe_tensor(array.dtype, array.sizes); };
  if (describe(actual) != describe(expected)) return "is " + describe(actual) + ", expected " + describe(expected);
  const bool complex = is_complex_type(expected.dtype);
  const bool floating = complex || is_floating_type(expected.dtype);
  std::vector<int64_t> sizes = expected.sizes;
  if (complex) sizes.push_back(2);
  std::ostringstream report;
  report.precision(9);
  size_t mismatches = 0;
  const size_t count = expected.scalar_count();
  for (size_t i = 0; i < count; ++i) {
    const double a = actual.scalar(i);
    const double e = expected.scalar(i);
    if (element_matches(a, e, floating, tolerance)) continue;
    if (++mismatches <= 5) report << (mismatches > 1 ? "; " : "") << index_text(i, sizes) << " is " << a << ", expected " << e;
  }
  if (mismatches > 5) report << "; " << mismatches << " of " << count << " elements differ";
  return report.str();
}

}  // namespace kiln::runtime::testing
