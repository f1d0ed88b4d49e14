// How close Kiln's numbers must be to PyTorch's, element by element: the
// rule of the fixture tests (golden_fixtures.h), on host tensors. The rule
// itself is runtime/npz/testing/array_mismatch.h's (a test that calls
// tensor_mismatch links kiln_runtime_npz). Header-only, no test framework.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "runtime/npz/testing/array_mismatch.h"

namespace kiln::aot::testing {

using runtime::testing::element_matches;
using runtime::testing::index_text;
using runtime::testing::Tolerance;

/// The fixtures' tolerance. Kiln's float32 kernels differ from PyTorch's by
/// a few ulps where they sum in another order. Measured over every fixture
/// (interpreted, decomposed and lowered): at most 4.8e-7 on values below 10
/// (5.4e-5 relative, on a small element of conv_relu_tan's tan output) and
/// 0.002 on text_model's pooled -2e4 (1e-7 relative); no element needs more
/// than 7e-8 of atol beside rtol 1e-5. An error of 1e-2 on a value of 1, or of
/// 1e-4 on a value of 1e-2, fails.
inline constexpr Tolerance kFixtureTolerance{1e-5, 1e-5};

/// Where `actual` differs from `expected`: the dtype or shape, or up to five
/// elements and the count of all mismatching ones. Empty if they match.
inline std::string tensor_mismatch(const HostTensor& actual, const HostTensor& expected,
                                   Tolerance tolerance = kFixtureTolerance) {
  const auto as_array = [](const HostTensor& tensor) {
    const HostTensor dense = tensor.is_contiguous() ? tensor : tensor.clone();
    runtime::NpyArray array;
    array.dtype = dense.dtype();
    array.sizes = dense.sizes();
    const auto* bytes = static_cast<const uint8_t*>(dense.data());
    array.data.assign(bytes, bytes + dense.nbytes());
    return array;
  };
  return runtime::testing::array_mismatch(as_array(actual), as_array(expected), tolerance);
}

}  // namespace kiln::aot::testing
