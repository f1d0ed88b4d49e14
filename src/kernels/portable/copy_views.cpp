// The copy variants of view ops: expand_copy, select_copy.int,
// squeeze_copy.dims, unsqueeze_copy, transpose_copy.int, slice_copy.Tensor.
// Each computes the view's shape and strides over `self` and copies through them.
// Also as_strided_copy, alias_copy, and _to_copy (a copy that may change the dtype).
#include <algorithm>
#include <cstdint>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// A view of `self`: shape and (element) strides, at most kMaxDims dims.
struct View {
  size_t rank = 0;
  SizesType sizes[util::kMaxDims] = {};
  int64_t strides[util::kMaxDims] = {};
  int64_t offset = 0;
};

View identity(const Tensor& self) {
  View view;
  view.rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < view.rank; ++d) {
    view.sizes[d] = self.sizes()[d];
    view.strides[d] = self.strides()[d];
  }
  return view;
}

// Reads self (0) and out (`out_index`) with matching dtypes, of a known element size.
bool read_self_out(KernelArgs& a, size_t count, size_t out_index, Tensor* self, Tensor* out) {
  if (!a.check_count(count) || !a.tensor(0, "self", self) || !a.tensor(out_index, "out", out)) return false;
  if (!runtime::is_valid(self->scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has an invalid dtype (%d)", static_cast<int>(self->scalar_type()));
    return false;
  }
  return a.check_dtype(*out, "out", self->scalar_type());
}

// Resizes out to `view` and copies the viewed elements into it.
void write_view(KernelArgs& a, const Tensor& self, const View& view, const Tensor& out) {
  if (!a.resize_out(out, "out", {view.sizes, view.rank})) return;
  if (out.numel() == 0) return;
  // The copy helper reads from its source's base pointer: hand it a 0-dim
  // tensor whose data starts at the view's first element (it is only read).
  const auto* first =
      static_cast<const uint8_t*>(self.const_data_ptr()) + view.offset * static_cast<int64_t>(self.element_size());
  runtime::TensorImpl shifted(self.scalar_type(), 0, nullptr, const_cast<uint8_t*>(first), nullptr, nullptr);
  util::copy_with_strides(Tensor(&shifted), view.strides, out);
}

}  // namespace

void expand_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::expand_copy.out", args);
  Tensor self, out;
  Span<const int64_t> size;
  bool implicit = false;  // only a tracing hint
  if (!read_self_out(a, 4, 3, &self, &out) || !a.int_list(1, "size", &size) || !a.boolean(2, "implicit", &implicit)) {
    return;
  }
  const size_t rank = static_cast<size_t>(self.dim());
  if (size.size() < rank || size.size() > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'size' has %zu entries, fewer than the %zu dims of 'self' or too many", size.size(), rank);
    return;
  }
  View view;
  view.rank = size.size();
  const size_t lead = size.size() - rank;
  for (size_t d = 0; d < size.size(); ++d) {
    const bool existing = d >= lead;
    const int64_t current = existing ? self.sizes()[d - lead] : 1;
    int64_t target = size[d];
    if (target == -1) {
      if (!existing) {
        a.fail(Error::InvalidArgument, "'size' entry %zu is -1 for a new leading dim", d);
        return;
      }
      target = current;
    }
    if (target < 0 || target > INT32_MAX || (current != 1 && target != current)) {
      a.fail(Error::InvalidArgument, "'size' entry %zu (%lld) cannot expand a dim of size %lld", d,
             static_cast<long long>(size[d]), static_cast<long long>(current));
      return;
    }
    view.sizes[d] = static_cast<SizesType>(target);
    view.strides[d] = existing && current == target ? self.strides()[d - lead] : 0;
  }
  write_view(a, self, view, out);
}

void select_copy_int_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::select_copy.int_out", args);
  Tensor self, out;
  int64_t dim = 0, index = 0;
  if (!read_self_out(a, 4, 3, &self, &out) || !a.integer(1, "dim", &dim) || !a.integer(2, "index", &index)) return;
  size_t d = 0;
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and cannot be selected from");
    return;
  }
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return;
  const int64_t length = self.sizes()[d];
  if (index < -length || index >= length) {
    a.fail(Error::InvalidArgument, "'index' %lld is out of range for size %lld", static_cast<long long>(index),
           static_cast<long long>(length));
    return;
  }
  if (index < 0) index += length;
  View full = identity(self);
  View view;
  for (size_t i = 0; i < full.rank; ++i) {
    if (i == d) continue;
    view.sizes[view.rank] = full.sizes[i];
    view.strides[view.rank++] = full.strides[i];
  }
  view.offset = index * full.strides[d];
  write_view(a, self, view, out);
}

void squeeze_copy_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::squeeze_copy.dims_out", args);
  Tensor self, out;
  Span<const int64_t> dims;
  if (!read_self_out(a, 3, 2, &self, &out) || !a.int_list(1, "dim", &dims)) return;
  bool seen[util::kMaxDims] = {};
  bool drop[util::kMaxDims] = {};
  const size_t rank = static_cast<size_t>(self.dim());
  for (int64_t dim : dims) {
    size_t d = 0;
    if (!a.wrap_dim(dim, rank, "dim", &d)) return;
    if (seen[d]) {
      a.fail(Error::InvalidArgument, "'dim' %lld appears twice", static_cast<long long>(dim));
      return;
    }
    seen[d] = true;
    if (d < rank && self.sizes()[d] == 1) drop[d] = true;  // only size-1 dims go, as in PyTorch
  }
  View full = identity(self);
  View view;
  for (size_t d = 0; d < rank; ++d) {
    if (drop[d]) continue;
    view.sizes[view.rank] = full.sizes[d];
    view.strides[view.rank++] = full.strides[d];
  }
  write_view(a, self, view, out);
}

void unsqueeze_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::unsqueeze_copy.out", args);
  Tensor self, out;
  int64_t dim = 0;
  if (!read_self_out(a, 3, 2, &self, &out) || !a.integer(1, "dim", &dim)) return;
  const size_t rank = static_cast<size_t>(self.dim());
  if (rank + 1 > util::kMaxDims) {
    a.fail(Error::NotSupported, "'self' already has %zu dims", rank);
    return;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, rank + 1, "dim", &d)) return;
  View full = identity(self);
  View view;
  view.rank = rank + 1;
  for (size_t i = 0, j = 0; i < view.rank; ++i) {
    if (i == d) {
      view.sizes[i] = 1;
      view.strides[i] = 0;
    } else {
      view.sizes[i] = full.sizes[j];
      view.strides[i] = full.strides[j++];
    }
  }
  write_view(a, self, view, out);
}

void transpose_copy_int_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::transpose_copy.int_out", args);
  Tensor self, out;
  int64_t dim0 = 0, dim1 = 0;
  if (!read_self_out(a, 4, 3, &self, &out) || !a.integer(1, "dim0", &dim0) || !a.integer(2, "dim1", &dim1)) return;
  size_t d0 = 0, d1 = 0;
  const size_t rank = static_cast<size_t>(self.dim());
  if (!a.wrap_dim(dim0, rank, "dim0", &d0) || !a.wrap_dim(dim1, rank, "dim1", &d1)) return;
  View view = identity(self);
  if (rank > 0) {
    std::swap(view.sizes[d0], view.sizes[d1]);
    std::swap(view.strides[d0], view.strides[d1]);
  }
  write_view(a, self, view, out);
}

void slice_copy_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::slice_copy.Tensor_out", args);
  Tensor self, out;
  int64_t dim = 0, step = 1;
  if (!read_self_out(a, 6, 5, &self, &out) || !a.integer(1, "dim", &dim) || !a.integer(4, "step", &step)) return;
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and cannot be sliced");
    return;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return;
  if (step <= 0) {
    a.fail(Error::InvalidArgument, "'step' must be positive, got %lld", static_cast<long long>(step));
    return;
  }
  const int64_t length = self.sizes()[d];
  int64_t start = 0, end = length;
  if (!args[2]->isNone() && !a.integer(2, "start", &start)) return;
  if (!args[3]->isNone() && !a.integer(3, "end", &end)) return;
  // PyTorch's clamping: negatives count from the end, then both clamp to [0, length].
  if (start < 0) start += length;
  if (end < 0) end += length;
  start = std::clamp<int64_t>(start, 0, length);
  end = std::clamp<int64_t>(end, start, length);
  View view = identity(self);
  const int64_t count = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a huge step
  view.sizes[d] = static_cast<SizesType>(count);
  view.offset = count == 0 ? 0 : start * view.strides[d];
  if (count > 1) view.strides[d] *= step;
  write_view(a, self, view, out);
}

// as_strided over self's elements (dense, in its dim order): Kiln's views
// are copies, so self's storage is self itself; every element read must lie
// inside it.
void as_strided_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::as_strided_copy.out", args);
  Tensor self, out;
  Span<const int64_t> size, stride;
  int64_t offset = 0;
  if (!read_self_out(a, 5, 4, &self, &out) || !a.int_list(1, "size", &size) || !a.int_list(2, "stride", &stride)) {
    return;
  }
  if (!args[3]->isNone() && !a.integer(3, "storage_offset", &offset)) return;
  if (size.size() != stride.size() || size.size() > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'size' has %zu entries and 'stride' %zu; they must match, at most %zu",
           size.size(), stride.size(), util::kMaxDims);
    return;
  }
  if (offset < 0) {
    a.fail(Error::InvalidArgument, "'storage_offset' is %lld; it must not be negative", static_cast<long long>(offset));
    return;
  }
  View view;
  view.rank = size.size();
  int64_t last = offset;
  bool empty = false;
  for (size_t d = 0; d < view.rank; ++d) {
    if (size[d] < 0 || size[d] > INT32_MAX || stride[d] < 0) {
      a.fail(Error::InvalidArgument, "dim %zu: size %lld and stride %lld must be non-negative (size at most 2^31-1)",
             d, static_cast<long long>(size[d]), static_cast<long long>(stride[d]));
      return;
    }
    view.sizes[d] = static_cast<SizesType>(size[d]);
    view.strides[d] = stride[d];
    int64_t reach = 0;
    if (size[d] == 0) empty = true;
    else if (__builtin_mul_overflow(size[d] - 1, stride[d], &reach) || __builtin_add_overflow(last, reach, &last)) {
      a.fail(Error::InvalidArgument, "the view reaches past the int64 range");
      return;
    }
  }
  if (!empty && last >= self.numel()) {
    a.fail(Error::InvalidArgument, "the view reads element %lld of 'self', which has %lld", static_cast<long long>(last),
           static_cast<long long>(self.numel()));
    return;
  }
  view.offset = empty ? 0 : offset;
  write_view(a, self, view, out);
}

void alias_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::alias_copy.out", args);
  Tensor self, out;
  if (!read_self_out(a, 2, 1, &self, &out)) return;
  write_view(a, self, identity(self), out);
}

void to_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_to_copy.out", args);
  Tensor self, out;
  bool non_blocking = false;  // nothing is asynchronous here
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.boolean(1, "non_blocking", &non_blocking) ||
      !a.tensor(3, "out", &out)) {
    return;
  }
  if (!args[2]->isNone()) {
    int64_t format = 0;
    if (!a.integer(2, "memory_format", &format)) return;
    // PyTorch's c10::MemoryFormat: 0 contiguous, 1 preserve. out's own dim
    // order decides the layout written.
    if (format != 0 && format != 1) {
      a.fail(Error::NotSupported, "'memory_format' %lld is not supported (only contiguous or preserve)",
             static_cast<long long>(format));
      return;
    }
  }
  const runtime::ScalarType from = self.scalar_type(), to = out.scalar_type();
  if (!runtime::is_valid(from) || !runtime::is_valid(to)) {
    a.fail(Error::InvalidArgument, "'self' or 'out' has an invalid dtype (%d, %d)", static_cast<int>(from),
           static_cast<int>(to));
    return;
  }
  if (from != to && (!util::is_convertible(from) || !util::is_convertible(to))) {
    a.fail(Error::NotSupported, "'self' of dtype %s cannot be converted to 'out' of dtype %s", runtime::to_string(from),
           runtime::to_string(to));
    return;
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  if (out.numel() == 0) return;
  const util::Geometry src = util::geometry(self), dst = util::geometry(out);
  util::convert_block(src.sizes, src.rank, out.mutable_data_ptr(), to, dst.strides, self.const_data_ptr(), from,
                      src.strides);
}

}  // namespace kiln::kernels::portable
