// The linear kernels of every SIMD path, written once over a vector class V
// of 16 lanes (one panel's rows): one AVX-512 register, two AVX2 ones, four
// NEON ones. Each path's translation unit defines V with its own intrinsics
// and target flags and instantiates SimdLinear<V>::run (path_*.cpp).
// Included only by those translation units.
//
// The shape of the work: for each panel, M = 1 runs `gemv_*` (several
// accumulators per group so that the FMA chains hide their latency, the
// group's scale applied to its partial sum), M > 1 runs a microkernel over
// R rows at a time (the weights of one block turned into floats or integer
// operands once, then used by all R rows).
//
// The int8 modes compute exactly what the portable path computes (the same
// int32 sums, the same float operations in the same order, fused as the
// portable path fuses them), so the paths agree bit for bit there.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/tuned/layout.h"

namespace kiln::kernels::tuned::detail {

// A lambda unroll() calls is written out where it is called, whatever the
// build's optimization level: GCC's -O2 (RelWithDebInfo, the default build)
// otherwise calls each one out of line, one call per FMA step, and the GEMM
// microkernels run at a third of their rate.
#define KILN_TUNED_INLINE __attribute__((always_inline))

template <int N, typename Fn, int... J>
inline __attribute__((always_inline)) void unroll_(Fn& fn, std::integer_sequence<int, J...>) {
  (fn(std::integral_constant<int, J>{}), ...);
}

/// fn(std::integral_constant<int, j>) for j = 0..N-1, written out.
template <int N, typename Fn>
inline __attribute__((always_inline)) void unroll(Fn&& fn) {
  unroll_<N>(fn, std::make_integer_sequence<int, N>{});
}

template <class V>
struct SimdLinear {
  using F = typename V::F;
  using I = typename V::I;

  // Each path's translation unit is built with its own target flags, so
  // this code calls no inline function shared with other translation units
  // (the linker would keep one copy, built for whichever CPU): these are
  // WeightLayout's helpers again, instantiated per path.
  static int64_t group_k(const WeightLayout& w, int64_t g) { return g + 1 < w.groups ? w.group : w.kpad - g * w.group; }
  static int32_t load_x4(const int8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }

  // The decode kernels ask for the weights this far ahead: enough bytes in
  // flight to cover DRAM's latency at full bandwidth (~100 ns × ~20 GB/s),
  // which the hardware prefetcher alone does not keep up once each block
  // costs a few dozen instructions.
  static constexpr int64_t kPrefetchBytes = 2048;
  static inline __attribute__((always_inline)) void prefetch(const uint8_t* p) {
    __builtin_prefetch(p + kPrefetchBytes);
  }

  // Everything a panel's kernels read about one call.
  struct Ctx {
    const WeightLayout* w;
    const Prepared* x;
    const LinearArgs* a;
  };

  // ---------------- float activations ----------------

  // The 16 rows' weights at k + J of a quantized block, as floats (q, not
  // yet q - z or scaled).
  template <WeightFormat Fmt, int J>
  static inline __attribute__((always_inline)) F q_float(I w) {
    if constexpr (Fmt == WeightFormat::kQ8) {
      return V::template q8_float<J>(w);
    } else {
      return V::template q4_float<J>(w);
    }
  }

  static F gemv_f32(const Ctx& c, const uint8_t* panel, const float* x) {
    F acc[8];
    for (auto& v : acc) v = V::fzero();
    const int64_t k = c.w->k;
    const auto* blk = reinterpret_cast<const float*>(panel);
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) {
      unroll<8>([&](auto j) KILN_TUNED_INLINE { acc[j] = V::fmadd(V::fload(blk + (i + j) * kPanelRows), V::fset1(x[i + j]), acc[j]); });
    }
    for (; i < k; ++i) acc[0] = V::fmadd(V::fload(blk + i * kPanelRows), V::fset1(x[i]), acc[0]);
    return V::fadd(V::fadd(V::fadd(acc[0], acc[1]), V::fadd(acc[2], acc[3])),
                   V::fadd(V::fadd(acc[4], acc[5]), V::fadd(acc[6], acc[7])));
  }

  template <WeightFormat Fmt, bool Zp>
  static F gemv_quant_float(const Ctx& c, const uint8_t* panel, const float* x, const float* xsum) {
    constexpr int kpb = static_cast<int>(k_per_block(Fmt));
    const WeightLayout& w = *c.w;
    const uint8_t* p = panel + w.panel_header_bytes;
    F y = V::fzero();
    int64_t k = 0;
    for (int64_t g = 0; g < w.groups; ++g) {
      const F s = V::fload(p);
      p += kScaleBytes;
      F zf = V::fzero();
      if constexpr (Zp) {
        zf = V::cvt(V::load_i8x16(reinterpret_cast<const int8_t*>(p)));
        p += kZeroPointBytes;
      }
      F acc[kpb];
      for (auto& v : acc) v = V::fzero();
      const int64_t blocks = group_k(w, g) / kpb;  // a shift, not a division
      for (int64_t b = 0; b < blocks; ++b, p += kBlockBytes, k += kpb) {
        prefetch(p);
        const I wv = V::iload(p);
        unroll<kpb>([&](auto j) KILN_TUNED_INLINE { acc[j] = V::fmadd(q_float<Fmt, j>(wv), V::fset1(x[k + j]), acc[j]); });
      }
      F sum = V::fadd(V::fadd(acc[0], acc[1]), V::fadd(acc[2], acc[3]));
      if constexpr (kpb == 8) sum = V::fadd(sum, V::fadd(V::fadd(acc[4], acc[5]), V::fadd(acc[6], acc[7])));
      if constexpr (Zp) sum = V::fnmadd(zf, V::fset1(xsum[g]), sum);
      y = V::fmadd(sum, s, y);
    }
    return y;
  }

  // R rows × P panels of f32 weights: out[p][r] = Σ_k x_r[k] w_p[k]. P
  // panels at once give P * R independent FMA chains per k.
  template <int R, int P>
  static void rows_f32(const Ctx& c, const uint8_t* const* panels, const float* const* x, F (*out)[R]) {
    F acc[P][R];
    for (auto& row : acc) {
      for (auto& v : row) v = V::fzero();
    }
    const float* blk[P];
    for (int p = 0; p < P; ++p) blk[p] = reinterpret_cast<const float*>(panels[p]);
    for (int64_t k = 0; k < c.w->k; ++k) {
      unroll<P>([&](auto p) KILN_TUNED_INLINE {
        const F wf = V::fload(blk[p] + k * kPanelRows);
        unroll<R>([&](auto r) KILN_TUNED_INLINE { acc[p][r] = V::fmadd(wf, V::fset1(x[r][k]), acc[p][r]); });
      });
    }
    for (int p = 0; p < P; ++p) {
      for (int r = 0; r < R; ++r) out[p][r] = acc[p][r];
    }
  }

  // R rows × P panels of quantized weights dequantized as PyTorch does,
  // (q - z) * s, once per k for all R rows.
  template <int R, int P, WeightFormat Fmt, bool Zp>
  static void rows_quant_float(const Ctx& c, const uint8_t* const* panels, const float* const* x, F (*out)[R]) {
    constexpr int kpb = static_cast<int>(k_per_block(Fmt));
    const WeightLayout& w = *c.w;
    const uint8_t* at[P];
    for (int p = 0; p < P; ++p) at[p] = panels[p] + w.panel_header_bytes;
    F acc[P][R];
    for (auto& row : acc) {
      for (auto& v : row) v = V::fzero();
    }
    int64_t k = 0;
    for (int64_t g = 0; g < w.groups; ++g) {
      F s[P], zf[P];
      for (int p = 0; p < P; ++p) {
        s[p] = V::fload(at[p]);
        at[p] += kScaleBytes;
        zf[p] = V::fzero();
        if constexpr (Zp) {
          zf[p] = V::cvt(V::load_i8x16(reinterpret_cast<const int8_t*>(at[p])));
          at[p] += kZeroPointBytes;
        }
      }
      const int64_t blocks = group_k(w, g) / kpb;  // a shift, not a division
      for (int64_t b = 0; b < blocks; ++b, k += kpb) {
        I wv[P];
        for (int p = 0; p < P; ++p) {
          wv[p] = V::iload(at[p]);
          at[p] += kBlockBytes;
        }
        unroll<kpb>([&](auto j) KILN_TUNED_INLINE {
          unroll<P>([&](auto p) KILN_TUNED_INLINE {
            F wf = q_float<Fmt, j>(wv[p]);
            if constexpr (Zp) wf = V::fsub(wf, zf[p]);
            wf = V::fmul(wf, s[p]);
            unroll<R>([&](auto r) KILN_TUNED_INLINE { acc[p][r] = V::fmadd(wf, V::fset1(x[r][k + j]), acc[p][r]); });
          });
        });
      }
    }
    for (int p = 0; p < P; ++p) {
      for (int r = 0; r < R; ++r) out[p][r] = acc[p][r];
    }
  }

  // ---------------- int8 activations ----------------

  // Adds Σ_j u[j] x[j] over one block (u: the weights as V's integer
  // operands, offset by V::offset<Fmt>) into acc[0] (q8) or acc[0..1] (q4).
  template <WeightFormat Fmt>
  static inline __attribute__((always_inline)) void dot_block(I wv, const int8_t* xq, I* acc) {
    if constexpr (Fmt == WeightFormat::kQ8) {
      acc[0] = V::dot_q8(acc[0], V::q8_operand(wv), V::iset1(load_x4(xq)));
    } else {
      I lo, hi;
      V::q4_operands(wv, &lo, &hi);
      acc[0] = V::dot_q4(acc[0], lo, V::iset1(load_x4(xq)));
      acc[1] = V::dot_q4(acc[1], hi, V::iset1(load_x4(xq + 4)));
    }
  }

  template <WeightFormat Fmt>
  static constexpr int32_t offset() {
    return Fmt == WeightFormat::kQ8 ? V::kQ8Offset : V::kQ4Offset;
  }

  // Σ_{k∈span} x_q (q - z) from Σ x_q u: minus (offset + z) Σ x_q.
  template <WeightFormat Fmt, bool Zp>
  static inline __attribute__((always_inline)) I exact_sum(I dot, I zi, int32_t xsum) {
    I t = V::isub(dot, V::iset1(offset<Fmt>() * xsum));
    if constexpr (Zp) t = V::isub(t, V::imul(zi, V::iset1(xsum)));
    return t;
  }

  // kInt8PerToken, R rows: out[r] = s_x (Σ_g s_g t_g - z_x R) + bias, as
  // the portable path rounds it.
  template <int R, WeightFormat Fmt, bool Zp>
  static void rows_per_token(const Ctx& c, const uint8_t* panel, int64_t m0, F bias, F* out) {
    constexpr int kpb = static_cast<int>(k_per_block(Fmt));
    constexpr int kAcc = Fmt == WeightFormat::kQ8 ? 1 : 2;
    const WeightLayout& w = *c.w;
    const Prepared& x = *c.x;
    const int8_t* xq[R];
    for (int r = 0; r < R; ++r) xq[r] = x.xq + (m0 + r) * x.xq_stride;
    const uint8_t* p = panel + w.panel_header_bytes;
    F y[R];
    for (auto& v : y) v = V::fzero();
    int64_t k = 0;
    for (int64_t g = 0; g < w.groups; ++g) {
      const F s = V::fload(p);
      p += kScaleBytes;
      I zi = V::izero();
      if constexpr (Zp) {
        zi = V::load_i8x16(reinterpret_cast<const int8_t*>(p));
        p += kZeroPointBytes;
      }
      I acc[R][kAcc];
      for (auto& row : acc) {
        for (auto& v : row) v = V::izero();
      }
      const int64_t blocks = group_k(w, g) / kpb;  // a shift, not a division
      for (int64_t b = 0; b < blocks; ++b, p += kBlockBytes, k += kpb) {
        prefetch(p);
        const I wv = V::iload(p);
        unroll<R>([&](auto r) KILN_TUNED_INLINE { dot_block<Fmt>(wv, xq[r] + k, acc[r]); });
      }
      unroll<R>([&](auto r) KILN_TUNED_INLINE {
        I dot = acc[r][0];
        if constexpr (kAcc == 2) dot = V::iadd(dot, acc[r][1]);
        const I t = exact_sum<Fmt, Zp>(dot, zi, x.xsum[(m0 + r) * x.xsum_stride + g]);
        y[r] = V::fmadd(V::cvt(t), s, y[r]);
      });
    }
    const F row_constant = V::fload(panel);
    for (int r = 0; r < R; ++r) {
      const float sx = x.sx[m0 + r];
      const float zterm = -(sx * static_cast<float>(x.zx[m0 + r]));
      out[r] = V::fmadd(y[r], V::fset1(sx), V::fmadd(row_constant, V::fset1(zterm), bias));
    }
  }

  // kInt8Block32, R rows: out[r] = Σ_g s_g Σ_b d_b t_b + bias.
  template <int R, WeightFormat Fmt, bool Zp>
  static void rows_block32(const Ctx& c, const uint8_t* panel, int64_t m0, F bias, F* out) {
    constexpr int kpb = static_cast<int>(k_per_block(Fmt));
    constexpr int kAcc = Fmt == WeightFormat::kQ8 ? 1 : 2;
    constexpr int kBlocksPer32 = static_cast<int>(kKAlign) / kpb;
    const WeightLayout& w = *c.w;
    const Prepared& x = *c.x;
    const int8_t* xq[R];
    for (int r = 0; r < R; ++r) xq[r] = x.xq + (m0 + r) * x.xq_stride;
    const uint8_t* p = panel + w.panel_header_bytes;
    F y[R];
    for (auto& v : y) v = V::fzero();
    int64_t k = 0;
    for (int64_t g = 0; g < w.groups; ++g) {
      const F s = V::fload(p);
      p += kScaleBytes;
      F cf = V::fset1(static_cast<float>(offset<Fmt>()));
      if constexpr (Zp) {
        cf = V::fadd(cf, V::cvt(V::load_i8x16(reinterpret_cast<const int8_t*>(p))));
        p += kZeroPointBytes;
      }
      F ag[R];
      for (auto& v : ag) v = V::fzero();
      const int64_t spans = group_k(w, g) / kKAlign;
      for (int64_t span = 0; span < spans; ++span) {
        I acc[R][kAcc];
        for (auto& row : acc) {
          for (auto& v : row) v = V::izero();
        }
        for (int b = 0; b < kBlocksPer32; ++b, p += kBlockBytes, k += kpb) {
          prefetch(p);
          const I wv = V::iload(p);
          unroll<R>([&](auto r) KILN_TUNED_INLINE { dot_block<Fmt>(wv, xq[r] + k, acc[r]); });
        }
        const int64_t block = k / kKAlign - 1;
        unroll<R>([&](auto r) KILN_TUNED_INLINE {
          I dot = acc[r][0];
          if constexpr (kAcc == 2) dot = V::iadd(dot, acc[r][1]);
          const int64_t at = (m0 + r) * x.xsum_stride + block;
          // Exact: |t| < 2^24 within a block of 32.
          const F t = V::fnmadd(cf, V::fset1(static_cast<float>(x.xsum[at])), V::cvt(dot));
          ag[r] = V::fmadd(t, V::fset1(x.dscale[at]), ag[r]);
        });
      }
      for (int r = 0; r < R; ++r) y[r] = V::fmadd(ag[r], s, y[r]);
    }
    for (int r = 0; r < R; ++r) out[r] = V::fadd(y[r], bias);
  }

  // ---------------- driver ----------------

  template <int R, int P>
  static void float_rows(const Ctx& c, const uint8_t* const* panels, int64_t m0, const F* bias, F (*out)[R]) {
    const WeightLayout& w = *c.w;
    const bool zp = w.zero_points;
    const float* x[R];
    for (int r = 0; r < R; ++r) x[r] = c.x->xf + (m0 + r) * c.x->xf_stride;
    if (w.format == WeightFormat::kF32) {
      rows_f32<R, P>(c, panels, x, out);
    } else if (w.format == WeightFormat::kQ8) {
      zp ? rows_quant_float<R, P, WeightFormat::kQ8, true>(c, panels, x, out)
         : rows_quant_float<R, P, WeightFormat::kQ8, false>(c, panels, x, out);
    } else {
      zp ? rows_quant_float<R, P, WeightFormat::kQ4, true>(c, panels, x, out)
         : rows_quant_float<R, P, WeightFormat::kQ4, false>(c, panels, x, out);
    }
    for (int p = 0; p < P; ++p) {
      for (int r = 0; r < R; ++r) out[p][r] = V::fadd(out[p][r], bias[p]);
    }
  }

  template <int R>
  static void int_rows(const Ctx& c, const uint8_t* panel, int64_t m0, F bias, F* out) {
    const WeightLayout& w = *c.w;
    const bool zp = w.zero_points;
    if (c.a->mode == ActivationMode::kInt8PerToken) {
      if (w.format == WeightFormat::kQ8) {
        zp ? rows_per_token<R, WeightFormat::kQ8, true>(c, panel, m0, bias, out)
           : rows_per_token<R, WeightFormat::kQ8, false>(c, panel, m0, bias, out);
      } else {
        zp ? rows_per_token<R, WeightFormat::kQ4, true>(c, panel, m0, bias, out)
           : rows_per_token<R, WeightFormat::kQ4, false>(c, panel, m0, bias, out);
      }
      return;
    }
    if (w.format == WeightFormat::kQ8) {
      zp ? rows_block32<R, WeightFormat::kQ8, true>(c, panel, m0, bias, out)
         : rows_block32<R, WeightFormat::kQ8, false>(c, panel, m0, bias, out);
    } else {
      zp ? rows_block32<R, WeightFormat::kQ4, true>(c, panel, m0, bias, out)
         : rows_block32<R, WeightFormat::kQ4, false>(c, panel, m0, bias, out);
    }
  }

  // One row with float activations: the GEMV kernels.
  static F gemv_float(const Ctx& c, const uint8_t* panel, int64_t m0) {
    const WeightLayout& w = *c.w;
    const float* x = c.x->xf + m0 * c.x->xf_stride;
    const float* xsum = c.x->xsumf != nullptr ? c.x->xsumf + m0 * c.x->xsum_stride : nullptr;
    if (w.format == WeightFormat::kF32) return gemv_f32(c, panel, x);
    if (w.format == WeightFormat::kQ8) {
      return w.zero_points ? gemv_quant_float<WeightFormat::kQ8, true>(c, panel, x, xsum)
                           : gemv_quant_float<WeightFormat::kQ8, false>(c, panel, x, xsum);
    }
    return w.zero_points ? gemv_quant_float<WeightFormat::kQ4, true>(c, panel, x, xsum)
                         : gemv_quant_float<WeightFormat::kQ4, false>(c, panel, x, xsum);
  }

  static void store(const LinearArgs& a, const WeightLayout& w, int64_t panel, int64_t m, F v) {
    float* y = a.y + m * a.y_stride + panel * kPanelRows;
    const int64_t valid = w.n - panel * kPanelRows;
    if (valid >= kPanelRows) {
      V::fstore(y, v);
    } else {
      alignas(64) float tmp[kPanelRows];
      V::fstore(tmp, v);
      std::memcpy(y, tmp, static_cast<size_t>(valid) * 4);
    }
  }

  static F load_bias(const LinearArgs& a, const WeightLayout& w, int64_t panel) {
    if (a.bias == nullptr) return V::fzero();
    const int64_t valid = w.n - panel * kPanelRows;
    if (valid >= kPanelRows) return V::fload(a.bias + panel * kPanelRows);
    alignas(64) float tmp[kPanelRows] = {};
    std::memcpy(tmp, a.bias + panel * kPanelRows, static_cast<size_t>(valid) * 4);
    return V::fload(tmp);
  }

  // Rows [m0, m0 + R) of panels [panel, panel + P) (P > 1: float only).
  template <int R, int P>
  static void rows_and_store(const Ctx& c, int64_t panel, int64_t m0, const F* bias) {
    const LinearArgs& a = *c.a;
    const uint8_t* panels[P];
    for (int p = 0; p < P; ++p) panels[p] = a.packed + (panel + p) * c.w->panel_bytes;
    F out[P][R];
    if constexpr (P == 1) {
      if (a.mode != ActivationMode::kFloat) {
        int_rows<R>(c, panels[0], m0, bias[0], out[0]);
      } else {
        float_rows<R, 1>(c, panels, m0, bias, out);
      }
    } else {
      float_rows<R, P>(c, panels, m0, bias, out);
    }
    for (int p = 0; p < P; ++p) {
      for (int r = 0; r < R; ++r) store(a, *c.w, panel + p, m0 + r, out[p][r]);
    }
  }

  // Rows [m0, m0 + count) for count < Rows: the tail.
  template <int Rows, int P, int R = 1>
  static void tail(const Ctx& c, int64_t panel, int64_t m0, int64_t count, const F* bias) {
    if constexpr (R < Rows) {
      if (count == R) {
        rows_and_store<R, P>(c, panel, m0, bias);
      } else {
        tail<Rows, P, R + 1>(c, panel, m0, count, bias);
      }
    }
  }

  template <int Rows, int P>
  static void all_rows(const Ctx& c, int64_t panel) {
    F bias[P];
    for (int p = 0; p < P; ++p) bias[p] = load_bias(*c.a, *c.w, panel + p);
    int64_t m0 = 0;
    for (; m0 + Rows <= c.a->m; m0 += Rows) rows_and_store<Rows, P>(c, panel, m0, bias);
    if (m0 < c.a->m) tail<Rows, P>(c, panel, m0, c.a->m - m0, bias);
  }

  static void run(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
    const Ctx c{&w, &x, &a};
    if (a.mode != ActivationMode::kFloat) {
      for (int64_t panel = p0; panel < p1; ++panel) all_rows<V::kRowsInt, 1>(c, panel);
      return;
    }
    if (a.m == 1) {
      for (int64_t panel = p0; panel < p1; ++panel) {
        const F out = gemv_float(c, a.packed + panel * w.panel_bytes, 0);
        store(a, w, panel, 0, V::fadd(out, load_bias(a, w, panel)));
      }
      return;
    }
    int64_t panel = p0;
    for (; panel + V::kPanels <= p1; panel += V::kPanels) all_rows<V::kRows, V::kPanels>(c, panel);
    for (; panel < p1; ++panel) all_rows<V::kRows, 1>(c, panel);
  }
};

}  // namespace kiln::kernels::tuned::detail
