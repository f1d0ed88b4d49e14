// Test helpers for the elementwise kernels: tensors of the 16-bit floats built
// from and read back as floats, and signed-zero checks.
#pragma once

#include <cmath>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {

/// A [rows, cols] tensor holding `logical` (row-major order) stored
/// column-major (dim order {1, 0}).
template <typename T>
TestTensor column_major(SizesType rows, SizesType cols, const std::vector<T>& logical) {
  TestTensor t(runtime::CppTypeToScalarType<T>::value, {rows, cols}, TensorShapeDynamism::Static, {1, 0});
  std::vector<T> stored(logical.size());
  for (SizesType i = 0; i < rows; ++i) {
    for (SizesType j = 0; j < cols; ++j) stored[i + rows * j] = logical[i * cols + j];
  }
  t.set(stored);
  return t;
}

/// The sign bits of `values` (to tell -0.0 from 0.0).
template <typename T>
std::vector<bool> sign_bits(const std::vector<T>& values) {
  std::vector<bool> result;
  for (T v : values) result.push_back(std::signbit(v));
  return result;
}

}  // namespace kiln::kernels::portable::testing
