// convolution: direct (im2col-free) 1-D and 2-D convolution, NCHW.
//
// Each output plane is accumulated in place, one (input channel, kernel tap)
// at a time: for a tap, every output row gets weight * a contiguous (stride 1)
// or strided slice of one input row, so the innermost loop runs along the
// output width and vectorizes. Padding is handled by clipping each tap's
// output range instead of testing every element.
#include <algorithm>
#include <cstdint>
#include <optional>

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

constexpr const char* kOp = "aten::convolution.out";

// A 1-D convolution is a 2-D one with height 1 (kernel height 1, unit
// stride and dilation, no vertical padding).
struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t in_h = 1, in_w = 0, k_h = 1, k_w = 0, out_h = 1, out_w = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
};

// ceil(a / b) for b > 0 and any a.
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The output positions o in [0, out) whose input position o * stride + offset
// lies in [0, in), as [*lo, *hi).
void valid_range(int64_t offset, int64_t stride, int64_t in, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = std::min(out, offset >= 0 ? 0 : ceil_div(-offset, stride));
  *hi = in - 1 - offset < 0 ? 0 : std::min(out, (in - 1 - offset) / stride + 1);
  *hi = std::max(*hi, *lo);
}

template <typename T>
void conv2d(const T* input, const T* weight, const T* bias, T* output, const ConvGeometry& g) {
  const int64_t in_per_group = g.in_channels / g.groups;
  const int64_t out_per_group = g.out_channels / g.groups;
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oc = 0; oc < g.out_channels; ++oc) {
      T* __restrict plane = output + (n * g.out_channels + oc) * out_plane;
      std::fill(plane, plane + out_plane, T(0));
      const int64_t first_ic = (oc / out_per_group) * in_per_group;
      for (int64_t icg = 0; icg < in_per_group; ++icg) {
        const T* in = input + (n * g.in_channels + first_ic + icg) * in_plane;
        const T* taps = weight + (oc * in_per_group + icg) * g.k_h * g.k_w;
        for (int64_t ky = 0; ky < g.k_h; ++ky) {
          int64_t oy_lo, oy_hi;
          valid_range(ky * g.dilation_h - g.pad_h, g.stride_h, g.in_h, g.out_h, &oy_lo, &oy_hi);
          for (int64_t kx = 0; kx < g.k_w; ++kx) {
            const T w = taps[ky * g.k_w + kx];
            const int64_t x_offset = kx * g.dilation_w - g.pad_w;
            int64_t ox_lo, ox_hi;
            valid_range(x_offset, g.stride_w, g.in_w, g.out_w, &ox_lo, &ox_hi);
            const int64_t len = ox_hi - ox_lo;
            if (len == 0) continue;
            for (int64_t oy = oy_lo; oy < oy_hi; ++oy) {
              const int64_t iy = oy * g.stride_h + ky * g.dilation_h - g.pad_h;
              const T* __restrict src = in + iy * g.in_w + ox_lo * g.stride_w + x_offset;
              T* __restrict dst = plane + oy * g.out_w + ox_lo;
              if (g.stride_w == 1) {
                for (int64_t i = 0; i < len; ++i) dst[i] += w * src[i];
              } else {
                for (int64_t i = 0; i < len; ++i) dst[i] += w * src[i * g.stride_w];
              }
            }
          }
        }
      }
      // Bias last, as oneDNN (PyTorch's CPU float conv) adds it.
      if (bias != nullptr) {
        const T b = bias[oc];
        for (int64_t i = 0; i < out_plane; ++i) plane[i] += b;
      }
    }
  }
}

// Reads a per-spatial-dim int list of 1 or `spatial` entries (one entry
// applies to every dim) into values[0..spatial), each in [min, INT32_MAX] so
// that the geometry's products cannot overflow.
bool read_spatial_list(KernelArgs& a, size_t index, const char* name, size_t spatial, int64_t min, int64_t* values) {
  Span<const int64_t> list;
  if (!a.int_list(index, name, &list)) return false;
  if (list.size() != 1 && list.size() != spatial) {
    a.fail(Error::InvalidArgument, "'%s' has %zu entries, expected %zu", name, list.size(), spatial);
    return false;
  }
  for (size_t i = 0; i < spatial; ++i) {
    values[i] = list[list.size() == 1 ? 0 : i];
    if (values[i] < min || values[i] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'%s' entry %lld must be in [%lld, INT32_MAX]", name,
             static_cast<long long>(values[i]), static_cast<long long>(min));
      return false;
    }
  }
  return true;
}

// Fills in everything about g except the output size.
bool read_geometry(KernelArgs& a, const Tensor& input, const Tensor& weight, ConvGeometry* g) {
  if (input.dim() != 3 && input.dim() != 4) {
    a.fail(Error::InvalidArgument, "'input' must have 3 (NCL) or 4 (NCHW) dims, got %zd", input.dim());
    return false;
  }
  if (weight.dim() != input.dim()) {
    a.fail(Error::InvalidArgument, "'weight' must have %zd dims like 'input', got %zd", input.dim(), weight.dim());
    return false;
  }
  const size_t spatial = static_cast<size_t>(input.dim()) - 2;
  int64_t stride[2], padding[2], dilation[2];
  if (!read_spatial_list(a, 3, "stride", spatial, 1, stride) ||
      !read_spatial_list(a, 4, "padding", spatial, 0, padding) ||
      !read_spatial_list(a, 5, "dilation", spatial, 1, dilation)) {
    return false;
  }
  const bool is_2d = spatial == 2;
  g->batch = input.size(0);
  g->in_channels = input.size(1);
  g->out_channels = weight.size(0);
  g->in_h = is_2d ? input.size(2) : 1;
  g->in_w = input.size(-1);
  g->k_h = is_2d ? weight.size(2) : 1;
  g->k_w = weight.size(-1);
  if (is_2d) {
    g->stride_h = stride[0];
    g->pad_h = padding[0];
    g->dilation_h = dilation[0];
  }
  g->stride_w = stride[spatial - 1];
  g->pad_w = padding[spatial - 1];
  g->dilation_w = dilation[spatial - 1];
  return true;
}

bool check_channels(KernelArgs& a, const Tensor& weight, const ConvGeometry& g) {
  if (g.groups < 1 || g.groups > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'groups' must be in [1, INT32_MAX], got %lld", static_cast<long long>(g.groups));
    return false;
  }
  if (g.out_channels % g.groups != 0 || weight.size(1) * g.groups != g.in_channels) {
    a.fail(Error::InvalidArgument, "'weight' [%d, %d, ...] does not fit %lld input channels in %lld groups",
           weight.size(0), weight.size(1), static_cast<long long>(g.in_channels), static_cast<long long>(g.groups));
    return false;
  }
  if (g.k_h < 1 || g.k_w < 1) {
    a.fail(Error::InvalidArgument, "'weight' has an empty kernel");
    return false;
  }
  return true;
}

// Output extent of one spatial dim, or -1 if the (dilated) kernel does not fit.
int64_t output_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  if (in + 2 * pad < span) return -1;
  return (in + 2 * pad - span) / stride + 1;
}

}  // namespace

void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, kOp, args);
  Tensor input, weight, out;
  std::optional<Tensor> bias;
  Span<const int64_t> output_padding;
  bool transposed = false;
  ConvGeometry g;
  if (!a.check_count(10) || !a.tensor(0, "input", &input) || !a.tensor(1, "weight", &weight) ||
      !a.optional_tensor(2, "bias", &bias) || !a.boolean(6, "transposed", &transposed) ||
      !a.int_list(7, "output_padding", &output_padding) || !a.integer(8, "groups", &g.groups) ||
      !a.tensor(9, "out", &out)) {
    return;
  }
  if (transposed) {
    a.fail(Error::NotSupported, "'transposed' convolution is not supported yet");
    return;
  }
  if (!read_geometry(a, input, weight, &g) || !check_channels(a, weight, g)) return;
  if (bias.has_value() && (bias->dim() != 1 || bias->size(0) != g.out_channels)) {
    a.fail(Error::InvalidArgument, "'bias' must have shape [%lld]", static_cast<long long>(g.out_channels));
    return;
  }
  const ScalarType dtype = input.scalar_type();
  if (!util::is_floating(dtype)) {
    a.fail(Error::InvalidArgument, "'input' has unsupported dtype %s", runtime::to_string(dtype));
    return;
  }
  if (!a.check_dtype(weight, "weight", dtype) || (bias.has_value() && !a.check_dtype(*bias, "bias", dtype)) ||
      !a.check_dtype(out, "out", dtype)) {
    return;
  }
  g.out_h = output_extent(g.in_h, g.k_h, g.stride_h, g.pad_h, g.dilation_h);
  g.out_w = output_extent(g.in_w, g.k_w, g.stride_w, g.pad_w, g.dilation_w);
  if (g.out_h < 0 || g.out_w < 0 || g.out_h > INT32_MAX || g.out_w > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'input' spatial size is smaller than the dilated kernel (or the output overflows)");
    return;
  }
  SizesType shape[4] = {static_cast<SizesType>(g.batch), static_cast<SizesType>(g.out_channels),
                        static_cast<SizesType>(g.out_h), static_cast<SizesType>(g.out_w)};
  if (input.dim() == 3) shape[2] = shape[3];
  if (!a.resize_out(out, "out", {shape, static_cast<size_t>(input.dim())})) return;
  if (!a.check_contiguous(input, "input") || !a.check_contiguous(weight, "weight") ||
      (bias.has_value() && !a.check_contiguous(*bias, "bias")) || !a.check_contiguous(out, "out")) {
    return;
  }
  util::visit_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv2d(input.const_data_ptr<T>(), weight.const_data_ptr<T>(), bias ? bias->const_data_ptr<T>() : nullptr,
           out.mutable_data_ptr<T>(), g);
  });
}

}  // namespace kiln::kernels::portable
