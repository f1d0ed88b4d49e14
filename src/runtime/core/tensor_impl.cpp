#include "runtime/core/tensor_impl.h"

#include <cstdint>
#include <limits>

namespace kiln::runtime {

namespace {

ssize_t compute_numel(const SizesType* sizes, ssize_t dim) {
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) numel *= sizes[i];
  return numel;
}

}  // namespace

TensorImpl::TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data,
                       DimOrderType* dim_order, StridesType* strides, TensorShapeDynamism dynamism)
    : sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dim_(dim),
      numel_(compute_numel(sizes, dim)),
      numel_bound_(numel_),
      type_(type),
      dynamism_(dynamism) {
  KILN_CHECK(dim >= 0);
  KILN_CHECK(dim == 0 || (sizes != nullptr && dim_order != nullptr && strides != nullptr));
}

Error TensorImpl::internal_resize_contiguous(Span<const SizesType> new_sizes) {
  if (static_cast<ssize_t>(new_sizes.size()) != dim_) return Error::NotSupported;
  bool same = true;
  for (ssize_t i = 0; i < dim_; ++i) {
    if (new_sizes[i] < 0) return Error::InvalidArgument;
    same = same && new_sizes[i] == sizes_[i];
  }
  if (same) return Error::Ok;
  if (dynamism_ == TensorShapeDynamism::Static) return Error::NotSupported;
  const ssize_t numel = compute_numel(new_sizes.data(), dim_);
  if (dynamism_ == TensorShapeDynamism::DynamicBound && numel > numel_bound_) {
    return Error::NotSupported;
  }
  for (ssize_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = numel;
  return compute_strides({sizes_, static_cast<size_t>(dim_)}, {dim_order_, static_cast<size_t>(dim_)},
                         {strides_, static_cast<size_t>(dim_)});
}

Error compute_strides(Span<const SizesType> sizes, Span<const DimOrderType> dim_order,
                      Span<StridesType> strides) {
  if (sizes.size() != dim_order.size() || sizes.size() != strides.size()) {
    return Error::InvalidArgument;
  }
  const size_t n = sizes.size();
  // A repeated dim would leave another dim's stride unwritten.
  bool seen[256] = {};
  // 64-bit: a size-0 dim keeps numel small while the other sizes' product
  // passes StridesType; each factor is below 2^31, so one step cannot overflow.
  int64_t stride = 1;
  for (size_t i = n; i-- > 0;) {
    const DimOrderType d = dim_order[i];
    if (d >= n || seen[d] || stride > std::numeric_limits<StridesType>::max()) return Error::InvalidArgument;
    seen[d] = true;
    strides[d] = static_cast<StridesType>(stride);
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return Error::Ok;
}

bool is_contiguous_dim_order(Span<const DimOrderType> dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) return false;
  }
  return true;
}

}  // namespace kiln::runtime
