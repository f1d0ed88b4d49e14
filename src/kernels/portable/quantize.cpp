// quantized_decomposed's affine quantize and dequantize: per tensor, per
// channel (a scale and zero point for each index along an axis) and per token
// (one for each row of the last dim), with the numerics of torch.ao's
// reference (torch/ao/quantization/fx/_decomposed.py), rounding half to even:
//   quantize    clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max).
//               Per tensor in float (1 / scale taken in double, then rounded);
//               per channel and per token in the promoted dtype of input and
//               scales (1 / scale in the scales' dtype). Per token adds the
//               zero point before rounding.
//   dequantize  (q - zero_point) * scale. Per tensor in the output dtype, as
//               torch computes it (the zero point cast to that dtype, the
//               scale applied in float for the 16-bit floats); per channel and
//               per token in the scales' dtype, then cast to the output dtype.
// Every tensor must be contiguous; each kernel is one pass over the data.
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/quantize.h"
#include "kernels/portable/util/round.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;
using util::QuantRange;

// ---- the values ----

// A value clamped to [lo, hi] and cast to Q. NaN passes the clamp, as in
// torch, and casts to what x86's conversion gives (0 for the 8- and 16-bit
// types), as torch's cast does.
template <typename Q, typename C>
Q clamp_to(C v, C lo, C hi) {
  const C clamped = v < lo ? lo : (v > hi ? hi : v);
  if constexpr (sizeof(Q) <= 2) {
    return static_cast<Q>(static_cast<int32_t>(clamped == clamped ? clamped : C(0)));
  } else {
    return util::convert<Q>(clamped);
  }
}

template <typename T, typename Q>
void quantize_values(const T* in, Q* out, int64_t n, float inv_scale, float zero_point, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = clamp_to<Q>(util::round_half_even(static_cast<float>(in[i]) * inv_scale) + zero_point, lo, hi);
  }
}

// Each step rounds to T, as torch's ops on a T tensor do: q cast to T, minus
// the zero point cast to T, times the scale (in float for the 16-bit floats).
template <typename Q, typename T>
void dequantize_values(const Q* in, T* out, int64_t n, double scale, int64_t zero_point) {
  using C = util::compute_t<T>;
  const auto zp = static_cast<C>(util::convert<T>(zero_point));
  const auto s = util::convert<C>(scale);
  for (int64_t i = 0; i < n; ++i) {
    const auto q = static_cast<C>(util::convert<T>(in[i]));
    out[i] = util::store_as<T>(static_cast<C>(util::store_as<T>(q - zp)) * s);
  }
}

// Float, Half and BFloat16: the inputs torch.ao quantizes (as float32).
bool is_quantize_input(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16;
}

template <typename F>
void visit_quantize_input(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Half: f(util::TypeTag<runtime::Half>{}); break;
    case ScalarType::BFloat16: f(util::TypeTag<runtime::BFloat16>{}); break;
    default: f(util::TypeTag<float>{}); break;
  }
}

// ---- per tensor ----

struct PerTensor {
  double scale = 1.0;
  int64_t zero_point = 0;
};

// The .Tensor_out variants: scale and zero point as one-element tensors.
bool read_tensor_params(KernelArgs& a, size_t index, PerTensor* p) {
  Tensor scale, zero_point;
  if (!a.tensor(index, "scale", &scale) || !a.tensor(index + 1, "zero_point", &zero_point) ||
      !util::check_scales_dtype(a, scale, "scale") || !util::check_zero_points_dtype(a, zero_point, "zero_point")) {
    return false;
  }
  if (scale.numel() != 1 || zero_point.numel() != 1) {
    const bool bad_scale = scale.numel() != 1;
    a.fail(Error::InvalidArgument, "'%s' has %zd elements; it must hold one", bad_scale ? "scale" : "zero_point",
           bad_scale ? scale.numel() : zero_point.numel());
    return false;
  }
  p->scale = util::float_at(scale, 0);
  p->zero_point = util::integer_at(zero_point, 0);
  return true;
}

bool check_params(KernelArgs& a, const PerTensor& p, const QuantRange& r) {
  return util::check_scale(a, "scale", -1, p.scale) && util::check_zero_point(a, "zero_point", -1, p.zero_point, r);
}

bool check_quantize_input(KernelArgs& a, const Tensor& input) {
  if (is_quantize_input(input.scalar_type())) return a.check_contiguous(input, "input");
  a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float, Half or BFloat16",
         runtime::to_string(input.scalar_type()));
  return false;
}

bool check_out(KernelArgs& a, const Tensor& input, const Tensor& out, ScalarType dtype) {
  return a.check_dtype(out, "out", dtype) && a.check_contiguous(out, "out") && a.resize_out(out, "out", input.sizes());
}

void quantize_per_tensor(KernelArgs& a, const Tensor& input, const PerTensor& p, const QuantRange& r,
                         const Tensor& out) {
  if (!check_quantize_input(a, input) || !check_params(a, p, r) || !check_out(a, input, out, r.dtype)) return;
  const float inv_scale = util::convert<float>(1.0 / p.scale);
  visit_quantize_input(input.scalar_type(), [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    util::visit_quantized(r.dtype, [&](auto q_tag) {
      using Q = typename decltype(q_tag)::type;
      quantize_values(input.const_data_ptr<T>(), out.mutable_data_ptr<Q>(), input.numel(), inv_scale,
                      static_cast<float>(p.zero_point), static_cast<float>(r.min), static_cast<float>(r.max));
    });
  });
}

// `out_dtype` (None: Float) is the output's dtype.
bool read_out_dtype(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, ScalarType* out) {
  std::optional<ScalarType> dtype;
  if (!util::optional_scalar_type_arg(a, args, index, name, &dtype)) return false;
  *out = dtype.value_or(ScalarType::Float);
  return util::check_float_dtype(a, name, *out);
}

bool check_quantized_input(KernelArgs& a, const Tensor& input, const QuantRange& r) {
  return a.check_dtype(input, "input", r.dtype) && a.check_contiguous(input, "input");
}

void dequantize_per_tensor(KernelArgs& a, const Tensor& input, const PerTensor& p, const QuantRange& r,
                           ScalarType out_dtype, const Tensor& out) {
  if (!check_quantized_input(a, input, r) || !check_params(a, p, r) || !check_out(a, input, out, out_dtype)) return;
  util::visit_quantized(r.dtype, [&](auto q_tag) {
    using Q = typename decltype(q_tag)::type;
    util::visit_floating_or_half(out_dtype, [&](auto out_tag) {
      using T = typename decltype(out_tag)::type;
      dequantize_values(input.const_data_ptr<Q>(), out.mutable_data_ptr<T>(), input.numel(), p.scale, p.zero_point);
    });
  });
}

// ---- per channel and per token ----

// The input as [outer, channels, inner], one scale and zero point for each
// channel: per channel the dims before, at and after the axis; per token
// [1, tokens, last dim].
struct ChannelLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

ChannelLayout channel_layout(const Tensor& input, size_t axis) {
  ChannelLayout l;
  for (size_t d = 0; d < static_cast<size_t>(input.dim()); ++d) {
    const int64_t size = input.sizes()[d];
    if (d < axis) l.outer *= size;
    if (d == axis) l.channels = size;
    if (d > axis) l.inner *= size;
  }
  return l;
}

ChannelLayout token_layout(const Tensor& input) {
  ChannelLayout l;
  for (size_t d = 0; d + 1 < static_cast<size_t>(input.dim()); ++d) l.channels *= input.sizes()[d];
  l.inner = input.dim() > 0 ? input.sizes()[input.dim() - 1] : 1;
  return l;
}

// 1 / scale as torch computes it: in the scales' dtype.
double reciprocal(const Tensor& scales, int64_t c) {
  const double s = util::float_at(scales, c);
  return scales.scalar_type() == ScalarType::Float ? static_cast<double>(1.0f / static_cast<float>(s)) : 1.0 / s;
}

template <typename T, typename Q, typename C, bool kZeroPointFirst>
void quantize_channels(const Tensor& input, const Tensor& scales, const Tensor& zero_points, ChannelLayout l,
                       const QuantRange& r, const Tensor& out) {
  const T* in = input.const_data_ptr<T>();
  Q* o = out.mutable_data_ptr<Q>();
  const auto lo = static_cast<C>(r.min), hi = static_cast<C>(r.max);
  for (int64_t c = 0; c < l.channels; ++c) {
    const auto inv_scale = static_cast<C>(reciprocal(scales, c));
    const auto zp = static_cast<C>(util::integer_at(zero_points, c));
    for (int64_t block = 0; block < l.outer; ++block) {
      const int64_t start = (block * l.channels + c) * l.inner;
      for (int64_t i = start; i < start + l.inner; ++i) {
        const C scaled = static_cast<C>(static_cast<util::compute_t<T>>(in[i])) * inv_scale;
        const C v = kZeroPointFirst ? util::round_half_even(scaled + zp) : util::round_half_even(scaled) + zp;
        o[i] = clamp_to<Q>(v, lo, hi);
      }
    }
  }
}

// Computes in double if the input or the scales are Double (torch's type
// promotion), else in float.
template <bool kZeroPointFirst>
void quantize_channels(const Tensor& input, const Tensor& scales, const Tensor& zero_points, ChannelLayout l,
                       const QuantRange& r, const Tensor& out) {
  util::visit_floating_or_half(input.scalar_type(), [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    util::visit_quantized(r.dtype, [&](auto q_tag) {
      using Q = typename decltype(q_tag)::type;
      if (std::is_same_v<T, double> || scales.scalar_type() == ScalarType::Double) {
        quantize_channels<T, Q, double, kZeroPointFirst>(input, scales, zero_points, l, r, out);
      } else if constexpr (!std::is_same_v<T, double>) {
        quantize_channels<T, Q, float, kZeroPointFirst>(input, scales, zero_points, l, r, out);
      }
    });
  });
}

// (q - zero_point) * scale in the scales' dtype S, then cast to the output's.
template <typename Q, typename S, typename T>
void dequantize_channels(const Tensor& input, const Tensor& scales, const std::optional<Tensor>& zero_points,
                         ChannelLayout l, const Tensor& out) {
  const Q* in = input.const_data_ptr<Q>();
  T* o = out.mutable_data_ptr<T>();
  for (int64_t c = 0; c < l.channels; ++c) {
    const auto scale = static_cast<S>(util::float_at(scales, c));
    const int64_t zp = zero_points ? util::integer_at(*zero_points, c) : 0;
    for (int64_t block = 0; block < l.outer; ++block) {
      const int64_t start = (block * l.channels + c) * l.inner;
      for (int64_t i = start; i < start + l.inner; ++i) {
        o[i] = util::convert<T>(static_cast<S>(static_cast<int64_t>(in[i]) - zp) * scale);
      }
    }
  }
}

void dequantize_channels(const Tensor& input, const Tensor& scales, const std::optional<Tensor>& zero_points,
                         ChannelLayout l, const Tensor& out) {
  util::visit_quantized(input.scalar_type(), [&](auto q_tag) {
    using Q = typename decltype(q_tag)::type;
    util::visit_floating(scales.scalar_type(), [&](auto s_tag) {
      using S = typename decltype(s_tag)::type;
      util::visit_floating_or_half(out.scalar_type(), [&](auto out_tag) {
        dequantize_channels<Q, S, typename decltype(out_tag)::type>(input, scales, zero_points, l, out);
      });
    });
  });
}

// Per channel: 1-D scales and zero points with one element per index of the axis.
bool check_channel_params(KernelArgs& a, const Tensor& input, size_t axis, const Tensor& scales,
                          const std::optional<Tensor>& zero_points, const QuantRange& r) {
  for (const auto& [t, name] : {std::pair{&scales, "scales"}, std::pair{zero_points ? &*zero_points : nullptr,
                                                                           "zero_points"}}) {
    if (t == nullptr || (t->dim() == 1 && t->sizes()[0] == input.sizes()[axis])) continue;
    a.fail(Error::InvalidArgument, "'%s' must be 1-D with one element per index of axis %zu (%d); it has %zd dims",
           name, axis, input.sizes()[axis], t->dim());
    return false;
  }
  return util::check_channel_params(a, scales, zero_points, input.sizes()[axis], r);
}

bool read_axis(KernelArgs& a, size_t index, const Tensor& input, size_t* axis) {
  int64_t value = 0;
  if (!a.integer(index, "axis", &value)) return false;
  if (input.dim() == 0) {
    a.fail(Error::InvalidArgument, "'input' is 0-dim; per-channel quantization needs a dim to take channels from");
    return false;
  }
  return a.wrap_dim(value, static_cast<size_t>(input.dim()), "axis", axis);
}

}  // namespace

void quantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::quantize_per_tensor.out", args);
  Tensor input, out;
  PerTensor p;
  QuantRange r;
  if (a.check_count(7) && a.tensor(0, "input", &input) && a.floating(1, "scale", &p.scale) &&
      a.integer(2, "zero_point", &p.zero_point) && util::read_quant_range(a, 3, true, &r) && a.tensor(6, "out", &out)) {
    quantize_per_tensor(a, input, p, r, out);
  }
}

void quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::quantize_per_tensor.Tensor_out", args);
  Tensor input, out;
  PerTensor p;
  QuantRange r;
  if (a.check_count(7) && a.tensor(0, "input", &input) && read_tensor_params(a, 1, &p) &&
      util::read_quant_range(a, 3, true, &r) && a.tensor(6, "out", &out)) {
    quantize_per_tensor(a, input, p, r, out);
  }
}

void dequantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::dequantize_per_tensor.out", args);
  Tensor input, out;
  PerTensor p;
  QuantRange r;
  ScalarType out_dtype = ScalarType::Float;
  if (a.check_count(8) && a.tensor(0, "input", &input) && a.floating(1, "scale", &p.scale) &&
      a.integer(2, "zero_point", &p.zero_point) && util::read_quant_range(a, 3, true, &r) &&
      read_out_dtype(a, args, 6, "out_dtype", &out_dtype) && a.tensor(7, "out", &out)) {
    dequantize_per_tensor(a, input, p, r, out_dtype, out);
  }
}

void dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::dequantize_per_tensor.Tensor_out", args);
  Tensor input, out;
  PerTensor p;
  QuantRange r;
  ScalarType out_dtype = ScalarType::Float;
  if (a.check_count(8) && a.tensor(0, "input", &input) && read_tensor_params(a, 1, &p) &&
      util::read_quant_range(a, 3, true, &r) && read_out_dtype(a, args, 6, "out_dtype", &out_dtype) &&
      a.tensor(7, "out", &out)) {
    dequantize_per_tensor(a, input, p, r, out_dtype, out);
  }
}

void quantize_per_channel_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::quantize_per_channel.out", args);
  Tensor input, scales, zero_points, out;
  size_t axis = 0;
  QuantRange r;
  if (!a.check_count(8) || !a.tensor(0, "input", &input) || !a.tensor(1, "scales", &scales) ||
      !a.tensor(2, "zero_points", &zero_points) || !read_axis(a, 3, input, &axis) ||
      !util::read_quant_range(a, 4, false, &r) || !a.tensor(7, "out", &out) || !check_quantize_input(a, input) ||
      !check_channel_params(a, input, axis, scales, zero_points, r) || !check_out(a, input, out, r.dtype)) {
    return;
  }
  quantize_channels</*kZeroPointFirst=*/false>(input, scales, zero_points, channel_layout(input, axis), r, out);
}

void dequantize_per_channel_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::dequantize_per_channel.out", args);
  Tensor input, scales, out;
  std::optional<Tensor> zero_points;
  size_t axis = 0;
  QuantRange r;
  ScalarType out_dtype = ScalarType::Float;
  if (!a.check_count(9) || !a.tensor(0, "input", &input) || !a.tensor(1, "scales", &scales) ||
      !a.optional_tensor(2, "zero_points", &zero_points) || !read_axis(a, 3, input, &axis) ||
      !util::read_quant_range(a, 4, false, &r) || !read_out_dtype(a, args, 7, "out_dtype", &out_dtype) ||
      !a.tensor(8, "out", &out) || !check_quantized_input(a, input, r) ||
      !check_channel_params(a, input, axis, scales, zero_points, r) || !check_out(a, input, out, out_dtype)) {
    return;
  }
  dequantize_channels(input, scales, zero_points, channel_layout(input, axis), out);
}

void quantize_per_token_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::quantize_per_token.out", args);
  Tensor input, scales, zero_points, out;
  QuantRange r;
  if (!a.check_count(7) || !a.tensor(0, "input", &input) || !a.tensor(1, "scales", &scales) ||
      !a.tensor(2, "zero_points", &zero_points) || !util::read_quant_range(a, 3, false, &r) ||
      !a.tensor(6, "out", &out)) {
    return;
  }
  if (!util::is_floating_or_half(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float, Double, Half or BFloat16",
           runtime::to_string(input.scalar_type()));
    return;
  }
  const ChannelLayout l = token_layout(input);
  if (!a.check_contiguous(input, "input") || !util::check_channel_params(a, scales, zero_points, l.channels, r) ||
      !check_out(a, input, out, r.dtype)) {
    return;
  }
  quantize_channels</*kZeroPointFirst=*/true>(input, scales, zero_points, l, r, out);
}

void dequantize_per_token_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::dequantize_per_token.out", args);
  Tensor input, scales, zero_points, out;
  QuantRange r;
  ScalarType out_dtype = ScalarType::Float;
  if (!a.check_count(8) || !a.tensor(0, "input", &input) || !a.tensor(1, "scales", &scales) ||
      !a.tensor(2, "zero_points", &zero_points) || !util::read_quant_range(a, 3, false, &r) ||
      !util::scalar_type_arg(a, 6, "output_dtype", &out_dtype) || !util::check_float_dtype(a, "output_dtype", out_dtype) ||
      !a.tensor(7, "out", &out) || !check_quantized_input(a, input, r)) {
    return;
  }
  const ChannelLayout l = token_layout(input);
  if (!util::check_channel_params(a, scales, zero_points, l.channels, r) || !check_out(a, input, out, out_dtype)) {
    return;
  }
  dequantize_channels(input, scales, zero_points, l, out);
}

}  // namespace kiln::kernels::portable
