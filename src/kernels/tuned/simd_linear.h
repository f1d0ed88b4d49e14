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
      unroll<8>([&](auto j) { acc[j] = V::fmadd(V::fload(blk + (i + j) * kPanelRows), V::fset1(x[i + j]), acc[j]); });
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
        const I wv = V::iload(p);
        unroll<kpb>([&](auto j) { acc[j] = V::fmadd(q_float<Fmt, j>(wv), V::fset1(x[k + j]), acc[j]); });
      }
      F sum = V::fadd(V::fadd(acc[0], acc[1]), V::fadd(acc[2], acc[3]));
      if constexpr (kpb == 8) sum = V::fadd(sum, V::fadd(V::fadd(acc[4], acc[5]), V::fadd(acc[6], acc[7])));
      if constexpr (Zp) sum = V::fnmadd(zf, V::fset1(xsum[g]), sum);
      y = V::fmadd(sum, s, y);
    }
    return y;
  }

  // R rows of f32 weights: out[r] = Σ_k x_r[k] w[k].
  template <int R>
  static void rows_f32(const Ctx& c, const uint8_t* panel, const float* const* x, F* out) {
    F acc[R];
    for (auto& v : acc) v = V::fzero();
    const auto* blk = reinterpret_cast<const float*>(panel);
    for (int64_t k = 0; k < c.w->k; ++k) {
      const F wf = V::fload(blk + k * kPanelRows);
      unroll<R>([&](auto r) { acc[r] = V::fmadd(wf, V::fset1(x[r][k]), acc[r]); });
    }
    for (int r = 0; r < R; ++r) out[r] = acc[r];
  }

  // R rows of quantized weights dequantized as PyTorch does, (q - z) * s,
  // once per k for all R rows.
  template <int R, WeightFormat Fmt, bool Zp>
  static void rows_quant_float(const Ctx& c, const uint8_t* panel, const float* const* x, F* out) {
    constexpr int kpb = static_cast<int>(k_per_block(Fmt));
    const WeightLayout& w = *c.w;
    const uint8_t* p = panel + w.panel_header_bytes;
    F acc[R];
    for (auto& v : acc) v = V::fzero();
    int64_t k = 0;
    for (int64_t g = 0; g < w.groups; ++g) {
      const F s = V::fload(p);
      p += kScaleBytes;
      F zf = V::fzero();
      if constexpr (Zp) {
        zf = V::cvt(V::load_i8x16(reinterpret_cast<const int8_t*>(p)));
        p += kZeroPointBytes;
      }
      const int64_t blocks = group_k(w, g) / kpb;  // a shift, not a division
      for (int64_t b = 0; b < blocks; ++b, p += kBlockBytes, k += kpb) {
        const I wv = V::iload(p);
        unroll<kpb>([&](auto j) {
          F wf = q_float<Fmt, j>(wv);
          if constexpr (Zp) wf = V::fsub(wf, zf);
          wf = V::fmul(wf, s);
          unroll<R>([&](auto r) { acc[r] = V::fmadd(wf, V::fset1(x[r][k + j]), acc[r]); });
        });
      }
    }
    for (int r = 0; r < R; ++r) out[r] = acc[r];
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
        const I wv = V::iload(p);
        unroll<R>([&](auto r) { dot_block<Fmt>(wv, xq[r] + k, acc[r]); });
      }
      unroll<R>([&](auto r) {
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
          const I wv = V::iload(p);
          unroll<R>([&](auto r) { dot_block<Fmt>(wv, xq[r] + k, acc[r]); });
        }
        const int64_t block = k / kKAlign - 1;
        unroll<R>([&](auto r) {
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

  template <int R>
  static void rows(const Ctx& c, const uint8_t* panel, int64_t m0, F bias, F* out) {
    const LinearArgs& a = *c.a;
    const WeightLayout& w = *c.w;
    const bool zp = w.zero_points;
    if (a.mode == ActivationMode::kFloat) {
      const float* x[R];
      for (int r = 0; r < R; ++r) x[r] = c.x->xf + (m0 + r) * c.x->xf_stride;
      if (w.format == WeightFormat::kF32) {
        rows_f32<R>(c, panel, x, out);
      } else if (w.format == WeightFormat::kQ8) {
        zp ? rows_quant_float<R, WeightFormat::kQ8, true>(c, panel, x, out)
           : rows_quant_float<R, WeightFormat::kQ8, false>(c, panel, x, out);
      } else {
        zp ? rows_quant_float<R, WeightFormat::kQ4, true>(c, panel, x, out)
           : rows_quant_float<R, WeightFormat::kQ4, false>(c, panel, x, out);
      }
      for (int r = 0; r < R; ++r) out[r] = V::fadd(out[r], bias);
      return;
    }
    if (a.mode == ActivationMode::kInt8PerToken) {
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

  template <int R>
  static void rows_and_store(const Ctx& c, const uint8_t* panel_data, int64_t panel, int64_t m0, F bias) {
    F out[R];
    rows<R>(c, panel_data, m0, bias, out);
    for (int r = 0; r < R; ++r) store(*c.a, *c.w, panel, m0 + r, out[r]);
  }

  // Rows [m0, m0 + count) of one panel, count < Rows: the tail.
  template <int Rows, int R = 1>
  static void tail(const Ctx& c, const uint8_t* panel_data, int64_t panel, int64_t m0, int64_t count, F bias) {
    if constexpr (R < Rows) {
      if (count == R) {
        rows_and_store<R>(c, panel_data, panel, m0, bias);
      } else {
        tail<Rows, R + 1>(c, panel_data, panel, m0, count, bias);
      }
    }
  }

  template <int Rows>
  static void all_rows(const Ctx& c, const uint8_t* panel_data, int64_t panel, F bias) {
    int64_t m0 = 0;
    for (; m0 + Rows <= c.a->m; m0 += Rows) rows_and_store<Rows>(c, panel_data, panel, m0, bias);
    if (m0 < c.a->m) tail<Rows>(c, panel_data, panel, m0, c.a->m - m0, bias);
  }

  static void run(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
    const Ctx c{&w, &x, &a};
    for (int64_t panel = p0; panel < p1; ++panel) {
      const uint8_t* data = a.packed + panel * w.panel_bytes;
      const F bias = load_bias(a, w, panel);
      if (a.mode != ActivationMode::kFloat) {
        all_rows<V::kRowsInt>(c, data, panel, bias);
      } else if (a.m == 1) {
        store(a, w, panel, 0, V::fadd(gemv_float(c, data, 0), bias));
      } else {
        all_rows<V::kRows>(c, data, panel, bias);
      }
    }
  }
};

}  // namespace kiln::kernels::tuned::detail
