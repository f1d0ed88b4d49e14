// Test helpers for the elementwise kernels: tensors of the 16-bit floats built
// from and read back as floats, and signed-zero checks.
#pragma once

#include <cmath>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {

/// A Half or BFloat16 tensor holding `values`, each rounded to H.
template <typename H>
TestTensor make_16bit(std::vector<SizesType> sizes, const std::vector<float>& values) {
  std::vector<H> rounded;
  for (float v : values) rounded.push_back(H(v));
  return make_tensor<H>(std::move(sizes), rounded);
}

/// The elements of a Half or BFloat16 tensor, in storage order, as floats.
template <typename H>
std::vector<float> floats_of(const TestTensor& t) {
  std::vector<float> result;
  for (H v : t.values<H>()) result.push_back(static_cast<float>(v));
  return result;
}

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
