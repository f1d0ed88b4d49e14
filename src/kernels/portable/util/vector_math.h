// Float exp, expm1, erf, tanh and sigmoid that the compiler can vectorise (and
// silu and gelu made of them): the
// portable kernels' float fast paths (softmax, log-softmax, gelu, silu,
// sigmoid, tanh, exp, elu) all call these, so there is one implementation.
//
// Each function is branch-free straight-line float and int32 arithmetic
// (selects, no table lookups, no calls), inlined, so a loop over an array of
// them vectorises at the baseline ISA (SSE2 on x86-64); a loop function marked
// KILN_VECTOR_CLONES is also compiled for AVX2 and AVX-512 and picked by the
// CPU at load time. The kernels are compiled with -ffp-contract=off, so no
// clone fuses a multiply-add: every lane of every clone computes exactly the
// scalar result, and results do not depend on the CPU.
//
// Method: exp reduces x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 split
// so n * kLn2Hi is exact), then e^r = 1 + r + r^2 P(r) with a degree-5 P, and
// scales by 2^n as two factors so results in the subnormal range round once.
// erf is x + x S(x^2) below 0.9 and 1 - exp(L(|x|) - x^2) above (L fits
// log(erfc(x)) + x^2, smooth on [0.9, 3.93]; past 3.93 erf rounds to 1). tanh
// is x + x^3 T(x^2) below 0.9 and 1 - 2 / (e^{2|x|} + 1) above. The
// coefficients are minimax fits (relative error, Lawson's algorithm in double
// against mpmath; fit_vector_math.py beside this file), rounded to float.
//
// Accuracy (test/vector_math_test.cpp checks it on dense sweeps of the whole
// float range against the double-precision <cmath> functions): exp, expm1,
// erf and tanh within 2 ulp, sigmoid within 3 ulp (a bound on |error| in
// units of the float spacing at the exact result, subnormals included;
// sigmoid is 0 below -88.72, where e^-x overflows, as with <cmath> in float
// and in PyTorch).
// Infinities and NaN give the <cmath> results: exp(-inf) = 0, exp(inf) = inf,
// erf(+-inf) = +-1, tanh(+-inf) = +-1, NaN in, NaN out.
#pragma once

#include <cstdint>
#include <cstring>

// KILN_VECTOR_MATH_INLINE on the functions below, KILN_INLINE_LAMBDA on a
// lambda that calls them (`[](float x) KILN_INLINE_LAMBDA { ... }`): forced
// inline, or a loop of them would call out per element and not vectorise (GCC
// will not inline a large function into a KILN_VECTOR_CLONES clone otherwise).
#if defined(__GNUC__)
#define KILN_VECTOR_MATH_INLINE inline __attribute__((always_inline))
#define KILN_INLINE_LAMBDA __attribute__((always_inline))
#else
#define KILN_VECTOR_MATH_INLINE inline
#define KILN_INLINE_LAMBDA
#endif

// On a function whose loop calls the functions below: compile it for the
// baseline ISA, AVX2 and x86-64-v4 (AVX-512), and pick one when the program is
// loaded by what the CPU has (GCC's function multiversioning, an ifunc: GCC on
// x86-64 GNU/Linux only; elsewhere, or with KILN_NO_VECTOR_CLONES defined, the
// baseline alone).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__) && \
    !defined(KILN_NO_VECTOR_CLONES)
#define KILN_VECTOR_CLONES __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#else
#define KILN_VECTOR_CLONES
#endif

namespace kiln::kernels::portable::util {

namespace vector_math_detail {

KILN_VECTOR_MATH_INLINE uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

KILN_VECTOR_MATH_INLINE float float_of(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// 2^n for n in [-126, 128] (128 gives infinity); unsigned arithmetic, as n
// is garbage (and the result unused) for a NaN argument.
KILN_VECTOR_MATH_INLINE float pow2(int32_t n) { return float_of((static_cast<uint32_t>(n) + 127u) << 23); }

// Clamps keeping NaN (a comparison with NaN is false).
KILN_VECTOR_MATH_INLINE float clamp_keep_nan(float x, float low, float high) {
  x = x > high ? high : x;
  return x < low ? low : x;
}

KILN_VECTOR_MATH_INLINE float abs_of(float x) { return float_of(bits_of(x) & 0x7fffffffu); }

// |magnitude| with the sign of `sign`.
KILN_VECTOR_MATH_INLINE float with_sign_of(float magnitude, float sign) {
  return float_of((bits_of(magnitude) & 0x7fffffffu) | (bits_of(sign) & 0x80000000u));
}

// x = n ln2 + r: returns e^r - 1 and n. x must be in [-104, 89] or NaN.
struct Reduced {
  float expm1_r;
  int32_t n;
};

KILN_VECTOR_MATH_INLINE Reduced reduce_exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: n * kLn2Hi is exact for |n| < 2^15
  constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
  constexpr float kRounder = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer (kept in the low bits)
  const float shifted = x * kLog2e + kRounder;
  const float nf = shifted - kRounder;
  const int32_t n = static_cast<int32_t>(bits_of(shifted) - bits_of(kRounder));
  float r = x - nf * kLn2Hi;
  r = r - nf * kLn2Lo;
  // e^r = 1 + r + r^2 P(r), |r| <= ln2/2.
  float p = 1.98577996e-4f;
  p = p * r + 1.39335974e-3f;
  p = p * r + 8.33336078e-3f;
  p = p * r + 4.16664667e-2f;
  p = p * r + 1.66666672e-1f;
  p = p * r + 0.5f;
  return {r + (r * r) * p, n};
}

}  // namespace vector_math_detail

/// e^x for float.
KILN_VECTOR_MATH_INLINE float exp_f32(float x) {
  namespace d = vector_math_detail;
  // Past 89 the result overflows to inf, below -104 it rounds to 0.
  const d::Reduced e = d::reduce_exp(d::clamp_keep_nan(x, -104.0f, 89.0f));
  // n in [-150, 128]: 2^n as two normal factors, so a subnormal result is
  // rounded once, by the last multiplication.
  const int32_t half = e.n >> 1;
  return ((1.0f + e.expm1_r) * d::pow2(half)) * d::pow2(e.n - half);
}

/// e^x - 1 for float, accurate near 0.
KILN_VECTOR_MATH_INLINE float expm1_f32(float x) {
  namespace d = vector_math_detail;
  // Below -30 the result rounds to -1.
  const d::Reduced e = d::reduce_exp(d::clamp_keep_nan(x, -30.0f, 89.0f));
  // For n < 25, 2^n - 1 is exact and 2^n (e^r - 1) + (2^n - 1) loses nothing
  // to cancellation; above, the -1 hardly matters but 2^n may overflow alone.
  const float scale = d::pow2(e.n < 25 ? e.n : 0);
  const float near = scale * e.expm1_r + (scale - 1.0f);
  const int32_t half = e.n >> 1;
  const float far = ((1.0f + e.expm1_r) * d::pow2(half)) * d::pow2(e.n - half) - 1.0f;
  // x - 0 would turn -0 into +0.
  return x == 0.0f ? x : (e.n < 25 ? near : far);
}

/// 1 / (1 + e^-x) for float.
KILN_VECTOR_MATH_INLINE float sigmoid_f32(float x) { return 1.0f / (1.0f + exp_f32(-x)); }

/// tanh(x) for float.
KILN_VECTOR_MATH_INLINE float tanh_f32(float x) {
  namespace d = vector_math_detail;
  const float a = d::abs_of(x);
  // Below 0.9: a + a^3 T(a^2).
  const float a2 = a * a;
  float t = -5.20428934e-4f;
  t = t * a2 + 2.75930576e-3f;
  t = t * a2 - 8.45104363e-3f;
  t = t * a2 + 2.17594821e-2f;
  t = t * a2 - 5.39539047e-2f;
  t = t * a2 + 1.33332625e-1f;
  t = t * a2 - 3.33333313e-1f;
  const float small = a + a * (a2 * t);
  // From 0.9 on: 1 - 2 / (e^{2a} + 1), which is 1 once e^{2a} overflows.
  const float large = 1.0f - 2.0f / (exp_f32(2.0f * a) + 1.0f);
  return d::with_sign_of(a < 0.9f ? small : large, x);
}

/// erf(x) for float.
KILN_VECTOR_MATH_INLINE float erf_f32(float x) {
  namespace d = vector_math_detail;
  // Past 3.93, erf rounds to 1 in float; the clamp keeps L inside its fit.
  const float a = d::clamp_keep_nan(d::abs_of(x), 0.0f, 3.93f);
  const float a2 = a * a;
  // Below 0.9: a + a S(a^2).
  float s = 8.51310469e-5f;
  s = s * a2 - 8.17563967e-4f;
  s = s * a2 + 5.20385895e-3f;
  s = s * a2 - 2.68605091e-2f;
  s = s * a2 + 1.12837151e-1f;
  s = s * a2 - 3.76126349e-1f;
  s = s * a2 + 1.28379166e-1f;
  const float small = a + a * s;
  // From 0.9 on: 1 - erfc(a), erfc(a) = exp(L(a - 2.4) - a^2).
  const float t = a - 2.4f;
  float l = 1.62878223e-6f;
  l = l * t - 1.45853237e-5f;
  l = l * t + 8.70980002e-5f;
  l = l * t - 4.69521823e-4f;
  l = l * t + 2.38740654e-3f;
  l = l * t - 1.17681352e-2f;
  l = l * t + 5.94981089e-2f;
  l = l * t - 3.64236593e-1f;
  l = l * t - 1.52097511e+0f;
  const float large = 1.0f - exp_f32(l - a2);
  return d::with_sign_of(a < 0.9f ? small : large, x);
}

/// x / (1 + e^-x) (silu) for float.
KILN_VECTOR_MATH_INLINE float silu_f32(float x) { return x / (1.0f + exp_f32(-x)); }

/// x/2 (1 + erf(x / sqrt 2)) (gelu) for float.
KILN_VECTOR_MATH_INLINE float gelu_f32(float x) {
  return 0.5f * x * (1.0f + erf_f32(x * 0.707106781186547524f));
}

/// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (gelu, approximate = 'tanh') for float.
KILN_VECTOR_MATH_INLINE float gelu_tanh_f32(float x) {
  return 0.5f * x * (1.0f + tanh_f32(0.797884560802865356f * (x + 0.044715f * x * x * x)));
}

}  // namespace kiln::kernels::portable::util
