#include "runtime/core/tensor_impl.h"

#include <cstdint>
#include <limits>

#include "runtime/core/log.h"

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
  KILN_CHECK_OR_LOG_RETURN(static_cast<ssize_t>(new_sizes.size()) == dim_, NotSupported,
                           "resize: %zu sizes for a tensor of rank %zd", new_sizes.size(), dim_);
  bool same = true;
  for (ssize_t i = 0; i < dim_; ++i) {
    KILN_CHECK_OR_LOG_RETURN(new_sizes[i] >= 0, InvalidArgument, "resize: size %lld of dim %zd is negative",
                             static_cast<long long>(new_sizes[i]), i);
    same = same && new_sizes[i] == sizes_[i];
  }
  if (same) return Error::Ok;
  KILN_CHECK_OR_LOG_RETURN(dynamism_ != TensorShapeDynamism::Static, NotSupported,
                           "resize: the tensor's sizes are static (planned for its exact shape)");
  const ssize_t numel = compute_numel(new_sizes.data(), dim_);
  KILN_CHECK_OR_LOG_RETURN(dynamism_ != TensorShapeDynamism::DynamicBound || numel <= numel_bound_, NotSupported,
                           "resize: %zd elements is more than the %zd the tensor was planned for", numel, numel_bound_);
  for (ssize_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = numel;
  return compute_strides({sizes_, static_cast<size_t>(dim_)}, {dim_order_, static_cast<size_t>(dim_)},
                         {strides_, static_cast<size_t>(dim_)});
}

Error compute_strides(Span<const SizesType> sizes, Span<const DimOrderType> dim_order,
                      Span<StridesType> strides) {
  KILN_CHECK_OR_LOG_RETURN(sizes.size() == dim_order.size() && sizes.size() == strides.size(), InvalidArgument,
                           "compute_strides: %zu sizes, %zu dim order entries and %zu strides", sizes.size(),
                           dim_order.size(), strides.size());
  const size_t n = sizes.size();
  // A repeated dim would leave another dim's stride unwritten.
  bool seen[256] = {};
  // 64-bit: a size-0 dim keeps numel small while the other sizes' product
  // passes StridesType; each factor is below 2^31, so one step cannot overflow.
  int64_t stride = 1;
  for (size_t i = n; i-- > 0;) {
    const DimOrderType d = dim_order[i];
    KILN_CHECK_OR_LOG_RETURN(d < n && !seen[d], InvalidArgument,
                             "compute_strides: dim order entry %u is out of range or repeated", static_cast<unsigned>(d));
    KILN_CHECK_OR_LOG_RETURN(stride <= std::numeric_limits<StridesType>::max(), InvalidArgument,
                             "compute_strides: a stride of %lld does not fit in 32 bits", static_cast<long long>(stride));
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
