// Rounding half to even written with adds and selects instead of libm calls,
// so loops of it vectorize (SSE2 has no rounding instruction): aten::round
// and the quantize kernels round with it.
#pragma once

#include <cmath>
#include <type_traits>

namespace kiln::kernels::portable::util {

/// From here up (2^23 for float, 2^52 for double) every value is an integer.
template <typename C>
constexpr C kIntegralFrom = std::is_same_v<C, float> ? C(8388608.0) : C(4503599627370496.0);

/// `x` rounded to the nearest integer, ties to even, as std::nearbyint in the
/// default rounding mode: below kIntegralFrom, adding it leaves no fraction
/// bits, so the FPU does the rounding. Every result is 0 or has the sign of
/// x, so copysign gives zeros their sign (round(-0.4) = -0); NaN and the
/// infinities pass through.
template <typename C>
C round_half_even(C x) {
  const C magnitude = std::fabs(x);
  const C rounded = (magnitude + kIntegralFrom<C>) - kIntegralFrom<C>;
  return magnitude < kIntegralFrom<C> ? std::copysign(rounded, x) : x;
}

}  // namespace kiln::kernels::portable::util
