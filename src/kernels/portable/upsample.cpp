// upsample_nearest2d.vec and upsample_bilinear2d.vec on contiguous NCHW
// input, with PyTorch's source-index formulas (UpSample.h):
//
//   output size: output_size, or trunc(in * scale_factor) per dim;
//   nearest:     src = min(floor(dst * s), in - 1) in float, with s = 1 / scale
//                factor when given, else in / out (dst itself when out == in,
//                dst / 2 when out == 2 * in);
//   bilinear:    src = s * dst (align_corners, s = (in - 1) / (out - 1)) or
//                max(s * (dst + 0.5) - 0.5, 0) (s as for nearest), blending
//                src's floor and the next index (clamped) by the fraction,
//                columns first, then rows, in float (double for double).
//
// The per-column indices and weights are computed once per block of columns
// and reused for every row of every plane.
#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Output columns whose source indices (and weights) are computed together.
constexpr int64_t kColumnBlock = 256;

struct Resize {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  // The scale factors when given (they then replace in / out in the formulas).
  std::optional<double> scale_h, scale_w;
};

// A `SymInt[]?` argument: None (*present = false) or an int list.
bool optional_int_list(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, bool* present,
                       Span<const int64_t>* out) {
  *present = !args[index]->isNone();
  if (!*present) return true;
  if (!args[index]->isIntList()) {
    a.fail(Error::InvalidArgument, "'%s' must be an int list or None, got %s", name,
           runtime::to_string(args[index]->tag()));
    return false;
  }
  return a.int_list(index, name, out);
}

// A `float[]?` argument: None (*present = false) or a list of doubles.
bool optional_double_list(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, bool* present,
                          Span<const double>* out) {
  *present = !args[index]->isNone();
  if (!*present) return true;
  if (!args[index]->isDoubleList()) {
    a.fail(Error::InvalidArgument, "'%s' must be a float list or None, got %s", name,
           runtime::to_string(args[index]->tag()));
    return false;
  }
  *out = args[index]->toDoubleList();
  return true;
}

// Checks the input, reads exactly one of output_size and scale_factors,
// and resizes out to [N, C, out_h, out_w].
bool read_resize(KernelArgs& a, Span<EValue*> args, const Tensor& input, size_t size_index, size_t scales_index,
                 const Tensor& out, Resize* r) {
  if (input.dim() != 4) {
    a.fail(Error::InvalidArgument, "'input' must have 4 dims (N, C, H, W), got %zd", input.dim());
    return false;
  }
  if (!util::is_floating_or_half(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'input' has unsupported dtype %s", runtime::to_string(input.scalar_type()));
    return false;
  }
  if (input.size(1) == 0 || input.size(2) == 0 || input.size(3) == 0) {
    a.fail(Error::InvalidArgument, "'input' must be non-empty in its (C, H, W) dims");
    return false;
  }
  bool has_size = false, has_scales = false;
  Span<const int64_t> size;
  Span<const double> scales;
  if (!optional_int_list(a, args, size_index, "output_size", &has_size, &size) ||
      !optional_double_list(a, args, scales_index, "scale_factors", &has_scales, &scales)) {
    return false;
  }
  if (has_size == has_scales) {
    a.fail(Error::InvalidArgument, "exactly one of 'output_size' and 'scale_factors' must be given");
    return false;
  }
  if ((has_size ? size.size() : scales.size()) != 2) {
    a.fail(Error::InvalidArgument, "'%s' must have 2 entries (H, W), got %zu", has_size ? "output_size" : "scale_factors",
           has_size ? size.size() : scales.size());
    return false;
  }
  r->planes = static_cast<int64_t>(input.size(0)) * input.size(1);
  r->in_h = input.size(2);
  r->in_w = input.size(3);
  const int64_t in[2] = {r->in_h, r->in_w};
  int64_t extent[2];
  for (int d = 0; d < 2; ++d) {
    if (has_size) {
      extent[d] = size[d];
    } else {
      // PyTorch truncates the product; a NaN or out-of-range one is rejected here.
      const double product = static_cast<double>(in[d]) * scales[d];
      extent[d] = product >= 1 && product < 2147483648.0 ? static_cast<int64_t>(product) : 0;
    }
    if (extent[d] < 1 || extent[d] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'%s' gives an output of %lld in dim %d; sizes must be in [1, INT32_MAX]",
             has_size ? "output_size" : "scale_factors", static_cast<long long>(extent[d]), d + 2);
      return false;
    }
  }
  r->out_h = extent[0];
  r->out_w = extent[1];
  if (has_scales) {
    r->scale_h = scales[0];
    r->scale_w = scales[1];
  }
  const SizesType shape[4] = {input.size(0), input.size(1), static_cast<SizesType>(r->out_h),
                              static_cast<SizesType>(r->out_w)};
  return a.check_contiguous(input, "input") && a.check_dtype(out, "out", input.scalar_type()) &&
         a.resize_out(out, "out", shape) && a.check_contiguous(out, "out");
}

// in / out, or 1 / scale when a positive scale factor was given, in T.
template <typename T>
T source_scale(int64_t in, int64_t out, std::optional<double> scale) {
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

int64_t nearest_source(int64_t dst, int64_t in, int64_t out, float scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale)), in - 1);
}

template <typename T>
void upsample_nearest(const T* input, T* output, const Resize& r) {
  const float scale_h = source_scale<float>(r.in_h, r.out_h, r.scale_h);
  const float scale_w = source_scale<float>(r.in_w, r.out_w, r.scale_w);
  int64_t columns[kColumnBlock];
  for (int64_t x0 = 0; x0 < r.out_w; x0 += kColumnBlock) {
    const int64_t count = std::min(kColumnBlock, r.out_w - x0);
    for (int64_t j = 0; j < count; ++j) columns[j] = nearest_source(x0 + j, r.in_w, r.out_w, scale_w);
    for (int64_t p = 0; p < r.planes; ++p) {
      for (int64_t oy = 0; oy < r.out_h; ++oy) {
        const T* src = input + (p * r.in_h + nearest_source(oy, r.in_h, r.out_h, scale_h)) * r.in_w;
        T* dst = output + (p * r.out_h + oy) * r.out_w + x0;
        for (int64_t j = 0; j < count; ++j) dst[j] = src[columns[j]];
      }
    }
  }
}

// Output index `dst` reads inputs i0 and i1 with weights w0 and w1.
template <typename C>
struct LinearTap {
  int64_t i0, i1;
  C w0, w1;
};

template <typename C>
LinearTap<C> linear_tap(int64_t dst, int64_t in, int64_t out, bool align_corners, C scale) {
  if (out == in) return {dst, dst, C(1), C(0)};
  C real = align_corners ? scale * static_cast<C>(dst) : scale * (static_cast<C>(dst) + C(0.5)) - C(0.5);
  if (real < C(0)) real = C(0);
  // PyTorch floors in float whatever the compute type.
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), in - 1);
  const C w1 = std::min(std::max(real - static_cast<C>(i0), C(0)), C(1));
  return {i0, i0 + (i0 < in - 1 ? 1 : 0), C(1) - w1, w1};
}

template <typename C>
C linear_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0);
  return source_scale<C>(in, out, scale);
}

template <typename T>
void upsample_bilinear(const T* input, T* output, const Resize& r, bool align_corners) {
  using C = util::compute_t<T>;
  const C scale_h = linear_scale<C>(r.in_h, r.out_h, align_corners, r.scale_h);
  const C scale_w = linear_scale<C>(r.in_w, r.out_w, align_corners, r.scale_w);
  LinearTap<C> columns[kColumnBlock];
  for (int64_t x0 = 0; x0 < r.out_w; x0 += kColumnBlock) {
    const int64_t count = std::min(kColumnBlock, r.out_w - x0);
    for (int64_t j = 0; j < count; ++j) columns[j] = linear_tap(x0 + j, r.in_w, r.out_w, align_corners, scale_w);
    for (int64_t p = 0; p < r.planes; ++p) {
      const T* plane = input + p * r.in_h * r.in_w;
      for (int64_t oy = 0; oy < r.out_h; ++oy) {
        const LinearTap<C> row = linear_tap(oy, r.in_h, r.out_h, align_corners, scale_h);
        const T* top = plane + row.i0 * r.in_w;
        const T* bottom = plane + row.i1 * r.in_w;
        T* dst = output + (p * r.out_h + oy) * r.out_w + x0;
        for (int64_t j = 0; j < count; ++j) {
          const LinearTap<C>& col = columns[j];
          const C upper = static_cast<C>(top[col.i0]) * col.w0 + static_cast<C>(top[col.i1]) * col.w1;
          const C lower = static_cast<C>(bottom[col.i0]) * col.w0 + static_cast<C>(bottom[col.i1]) * col.w1;
          dst[j] = util::store_as<T>(upper * row.w0 + lower * row.w1);
        }
      }
    }
  }
}

}  // namespace

void upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::upsample_nearest2d.vec_out", args);
  Tensor input, out;
  Resize r;
  if (!a.check_count(4) || !a.tensor(0, "input", &input) || !a.tensor(3, "out", &out) ||
      !read_resize(a, args, input, 1, 2, out, &r)) {
    return;
  }
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    upsample_nearest(input.const_data_ptr<T>(), out.mutable_data_ptr<T>(), r);
  });
}

void upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::upsample_bilinear2d.vec_out", args);
  Tensor input, out;
  bool align_corners = false;
  Resize r;
  if (!a.check_count(5) || !a.tensor(0, "input", &input) || !a.boolean(2, "align_corners", &align_corners) ||
      !a.tensor(4, "out", &out) || !read_resize(a, args, input, 1, 3, out, &r)) {
    return;
  }
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    upsample_bilinear(input.const_data_ptr<T>(), out.mutable_data_ptr<T>(), r, align_corners);
  });
}

}  // namespace kiln::kernels::portable
