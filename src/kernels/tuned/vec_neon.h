// 16 lanes in four NEON registers, for simd_linear.h. Dot: the ARMv8.2 sdot
// (s8 × s8, four products into each int32 lane); without it vmull_s8 and
// pairwise widening adds compute the same sums. Weights stay signed (no
// offset): q8 bytes as they are, q4 nibbles sign-extended by shifts.
#pragma once

// Only Arm targets have these registers: elsewhere (an installed copy of this
// header included alone on x86) it declares nothing.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>

namespace kiln::kernels::tuned::detail {

template <bool Dot>
struct VecNeon {
  struct F {
    float32x4_t v[4];
  };
  struct I {
    int32x4_t v[4];
  };
  // The microkernels' blocks: kRows rows × kPanels panels with float
  // activations, kRowsInt rows × 1 panel with int8 ones (as many
  // accumulators as the registers hold beside the weights).
  static constexpr int kRows = 4;
  static constexpr int kPanels = 1;
  static constexpr int kRowsInt = 2;

  template <typename Op>
  static F fmap(Op op) {
    return {{op(0), op(1), op(2), op(3)}};
  }
  template <typename Op>
  static I imap(Op op) {
    return {{op(0), op(1), op(2), op(3)}};
  }

  static F fzero() { return fset1(0.0f); }
  static F fload(const void* p) {
    const auto* f = static_cast<const float*>(p);
    return fmap([f](int i) { return vld1q_f32(f + 4 * i); });
  }
  static void fstore(float* p, F v) {
    for (int i = 0; i < 4; ++i) vst1q_f32(p + 4 * i, v.v[i]);
  }
  static F fset1(float s) { return fmap([s](int) { return vdupq_n_f32(s); }); }
  static F fadd(F a, F b) { return fmap([&](int i) { return vaddq_f32(a.v[i], b.v[i]); }); }
  static F fsub(F a, F b) { return fmap([&](int i) { return vsubq_f32(a.v[i], b.v[i]); }); }
  static F fmul(F a, F b) { return fmap([&](int i) { return vmulq_f32(a.v[i], b.v[i]); }); }
  static F fmadd(F a, F b, F c) { return fmap([&](int i) { return vfmaq_f32(c.v[i], a.v[i], b.v[i]); }); }
  static F fnmadd(F a, F b, F c) { return fmap([&](int i) { return vfmsq_f32(c.v[i], a.v[i], b.v[i]); }); }
  static F cvt(I a) { return fmap([&](int i) { return vcvtq_f32_s32(a.v[i]); }); }

  static I izero() { return iset1(0); }
  static I iload(const void* p) {
    const auto* q = static_cast<const int32_t*>(p);
    return imap([q](int i) { return vld1q_s32(q + 4 * i); });
  }
  static I iset1(int32_t s) { return imap([s](int) { return vdupq_n_s32(s); }); }
  static I iadd(I a, I b) { return imap([&](int i) { return vaddq_s32(a.v[i], b.v[i]); }); }
  static I isub(I a, I b) { return imap([&](int i) { return vsubq_s32(a.v[i], b.v[i]); }); }
  static I imul(I a, I b) { return imap([&](int i) { return vmulq_s32(a.v[i], b.v[i]); }); }
  static I load_i8x16(const int8_t* p) {
    const int8x16_t b = vld1q_s8(p);
    const int16x8_t lo = vmovl_s8(vget_low_s8(b)), hi = vmovl_high_s8(b);
    return {{vmovl_s16(vget_low_s16(lo)), vmovl_high_s16(lo), vmovl_s16(vget_low_s16(hi)), vmovl_high_s16(hi)}};
  }

  template <int J>
  static F q4_float(I w) {
    constexpr int kShift = J < 4 ? 8 * J : 8 * (J - 4) + 4;
    return fmap([&](int i) { return vcvtq_f32_s32(vshrq_n_s32(vshlq_n_s32(w.v[i], 28 - kShift), 28)); });
  }

  template <int J>
  static F q8_float(I w) {
    return fmap([&](int i) { return vcvtq_f32_s32(vshrq_n_s32(vshlq_n_s32(w.v[i], 24 - 8 * J), 24)); });
  }

  static constexpr int32_t kQ8Offset = 0;
  static constexpr int32_t kQ4Offset = 0;

  static I q8_operand(I w) { return w; }

  static void q4_operands(I w, I* lo, I* hi) {
    for (int i = 0; i < 4; ++i) {
      const int8x16_t b = vreinterpretq_s8_s32(w.v[i]);
      lo->v[i] = vreinterpretq_s32_s8(vshrq_n_s8(vshlq_n_s8(b, 4), 4));
      hi->v[i] = vreinterpretq_s32_s8(vshrq_n_s8(b, 4));
    }
  }

  static int32x4_t dot4(int32x4_t acc, int32x4_t u, int32x4_t x) {
    const int8x16_t a = vreinterpretq_s8_s32(u), b = vreinterpretq_s8_s32(x);
    if constexpr (Dot) {
      return vdotq_s32(acc, a, b);
    } else {
      // |s8 × s8| <= 2^14: the products fit int16, their pairs int32.
      const int32x4_t lo = vpaddlq_s16(vmull_s8(vget_low_s8(a), vget_low_s8(b)));
      const int32x4_t hi = vpaddlq_s16(vmull_high_s8(a, b));
      return vaddq_s32(acc, vpaddq_s32(lo, hi));
    }
  }

  static I dot_q4(I acc, I u, I x) { return imap([&](int i) { return dot4(acc.v[i], u.v[i], x.v[i]); }); }
  static I dot_q8(I acc, I u, I x) { return imap([&](int i) { return dot4(acc.v[i], u.v[i], x.v[i]); }); }
};

}  // namespace kiln::kernels::tuned::detail

#endif  // defined(__aarch64__) || defined(__ARM_NEON)
