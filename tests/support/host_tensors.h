// Between the AOT side's HostTensors and the runtime's tensors, for tests
// that run a lowered program on the runtime and compare with the reference
// interpreter. Header-only; test code (exceptions allowed).
#pragma once

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::runtime::testing {

/// A contiguous runtime tensor over its own copy of a HostTensor's elements.
/// Not movable: its TensorImpl points into its own members.
class OwnedTensor {
 public:
  explicit OwnedTensor(const aot::HostTensor& host) : dense_(host.clone()) {
    for (int64_t size : dense_.sizes()) sizes_.push_back(static_cast<SizesType>(size));
    for (size_t d = 0; d < sizes_.size(); ++d) dim_order_.push_back(static_cast<DimOrderType>(d));
    strides_.resize(sizes_.size());
    if (compute_strides({sizes_.data(), sizes_.size()}, {dim_order_.data(), dim_order_.size()},
                        {strides_.data(), strides_.size()}) != Error::Ok) {
      throw std::runtime_error("OwnedTensor: cannot compute strides of " + host.describe());
    }
    impl_ = std::make_unique<TensorImpl>(dense_.dtype(), static_cast<ssize_t>(sizes_.size()), sizes_.data(),
                                         dense_.data(), dim_order_.data(), strides_.data());
  }
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  Tensor tensor() const { return Tensor(impl_.get()); }
  EValue value() const { return EValue(tensor()); }

 private:
  aot::HostTensor dense_;
  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  std::unique_ptr<TensorImpl> impl_;
};

/// A copy of a runtime tensor in contiguous dim order as a HostTensor.
inline aot::HostTensor to_host(const Tensor& tensor) {
  if (!is_contiguous_dim_order(tensor.dim_order())) throw std::runtime_error("to_host: not in contiguous dim order");
  std::vector<int64_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
  aot::HostTensor host = aot::HostTensor::zeros(tensor.scalar_type(), sizes);
  if (tensor.nbytes() > 0) std::memcpy(host.data(), tensor.const_data_ptr(), tensor.nbytes());
  return host;
}

/// to_host of an EValue that must hold a tensor; `what` names it in the error.
inline aot::HostTensor to_host(const EValue& value, const std::string& what) {
  if (!value.isTensor()) throw std::runtime_error(what + " is " + to_string(value.tag()) + ", not a tensor");
  return to_host(value.toTensor());
}

}  // namespace kiln::runtime::testing
