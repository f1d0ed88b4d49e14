// The quantization parameters of a tensor, as torch.ao's reference computes
// them (torch/ao/quantization/fx/_decomposed.py), every step rounded to the
// input's dtype as torch's ops on it round:
//   choose_qparams.tensor    one scale and zero point for the whole tensor
//                            (determine_qparams, per-tensor affine): the
//                            range [min(x, 0), max(x, 0)] over quant_max -
//                            quant_min, at least eps (in float); the zero
//                            point quant_min - round(min / scale), clamped.
//   choose_qparams_per_token_asymmetric
//                            one for each row of the last dim, in int8's
//                            range (XNNPACK's scheme): the zero point from
//                            the end of the range that rounds with less error.
// Scales come out as Double, zero points as Long. Inputs holding NaN or an
// infinity have no parameters: the kernels refuse them.
#include <algorithm>
#include <cmath>
#include <cstdint>

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

// The smallest and largest of `n` values, in C; false if one is NaN or
// infinite.
template <typename T, typename C = util::compute_t<T>>
bool finite_min_max(const T* in, int64_t n, C* min, C* max) {
  C lo = static_cast<C>(in[0]), hi = lo;
  bool nan = false;
  for (int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<C>(in[i]);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    nan |= v != v;
  }
  *min = lo;
  *max = hi;
  return !nan && std::isfinite(lo) && std::isfinite(hi);
}

// v rounded to T and back: what a torch op on T tensors stores.
template <typename T, typename C>
C in_dtype(C v) {
  return static_cast<C>(util::store_as<T>(v));
}

bool fail_not_finite(KernelArgs& a) {
  a.fail(Error::InvalidArgument, "'input' holds NaN or an infinity; it has no quantization parameters");
  return false;
}

// ---- choose_qparams.tensor ----

template <typename T>
bool choose_tensor_qparams(KernelArgs& a, const Tensor& input, const QuantRange& r, float eps, double* scale,
                           int64_t* zero_point) {
  using C = util::compute_t<T>;
  C min = 0, max = 0;
  if (!finite_min_max(input.const_data_ptr<T>(), input.numel(), &min, &max)) return fail_not_finite(a);
  const C min_neg = std::min(min, C(0)), max_pos = std::max(max, C(0));
  const C levels = static_cast<C>(static_cast<float>(r.max - r.min));
  const auto range = static_cast<float>(in_dtype<T>(in_dtype<T>(max_pos - min_neg) / levels));
  // torch.max with the eps tensor (float32) gives a float32 scale.
  const float s = std::max(range, eps);
  const auto steps = util::convert<int32_t>(util::round_half_even(static_cast<float>(min_neg) / s));
  const int32_t zp = util::wrapping_sub(static_cast<int32_t>(r.min), steps);  // int32 arithmetic, as torch's
  *scale = s;
  *zero_point = std::clamp<int64_t>(zp, r.min, r.max);
  return true;
}

// torch.ao's validate_qmin_qmax besides the dtype's bounds: the range must
// hold 0 and more than one value.
bool check_range_holds_zero(KernelArgs& a, const QuantRange& r) {
  if (r.min < r.max && r.min <= 0 && r.max >= 0) return true;
  a.fail(Error::InvalidArgument, "[quant_min, quant_max] = [%lld, %lld] must hold 0 and more than one value",
         static_cast<long long>(r.min), static_cast<long long>(r.max));
  return false;
}

bool check_float_input(KernelArgs& a, const Tensor& input, bool double_ok) {
  const ScalarType t = input.scalar_type();
  if (!util::is_floating_or_half(t) || (!double_ok && t == ScalarType::Double)) {
    a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float%s, Half or BFloat16", runtime::to_string(t),
           double_ok ? ", Double" : "");
    return false;
  }
  return a.check_contiguous(input, "input");
}

bool check_outs(KernelArgs& a, const Tensor& scale_out, const Tensor& zero_point_out, Span<const SizesType> sizes) {
  return a.check_dtype(scale_out, "scale_out", ScalarType::Double) &&
         a.check_dtype(zero_point_out, "zero_point_out", ScalarType::Long) &&
         a.check_contiguous(scale_out, "scale_out") && a.check_contiguous(zero_point_out, "zero_point_out") &&
         a.resize_out(scale_out, "scale_out", sizes) && a.resize_out(zero_point_out, "zero_point_out", sizes);
}

// ---- choose_qparams_per_token_asymmetric ----

// One row's parameters; every step rounds to T.
template <typename T>
bool choose_row_qparams(const T* row, int64_t n, double* scale, int64_t* zero_point) {
  using C = util::compute_t<T>;
  constexpr C kMin = -128, kMax = 127;
  constexpr C kEps = C(1.1920928955078125e-07);  // torch.finfo(torch.float32).eps
  C min = 0, max = 0;
  if (!finite_min_max(row, n, &min, &max)) return false;
  const C min_neg = std::min(min, C(0)), max_pos = std::max(max, C(0));
  C s = in_dtype<T>(in_dtype<T>(max_pos - min_neg) / (kMax - kMin));
  s = s < kEps ? kEps : s;
  const C descaled_min = in_dtype<T>(min_neg / s), descaled_max = in_dtype<T>(max_pos / s);
  const C error_from_min = in_dtype<T>(kMin + descaled_min), error_from_max = in_dtype<T>(kMax + descaled_max);
  const C zp = in_dtype<T>(error_from_min + error_from_max) > 0 ? in_dtype<T>(kMin - descaled_min)
                                                                : in_dtype<T>(kMax - descaled_max);
  *scale = static_cast<double>(s);
  *zero_point = static_cast<int64_t>(util::round_half_even(std::clamp(zp, kMin, kMax)));
  return true;
}

}  // namespace

void choose_qparams_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::choose_qparams.Tensor_out", args);
  Tensor input, scale_out, zero_point_out;
  QuantRange r;
  double eps = 0;
  if (!a.check_count(7) || !a.tensor(0, "input", &input) || !a.integer(1, "quant_min", &r.min) ||
      !a.integer(2, "quant_max", &r.max) || !a.floating(3, "eps", &eps) ||
      !util::scalar_type_arg(a, 4, "dtype", &r.dtype) || !a.tensor(5, "scale_out", &scale_out) ||
      !a.tensor(6, "zero_point_out", &zero_point_out) || !check_float_input(a, input, /*double_ok=*/false)) {
    return;
  }
  if (!util::is_quantized_dtype(r.dtype)) {
    a.fail(Error::InvalidArgument, "'dtype' is %s; it must be Byte, Char, Short, UInt16 or Int",
           runtime::to_string(r.dtype));
    return;
  }
  if (!util::check_quant_range(a, r, "quant_min", "quant_max") || !check_range_holds_zero(a, r)) return;
  if (!(eps > 0) || !std::isfinite(eps)) {
    a.fail(Error::InvalidArgument, "'eps' is %g; it must be positive and finite", eps);
    return;
  }
  if (input.numel() == 0) {
    a.fail(Error::InvalidArgument, "'input' is empty; it has no range to quantize");
    return;
  }
  const SizesType one[1] = {1};
  if (!check_outs(a, scale_out, zero_point_out, {one, 1})) return;
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) {
    choose_tensor_qparams<typename decltype(tag)::type>(a, input, r, util::convert<float>(eps),
                                                        scale_out.mutable_data_ptr<double>(),
                                                        zero_point_out.mutable_data_ptr<int64_t>());
  });
}

void choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::choose_qparams_per_token_asymmetric.out", args);
  Tensor input, scale_out, zero_point_out;
  ScalarType dtype = ScalarType::Char;
  if (!a.check_count(4) || !a.tensor(0, "input", &input) || !util::scalar_type_arg(a, 1, "dtype", &dtype) ||
      !a.tensor(2, "scale_out", &scale_out) || !a.tensor(3, "zero_point_out", &zero_point_out) ||
      !check_float_input(a, input, /*double_ok=*/true)) {
    return;
  }
  // The reference computes int8's parameters whatever the dtype says.
  if (dtype != ScalarType::Char) {
    a.fail(Error::InvalidArgument, "'dtype' is %s; per-token asymmetric parameters are int8's: it must be Char",
           runtime::to_string(dtype));
    return;
  }
  if (input.dim() == 0) {
    a.fail(Error::InvalidArgument, "'input' is 0-dim; it needs a last dim to hold the tokens' values");
    return;
  }
  const auto rank = static_cast<size_t>(input.dim());
  const int64_t n = input.sizes()[rank - 1];
  int64_t tokens = 1;
  SizesType sizes[util::kMaxDims];
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = d + 1 < rank ? input.sizes()[d] : 1;
    tokens *= sizes[d];
  }
  if (tokens > 0 && n == 0) {
    a.fail(Error::InvalidArgument, "'input' has an empty last dim; its tokens have no range to quantize");
    return;
  }
  if (!check_outs(a, scale_out, zero_point_out, {sizes, rank})) return;
  util::visit_floating_or_half(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.const_data_ptr<T>();
    double* scales = scale_out.mutable_data_ptr<double>();
    int64_t* zero_points = zero_point_out.mutable_data_ptr<int64_t>();
    for (int64_t t = 0; t < tokens; ++t) {
      if (!choose_row_qparams(in + t * n, n, &scales[t], &zero_points[t])) {
        fail_not_finite(a);
        return;
      }
    }
  });
}

}  // namespace kiln::kernels::portable
