// The copy variants of view ops: expand_copy, select_copy.int,
// squeeze_copy.dims, unsqueeze_copy, transpose_copy.int, slice_copy.Tensor;
// their inverses slice_scatter and select_scatter (self with the view's
// elements replaced); diagonal_copy, and flip (a view walking the flipped
// dims backwards).
// Each computes the view's shape and strides over `self` and copies through them.
// Also unfold_copy (sliding windows), as_strided_copy, alias_copy, _to_copy (a copy that may change the
// dtype), and view_as_real_copy / view_as_complex_copy, which reinterpret a
// complex element as its two floats and back.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"
#include "runtime/core/c10_enums.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
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
  if (!a.check_valid_dtype(*self, "self")) return false;
  return a.check_dtype(*out, "out", self->scalar_type());
}

// Resizes out to `view` and copies the viewed elements into it; false if out
// cannot take the view's shape.
bool write_view(KernelArgs& a, const Tensor& self, const View& view, const Tensor& out) {
  if (!a.resize_out(out, "out", {view.sizes, view.rank})) return false;
  if (out.numel() == 0) return true;
  // The copy helper reads from its source's base pointer: hand it a 0-dim
  // tensor whose data starts at the view's first element (it is only read).
  const auto* first =
      static_cast<const uint8_t*>(self.const_data_ptr()) + view.offset * static_cast<int64_t>(self.element_size());
  runtime::TensorImpl shifted(self.scalar_type(), 0, nullptr, const_cast<uint8_t*>(first), nullptr, nullptr);
  util::copy_with_strides(Tensor(&shifted), view.strides, out);
  return true;
}

// select(self, dim, index) as a view of self.
bool select_view(KernelArgs& a, const Tensor& self, int64_t dim, int64_t index, View* view) {
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and cannot be selected from");
    return false;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return false;
  const int64_t length = self.sizes()[d];
  if (index < -length || index >= length) {
    a.fail(Error::InvalidArgument, "'index' %lld is out of range for size %lld", static_cast<long long>(index),
           static_cast<long long>(length));
    return false;
  }
  if (index < 0) index += length;
  const View full = identity(self);
  for (size_t i = 0; i < full.rank; ++i) {
    if (i == d) continue;
    view->sizes[view->rank] = full.sizes[i];
    view->strides[view->rank++] = full.strides[i];
  }
  view->offset = index * full.strides[d];
  return true;
}

// slice(self, dim, start, end, step) as a view of self, with PyTorch's
// clamping: negative bounds count from the end, then both clamp to [0, length].
bool slice_view(KernelArgs& a, Span<EValue*> args, size_t start_index, const Tensor& self, int64_t dim, int64_t step,
                View* view) {
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and cannot be sliced");
    return false;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return false;
  if (step <= 0) {
    a.fail(Error::InvalidArgument, "'step' must be positive, got %lld", static_cast<long long>(step));
    return false;
  }
  const int64_t length = self.sizes()[d];
  int64_t start = 0, end = length;
  if (!args[start_index]->isNone() && !a.integer(start_index, "start", &start)) return false;
  if (!args[start_index + 1]->isNone() && !a.integer(start_index + 1, "end", &end)) return false;
  if (start < 0) start += length;
  if (end < 0) end += length;
  start = std::clamp<int64_t>(start, 0, length);
  end = std::clamp<int64_t>(end, start, length);
  *view = identity(self);
  const int64_t count = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a huge step
  view->sizes[d] = static_cast<SizesType>(count);
  view->offset = count == 0 ? 0 : start * view->strides[d];
  if (count > 1) view->strides[d] *= step;
  return true;
}

// flip(self, dims) as a view of self: each flipped dim starts at its last
// element and steps backwards.
bool flip_view(KernelArgs& a, const Tensor& self, Span<const int64_t> dims, View* view) {
  *view = identity(self);
  bool flipped[util::kMaxDims] = {};
  for (const int64_t dim : dims) {
    size_t d = 0;
    if (!a.wrap_dim(dim, view->rank, "dims", &d)) return false;
    if (view->rank == 0) continue;  // a 0-dim tensor takes dim 0 or -1 and has nothing to flip
    if (flipped[d]) {
      a.fail(Error::InvalidArgument, "'dims' names dim %zu more than once", d);
      return false;
    }
    flipped[d] = true;
    view->offset += (view->sizes[d] - 1) * view->strides[d];
    view->strides[d] = -view->strides[d];
  }
  return true;
}

// diagonal(self, offset, dim1, dim2) as a view of self: the other dims in
// order, then the diagonal (above the main one for a positive offset, below
// it for a negative one; empty when the offset passes the edge).
bool diagonal_view(KernelArgs& a, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2, View* view) {
  const View full = identity(self);
  size_t d1 = 0, d2 = 0;
  if (!a.wrap_dim(dim1, full.rank, "dim1", &d1) || !a.wrap_dim(dim2, full.rank, "dim2", &d2)) return false;
  if (d1 == d2) {
    a.fail(Error::InvalidArgument, "'dim1' and 'dim2' both name dim %zu; a diagonal needs two dims", d1);
    return false;
  }
  const int64_t rows = full.sizes[d1], columns = full.sizes[d2];
  const int64_t length =
      std::max<int64_t>(offset >= 0 ? std::min(rows, columns - offset) : std::min(rows + offset, columns), 0);
  for (size_t d = 0; d < full.rank; ++d) {
    if (d == d1 || d == d2) continue;
    view->sizes[view->rank] = full.sizes[d];
    view->strides[view->rank++] = full.strides[d];
  }
  view->sizes[view->rank] = static_cast<SizesType>(length);
  view->strides[view->rank++] = full.strides[d1] + full.strides[d2];
  if (length > 0) view->offset = offset >= 0 ? offset * full.strides[d2] : -offset * full.strides[d1];
  return true;
}

// out = self with the elements of `view` (a view of self's layout) replaced by
// src's: self copied whole, then src written through the view. Self, src and
// out are contiguous; src has the view's sizes.
void scatter_into_view(KernelArgs& a, const Tensor& self, const Tensor& src, const View& view, const Tensor& out) {
  if (!a.check_dtype(src, "src", self.scalar_type())) return;
  if (!util::is_dense(self) || !util::is_dense(src) || !util::is_dense(out)) {
    a.fail(Error::InvalidArgument, "'self', 'src' and 'out' must be contiguous");
    return;
  }
  bool fits = static_cast<size_t>(src.dim()) == view.rank;
  for (size_t d = 0; fits && d < view.rank; ++d) fits = src.sizes()[d] == view.sizes[d];
  if (!fits) {
    a.fail(Error::InvalidArgument, "'src' has %zd dims that do not match the %zu-dim slice it replaces",
           static_cast<ssize_t>(src.dim()), view.rank);
    return;
  }
  if (!write_view(a, self, identity(self), out) || src.numel() == 0) return;
  const size_t element = self.element_size();
  const auto* from = static_cast<const uint8_t*>(src.const_data_ptr());
  auto* to = static_cast<uint8_t*>(out.mutable_data_ptr());
  int64_t index[util::kMaxDims] = {};
  int64_t offset = view.offset;
  for (ssize_t i = 0; i < src.numel(); ++i) {
    std::memcpy(to + offset * static_cast<int64_t>(element), from + i * static_cast<ssize_t>(element), element);
    for (size_t d = view.rank; d-- > 0;) {  // the next index, last dim fastest
      offset += view.strides[d];
      if (++index[d] < view.sizes[d]) break;
      offset -= view.strides[d] * index[d];
      index[d] = 0;
    }
  }
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
  View view;
  if (select_view(a, self, dim, index, &view)) write_view(a, self, view, out);
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
  View view;
  if (slice_view(a, args, 2, self, dim, step, &view)) write_view(a, self, view, out);
}

void flip_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::flip.out", args);
  Tensor self, out;
  Span<const int64_t> dims;
  if (!read_self_out(a, 3, 2, &self, &out) || !a.int_list(1, "dims", &dims)) return;
  View view;
  if (flip_view(a, self, dims, &view)) write_view(a, self, view, out);
}

// unfold(self, dimension, size, step): the windows of `size` elements, `step`
// apart, along `dimension`; that dim counts the windows and a new last dim
// walks each. A 0-dim self is one window of its single element.
void unfold_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::unfold_copy.out", args);
  Tensor self, out;
  int64_t dimension = 0, size = 0, step = 0;
  if (!read_self_out(a, 5, 4, &self, &out) || !a.integer(1, "dimension", &dimension) ||
      !a.integer(2, "size", &size) || !a.integer(3, "step", &step)) {
    return;
  }
  const size_t rank = static_cast<size_t>(self.dim());
  size_t d = 0;
  if (!a.wrap_dim(dimension, rank, "dimension", &d)) return;
  const int64_t length = rank == 0 ? 1 : self.sizes()[d];
  if (size < 0 || size > length) {
    a.fail(Error::InvalidArgument, "'size' %lld must be in [0, %lld], the length of dim %zu", static_cast<long long>(size),
           static_cast<long long>(length), d);
    return;
  }
  if (step <= 0) {
    a.fail(Error::InvalidArgument, "'step' must be positive, got %lld", static_cast<long long>(step));
    return;
  }
  if (rank + 1 > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'self' has %zu dims; the result would have more than %zu", rank, util::kMaxDims);
    return;
  }
  View view = identity(self);
  const int64_t stride = rank == 0 ? 1 : view.strides[d];
  if (rank > 0) {
    view.sizes[d] = static_cast<SizesType>((length - size) / step + 1);
    view.strides[d] = stride * step;
  }
  view.sizes[view.rank] = static_cast<SizesType>(size);
  view.strides[view.rank] = stride;
  ++view.rank;
  write_view(a, self, view, out);
}

void diagonal_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::diagonal_copy.out", args);
  Tensor self, out;
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  if (!read_self_out(a, 5, 4, &self, &out) || !a.integer(1, "offset", &offset) || !a.integer(2, "dim1", &dim1) ||
      !a.integer(3, "dim2", &dim2)) {
    return;
  }
  View view;
  if (diagonal_view(a, self, offset, dim1, dim2, &view)) write_view(a, self, view, out);
}

void slice_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::slice_scatter.out", args);
  Tensor self, src, out;
  int64_t dim = 0, step = 1;
  if (!read_self_out(a, 7, 6, &self, &out) || !a.tensor(1, "src", &src) || !a.integer(2, "dim", &dim) ||
      !a.integer(5, "step", &step)) {
    return;
  }
  View view;
  if (!slice_view(a, args, 3, self, dim, step, &view)) return;
  scatter_into_view(a, self, src, view, out);
}

void select_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::select_scatter.out", args);
  Tensor self, src, out;
  int64_t dim = 0, index = 0;
  if (!read_self_out(a, 5, 4, &self, &out) || !a.tensor(1, "src", &src) || !a.integer(2, "dim", &dim) ||
      !a.integer(3, "index", &index)) {
    return;
  }
  View view;
  if (!select_view(a, self, dim, index, &view)) return;
  scatter_into_view(a, self, src, view, out);
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

namespace {

// The real type of a complex element's parts; false for a type that is not complex.
bool real_part_type(ScalarType complex, ScalarType* real) {
  if (!runtime::is_complex_type(complex)) return false;
  *real = runtime::real_type_of(complex);
  return true;
}

// Copies contiguous `self` into `out` (resized to `sizes`), byte for byte.
void copy_bytes(KernelArgs& a, const Tensor& self, const Tensor& out, Span<const SizesType> sizes) {
  if (!a.check_contiguous(self, "self") || !a.check_contiguous(out, "out") || !a.resize_out(out, "out", sizes)) return;
  if (self.nbytes() > 0) std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
}

}  // namespace

void view_as_real_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::view_as_real_copy.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out)) return;
  ScalarType real = ScalarType::Float;
  if (!real_part_type(self.scalar_type(), &real)) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s; view_as_real takes ComplexFloat or ComplexDouble",
           runtime::to_string(self.scalar_type()));
    return;
  }
  if (!a.check_dtype(out, "out", real)) return;
  if (static_cast<size_t>(self.dim()) + 1 > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'self' has %zd dims; the result would have more than %zu", self.dim(),
           util::kMaxDims);
    return;
  }
  SizesType sizes[util::kMaxDims];
  for (ssize_t d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  sizes[self.dim()] = 2;
  copy_bytes(a, self, out, {sizes, static_cast<size_t>(self.dim()) + 1});
}

void view_as_complex_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::view_as_complex_copy.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out)) return;
  ScalarType real = ScalarType::Float;
  if (!real_part_type(out.scalar_type(), &real) || self.scalar_type() != real) {
    a.fail(Error::InvalidArgument,
           "view_as_complex takes Float into ComplexFloat or Double into ComplexDouble, got 'self' %s and 'out' %s",
           runtime::to_string(self.scalar_type()), runtime::to_string(out.scalar_type()));
    return;
  }
  if (self.dim() == 0 || self.size(self.dim() - 1) != 2) {
    a.fail(Error::InvalidArgument, "'self' must end in a dim of size 2 (real, imaginary)");
    return;
  }
  copy_bytes(a, self, out, {self.sizes().data(), static_cast<size_t>(self.dim()) - 1});
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
    // out's own dim order decides the layout written.
    if (!runtime::is_memory_format(format, runtime::MemoryFormat::Contiguous) &&
        !runtime::is_memory_format(format, runtime::MemoryFormat::Preserve)) {
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
