// grid_sampler_2d on contiguous (N, C, H, W) input and (N, H_out, W_out, 2)
// grid, with the formulas of PyTorch's vectorized CPU kernel
// (GridSamplerKernel.cpp):
//
//   unnormalize: x = (g + 1) * (W - 1) / 2 (align_corners) or
//                (g + 1) * W / 2 - 0.5, the factor computed once;
//   border:      x clipped to [0, W - 1] (NaN to 0);
//   reflection:  x reflected about 0 and W - 1 (align_corners) or -0.5 and
//                W - 0.5, then clipped;
//   bilinear:    the 4 pixels around x, weighted by the opposite areas;
//   nearest:     x rounded half to even;
//   bicubic:     the 4 x 4 pixels around the unpadded x with the cubic
//                convolution weights (A = -0.75); each pixel's position is
//                padded on its own.
//
// A pixel outside the input reads as 0. Half and BFloat16 compute in float.
#include <cmath>
#include <cstdint>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum class Interpolation : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

struct Sampling {
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  Interpolation interpolation = Interpolation::Bilinear;
  Padding padding = Padding::Zeros;
  bool align_corners = false;
};

// The coordinate mapping along one input dim of `size` pixels.
template <typename C>
class Axis {
 public:
  Axis(int64_t size, Padding padding, bool align_corners)
      : size_(size),
        padding_(padding),
        align_corners_(align_corners),
        scale_(align_corners ? static_cast<C>(size - 1) / 2 : static_cast<C>(size) / 2),
        low_(align_corners ? C(0) : C(-0.5)),
        twice_span_(align_corners ? static_cast<C>(size - 1) * 2 : static_cast<C>(size) * 2) {}

  // A grid value in [-1, 1] as a pixel position.
  C unnormalize(C g) const { return align_corners_ ? (g + C(1)) * scale_ : (g + C(1)) * scale_ - C(0.5); }

  // A pixel position moved inside the input by the padding mode.
  C pad(C x) const {
    switch (padding_) {
      case Padding::Zeros: return x;
      case Padding::Border: return clip(x);
      case Padding::Reflection: return clip(reflect(x));
    }
    return x;
  }

  C source(C g) const { return pad(unnormalize(g)); }

  // The pixel at the integral position x, or -1 outside the input (PyTorch
  // truncates, so (-1, 0) would read pixel 0; positions here are integral).
  int64_t index(C x) const { return x > C(-1) && x < static_cast<C>(size_) ? static_cast<int64_t>(x) : -1; }

 private:
  C clip(C x) const {
    const C lower = x > C(0) ? x : C(0);  // NaN to 0, as PyTorch's clamp
    const C upper = static_cast<C>(size_ - 1);
    return lower < upper ? lower : upper;
  }

  C reflect(C x) const {
    if (twice_span_ == C(0)) return C(0);
    const C distance = std::fabs(x - low_);
    const C extra = distance - std::trunc(distance / twice_span_) * twice_span_;
    const C mirrored = twice_span_ - extra;
    return (mirrored < extra ? mirrored : extra) + low_;
  }

  int64_t size_;
  Padding padding_;
  bool align_corners_;
  C scale_, low_, twice_span_;
};

// One input plane, read with zeros outside.
template <typename T>
struct Plane {
  const T* data;
  int64_t width;
  util::compute_t<T> at(int64_t y, int64_t x) const {
    using C = util::compute_t<T>;
    return x < 0 || y < 0 ? C(0) : static_cast<C>(data[y * width + x]);
  }
};

// The cubic convolution weights of the 4 pixels at t - 1, t, t + 1, t + 2
// from a point t in [0, 1) past the second.
template <typename C>
void cubic_weights(C t, C (&w)[4]) {
  const C a = C(-0.75);
  auto outer = [a](C x) { return ((a * x - C(5) * a) * x + C(8) * a) * x - C(4) * a; };
  auto inner = [a](C x) { return ((a + C(2)) * x - (a + C(3))) * x * x + C(1); };
  w[0] = outer(t + C(1));
  w[1] = inner(t);
  w[2] = inner(C(1) - t);
  w[3] = outer(C(2) - t);
}

// Samples one batch entry: every channel of `input` at each grid point into
// the matching point of every channel of `out`.
template <typename T>
class BatchSampler {
 public:
  using C = util::compute_t<T>;

  BatchSampler(const Sampling& s, const T* input, T* out)
      : s_(s),
        ax_(s.in_w, s.padding, s.align_corners),
        ay_(s.in_h, s.padding, s.align_corners),
        input_(input),
        out_(out) {}

  void point(int64_t p, C gx, C gy) const {
    switch (s_.interpolation) {
      case Interpolation::Bilinear: bilinear(p, gx, gy); return;
      case Interpolation::Nearest: nearest(p, gx, gy); return;
      case Interpolation::Bicubic: bicubic(p, gx, gy); return;
    }
  }

 private:
  Plane<T> plane(int64_t c) const { return {input_ + c * s_.in_h * s_.in_w, s_.in_w}; }
  void write(int64_t c, int64_t p, C value) const { out_[c * s_.out_h * s_.out_w + p] = util::store_as<T>(value); }

  void bilinear(int64_t p, C gx, C gy) const {
    const C x = ax_.source(gx), y = ay_.source(gy);
    const C x0 = std::floor(x), y0 = std::floor(y);
    const C fx = x - x0, fy = y - y0;  // the weights of the pixels after x0 and y0
    const C w00 = (C(1) - fy) * (C(1) - fx), w01 = (C(1) - fy) * fx, w10 = fy * (C(1) - fx), w11 = fy * fx;
    const int64_t ix0 = ax_.index(x0), ix1 = ax_.index(x0 + C(1));
    const int64_t iy0 = ay_.index(y0), iy1 = ay_.index(y0 + C(1));
    for (int64_t c = 0; c < s_.channels; ++c) {
      const Plane<T> in = plane(c);
      write(c, p, in.at(iy0, ix0) * w00 + in.at(iy0, ix1) * w01 + in.at(iy1, ix0) * w10 + in.at(iy1, ix1) * w11);
    }
  }

  void nearest(int64_t p, C gx, C gy) const {
    const int64_t ix = ax_.index(std::nearbyint(ax_.source(gx)));
    const int64_t iy = ay_.index(std::nearbyint(ay_.source(gy)));
    for (int64_t c = 0; c < s_.channels; ++c) write(c, p, plane(c).at(iy, ix));
  }

  void bicubic(int64_t p, C gx, C gy) const {
    const C x = ax_.unnormalize(gx), y = ay_.unnormalize(gy);
    const C x0 = std::floor(x), y0 = std::floor(y);
    C wx[4], wy[4];
    cubic_weights(x - x0, wx);
    cubic_weights(y - y0, wy);
    int64_t ix[4], iy[4];
    for (int k = 0; k < 4; ++k) {
      ix[k] = ax_.index(ax_.pad(x0 + static_cast<C>(k - 1)));
      iy[k] = ay_.index(ay_.pad(y0 + static_cast<C>(k - 1)));
    }
    for (int64_t c = 0; c < s_.channels; ++c) {
      const Plane<T> in = plane(c);
      C rows[4];
      for (int j = 0; j < 4; ++j) {
        rows[j] = wx[0] * in.at(iy[j], ix[0]) + wx[1] * in.at(iy[j], ix[1]) + wx[2] * in.at(iy[j], ix[2]) +
                  wx[3] * in.at(iy[j], ix[3]);
      }
      write(c, p, wy[0] * rows[0] + wy[1] * rows[1] + wy[2] * rows[2] + wy[3] * rows[3]);
    }
  }

  const Sampling& s_;
  Axis<C> ax_, ay_;
  const T* input_;
  T* out_;
};

template <typename T>
void grid_sample(const T* input, const T* grid, T* out, const Sampling& s) {
  using C = util::compute_t<T>;
  const int64_t points = s.out_h * s.out_w;
  for (int64_t n = 0; n < s.batch; ++n) {
    const BatchSampler<T> sampler(s, input + n * s.channels * s.in_h * s.in_w, out + n * s.channels * points);
    const T* grid_n = grid + n * points * 2;
    for (int64_t p = 0; p < points; ++p) {
      sampler.point(p, static_cast<C>(grid_n[2 * p]), static_cast<C>(grid_n[2 * p + 1]));
    }
  }
}

// An int argument that must be a mode of `count` values.
bool read_mode(KernelArgs& a, size_t index, const char* name, int64_t count, int64_t* out) {
  if (!a.integer(index, name, out)) return false;
  if (*out < 0 || *out >= count) {
    a.fail(Error::InvalidArgument, "'%s' must be in [0, %lld], got %lld", name, static_cast<long long>(count - 1),
           static_cast<long long>(*out));
    return false;
  }
  return true;
}

// Checks input and grid against each other and resizes out to
// [N, C, H_out, W_out].
bool read_shapes(KernelArgs& a, const Tensor& input, const Tensor& grid, const Tensor& out, Sampling* s) {
  if (!util::is_floating_or_half(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'input' has unsupported dtype %s", runtime::to_string(input.scalar_type()));
    return false;
  }
  if (input.dim() != 4 || grid.dim() != 4) {
    a.fail(Error::InvalidArgument, "'input' and 'grid' must have 4 dims, got %zd and %zd", input.dim(), grid.dim());
    return false;
  }
  if (grid.size(0) != input.size(0) || grid.size(3) != 2) {
    a.fail(Error::InvalidArgument, "'grid' must be [N, H_out, W_out, 2] with input's N = %lld",
           static_cast<long long>(input.size(0)));
    return false;
  }
  if (input.size(2) == 0 || input.size(3) == 0) {
    a.fail(Error::InvalidArgument, "'input' must have non-empty spatial dims");
    return false;
  }
  *s = Sampling{input.size(0), input.size(1), input.size(2), input.size(3), grid.size(1), grid.size(2)};
  const SizesType shape[4] = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  return a.check_dtype(grid, "grid", input.scalar_type()) && a.check_contiguous(input, "input") &&
         a.check_contiguous(grid, "grid") && a.check_dtype(out, "out", input.scalar_type()) &&
         a.resize_out(out, "out", shape) && a.check_contiguous(out, "out");
}

}  // namespace

void grid_sampler_2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::grid_sampler_2d.out", args);
  Tensor input, grid, out;
  int64_t interpolation = 0, padding = 0;
  bool align_corners = false;
  Sampling s;
  if (!a.check_count(6) || !a.tensor(0, "input", &input) || !a.tensor(1, "grid", &grid) ||
      !read_mode(a, 2, "interpolation_mode", 3, &interpolation) || !read_mode(a, 3, "padding_mode", 3, &padding) ||
      !a.boolean(4, "align_corners", &align_corners) || !a.tensor(5, "out", &out) ||
      !read_shapes(a, input, grid, out, &s)) {
    return;
  }
  s.interpolation = static_cast<Interpolation>(interpolation);
  s.padding = static_cast<Padding>(padding);
  s.align_corners = align_corners;
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid_sample(input.const_data_ptr<T>(), grid.const_data_ptr<T>(), out.mutable_data_ptr<T>(), s);
  });
}

}  // namespace kiln::kernels::portable
