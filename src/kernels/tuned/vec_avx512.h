// 16 lanes in one AVX-512 register, for simd_linear.h. Vnni: vpdpbusd for
// the integer dot products (u8 weights × s8 activations); without it the q4
// products go through vpmaddubsw (which cannot saturate on 4-bit weights)
// and the q8 ones through vpmaddwd on sign-extended halves.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace kiln::kernels::tuned::detail {

template <bool Vnni>
struct VecAvx512 {
  using F = __m512;
  using I = __m512i;
  static constexpr int kRows = 8;
  static constexpr int kRowsInt = 4;

  static F fzero() { return _mm512_setzero_ps(); }
  static F fload(const void* p) { return _mm512_loadu_ps(p); }
  static void fstore(float* p, F v) { _mm512_storeu_ps(p, v); }
  static F fset1(float v) { return _mm512_set1_ps(v); }
  static F fadd(F a, F b) { return _mm512_add_ps(a, b); }
  static F fsub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F fmul(F a, F b) { return _mm512_mul_ps(a, b); }
  /// a * b + c, rounded once.
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  /// c - a * b, rounded once.
  static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
  static F cvt(I v) { return _mm512_cvtepi32_ps(v); }

  static I izero() { return _mm512_setzero_si512(); }
  static I iload(const void* p) { return _mm512_loadu_si512(p); }
  static I iset1(int32_t v) { return _mm512_set1_epi32(v); }
  static I iadd(I a, I b) { return _mm512_add_epi32(a, b); }
  static I isub(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I imul(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I load_i8x16(const int8_t* p) {
    return _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }

  /// The nibble of k + J (bit 8J, or 8(J-4) + 4) as a float: vpermps reads
  /// the low 4 bits of each lane as an index into the 16 values -8..7.
  template <int J>
  static F q4_float(I w) {
    constexpr int kShift = J < 4 ? 8 * J : 8 * (J - 4) + 4;
    const F table = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1);
    if constexpr (kShift == 0) {
      return _mm512_permutexvar_ps(w, table);
    } else {
      return _mm512_permutexvar_ps(_mm512_srli_epi32(w, kShift), table);
    }
  }

  /// Byte J as a float (shifted to the top, then back with its sign).
  template <int J>
  static F q8_float(I w) {
    if constexpr (J == 3) {
      return cvt(_mm512_srai_epi32(w, 24));
    } else {
      return cvt(_mm512_srai_epi32(_mm512_slli_epi32(w, 24 - 8 * J), 24));
    }
  }

  // Integer operands: VNNI takes the weights unsigned (q + 128, q + 8);
  // vpmaddwd takes q8 signed.
  static constexpr int32_t kQ8Offset = Vnni ? 128 : 0;
  static constexpr int32_t kQ4Offset = 8;

  static I q8_operand(I w) {
    if constexpr (Vnni) {
      return _mm512_xor_si512(w, _mm512_set1_epi32(static_cast<int32_t>(0x80808080u)));
    } else {
      return w;
    }
  }

  static void q4_operands(I w, I* lo, I* hi) {
    const I u = _mm512_xor_si512(w, _mm512_set1_epi32(static_cast<int32_t>(0x88888888u)));
    const I mask = _mm512_set1_epi32(0x0F0F0F0F);
    *lo = _mm512_and_si512(u, mask);
    *hi = _mm512_and_si512(_mm512_srli_epi32(u, 4), mask);
  }

  /// acc + Σ_j u[j] x[j] per dword (x: four int8 in every lane).
  static I dot_q4(I acc, I u, I x) {
    if constexpr (Vnni) {
      return _mm512_dpbusd_epi32(acc, u, x);
    } else {
      const I pairs = _mm512_maddubs_epi16(u, x);  // |u x + u' x'| <= 2 * 15 * 128
      return _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)));
    }
  }

  static I dot_q8(I acc, I u, I x) {
    if constexpr (Vnni) {
      return _mm512_dpbusd_epi32(acc, u, x);
    } else {
      // Bytes 0 and 2 (sign-extended to 16 bits), then bytes 1 and 3.
      const I even_w = _mm512_srai_epi16(_mm512_slli_epi16(u, 8), 8), odd_w = _mm512_srai_epi16(u, 8);
      const I even_x = _mm512_srai_epi16(_mm512_slli_epi16(x, 8), 8), odd_x = _mm512_srai_epi16(x, 8);
      return _mm512_add_epi32(acc, _mm512_add_epi32(_mm512_madd_epi16(even_w, even_x), _mm512_madd_epi16(odd_w, odd_x)));
    }
  }
};

}  // namespace kiln::kernels::tuned::detail
