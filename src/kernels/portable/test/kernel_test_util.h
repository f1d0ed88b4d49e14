// Test helpers for the portable kernels: tensors that own their storage, and
// a boxed call through the kernel registry.
//
//   TestTensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
//   TestTensor out = zeros<float>({2, 3});
//   auto ctx = KernelCall().tensor(a).tensor(a).scalar(int64_t{1}).tensor(out).run("aten::add.out");
//   EXPECT_EQ(ctx.failure_state(), Error::Ok);
//   EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::kernels::portable::testing {

using runtime::DimOrderType;
using runtime::Error;
using runtime::EValue;
using runtime::KernelRuntimeContext;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::StridesType;
using runtime::Tensor;
using runtime::TensorShapeDynamism;

/// A tensor with its own sizes, dim order, strides and data. Movable, not
/// copyable (the TensorImpl points into the owned vectors).
class TestTensor {
 public:
  /// Zero-filled; `dim_order` empty means contiguous.
  TestTensor(ScalarType dtype, std::vector<SizesType> sizes,
             TensorShapeDynamism dynamism = TensorShapeDynamism::Static, std::vector<DimOrderType> dim_order = {});
  TestTensor(TestTensor&&) = default;
  TestTensor& operator=(TestTensor&&) = default;

  Tensor tensor() const { return Tensor(impl_.get()); }
  std::vector<SizesType> sizes() const;
  ScalarType dtype() const { return impl_->scalar_type(); }

  /// Sets the elements in storage order (logical order for contiguous tensors).
  template <typename T>
  void set(const std::vector<T>& values) {
    ASSERT_EQ(values.size() * sizeof(T), nbytes()) << "wrong number of values for the tensor";
    for (size_t i = 0; i < values.size(); ++i) {
      const T value = values[i];
      std::memcpy(bytes() + i * sizeof(T), &value, sizeof(T));
    }
  }
  /// The elements in storage order.
  template <typename T>
  std::vector<T> values() const {
    std::vector<T> result(nbytes() / sizeof(T));
    for (size_t i = 0; i < result.size(); ++i) {
      T value;
      std::memcpy(&value, bytes() + i * sizeof(T), sizeof(T));
      result[i] = value;
    }
    return result;
  }
  /// The elements in logical (row-major) order, read through the strides.
  template <typename T>
  std::vector<T> logical_values() const {
    const std::vector<int64_t> offsets = logical_offsets();
    const std::vector<T> stored = values<T>();
    std::vector<T> result(offsets.size());
    for (size_t i = 0; i < offsets.size(); ++i) result[i] = stored[offsets[i]];
    return result;
  }

 private:
  size_t nbytes() const { return impl_->nbytes(); }
  uint8_t* bytes() const { return reinterpret_cast<uint8_t*>(data_.data()); }
  std::vector<int64_t> logical_offsets() const;

  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  mutable std::vector<uint64_t> data_;  // uint64_t for alignment
  std::unique_ptr<runtime::TensorImpl> impl_;
};

template <typename T>
TestTensor make_tensor(std::vector<SizesType> sizes, const std::vector<T>& values,
                       TensorShapeDynamism dynamism = TensorShapeDynamism::Static) {
  TestTensor t(runtime::CppTypeToScalarType<T>::value, std::move(sizes), dynamism);
  t.set(values);
  return t;
}

/// A Half or BFloat16 tensor holding `values`, each rounded to H (nearest even).
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

template <typename T>
TestTensor zeros(std::vector<SizesType> sizes, TensorShapeDynamism dynamism = TensorShapeDynamism::Static) {
  return TestTensor(runtime::CppTypeToScalarType<T>::value, std::move(sizes), dynamism);
}

/// The boxed arguments of one kernel call, built in schema order.
class KernelCall {
 public:
  KernelCall& tensor(const TestTensor& t) { return value(EValue(t.tensor())); }
  KernelCall& none() { return value(EValue()); }
  KernelCall& scalar(int64_t v) { return value(EValue(v)); }
  KernelCall& scalar(double v) { return value(EValue(v)); }
  KernelCall& scalar(bool v) { return value(EValue(v)); }
  KernelCall& int_list(const std::vector<int64_t>& values);
  KernelCall& value(const EValue& v) {
    values_.push_back(v);
    return *this;
  }

  /// Registers the portable kernels, then calls `op` from the registry with
  /// the arguments plus (if `add_return_slot`) a return slot holding a copy of
  /// the last argument, as the executor passes the out tensor.
  KernelRuntimeContext run(const char* op, bool add_return_slot = true);

 private:
  struct IntList;
  std::vector<EValue> values_;
  std::vector<std::shared_ptr<IntList>> lists_;
};

/// Success if `ctx` failed with `error` and its message contains `op` and
/// `argument` (e.g. "'out'").
::testing::AssertionResult failed_with(const KernelRuntimeContext& ctx, Error error, const std::string& op,
                                       const std::string& argument);

/// Success if `actual` and `expected` have the same size and each element is
/// within `tolerance` (absolute) of the expected one; NaN matches NaN.
::testing::AssertionResult all_near(const std::vector<float>& actual, const std::vector<float>& expected,
                                    float tolerance);

/// Float specials and the int 1 (an alpha) the kernel tests pass around.
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline const EValue kOne(int64_t{1});

/// An int64 tensor of `sizes` holding `values` (indices, offsets).
inline TestTensor longs(std::vector<SizesType> sizes, const std::vector<int64_t>& values) {
  return make_tensor<int64_t>(std::move(sizes), values);
}

/// start, start + 1, ... (n values).
template <typename T = float>
std::vector<T> iota(size_t n, T start = T(0)) {
  std::vector<T> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<T>(start + static_cast<T>(i));
  return values;
}

/// Success if the kernel call succeeded, else its failure message.
inline ::testing::AssertionResult ok(const KernelRuntimeContext& ctx) {
  if (ctx.failure_state() == Error::Ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << ctx.failure_message();
}

}  // namespace kiln::kernels::portable::testing
