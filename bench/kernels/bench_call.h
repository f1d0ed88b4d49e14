// What the kernel microbenchmarks need to call a portable kernel the way the
// executor does: float tensors that own their storage, and one boxed call
// (arguments in schema order plus the return slot) looked up once in the
// kernel registry and then run many times.
//
//   BenchTensor x({1024, 1024}, -5, 5), y({1024, 1024});
//   BoxedCall call("aten::exp.out");
//   call.tensor(x).tensor(y);
//   if (!call.prepare(&error)) ...;
//   call.run();  // timed
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::bench {

/// A contiguous float tensor with its own sizes, strides and 64-byte aligned
/// data, filled with a fixed pseudo-random sequence in [low, high).
class BenchTensor {
 public:
  /// Float (or ComplexFloat, each part drawn alike) values uniform in [low, high).
  explicit BenchTensor(std::vector<runtime::SizesType> sizes, float low = 0, float high = 0, uint32_t seed = 1,
                       runtime::ScalarType dtype = runtime::ScalarType::Float);
  BenchTensor(const BenchTensor&) = delete;
  BenchTensor& operator=(const BenchTensor&) = delete;

  runtime::Tensor tensor() const { return runtime::Tensor(impl_.get()); }
  int64_t numel() const { return impl_->numel(); }

 private:
  struct FreeAligned {
    void operator()(float* p) const;
  };
  std::vector<runtime::SizesType> sizes_;
  std::vector<runtime::DimOrderType> dim_order_;
  std::vector<runtime::StridesType> strides_;
  std::unique_ptr<float, FreeAligned> data_;
  std::unique_ptr<runtime::TensorImpl> impl_;
};

/// One kernel call with its boxed arguments. The builder methods append
/// arguments in schema order (out tensors last); the tensors must outlive it.
class BoxedCall {
 public:
  explicit BoxedCall(std::string op) : op_(std::move(op)) {}
  BoxedCall(const BoxedCall&) = delete;
  BoxedCall& operator=(const BoxedCall&) = delete;

  BoxedCall& tensor(const BenchTensor& t);
  BoxedCall& none();
  BoxedCall& scalar(int64_t v);
  BoxedCall& scalar(double v);
  BoxedCall& boolean(bool v);
  BoxedCall& string(const char* text);
  BoxedCall& int_list(std::vector<int64_t> values);

  /// Registers the portable kernels, looks the op up and runs it once; false
  /// with the reason in `error` if the op is missing or the kernel failed.
  bool prepare(std::string* error);
  /// Runs the kernel (after a successful prepare); false if it failed.
  bool run();

 private:
  struct IntList {
    std::vector<runtime::EValue> elements;
    std::vector<runtime::EValue*> wrapped;
    std::vector<int64_t> unwrapped;
    runtime::BoxedEvalueList<int64_t> list;
  };
  BoxedCall& value(const runtime::EValue& v);

  std::string op_;
  std::vector<runtime::EValue> values_;
  std::vector<runtime::EValue*> pointers_;
  std::vector<std::unique_ptr<IntList>> lists_;
  std::vector<std::unique_ptr<std::string>> strings_;
  runtime::OpFunction fn_ = nullptr;
};

}  // namespace kiln::bench
