// max_pool{2,3}d_with_indices, avg_pool{2,3}d and _adaptive_avg_pool{2,3}d on
// contiguous (N, C, spatial...) or (C, spatial...) input, with one
// implementation for both ranks: a 2-D pool runs as a 3-D one of depth 1
// (kernel 1, stride 1, no padding), which changes neither its windows, nor its
// indices, nor its rounding. One output element at a time, each window summed
// (or searched) depth, then row, then column, in PyTorch's order, so that
// averages round as PyTorch's CPU kernels do.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::EValue;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// The spatial dims every pool is computed over: depth, height, width.
constexpr size_t kDims = 3;

// Per spatial dim, depth first; a 2-D pool leaves the depth's defaults.
struct PoolWindow {
  int64_t kernel[kDims] = {1, 1, 1};
  int64_t stride[kDims] = {1, 1, 1};
  int64_t padding[kDims] = {0, 0, 0};
  int64_t dilation[kDims] = {1, 1, 1};
};

// A pooling input as planes (its leading dims, multiplied) of `spatial`
// pooled dims, and the output's spatial sizes; depth first, 1 for a 2-D pool.
struct PoolGeometry {
  size_t spatial = 0;
  int64_t planes = 0;
  int64_t in[kDims] = {1, 1, 1};
  int64_t out[kDims] = {1, 1, 1};
  int64_t in_volume() const { return in[0] * in[1] * in[2]; }
  int64_t out_volume() const { return out[0] * out[1] * out[2]; }
};

// The input positions a window covers: [lo, hi) with `step` per dim.
struct Box {
  int64_t lo[kDims] = {}, hi[kDims] = {}, step[kDims] = {1, 1, 1};
};

// A window parameter of `spatial` entries, or one entry for every dim, into
// the last `spatial` entries of `out`. An empty list takes `fallback` (the
// kernel size for a stride, as in PyTorch) when there is one.
bool window_param(KernelArgs& a, size_t index, const char* name, size_t spatial, const int64_t* fallback,
                  int64_t* out) {
  Span<const int64_t> values;
  if (!a.int_list(index, name, &values)) return false;
  const size_t first = kDims - spatial;
  if (values.empty() && fallback != nullptr) {
    std::copy(fallback + first, fallback + kDims, out + first);
    return true;
  }
  if (values.size() != 1 && values.size() != spatial) {
    a.fail(Error::InvalidArgument, "'%s' must have 1 or %zu entries, got %zu", name, spatial, values.size());
    return false;
  }
  for (size_t i = 0; i < spatial; ++i) out[first + i] = values[values.size() == 1 ? 0 : i];
  return true;
}

// kernel_size, stride and padding of a pool, at indices 1, 2 and 3.
bool read_window(KernelArgs& a, size_t spatial, PoolWindow* w) {
  return window_param(a, 1, "kernel_size", spatial, nullptr, w->kernel) &&
         window_param(a, 2, "stride", spatial, w->kernel, w->stride) &&
         window_param(a, 3, "padding", spatial, nullptr, w->padding);
}

// Positive kernel, stride and dilation, each below INT32_MAX, and padding at
// most half the kernel, as PyTorch requires.
bool check_window(KernelArgs& a, const PoolWindow& w) {
  for (size_t d = 0; d < kDims; ++d) {
    const char* bad = w.kernel[d] <= 0 || w.kernel[d] > INT32_MAX       ? "kernel_size"
                      : w.stride[d] <= 0 || w.stride[d] > INT32_MAX     ? "stride"
                      : w.dilation[d] <= 0 || w.dilation[d] > INT32_MAX ? "dilation"
                                                                         : nullptr;
    if (bad != nullptr) {
      a.fail(Error::InvalidArgument, "'%s' must be in [1, INT32_MAX] (kernel %lld, stride %lld, dilation %lld)", bad,
             static_cast<long long>(w.kernel[d]), static_cast<long long>(w.stride[d]),
             static_cast<long long>(w.dilation[d]));
      return false;
    }
    if (w.padding[d] < 0 || w.padding[d] > w.kernel[d] / 2) {
      a.fail(Error::InvalidArgument, "'padding' %lld must be between 0 and half the kernel size %lld",
             static_cast<long long>(w.padding[d]), static_cast<long long>(w.kernel[d]));
      return false;
    }
  }
  return true;
}

// An `int?` argument: None or an Int.
bool optional_integer(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, std::optional<int64_t>* out) {
  if (args[index]->isNone()) {
    *out = std::nullopt;
    return true;
  }
  int64_t value = 0;
  if (!a.integer(index, name, &value)) return false;
  *out = value;
  return true;
}

// A contiguous (C, spatial...) or (N, C, spatial...) self whose pooled dims
// (and, unless only those must be, its C) are non-empty; its geometry.
bool read_geometry(KernelArgs& a, const Tensor& self, size_t spatial, bool only_spatial_non_empty, PoolGeometry* g) {
  const size_t rank = static_cast<size_t>(self.dim());
  if (rank != spatial + 1 && rank != spatial + 2) {
    a.fail(Error::InvalidArgument, "'self' must have %zu (C, spatial...) or %zu (N, C, spatial...) dims, got %zu",
           spatial + 1, spatial + 2, rank);
    return false;
  }
  const size_t lead = rank - spatial;
  for (size_t d = only_spatial_non_empty ? lead : rank - spatial - 1; d < rank; ++d) {
    if (self.size(static_cast<ssize_t>(d)) == 0) {
      a.fail(Error::InvalidArgument, "'self' must be non-empty in its %s dims, got size 0 in dim %zu",
             only_spatial_non_empty ? "pooled" : "(C, spatial...)", d);
      return false;
    }
  }
  g->spatial = spatial;
  g->planes = 1;
  for (size_t d = 0; d < lead; ++d) g->planes *= self.size(static_cast<ssize_t>(d));
  for (size_t i = 0; i < spatial; ++i) g->in[kDims - spatial + i] = self.size(static_cast<ssize_t>(lead + i));
  return a.check_contiguous(self, "self");
}

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The output sizes of sliding `w` over the input; fails if one is empty.
bool slide_window(KernelArgs& a, const PoolWindow& w, bool ceil_mode, PoolGeometry* g) {
  for (size_t d = 0; d < kDims; ++d) {
    g->out[d] = pooled_size(g->in[d], w.kernel[d], w.padding[d], w.stride[d], w.dilation[d], ceil_mode);
    if (g->out[d] <= 0) {
      a.fail(Error::InvalidArgument, "'self' of size %lld in a pooled dim is too small for the pooling window",
             static_cast<long long>(g->in[d]));
      return false;
    }
  }
  return true;
}

// Resizes `out` (argument `name`) to self's leading dims followed by the
// pooled sizes and checks that it is contiguous.
bool resize_pooled(KernelArgs& a, const Tensor& self, const PoolGeometry& g, const Tensor& out, const char* name) {
  const size_t rank = static_cast<size_t>(self.dim());
  const size_t lead = rank - g.spatial;
  SizesType shape[kDims + 2];
  for (size_t d = 0; d < lead; ++d) shape[d] = self.size(static_cast<ssize_t>(d));
  for (size_t i = 0; i < g.spatial; ++i) shape[lead + i] = static_cast<SizesType>(g.out[kDims - g.spatial + i]);
  return a.resize_out(out, name, {shape, rank}) && a.check_contiguous(out, name);
}

// Calls f(x, y, o) for every output element in order, where x is its input
// plane, y the element and o its spatial index (depth, height, width).
template <typename T, typename F>
void for_each_output(const PoolGeometry& g, const T* in, T* out, F&& f) {
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const T* x = in + plane * g.in_volume();
    T* y = out + plane * g.out_volume();
    int64_t o[kDims];
    for (o[0] = 0; o[0] < g.out[0]; ++o[0]) {
      for (o[1] = 0; o[1] < g.out[1]; ++o[1]) {
        for (o[2] = 0; o[2] < g.out[2]; ++o[2]) f(x, y++, static_cast<const int64_t*>(o));
      }
    }
  }
}

// Calls f(index) for every position of `box`, depth first, where index is
// the position's flat index within its plane.
template <typename F>
void for_each_in_box(const Box& box, const PoolGeometry& g, F&& f) {
  for (int64_t d = box.lo[0]; d < box.hi[0]; d += box.step[0]) {
    for (int64_t h = box.lo[1]; h < box.hi[1]; h += box.step[1]) {
      for (int64_t w = box.lo[2]; w < box.hi[2]; w += box.step[2]) f((d * g.in[1] + h) * g.in[2] + w);
    }
  }
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// PyTorch's max pool: padding acts as -inf (the index starts at the window's
// first in-bounds element), a larger value or any NaN takes over, so the last
// NaN of a window wins.
template <typename T>
void max_pool(const PoolGeometry& g, const PoolWindow& w, const T* in, T* out, int64_t* indices) {
  using C = util::compute_t<T>;
  for_each_output(g, in, out, [&](const T* x, T* y, const int64_t* o) {
    Box box;
    for (size_t d = 0; d < kDims; ++d) {
      const int64_t start = o[d] * w.stride[d] - w.padding[d];
      box.lo[d] = start;
      while (box.lo[d] < 0) box.lo[d] += w.dilation[d];
      box.hi[d] = std::min(start + (w.kernel[d] - 1) * w.dilation[d] + 1, g.in[d]);
      box.step[d] = w.dilation[d];
    }
    C best = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
    int64_t best_index = (box.lo[0] * g.in[1] + box.lo[1]) * g.in[2] + box.lo[2];
    for_each_in_box(box, g, [&](int64_t index) {
      const C v = static_cast<C>(x[index]);
      if (v > best || is_nan(v)) {
        best = v;
        best_index = index;
      }
    });
    *y = util::store_as<T>(best);
    indices[y - out] = best_index;
  });
}

// The average of each window: its sum divided by divisor_override, or by the
// window clipped to the padded input (count_include_pad) or to the input.
// Integers divide as C++ does, truncating, as PyTorch's do.
template <typename T>
void avg_pool(const PoolGeometry& g, const PoolWindow& w, bool count_include_pad, std::optional<int64_t> divisor,
              const T* in, T* out) {
  using C = util::compute_t<T>;
  for_each_output(g, in, out, [&](const T* x, T* y, const int64_t* o) {
    Box box;
    int64_t padded_count = 1, count = 1;
    for (size_t d = 0; d < kDims; ++d) {
      const int64_t start = o[d] * w.stride[d] - w.padding[d];
      const int64_t end = std::min(start + w.kernel[d], g.in[d] + w.padding[d]);
      box.lo[d] = std::max<int64_t>(start, 0);
      box.hi[d] = std::min(end, g.in[d]);
      padded_count *= end - start;
      count *= std::max<int64_t>(box.hi[d] - box.lo[d], 0);
    }
    if (count == 0) {
      *y = T(0);
      return;
    }
    C sum = 0;
    for_each_in_box(box, g, [&](int64_t index) { sum = util::wrapping_add(sum, static_cast<C>(x[index])); });
    const int64_t divide_by = divisor.has_value() ? *divisor : count_include_pad ? padded_count : count;
    // INT64_MIN / -1 overflows: negate with wrap-around instead.
    *y = util::store_as<T>(divide_by == -1 ? util::wrapping_sub(C(0), sum) : sum / static_cast<C>(divide_by));
  });
}

// Window i of `in` split into `out`: [floor(i * in / out), ceil((i + 1) * in / out)).
// The sum is divided by the depth, the height, then the width, as PyTorch rounds.
template <typename T>
void adaptive_avg_pool(const PoolGeometry& g, const T* in, T* out) {
  using C = util::compute_t<T>;
  for_each_output(g, in, out, [&](const T* x, T* y, const int64_t* o) {
    Box box;
    for (size_t d = 0; d < kDims; ++d) {
      box.lo[d] = o[d] * g.in[d] / g.out[d];
      box.hi[d] = ((o[d] + 1) * g.in[d] + g.out[d] - 1) / g.out[d];
    }
    C sum = 0;
    for_each_in_box(box, g, [&](int64_t index) { sum += static_cast<C>(x[index]); });
    for (size_t d = 0; d < kDims; ++d) sum /= static_cast<C>(box.hi[d] - box.lo[d]);
    *y = util::store_as<T>(sum);
  });
}

// The dtypes PyTorch's max pools take: no bool and no unsigned integer wider
// than a byte.
bool is_max_poolable(ScalarType t) { return util::is_convertible(t) && t != ScalarType::Bool; }

// The dtypes PyTorch's average pools take: floating, and int64.
bool is_averageable(ScalarType t) { return util::is_floating_or_half(t) || t == ScalarType::Long; }

bool check_input_dtype(KernelArgs& a, const Tensor& self, bool (*supported)(ScalarType)) {
  if (supported(self.scalar_type())) return true;
  a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
  return false;
}

void max_pool_with_indices(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, size_t spatial) {
  KernelArgs a(ctx, op, args);
  Tensor self, out, indices;
  bool ceil_mode = false;
  PoolWindow w;
  if (!a.check_count(8) || !a.tensor(0, "self", &self) || !read_window(a, spatial, &w) ||
      !window_param(a, 4, "dilation", spatial, nullptr, w.dilation) || !a.boolean(5, "ceil_mode", &ceil_mode) ||
      !a.tensor(6, "out", &out) || !a.tensor(7, "indices", &indices) || !check_window(a, w) ||
      !check_input_dtype(a, self, is_max_poolable)) {
    return;
  }
  PoolGeometry g;
  if (!read_geometry(a, self, spatial, false, &g) || !slide_window(a, w, ceil_mode, &g) ||
      !a.check_dtype(out, "out", self.scalar_type()) || !a.check_dtype(indices, "indices", ScalarType::Long) ||
      !resize_pooled(a, self, g, out, "out") || !resize_pooled(a, self, g, indices, "indices")) {
    return;
  }
  util::visit_convertible(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool(g, w, self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), indices.mutable_data_ptr<int64_t>());
  });
}

void avg_pool_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, size_t spatial) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor;
  PoolWindow w;
  if (!a.check_count(8) || !a.tensor(0, "self", &self) || !read_window(a, spatial, &w) ||
      !a.boolean(4, "ceil_mode", &ceil_mode) || !a.boolean(5, "count_include_pad", &count_include_pad) ||
      !optional_integer(a, args, 6, "divisor_override", &divisor) || !a.tensor(7, "out", &out) ||
      !check_window(a, w) || !check_input_dtype(a, self, is_averageable)) {
    return;
  }
  if (divisor.has_value() && *divisor == 0) {
    a.fail(Error::InvalidArgument, "'divisor_override' must not be zero");
    return;
  }
  PoolGeometry g;
  if (!read_geometry(a, self, spatial, false, &g) || !slide_window(a, w, ceil_mode, &g) ||
      !a.check_dtype(out, "out", self.scalar_type()) || !resize_pooled(a, self, g, out, "out")) {
    return;
  }
  const auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool(g, w, count_include_pad, divisor, self.const_data_ptr<T>(), out.mutable_data_ptr<T>());
  };
  if (self.scalar_type() == ScalarType::Long) {
    run(util::TypeTag<int64_t>{});
  } else {
    util::visit_floating_or_half(self.scalar_type(), run);
  }
}

void adaptive_avg_pool_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, size_t spatial) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  Span<const int64_t> output_size;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.int_list(1, "output_size", &output_size) ||
      !a.tensor(2, "out", &out) || !check_input_dtype(a, self, util::is_floating_or_half)) {
    return;
  }
  if (output_size.size() != spatial) {
    a.fail(Error::InvalidArgument, "'output_size' must have %zu entries, got %zu", spatial, output_size.size());
    return;
  }
  PoolGeometry g;
  if (!read_geometry(a, self, spatial, true, &g)) return;
  for (size_t i = 0; i < spatial; ++i) {
    if (output_size[i] < 0 || output_size[i] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'output_size' entry %lld must be in [0, INT32_MAX]",
             static_cast<long long>(output_size[i]));
      return;
    }
    g.out[kDims - spatial + i] = output_size[i];
  }
  if (!a.check_dtype(out, "out", self.scalar_type()) || !resize_pooled(a, self, g, out, "out")) return;
  util::visit_floating_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_pool(g, self.const_data_ptr<T>(), out.mutable_data_ptr<T>());
  });
}

}  // namespace

void max_pool2d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  max_pool_with_indices(ctx, args, "aten::max_pool2d_with_indices.out", 2);
}

void max_pool3d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  max_pool_with_indices(ctx, args, "aten::max_pool3d_with_indices.out", 3);
}

void avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  avg_pool_out(ctx, args, "aten::avg_pool2d.out", 2);
}

void avg_pool3d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  avg_pool_out(ctx, args, "aten::avg_pool3d.out", 3);
}

void adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  adaptive_avg_pool_out(ctx, args, "aten::_adaptive_avg_pool2d.out", 2);
}

void adaptive_avg_pool3d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  adaptive_avg_pool_out(ctx, args, "aten::_adaptive_avg_pool3d.out", 3);
}

}  // namespace kiln::kernels::portable
