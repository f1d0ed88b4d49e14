// mean.dim and any.dim: reductions over a set of dims of a contiguous tensor.
#include <algorithm>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Which dims of a rank-`rank` tensor are reduced; `dims` empty means all.
bool reduced_dims(KernelArgs& a, Span<const int64_t> dims, size_t rank, bool* reduced) {
  for (size_t d = 0; d < util::kMaxDims; ++d) reduced[d] = dims.empty();
  const auto r = static_cast<int64_t>(std::max<size_t>(rank, 1));
  for (int64_t dim : dims) {
    if (dim < -r || dim >= r) {
      a.fail(Error::InvalidArgument, "'dim' %lld is out of range for %zu dims", static_cast<long long>(dim), rank);
      return false;
    }
    const size_t d = static_cast<size_t>(dim < 0 ? dim + r : dim);
    if (reduced[d] && !dims.empty()) {
      a.fail(Error::InvalidArgument, "'dim' %lld appears twice", static_cast<long long>(dim));
      return false;
    }
    reduced[d] = true;
  }
  return true;
}

// Resizes out to the reduced shape; `strides[d]` becomes the out offset step
// of input dim d (0 for reduced dims).
bool reduce_layout(KernelArgs& a, const Tensor& self, const bool* reduced, bool keepdim, const Tensor& out,
                   int64_t* strides) {
  SizesType shape[util::kMaxDims];
  size_t out_rank = 0;
  const size_t rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) shape[out_rank++] = self.sizes()[d];
    else if (keepdim) shape[out_rank++] = 1;
  }
  if (!a.resize_out(out, "out", {shape, out_rank}) || !a.check_contiguous(self, "self") || !a.check_contiguous(out, "out")) {
    return false;
  }
  int64_t step = 1;
  for (size_t d = rank; d-- > 0;) {
    strides[d] = reduced[d] ? 0 : step;
    if (!reduced[d]) step *= self.sizes()[d];
  }
  return true;
}

// Calls fn(in_offset, out_offset) for every element of contiguous `self`.
template <typename F>
void for_each_element(const Tensor& self, const int64_t* out_strides, F fn) {
  const size_t rank = static_cast<size_t>(self.dim());
  int64_t index[util::kMaxDims] = {};
  int64_t out_offset = 0;
  for (int64_t i = 0; i < self.numel(); ++i) {
    fn(i, out_offset);
    for (size_t d = rank; d-- > 0;) {
      out_offset += out_strides[d];
      if (++index[d] < self.sizes()[d]) break;
      out_offset -= out_strides[d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void mean_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::mean.out", args);
  Tensor self, out;
  bool keepdim = false;
  Span<const int64_t> dims;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.boolean(2, "keepdim", &keepdim) || !a.tensor(4, "out", &out)) {
    return;
  }
  if (!args[1]->isNone() && !a.int_list(1, "dim", &dims)) return;
  if (!util::is_floating(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' must be float or double, got %s", runtime::to_string(self.scalar_type()));
    return;
  }
  if (!args[3]->isNone()) {
    int64_t dtype = 0;
    if (!a.integer(3, "dtype", &dtype)) return;
    if (dtype != static_cast<int64_t>(out.scalar_type())) {
      a.fail(Error::InvalidArgument, "'dtype' %lld differs from 'out' (%s)", static_cast<long long>(dtype),
             runtime::to_string(out.scalar_type()));
      return;
    }
  }
  bool reduced[util::kMaxDims];
  int64_t strides[util::kMaxDims];
  if (!a.check_dtype(out, "out", self.scalar_type()) || !reduced_dims(a, dims, static_cast<size_t>(self.dim()), reduced) ||
      !reduce_layout(a, self, reduced, keepdim, out, strides)) {
    return;
  }
  const int64_t count = out.numel() == 0 ? 0 : self.numel() / out.numel();
  util::visit_floating(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) y[i] = T(0);
    const T* x = self.const_data_ptr<T>();
    for_each_element(self, strides, [&](int64_t in, int64_t o) { y[o] += x[in]; });
    for (int64_t i = 0; i < out.numel(); ++i) y[i] /= static_cast<T>(count);  // 0/0 gives NaN, as torch
  });
}

void any_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::any.out", args);
  Tensor self, out;
  int64_t dim = 0;
  bool keepdim = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "keepdim", &keepdim) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  const int64_t dim_list[1] = {dim};
  bool reduced[util::kMaxDims];
  int64_t strides[util::kMaxDims];
  if (!a.check_dtype(out, "out", ScalarType::Bool) ||
      !reduced_dims(a, {dim_list, 1}, static_cast<size_t>(self.dim()), reduced) ||
      !reduce_layout(a, self, reduced, keepdim, out, strides)) {
    return;
  }
  bool* y = out.mutable_data_ptr<bool>();
  for (int64_t i = 0; i < out.numel(); ++i) y[i] = false;
  util::visit_real_or_bool(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self.const_data_ptr<T>();
    for_each_element(self, strides, [&](int64_t in, int64_t o) { y[o] = y[o] || x[in] != T(0); });
  });
}

}  // namespace kiln::kernels::portable
