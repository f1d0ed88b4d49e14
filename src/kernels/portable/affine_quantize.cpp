// torchao's affine quantization primitives with the numerics of its reference
// (torchao/quantization/quant_primitives.py), every step rounded to the dtype
// torch's op on it would store, and rounding half to even:
//   choose_qparams_affine  per block: min and max (NaN propagates), then
//                          SYMMETRIC                 max(-min(min, 0), max(max, 0)) / ((quant_max - quant_min) / 2)
//                          SYMMETRIC_NO_CLIPPING_ERR the larger of min(min, 0) / quant_min and max(max, 0) / quant_max
//                          ASYMMETRIC                (max(max, 0) - min(min, 0)) / (quant_max - quant_min)
//                          at least eps (the input dtype's smallest normal by default); the zero point
//                          trunc((quant_max + quant_min + 1) / 2) symmetric, clamp(quant_min - round(min / scale))
//                          asymmetric; both in the input's dtype, then cast.
//   quantize_affine        clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max), cast.
//   dequantize_affine      (q - zero_point) * scale, cast to output_dtype.
// A block_size gives, per dim, how many elements share one scale and zero
// point (1 keeps the dim, its size reduces it whole); parameters are one per
// block in row-major order of the blocks, in tensors of any shape (torchao
// views them). Each step computes in double and rounds to its dtype, which
// gives IEEE's float, half and bfloat16 results exactly (53 >= 2 * 24 + 2
// bits); all-float32 calls compute in float directly. Tensors must be
// contiguous; nothing allocates.
#include <cmath>
#include <cstdint>
#include <cstring>
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

// ---- blocks ----

// The input cut into blocks: per dim the block's extent and how many blocks
// fit; `count` blocks in all.
struct Blocks {
  size_t rank = 0;
  int64_t extent[util::kMaxDims] = {};
  int64_t along[util::kMaxDims] = {};
  int64_t strides[util::kMaxDims] = {};
  int64_t count = 1;
};

bool read_blocks(KernelArgs& a, size_t index, const Tensor& input, Blocks* out) {
  Span<const int64_t> block;
  if (!a.int_list(index, "block_size", &block)) return false;
  const auto rank = static_cast<size_t>(input.dim());
  if (block.size() != rank) {
    a.fail(Error::InvalidArgument, "'block_size' has %zu entries; the input has %zu dims", block.size(), rank);
    return false;
  }
  out->rank = rank;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    const int64_t size = input.sizes()[d];
    if (block[d] < 1 || size % block[d] != 0) {
      a.fail(Error::InvalidArgument, "'block_size'[%zu] = %lld must be at least 1 and divide dim %zu of size %lld", d,
             static_cast<long long>(block[d]), d, static_cast<long long>(size));
      return false;
    }
    out->extent[d] = block[d];
    out->along[d] = size / block[d];
    out->strides[d] = stride;
    stride *= size;
    out->count *= out->along[d];
  }
  return true;
}

// Calls f(offset, length) for each run of block `b`'s elements along the last
// dim, in row-major order.
template <typename F>
void for_each_run(const Blocks& l, int64_t b, F&& f) {
  if (l.rank == 0) {
    f(0, 1);
    return;
  }
  int64_t start = 0;
  for (size_t d = l.rank; d-- > 0;) {
    start += (b % l.along[d]) * l.extent[d] * l.strides[d];
    b /= l.along[d];
  }
  const size_t last = l.rank - 1;
  int64_t at[util::kMaxDims] = {};
  while (true) {
    int64_t offset = start;
    for (size_t d = 0; d < last; ++d) offset += at[d] * l.strides[d];
    f(offset, l.extent[last]);
    size_t d = last;
    while (d > 0 && ++at[d - 1] == l.extent[d - 1]) at[--d] = 0;
    if (d == 0) return;
  }
}

// One scale or zero point per block.
bool check_per_block(KernelArgs& a, const Tensor& t, const char* name, const Blocks& l) {
  if (t.numel() != l.count) {
    a.fail(Error::InvalidArgument, "'%s' has %zd elements; the input has %lld blocks", name, t.numel(),
           static_cast<long long>(l.count));
    return false;
  }
  return a.check_contiguous(t, name);
}

bool is_qparams_dtype(ScalarType t) { return util::is_convertible(t) && t != ScalarType::Bool; }

// A floating scale and an integer or floating zero point (or none), one per block.
bool check_scale_and_zero_point(KernelArgs& a, const Tensor& scale, const std::optional<Tensor>& zero_point,
                                const Blocks& l) {
  if (!util::check_float_dtype(a, "scale", scale.scalar_type()) || !check_per_block(a, scale, "scale", l)) return false;
  if (!zero_point) return true;
  if (!is_qparams_dtype(zero_point->scalar_type())) {
    a.fail(Error::InvalidArgument, "'zero_point' has dtype %s; it must be an integer or floating dtype",
           runtime::to_string(zero_point->scalar_type()));
    return false;
  }
  return check_per_block(a, *zero_point, "zero_point", l);
}

// ---- values ----

bool is_float_input(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16;
}

// Element `i` of a real tensor, as double.
double value_at(const Tensor& t, int64_t i) {
  double v = 0;
  util::visit_convertible(t.scalar_type(), [&](auto tag) {
    v = util::convert<double>(t.const_data_ptr<typename decltype(tag)::type>()[i]);
  });
  return v;
}

// `v` as a torch op on a `t` tensor stores it.
double round_to(ScalarType t, double v) {
  switch (t) {
    case ScalarType::Float: return util::convert<float>(v);
    case ScalarType::Half: return static_cast<float>(util::convert<runtime::Half>(v));
    case ScalarType::BFloat16: return static_cast<float>(util::convert<runtime::BFloat16>(v));
    default: return v;
  }
}

// Rounds to a dtype in double (C = double), or nothing where every dtype is
// Float and the arithmetic is float's own (C = float).
template <typename C>
C in(ScalarType t, C v) {
  if constexpr (std::is_same_v<C, double>) return round_to(t, v);
  return v;
}

ScalarType promoted(ScalarType a, ScalarType b) {
  ScalarType out = a;
  runtime::promote_types(a, b, &out);
  return out;
}

// A `Scalar?` bound: None gives `fallback`.
bool read_bound(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, int64_t fallback, int64_t* out) {
  *out = fallback;
  return args[index]->isNone() || a.integer(index, name, out);
}

// quant_min, quant_max at `index` and index + 1 within `dtype`'s values.
bool read_range(KernelArgs& a, Span<EValue*> args, size_t index, ScalarType dtype, const char* dtype_name,
                QuantRange* r) {
  // torchao's integer dtypes (_DTYPE_TO_QVALUE_BOUNDS) have no uint16.
  if (!util::is_quantized_dtype(dtype) || dtype == ScalarType::UInt16) {
    a.fail(Error::InvalidArgument, "'%s' is %s; it must be Byte, Char, Short or Int", dtype_name,
           runtime::to_string(dtype));
    return false;
  }
  r->dtype = dtype;
  return read_bound(a, args, index, "quant_min", util::quantized_lowest(dtype), &r->min) &&
         read_bound(a, args, index + 1, "quant_max", util::quantized_highest(dtype), &r->max) &&
         util::check_quant_range(a, *r, "quant_min", "quant_max");
}

bool check_out(KernelArgs& a, const Tensor& out, const char* name, ScalarType dtype, Span<const SizesType> sizes) {
  return a.check_dtype(out, name, dtype) && a.check_contiguous(out, name) && a.resize_out(out, name, sizes);
}

// ---- quantize_affine ----

struct QuantizeCall {
  const Tensor& input;
  const Tensor& scale;
  const std::optional<Tensor>& zero_point;
  const Blocks& blocks;
  const QuantRange& range;
  const Tensor& out;
};

template <typename C, typename T, typename Q>
void quantize(const QuantizeCall& q) {
  const ScalarType s = q.scale.scalar_type();
  const ScalarType scaled = promoted(q.input.scalar_type(), s);
  const ScalarType shifted = q.zero_point ? promoted(scaled, q.zero_point->scalar_type()) : scaled;
  const T* in_data = q.input.const_data_ptr<T>();
  Q* out = q.out.mutable_data_ptr<Q>();
  const auto lo = static_cast<C>(q.range.min), hi = static_cast<C>(q.range.max);
  for (int64_t b = 0; b < q.blocks.count; ++b) {
    const C inverse = in(s, C(1) / static_cast<C>(value_at(q.scale, b)));
    const C zero_point = q.zero_point ? static_cast<C>(value_at(*q.zero_point, b)) : C(0);
    for_each_run(q.blocks, b, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        const C x = static_cast<C>(util::convert<float>(in_data[i]));
        const C v = in(shifted, util::round_half_even(in(scaled, x * inverse)) + zero_point);
        out[i] = util::convert<Q>(v < lo ? lo : (v > hi ? hi : v));
      }
    });
  }
}

void quantize(const QuantizeCall& q) {
  const bool all_float = q.input.scalar_type() == ScalarType::Float && q.scale.scalar_type() == ScalarType::Float &&
                         (!q.zero_point || q.zero_point->scalar_type() != ScalarType::Double);
  util::visit_floating_or_half(q.input.scalar_type(), [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    if constexpr (!std::is_same_v<T, double>) {
      util::visit_quantized(q.range.dtype, [&](auto q_tag) {
        using Q = typename decltype(q_tag)::type;
        if (all_float) {
          quantize<float, T, Q>(q);
        } else {
          quantize<double, T, Q>(q);
        }
      });
    }
  });
}

// ---- dequantize_affine ----

template <typename C, typename Q, typename O>
void dequantize(const Tensor& input, const Tensor& scale, const std::optional<Tensor>& zero_point, const Blocks& blocks,
                const Tensor& out) {
  const ScalarType o = out.scalar_type();
  const ScalarType scaled = promoted(o, scale.scalar_type());
  const Q* in_data = input.const_data_ptr<Q>();
  O* out_data = out.mutable_data_ptr<O>();
  for (int64_t b = 0; b < blocks.count; ++b) {
    const auto s = static_cast<C>(value_at(scale, b));
    const C zp = zero_point ? in(o, static_cast<C>(value_at(*zero_point, b))) : C(0);
    for_each_run(blocks, b, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        const C q = in(o, static_cast<C>(in_data[i]));
        out_data[i] = util::convert<O>(in(scaled, in(o, q - zp) * s));
      }
    });
  }
}

void dequantize(const Tensor& input, const Tensor& scale, const std::optional<Tensor>& zero_point, const Blocks& blocks,
                const Tensor& out) {
  // The zero point is cast to the output's dtype first: any dtype of it keeps float arithmetic.
  const bool all_float = out.scalar_type() == ScalarType::Float && scale.scalar_type() == ScalarType::Float;
  util::visit_quantized(input.scalar_type(), [&](auto q_tag) {
    using Q = typename decltype(q_tag)::type;
    util::visit_floating_or_half(out.scalar_type(), [&](auto out_tag) {
      using O = typename decltype(out_tag)::type;
      if (all_float) {
        dequantize<float, Q, O>(input, scale, zero_point, blocks, out);
      } else {
        dequantize<double, Q, O>(input, scale, zero_point, blocks, out);
      }
    });
  });
}

// ---- choose_qparams_affine ----

enum class Mapping { kSymmetric, kSymmetricNoClippingErr, kAsymmetric };

bool read_mapping(KernelArgs& a, size_t index, Mapping* out) {
  Span<const char> text;
  if (!a.string(index, "mapping_type", &text)) return false;
  auto is = [&](const char* name) { return text.size() == std::strlen(name) && std::memcmp(text.data(), name, text.size()) == 0; };
  if (is("SYMMETRIC")) *out = Mapping::kSymmetric;
  else if (is("SYMMETRIC_NO_CLIPPING_ERR")) *out = Mapping::kSymmetricNoClippingErr;
  else if (is("ASYMMETRIC")) *out = Mapping::kAsymmetric;
  else {
    a.fail(Error::InvalidArgument, "'mapping_type' is '%.*s'; it must be SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC",
           static_cast<int>(text.size()), text.data());
    return false;
  }
  return true;
}

// NaN-propagating, as torch.minimum, torch.maximum, amin and amax are.
double nan_min(double a, double b) { return a != a || b != b ? NAN : (a < b ? a : b); }
double nan_max(double a, double b) { return a != a || b != b ? NAN : (a > b ? a : b); }
double clamp_min(double v, double lo) { return v != v ? v : (v < lo ? lo : v); }
double clamp(double v, double lo, double hi) { return v != v ? v : (v < lo ? lo : (v > hi ? hi : v)); }

struct ChooseCall {
  const Tensor& input;
  Mapping mapping;
  const Blocks& blocks;
  const QuantRange& range;
  double eps;
  const Tensor& scale_out;
  const Tensor& zero_point_out;
};

// A Python number in an op on a `t` tensor: torch takes it in float (the
// opmath type of float and the 16-bit floats) unless t is Double.
double number_for(ScalarType t, double v) { return t == ScalarType::Double ? v : round_to(ScalarType::Float, v); }

// One block's (scale, zero point), each step in the input's dtype t.
std::pair<double, double> block_qparams(const ChooseCall& c, ScalarType t, double min, double max) {
  const double qmin = static_cast<double>(c.range.min), qmax = static_cast<double>(c.range.max);
  const double min_neg = nan_min(min, 0), max_pos = nan_max(max, 0);
  const double eps = number_for(t, c.eps);
  double scale = 0;
  switch (c.mapping) {
    case Mapping::kSymmetric:
      scale = round_to(t, nan_max(-min_neg, max_pos) / number_for(t, (qmax - qmin) / 2));
      break;
    case Mapping::kSymmetricNoClippingErr: {
      const double smin = round_to(t, min_neg / number_for(t, qmin)), smax = round_to(t, max_pos / number_for(t, qmax));
      scale = smin > smax ? smin : smax;
      break;
    }
    case Mapping::kAsymmetric: {
      const double range = round_to(t, round_to(t, max_pos - min_neg) / number_for(t, qmax - qmin));
      scale = round_to(t, clamp_min(range, eps));
      const double steps = util::round_half_even(round_to(t, min_neg / scale));
      return {scale, clamp(round_to(t, number_for(t, qmin) - steps), qmin, qmax)};
    }
  }
  // int() of Python's true division truncates toward zero, as C++'s does.
  const double zero_point = round_to(t, static_cast<double>((c.range.max + c.range.min + 1) / 2));
  return {round_to(t, clamp_min(scale, eps)), zero_point};
}

template <typename T>
void choose_qparams(const ChooseCall& c) {
  const T* in_data = c.input.const_data_ptr<T>();
  for (int64_t b = 0; b < c.blocks.count; ++b) {
    double min = INFINITY, max = -INFINITY;
    for_each_run(c.blocks, b, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        const double v = util::convert<double>(in_data[i]);
        min = nan_min(min, v);
        max = nan_max(max, v);
      }
    });
    const auto [scale, zero_point] = block_qparams(c, c.input.scalar_type(), min, max);
    util::visit_convertible(c.scale_out.scalar_type(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      c.scale_out.mutable_data_ptr<S>()[b] = util::convert<S>(scale);
    });
    util::visit_convertible(c.zero_point_out.scalar_type(), [&](auto tag) {
      using Z = typename decltype(tag)::type;
      c.zero_point_out.mutable_data_ptr<Z>()[b] = util::convert<Z>(zero_point);
    });
  }
}

// The results' sizes: per dim the block count, where keepdim or the block is
// 1 (the dim kept) or splits the dim; a dim reduced whole is dropped.
size_t qparams_sizes(const Tensor& input, const Blocks& l, bool keepdim, SizesType* sizes) {
  size_t rank = 0;
  for (size_t d = 0; d < l.rank; ++d) {
    if (keepdim || l.extent[d] == 1 || l.extent[d] != input.sizes()[d]) sizes[rank++] = static_cast<SizesType>(l.along[d]);
  }
  return rank;
}


}  // namespace

void quantize_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "torchao::quantize_affine.out", args);
  Tensor input, scale, out;
  std::optional<Tensor> zero_point;
  Blocks blocks;
  QuantRange range;
  ScalarType dtype = ScalarType::Char;
  if (!a.check_count(8) || !a.tensor(0, "input", &input) || !a.tensor(2, "scale", &scale) ||
      !a.optional_tensor(3, "zero_point", &zero_point) || !util::scalar_type_arg(a, 4, "output_dtype", &dtype) ||
      !read_range(a, args, 5, dtype, "output_dtype", &range) || !a.tensor(7, "out", &out)) {
    return;
  }
  if (!is_float_input(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float, Half or BFloat16",
           runtime::to_string(input.scalar_type()));
    return;
  }
  if (zero_point && zero_point->numel() == 0) zero_point.reset();  // torchao's "no zero point"
  if (!a.check_contiguous(input, "input") || !read_blocks(a, 1, input, &blocks) ||
      !check_scale_and_zero_point(a, scale, zero_point, blocks) || !check_out(a, out, "out", dtype, input.sizes())) {
    return;
  }
  quantize({input, scale, zero_point, blocks, range, out});
}

void dequantize_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "torchao::dequantize_affine.out", args);
  Tensor input, scale, out;
  std::optional<Tensor> zero_point;
  Blocks blocks;
  QuantRange range;
  ScalarType dtype = ScalarType::Char, out_dtype = ScalarType::Float;
  if (!a.check_count(9) || !a.tensor(0, "input", &input) || !a.tensor(2, "scale", &scale) ||
      !a.optional_tensor(3, "zero_point", &zero_point) || !util::scalar_type_arg(a, 4, "input_dtype", &dtype) ||
      !read_range(a, args, 5, dtype, "input_dtype", &range) || !util::scalar_type_arg(a, 7, "output_dtype", &out_dtype) ||
      !a.tensor(8, "out", &out) || !a.check_dtype(input, "input", dtype) || !a.check_contiguous(input, "input") ||
      !read_blocks(a, 1, input, &blocks)) {
    return;
  }
  if (!is_float_input(out_dtype)) {
    a.fail(Error::InvalidArgument, "'output_dtype' is %s; it must be Float, Half or BFloat16",
           runtime::to_string(out_dtype));
    return;
  }
  if (!check_scale_and_zero_point(a, scale, zero_point, blocks) || !check_out(a, out, "out", out_dtype, input.sizes())) {
    return;
  }
  dequantize(input, scale, zero_point, blocks, out);
}

void choose_qparams_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "torchao::choose_qparams_affine.out", args);
  Tensor input, scale_out, zero_point_out;
  Mapping mapping = Mapping::kAsymmetric;
  Blocks blocks;
  QuantRange range;
  ScalarType target = ScalarType::Char;
  std::optional<ScalarType> scale_dtype, zero_point_dtype;
  bool keepdim = false;
  if (!a.check_count(12)) return;
  if (args[0]->isNone()) {
    a.fail(Error::InvalidArgument, "'input' is None; it must be a tensor");
    return;
  }
  if (!a.tensor(0, "input", &input) || !read_mapping(a, 1, &mapping) ||
      !util::scalar_type_arg(a, 3, "target_dtype", &target) || !read_range(a, args, 4, target, "target_dtype", &range) ||
      !util::optional_scalar_type_arg(a, args, 7, "scale_dtype", &scale_dtype) ||
      !util::optional_scalar_type_arg(a, args, 8, "zero_point_dtype", &zero_point_dtype) ||
      !a.boolean(9, "keepdim", &keepdim) || !a.tensor(10, "out0", &scale_out) ||
      !a.tensor(11, "out1", &zero_point_out)) {
    return;
  }
  if (!util::is_floating_or_half(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float, Double, Half or BFloat16",
           runtime::to_string(input.scalar_type()));
    return;
  }
  // torchao's default eps: the smallest normal of the input's dtype.
  double eps = input.scalar_type() == ScalarType::Half       ? 6.103515625e-05
               : input.scalar_type() == ScalarType::Double   ? 2.2250738585072014e-308
                                                             : 1.1754943508222875e-38;
  if (!args[6]->isNone() && !a.floating(6, "eps", &eps)) return;
  if (!(eps > 0)) {
    a.fail(Error::InvalidArgument, "'eps' is %g; it must be positive", eps);
    return;
  }
  const ScalarType scale_type = scale_dtype.value_or(input.scalar_type());
  const ScalarType zero_point_type =
      zero_point_dtype.value_or(mapping == Mapping::kAsymmetric ? ScalarType::Int : input.scalar_type());
  for (const auto& [type, name] : {std::pair{scale_type, "scale_dtype"}, std::pair{zero_point_type, "zero_point_dtype"}}) {
    if (!is_qparams_dtype(type)) {
      a.fail(Error::InvalidArgument, "'%s' is %s; it must be an integer or floating dtype", name,
             runtime::to_string(type));
      return;
    }
  }
  SizesType sizes[util::kMaxDims];
  if (!a.check_contiguous(input, "input") || !read_blocks(a, 2, input, &blocks)) return;
  const size_t rank = qparams_sizes(input, blocks, keepdim, sizes);
  if (!check_out(a, scale_out, "out0", scale_type, {sizes, rank}) ||
      !check_out(a, zero_point_out, "out1", zero_point_type, {sizes, rank})) {
    return;
  }
  const ChooseCall call{input, mapping, blocks, range, eps, scale_out, zero_point_out};
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) { choose_qparams<typename decltype(tag)::type>(call); });
}

}  // namespace kiln::kernels::portable
