// 16 lanes in two AVX2 registers, for simd_linear.h. Vnni: AVX-VNNI's
// 256-bit vpdpbusd; without it as vec_avx512.h does without VNNI.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace kiln::kernels::tuned::detail {

template <bool Vnni>
struct VecAvx2 {
  struct F {
    __m256 lo, hi;
  };
  struct I {
    __m256i lo, hi;
  };
  static constexpr int kRows = 4;
  static constexpr int kRowsInt = 2;

  static F fzero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static F fload(const void* p) {
    const auto* f = static_cast<const float*>(p);
    return {_mm256_loadu_ps(f), _mm256_loadu_ps(f + 8)};
  }
  static void fstore(float* p, F v) {
    _mm256_storeu_ps(p, v.lo);
    _mm256_storeu_ps(p + 8, v.hi);
  }
  static F fset1(float v) { return {_mm256_set1_ps(v), _mm256_set1_ps(v)}; }
  static F fadd(F a, F b) { return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)}; }
  static F fsub(F a, F b) { return {_mm256_sub_ps(a.lo, b.lo), _mm256_sub_ps(a.hi, b.hi)}; }
  static F fmul(F a, F b) { return {_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi)}; }
  static F fmadd(F a, F b, F c) { return {_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)}; }
  static F fnmadd(F a, F b, F c) { return {_mm256_fnmadd_ps(a.lo, b.lo, c.lo), _mm256_fnmadd_ps(a.hi, b.hi, c.hi)}; }
  static F cvt(I v) { return {_mm256_cvtepi32_ps(v.lo), _mm256_cvtepi32_ps(v.hi)}; }

  static I izero() { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }
  static I iload(const void* p) {
    const auto* v = static_cast<const __m256i*>(p);
    return {_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1)};
  }
  static I iset1(int32_t v) { return {_mm256_set1_epi32(v), _mm256_set1_epi32(v)}; }
  static I iadd(I a, I b) { return {_mm256_add_epi32(a.lo, b.lo), _mm256_add_epi32(a.hi, b.hi)}; }
  static I isub(I a, I b) { return {_mm256_sub_epi32(a.lo, b.lo), _mm256_sub_epi32(a.hi, b.hi)}; }
  static I imul(I a, I b) { return {_mm256_mullo_epi32(a.lo, b.lo), _mm256_mullo_epi32(a.hi, b.hi)}; }
  static I load_i8x16(const int8_t* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return {_mm256_cvtepi8_epi32(v), _mm256_cvtepi8_epi32(_mm_srli_si128(v, 8))};
  }

  /// The nibble of k + J, sign-extended by a shift to the top and back.
  template <int J>
  static F q4_float(I w) {
    constexpr int kShift = J < 4 ? 8 * J : 8 * (J - 4) + 4;
    if constexpr (kShift == 28) {
      return cvt({_mm256_srai_epi32(w.lo, 28), _mm256_srai_epi32(w.hi, 28)});
    } else {
      return cvt({_mm256_srai_epi32(_mm256_slli_epi32(w.lo, 28 - kShift), 28),
                  _mm256_srai_epi32(_mm256_slli_epi32(w.hi, 28 - kShift), 28)});
    }
  }

  template <int J>
  static F q8_float(I w) {
    if constexpr (J == 3) {
      return cvt({_mm256_srai_epi32(w.lo, 24), _mm256_srai_epi32(w.hi, 24)});
    } else {
      return cvt({_mm256_srai_epi32(_mm256_slli_epi32(w.lo, 24 - 8 * J), 24),
                  _mm256_srai_epi32(_mm256_slli_epi32(w.hi, 24 - 8 * J), 24)});
    }
  }

  static constexpr int32_t kQ8Offset = Vnni ? 128 : 0;
  static constexpr int32_t kQ4Offset = 8;

  static I q8_operand(I w) {
    if constexpr (Vnni) {
      const __m256i flip = _mm256_set1_epi32(static_cast<int32_t>(0x80808080u));
      return {_mm256_xor_si256(w.lo, flip), _mm256_xor_si256(w.hi, flip)};
    } else {
      return w;
    }
  }

  static void q4_operands(I w, I* lo, I* hi) {
    const __m256i flip = _mm256_set1_epi32(static_cast<int32_t>(0x88888888u));
    const __m256i mask = _mm256_set1_epi32(0x0F0F0F0F);
    const __m256i u0 = _mm256_xor_si256(w.lo, flip), u1 = _mm256_xor_si256(w.hi, flip);
    *lo = {_mm256_and_si256(u0, mask), _mm256_and_si256(u1, mask)};
    *hi = {_mm256_and_si256(_mm256_srli_epi32(u0, 4), mask), _mm256_and_si256(_mm256_srli_epi32(u1, 4), mask)};
  }

  static __m256i dot_q4_half(__m256i acc, __m256i u, __m256i x) {
    if constexpr (Vnni) {
      return _mm256_dpbusd_avx_epi32(acc, u, x);
    } else {
      const __m256i pairs = _mm256_maddubs_epi16(u, x);  // |u x + u' x'| <= 2 * 15 * 128
      return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
    }
  }

  static __m256i dot_q8_half(__m256i acc, __m256i u, __m256i x) {
    if constexpr (Vnni) {
      return _mm256_dpbusd_avx_epi32(acc, u, x);
    } else {
      const __m256i even_w = _mm256_srai_epi16(_mm256_slli_epi16(u, 8), 8), odd_w = _mm256_srai_epi16(u, 8);
      const __m256i even_x = _mm256_srai_epi16(_mm256_slli_epi16(x, 8), 8), odd_x = _mm256_srai_epi16(x, 8);
      return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(even_w, even_x), _mm256_madd_epi16(odd_w, odd_x)));
    }
  }

  static I dot_q4(I acc, I u, I x) { return {dot_q4_half(acc.lo, u.lo, x.lo), dot_q4_half(acc.hi, u.hi, x.hi)}; }
  static I dot_q8(I acc, I u, I x) { return {dot_q8_half(acc.lo, u.lo, x.lo), dot_q8_half(acc.hi, u.hi, x.hi)}; }
};

}  // namespace kiln::kernels::tuned::detail
