// TensorImpl and Tensor: the runtime's view of an n-dimensional array.
//
// A TensorImpl owns nothing: sizes, dim order, strides and data all point into
// memory that the caller (a loaded program, a memory planner, a test) owns and
// keeps alive for the tensor's lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/types.h>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace kiln::runtime {

using SizesType = int32_t;
using DimOrderType = uint8_t;
using StridesType = int32_t;

/// How a tensor's shape may change after it is created (the .pte's values).
enum class TensorShapeDynamism : uint8_t {
  Static = 0,          ///< the shape never changes
  DynamicBound = 1,    ///< may shrink or grow up to the numel it was created with
  DynamicUnbound = 2,  ///< any shape (the data must be re-pointed by the owner)
};

class TensorImpl final {
 public:
  /// `sizes`, `dim_order` and `strides` each point at `dim` elements (they may
  /// be null only when dim is 0); `strides` must agree with sizes and dim order
  /// (`compute_strides` fills them). They stay writable so that a dynamic tensor
  /// can be resized in place.
  TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data, DimOrderType* dim_order,
             StridesType* strides, TensorShapeDynamism dynamism = TensorShapeDynamism::Static);

  ScalarType scalar_type() const { return type_; }
  ssize_t dim() const { return dim_; }
  ssize_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * runtime::element_size(type_); }
  size_t element_size() const { return runtime::element_size(type_); }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }

  Span<const SizesType> sizes() const { return {sizes_, static_cast<size_t>(dim_)}; }
  Span<const DimOrderType> dim_order() const { return {dim_order_, static_cast<size_t>(dim_)}; }
  Span<const StridesType> strides() const { return {strides_, static_cast<size_t>(dim_)}; }

  const void* data() const { return data_; }
  void* mutable_data() const { return data_; }
  void set_data(void* data) { data_ = data; }

  /// Changes the shape in place, keeping the rank. Static tensors accept only
  /// their current shape; bound-dynamic tensors any shape with numel not above
  /// the one they were created with. Strides are recomputed from the dim order.
  [[nodiscard]] Error internal_resize_contiguous(Span<const SizesType> new_sizes);

 private:
  SizesType* sizes_;
  DimOrderType* dim_order_;
  StridesType* strides_;
  void* data_;
  ssize_t dim_;
  ssize_t numel_;
  ssize_t numel_bound_;
  ScalarType type_;
  TensorShapeDynamism dynamism_;
};

/// Fills `strides` (dim entries) for a dense tensor of `sizes` laid out in
/// `dim_order` (outermost first). A size-0 or size-1 dim still gets a stride.
/// InvalidArgument if the lengths differ, `dim_order` is not a permutation,
/// or a stride does not fit StridesType.
Error compute_strides(Span<const SizesType> sizes, Span<const DimOrderType> dim_order,
                      Span<StridesType> strides);

/// True if `dim_order` is 0, 1, ..., n-1.
bool is_contiguous_dim_order(Span<const DimOrderType> dim_order);

/// A thin, copyable handle to a TensorImpl (as in ExecuTorch's portable mode).
class Tensor final {
 public:
  Tensor() = default;
  explicit Tensor(TensorImpl* impl) : impl_(impl) {}

  TensorImpl* unsafeGetTensorImpl() const { return impl_; }

  ScalarType scalar_type() const { return impl_->scalar_type(); }
  ssize_t dim() const { return impl_->dim(); }
  ssize_t numel() const { return impl_->numel(); }
  size_t nbytes() const { return impl_->nbytes(); }
  size_t element_size() const { return impl_->element_size(); }
  TensorShapeDynamism shape_dynamism() const { return impl_->shape_dynamism(); }
  Span<const SizesType> sizes() const { return impl_->sizes(); }
  Span<const DimOrderType> dim_order() const { return impl_->dim_order(); }
  Span<const StridesType> strides() const { return impl_->strides(); }
  /// Size of dimension `d`; a negative `d` counts from the end.
  SizesType size(ssize_t d) const { return impl_->sizes()[static_cast<size_t>(d < 0 ? d + dim() : d)]; }

  const void* const_data_ptr() const { return impl_->data(); }
  void* mutable_data_ptr() const { return impl_->mutable_data(); }
  template <typename T>
  const T* const_data_ptr() const { return static_cast<const T*>(impl_->data()); }
  template <typename T>
  T* mutable_data_ptr() const { return static_cast<T*>(impl_->mutable_data()); }

 private:
  TensorImpl* impl_ = nullptr;
};

/// Resizes `tensor` to `new_sizes` if its dynamism allows it (see
/// TensorImpl::internal_resize_contiguous).
[[nodiscard]] inline Error resize_tensor(Tensor tensor, Span<const SizesType> new_sizes) {
  return tensor.unsafeGetTensorImpl()->internal_resize_contiguous(new_sizes);
}

}  // namespace kiln::runtime
