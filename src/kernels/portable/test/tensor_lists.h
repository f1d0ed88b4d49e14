// Boxed Tensor[] and Tensor?[] arguments for KernelCall, as a program builds
// them: each element an EValue of its own, the list pointing at them.
//
//   TensorList tensors({&a, &b});
//   KernelCall().value(tensors.value()).scalar(int64_t{0}).tensor(out).run("aten::cat.out");
#pragma once

#include <optional>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {

/// A Tensor[] argument over tensors that outlive it. Not copyable or movable
/// (the list points into its own members).
class TensorList {
 public:
  explicit TensorList(const std::vector<const TestTensor*>& tensors) : unwrapped_(tensors.size()) {
    for (const TestTensor* t : tensors) elements_.emplace_back(t->tensor());
    for (EValue& e : elements_) wrapped_.push_back(&e);
    list_ = runtime::BoxedEvalueList<Tensor>(wrapped_.data(), unwrapped_.data(), tensors.size());
  }
  TensorList(const TensorList&) = delete;
  TensorList& operator=(const TensorList&) = delete;

  EValue value() { return EValue(&list_); }
  /// Makes element `i` some other EValue (to build malformed lists).
  void replace(size_t i, const EValue& v) { elements_[i] = v; }

 private:
  std::vector<EValue> elements_;
  std::vector<EValue*> wrapped_;
  std::vector<Tensor> unwrapped_;
  runtime::BoxedEvalueList<Tensor> list_;
};

/// A Tensor?[] argument; nullptr elements are None.
class OptionalTensorList {
 public:
  explicit OptionalTensorList(const std::vector<const TestTensor*>& tensors) : unwrapped_(tensors.size()) {
    for (const TestTensor* t : tensors) elements_.push_back(t == nullptr ? EValue() : EValue(t->tensor()));
    for (EValue& e : elements_) wrapped_.push_back(&e);
    list_ = runtime::BoxedEvalueList<std::optional<Tensor>>(wrapped_.data(), unwrapped_.data(), tensors.size());
  }
  OptionalTensorList(const OptionalTensorList&) = delete;
  OptionalTensorList& operator=(const OptionalTensorList&) = delete;

  EValue value() { return EValue(&list_); }
  void replace(size_t i, const EValue& v) { elements_[i] = v; }

 private:
  std::vector<EValue> elements_;
  std::vector<EValue*> wrapped_;
  std::vector<std::optional<Tensor>> unwrapped_;
  runtime::BoxedEvalueList<std::optional<Tensor>> list_;
};

}  // namespace kiln::kernels::portable::testing
