// reflection_pad{1,2,3}d and replication_pad{1,2,3}d: one N-d implementation
// padding the last 1, 2 or 3 dims of a batched or unbatched input. Every
// output index maps, dim by dim, to the input index it copies: mirrored about
// the edge element (reflection) or clamped to it (replication); a negative
// pad crops. Elements move as raw bytes of their dtype's size.
#include <algorithm>
#include <cstdint>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum class PadMode { kReflect, kReplicate };

// The input index that output index `o` of a dim reads, where `before`
// elements pad ahead of the dim's `size` (0 for a dim that is not padded).
int64_t source_index(PadMode mode, int64_t o, int64_t before, int64_t size) {
  const int64_t i = o - before;
  if (mode == PadMode::kReplicate) return std::clamp<int64_t>(i, 0, size - 1);
  if (i < 0) return -i;
  if (i >= size) return 2 * (size - 1) - i;
  return i;
}

// Output and input shapes of the whole tensor, the input's strides, and each
// dim's leading pad (0 for the batch and channel dims).
struct PadGeometry {
  size_t rank = 0;
  int64_t out_sizes[util::kMaxDims] = {};
  int64_t in_sizes[util::kMaxDims] = {};
  int64_t in_strides[util::kMaxDims] = {};
  int64_t before[util::kMaxDims] = {};
};

// Fills out (contiguous) row by row; the input is read through its strides.
template <typename T>
void pad_elements(const PadGeometry& g, PadMode mode, const T* in, T* out, int64_t rows) {
  const size_t last = g.rank - 1;
  int64_t index[util::kMaxDims] = {};  // the current row's output index, last dim excluded
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = 0;
    for (size_t d = 0; d < last; ++d) {
      base += source_index(mode, index[d], g.before[d], g.in_sizes[d]) * g.in_strides[d];
    }
    for (int64_t o = 0; o < g.out_sizes[last]; ++o) {
      *out++ = in[base + source_index(mode, o, g.before[last], g.in_sizes[last]) * g.in_strides[last]];
    }
    for (size_t d = last; d-- > 0;) {
      if (++index[d] < g.out_sizes[d]) break;
      index[d] = 0;
    }
  }
}

// self has `spatial` padded dims after one (C) or two (N, C) leading dims;
// every dim but N must be non-empty, as PyTorch requires.
bool check_pad_input(KernelArgs& a, const Tensor& self, size_t spatial) {
  const size_t rank = static_cast<size_t>(self.dim());
  if (rank != spatial + 1 && rank != spatial + 2) {
    a.fail(Error::InvalidArgument, "'self' must have %zu or %zu (batched) dims, got %zu", spatial + 1, spatial + 2, rank);
    return false;
  }
  for (size_t d = rank - spatial - 1; d < rank; ++d) {
    if (self.size(static_cast<ssize_t>(d)) == 0) {
      a.fail(Error::InvalidArgument, "'self' must be non-empty in every dim but the batch dim, got size 0 in dim %zu", d);
      return false;
    }
  }
  // The dtypes PyTorch pads: every real and 16-bit float dtype, no bool and
  // no unsigned integer wider than a byte.
  const ScalarType dtype = self.scalar_type();
  if (!util::is_convertible(dtype) || dtype == ScalarType::Bool) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(dtype));
    return false;
  }
  return true;
}

// The geometry of padding self's last `spatial` dims by `padding` (pairs
// (before, after), the last dim's first); false after failing on a bad pad.
bool pad_geometry(KernelArgs& a, const Tensor& self, Span<const int64_t> padding, size_t spatial, PadMode mode,
                  PadGeometry* g) {
  if (padding.size() != 2 * spatial) {
    a.fail(Error::InvalidArgument, "'padding' must have %zu entries, got %zu", 2 * spatial, padding.size());
    return false;
  }
  g->rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < g->rank; ++d) {
    g->in_sizes[d] = self.size(static_cast<ssize_t>(d));
    g->in_strides[d] = self.strides()[d];
    g->out_sizes[d] = g->in_sizes[d];
  }
  for (size_t pair = 0; pair < spatial; ++pair) {
    const size_t d = g->rank - 1 - pair;
    const int64_t before = padding[2 * pair], after = padding[2 * pair + 1];
    if (mode == PadMode::kReflect && (before >= g->in_sizes[d] || after >= g->in_sizes[d])) {
      a.fail(Error::InvalidArgument, "'padding' (%lld, %lld) of dim %zu must be smaller than its size %lld",
             static_cast<long long>(before), static_cast<long long>(after), d, static_cast<long long>(g->in_sizes[d]));
      return false;
    }
    int64_t size = 0;
    if (__builtin_add_overflow(g->in_sizes[d], before, &size) || __builtin_add_overflow(size, after, &size) ||
        size < 1 || size > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'padding' (%lld, %lld) leaves dim %zu of size %lld without a valid size",
             static_cast<long long>(before), static_cast<long long>(after), d, static_cast<long long>(g->in_sizes[d]));
      return false;
    }
    g->before[d] = before;
    g->out_sizes[d] = size;
  }
  return true;
}

void pad_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, size_t spatial, PadMode mode) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  Span<const int64_t> padding;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.int_list(1, "padding", &padding) ||
      !a.tensor(2, "out", &out) || !check_pad_input(a, self, spatial)) {
    return;
  }
  PadGeometry g;
  if (!pad_geometry(a, self, padding, spatial, mode, &g)) return;
  SizesType shape[util::kMaxDims];
  for (size_t d = 0; d < g.rank; ++d) shape[d] = static_cast<SizesType>(g.out_sizes[d]);
  if (!a.check_dtype(out, "out", self.scalar_type()) || !a.resize_out(out, "out", {shape, g.rank}) ||
      !a.check_contiguous(out, "out")) {
    return;
  }
  if (out.numel() == 0) return;
  const int64_t rows = out.numel() / g.out_sizes[g.rank - 1];
  util::visit_element_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    pad_elements(g, mode, static_cast<const T*>(self.const_data_ptr()), static_cast<T*>(out.mutable_data_ptr()), rows);
  });
}

}  // namespace

void reflection_pad1d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::reflection_pad1d.out", 1, PadMode::kReflect);
}

void reflection_pad2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::reflection_pad2d.out", 2, PadMode::kReflect);
}

void reflection_pad3d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::reflection_pad3d.out", 3, PadMode::kReflect);
}

void replication_pad1d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::replication_pad1d.out", 1, PadMode::kReplicate);
}

void replication_pad2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::replication_pad2d.out", 2, PadMode::kReplicate);
}

void replication_pad3d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  pad_out(ctx, args, "aten::replication_pad3d.out", 3, PadMode::kReplicate);
}

}  // namespace kiln::kernels::portable
