// Unary math: neg, abs, sign, floor, ceil, round, trunc, relu (same dtype)
// and exp, expm1, log, log1p, log2, log10, sqrt, rsqrt, reciprocal, erf,
// erfc, lgamma, sigmoid, tanh, the trigonometric and hyperbolic functions and their
// inverses (floating). exp, erf, sigmoid and tanh of dense Float tensors take the
// vectorised approximations of util/vector_math.h.
#include <cmath>
#include <type_traits>

#include "kernels/portable/complex.h"
#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/round.h"
#include "kernels/portable/util/unary.h"
#include "kernels/portable/util/vector_math.h"

namespace kiln::kernels::portable {

namespace {

using util::UnaryDtypes;

template <typename C>
constexpr bool kIntegral = std::is_integral_v<C>;

using util::round_half_even;

template <typename C>
C round_down(C x) {
  const C r = round_half_even(x);
  return std::copysign(r > x ? r - C(1) : r, x);
}

template <typename C>
C round_up(C x) {
  const C r = round_half_even(x);
  return std::copysign(r < x ? r + C(1) : r, x);
}

}  // namespace

void neg_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::neg.out", [](auto x) {
    using C = decltype(x);
    if constexpr (kIntegral<C>) return util::wrapping_sub(C(0), x);  // the minimum wraps to itself
    else return -x;
  });
}

void abs_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (has_complex_tensor(args)) {
    complex_abs_out(ctx, args);
    return;
  }
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::abs.out", [](auto x) {
    using C = decltype(x);
    if constexpr (kIntegral<C>) return x < C(0) ? util::wrapping_sub(C(0), x) : x;
    else return std::fabs(x);
  });
}

void sign_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kRealOrBool>(ctx, args, "aten::sign.out", [](auto x) {
    using C = decltype(x);
    // NaN and -0 give +0, as in PyTorch.
    if constexpr (std::is_same_v<C, bool>) return x;
    else return static_cast<C>((C(0) < x) - (x < C(0)));
  });
}

// floor, ceil and round leave integral tensors as they are.
void floor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::floor.out", [](auto x) {
    if constexpr (kIntegral<decltype(x)>) return x;
    else return round_down(x);
  });
}

void ceil_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::ceil.out", [](auto x) {
    if constexpr (kIntegral<decltype(x)>) return x;
    else return round_up(x);
  });
}

void round_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::round.out", [](auto x) {
    if constexpr (kIntegral<decltype(x)>) return x;
    else return round_half_even(x);
  });
}

void relu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::relu.out", [](auto x) {
    using C = decltype(x);
    return x < C(0) ? C(0) : x;  // keeps NaN, as PyTorch's relu (clamp_min) does
  });
}

void exp_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(
      ctx, args, "aten::exp.out", [](auto x) { return std::exp(x); },
      [](float x) KILN_INLINE_LAMBDA { return util::exp_f32(x); });
}

void log_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::log.out", [](auto x) { return std::log(x); });
}

void log1p_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::log1p.out", [](auto x) { return std::log1p(x); });
}

void sqrt_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::sqrt.out", [](auto x) { return std::sqrt(x); });
}

void rsqrt_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::rsqrt.out", [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}

void reciprocal_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::reciprocal.out", [](auto x) { return decltype(x)(1) / x; });
}

void erf_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(
      ctx, args, "aten::erf.out", [](auto x) { return std::erf(x); },
      [](float x) KILN_INLINE_LAMBDA { return util::erf_f32(x); });
}

// erfc of its own, not 1 - erf: the tail (erfc(5) = 1.5e-12) would cancel to 0.
void erfc_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::erfc.out", [](auto x) { return std::erfc(x); });
}

void lgamma_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::lgamma.out", [](auto x) { return std::lgamma(x); });
}

void sigmoid_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(
      ctx, args, "aten::sigmoid.out",
      [](auto x) {
        using C = decltype(x);
        return C(1) / (C(1) + std::exp(-x));
      },
      [](float x) KILN_INLINE_LAMBDA { return util::sigmoid_f32(x); });
}

void tanh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(
      ctx, args, "aten::tanh.out", [](auto x) { return std::tanh(x); },
      [](float x) KILN_INLINE_LAMBDA { return util::tanh_f32(x); });
}

void sin_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::sin.out", [](auto x) { return std::sin(x); });
}

void cos_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::cos.out", [](auto x) { return std::cos(x); });
}

void tan_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::tan.out", [](auto x) { return std::tan(x); });
}

void asin_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::asin.out", [](auto x) { return std::asin(x); });
}

void acos_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::acos.out", [](auto x) { return std::acos(x); });
}

void atan_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::atan.out", [](auto x) { return std::atan(x); });
}

void sinh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::sinh.out", [](auto x) { return std::sinh(x); });
}

void cosh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::cosh.out", [](auto x) { return std::cosh(x); });
}

void asinh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::asinh.out", [](auto x) { return std::asinh(x); });
}

void acosh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::acosh.out", [](auto x) { return std::acosh(x); });
}

void atanh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::atanh.out", [](auto x) { return std::atanh(x); });
}

void expm1_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::expm1.out", [](auto x) { return std::expm1(x); });
}

void log2_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::log2.out", [](auto x) { return std::log2(x); });
}

void log10_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::floating_unary_kernel(ctx, args, "aten::log10.out", [](auto x) { return std::log10(x); });
}

void trunc_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kReal>(ctx, args, "aten::trunc.out", [](auto x) {
    if constexpr (kIntegral<decltype(x)>) return x;
    else return std::copysign(round_down(std::fabs(x)), x);
  });
}

}  // namespace kiln::kernels::portable
