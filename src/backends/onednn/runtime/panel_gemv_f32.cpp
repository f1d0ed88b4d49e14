#include "backends/onednn/runtime/panel_gemv_f32.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <immintrin.h>

#include "backends/onednn/runtime/packed_layout.h"

namespace kiln::backends::onednn {

namespace {

using Activation = KernelActivation::Kind;

// e^v for v in float's range, branch-free so that the loops over a panel
// vectorize: e^v = 2^n e^r, n = round(v / ln 2), |r| <= ln 2 / 2, e^r by
// its Taylor polynomial to r^7 (relative error below 2e-7). n is rounded by
// adding and taking away 1.5 * 2^23: a call to floor does not vectorize
// without -ffast-math (a sigmoid of 1152 outputs: 3.5 us, then 0.9 us).
inline float exp_of(float v) {
  v = std::min(std::max(v, -87.0f), 88.0f);
  constexpr float kRound = 12582912.0f;
  const float n = (v * 1.44269504f + kRound) - kRound;
  const float r = v - n * 0.693145752f - n * 1.42860677e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// The P = 16 Z sums of one panel into v, on AVX-512: four sets of Z
// registers (four consecutive k at a time), named so that they stay in
// registers. GCC's code for the portable loop below keeps them in memory
// at -O2 (about 18 GMAC/s on a squeeze-excitation's products).
template <int Z>
__attribute__((target("avx512f"))) void panel_sums_avx512(const float* x, const float* w, int64_t k, float* v) {
  constexpr int P = 16 * Z;
  __m512 a0[Z], a1[Z], a2[Z], a3[Z];
#pragma GCC unroll 4
  for (int z = 0; z < Z; ++z) a0[z] = a1[z] = a2[z] = a3[z] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const float* row = w + i * P;
    const __m512 x0 = _mm512_set1_ps(x[i]), x1 = _mm512_set1_ps(x[i + 1]);
    const __m512 x2 = _mm512_set1_ps(x[i + 2]), x3 = _mm512_set1_ps(x[i + 3]);
#pragma GCC unroll 4
    for (int z = 0; z < Z; ++z) {
      a0[z] = _mm512_fmadd_ps(_mm512_loadu_ps(row + 16 * z), x0, a0[z]);
      a1[z] = _mm512_fmadd_ps(_mm512_loadu_ps(row + P + 16 * z), x1, a1[z]);
      a2[z] = _mm512_fmadd_ps(_mm512_loadu_ps(row + 2 * P + 16 * z), x2, a2[z]);
      a3[z] = _mm512_fmadd_ps(_mm512_loadu_ps(row + 3 * P + 16 * z), x3, a3[z]);
    }
  }
  for (; i < k; ++i) {
    const __m512 xi = _mm512_set1_ps(x[i]);
#pragma GCC unroll 4
    for (int z = 0; z < Z; ++z) a0[z] = _mm512_fmadd_ps(_mm512_loadu_ps(w + i * P + 16 * z), xi, a0[z]);
  }
#pragma GCC unroll 4
  for (int z = 0; z < Z; ++z) {
    _mm512_storeu_ps(v + 16 * z, _mm512_add_ps(_mm512_add_ps(a0[z], a1[z]), _mm512_add_ps(a2[z], a3[z])));
  }
}

// The P = 8 Y sums of one panel into v, on AVX2 with FMA: S sets of Y
// registers (S consecutive k at a time), at most eight accumulators of the
// sixteen registers so that the rows' loads and x's broadcasts fit beside
// them: eight independent chains for panels of 16 or 32, six for 24.
template <int Y>
__attribute__((target("avx2,fma"))) void panel_sums_avx2(const float* x, const float* w, int64_t k, float* v) {
  constexpr int P = 8 * Y;
  constexpr int S = Y <= 2 ? 4 : Y <= 4 ? 2 : 1;
  __m256 a0[Y], a1[Y], a2[Y], a3[Y];
#pragma GCC unroll 8
  for (int y = 0; y < Y; ++y) a0[y] = a1[y] = a2[y] = a3[y] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + S <= k; i += S) {
    const float* row = w + i * P;
    const __m256 x0 = _mm256_broadcast_ss(x + i);
#pragma GCC unroll 8
    for (int y = 0; y < Y; ++y) a0[y] = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8 * y), x0, a0[y]);
    if constexpr (S >= 2) {
      const __m256 x1 = _mm256_broadcast_ss(x + i + 1);
#pragma GCC unroll 8
      for (int y = 0; y < Y; ++y) a1[y] = _mm256_fmadd_ps(_mm256_loadu_ps(row + P + 8 * y), x1, a1[y]);
    }
    if constexpr (S == 4) {
      const __m256 x2 = _mm256_broadcast_ss(x + i + 2), x3 = _mm256_broadcast_ss(x + i + 3);
#pragma GCC unroll 8
      for (int y = 0; y < Y; ++y) {
        a2[y] = _mm256_fmadd_ps(_mm256_loadu_ps(row + 2 * P + 8 * y), x2, a2[y]);
        a3[y] = _mm256_fmadd_ps(_mm256_loadu_ps(row + 3 * P + 8 * y), x3, a3[y]);
      }
    }
  }
  for (; i < k; ++i) {
    const __m256 xi = _mm256_broadcast_ss(x + i);
#pragma GCC unroll 8
    for (int y = 0; y < Y; ++y) a0[y] = _mm256_fmadd_ps(_mm256_loadu_ps(w + i * P + 8 * y), xi, a0[y]);
  }
#pragma GCC unroll 8
  for (int y = 0; y < Y; ++y) {
    _mm256_storeu_ps(v + 8 * y, _mm256_add_ps(_mm256_add_ps(a0[y], a1[y]), _mm256_add_ps(a2[y], a3[y])));
  }
}

// One panel: P sums, four of them per column (four consecutive k at a time)
// so that the adds of one chain do not wait on each other: on AVX-512 by
// panel_sums_avx512 (panels of a multiple of 16), on AVX2 by panel_sums_avx2
// (and AVX-512's panels of 8 and 24), elsewhere by the portable loop (one
// clone per ISA; its sums stay in memory at -O2). The activation runs over
// the whole panel, a trip count the vectorizer knows.
template <int P>
__attribute__((target_clones("avx512f", "avx2", "default"))) void panel_dots(const PanelGemvF32& g, const float* x,
                                                                              const float* w, const float* bias,
                                                                              float* y, int64_t valid,
                                                                              PanelGemvF32::Path path) {
  const int64_t k = g.k;
  float a0[P] = {}, a1[P] = {}, a2[P] = {}, a3[P] = {};
  int64_t i = 0;
  if constexpr (P % 16 == 0) {
    if (path == PanelGemvF32::Path::kAvx512) {
      panel_sums_avx512<P / 16>(x, w, k, a0);
      i = k;
    }
  }
  if (i == 0 && path != PanelGemvF32::Path::kPortable) {
    panel_sums_avx2<P / 8>(x, w, k, a0);
    i = k;
  }
  for (; i + 4 <= k; i += 4) {
    const float* row = w + i * P;
    const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
    for (int j = 0; j < P; ++j) {
      a0[j] += x0 * row[j];
      a1[j] += x1 * row[P + j];
      a2[j] += x2 * row[2 * P + j];
      a3[j] += x3 * row[3 * P + j];
    }
  }
  for (; i < k; ++i) {
    for (int j = 0; j < P; ++j) a0[j] += x[i] * w[i * P + j];
  }
  // Whole panels (all but the last) copy with trip counts the vectorizer knows.
  float b[P] = {};
  if (bias != nullptr && valid == P) {
    for (int j = 0; j < P; ++j) b[j] = bias[j];
  } else if (bias != nullptr) {
    for (int64_t j = 0; j < valid; ++j) b[j] = bias[j];
  }
  float v[P];
  for (int j = 0; j < P; ++j) v[j] = (a0[j] + a1[j]) + (a2[j] + a3[j]) + b[j];
  const float alpha = g.activation.alpha, beta = g.activation.beta;
  switch (g.activation.kind) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      for (int j = 0; j < P; ++j) v[j] = v[j] < 0 ? v[j] * alpha : v[j];
      break;
    case Activation::kClip:
      for (int j = 0; j < P; ++j) v[j] = std::min(std::max(v[j], alpha), beta);
      break;
    case Activation::kHardSwish:
      for (int j = 0; j < P; ++j) v[j] *= std::min(std::max(alpha * v[j] + beta, 0.0f), 1.0f);
      break;
    case Activation::kHardSigmoid:
      for (int j = 0; j < P; ++j) v[j] = std::min(std::max(alpha * v[j] + beta, 0.0f), 1.0f);
      break;
    case Activation::kLogistic:
      for (int j = 0; j < P; ++j) v[j] = 1.0f / (1.0f + exp_of(-v[j]));
      break;
    case Activation::kSwish:
      for (int j = 0; j < P; ++j) v[j] = v[j] / (1.0f + exp_of(-alpha * v[j]));
      break;
  }
  if (valid == P) {
    for (int j = 0; j < P; ++j) y[j] = v[j];
  } else {
    for (int64_t j = 0; j < valid; ++j) y[j] = v[j];
  }
}

template <int P>
void run_panels(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                int64_t first, int64_t last, PanelGemvF32::Path path) {
  for (int64_t p = first; p < last; ++p) {
    const int64_t n0 = p * P;
    const int64_t valid = g.n - n0 < P ? g.n - n0 : P;
    panel_dots<P>(g, x, weights + p * g.panel_stride, bias != nullptr ? bias + n0 : nullptr, y + n0, valid, path);
  }
}

}  // namespace

bool panel_gemv_f32_of(const_dnnl_memory_desc_t weights, int k_dim, int n_dim, PanelGemvF32* shape, const char** why) {
  const auto refuse = [&](const char* reason) {
    *why = reason;
    return false;
  };
  Blocking w;
  if (!float_blocking(weights, &w)) return refuse("the weights are not float32 in a blocked layout");
  if (k_dim < 0 || n_dim < 0 || k_dim >= w.ndims || n_dim >= w.ndims || k_dim == n_dim) {
    return refuse("the weights have no such dimensions");
  }
  for (int d = 0; d < w.ndims; ++d) {
    if (d != k_dim && d != n_dim && w.dims[d] != 1) return refuse("the weights are a batch of matrices");
  }
  // Inner blocks: (kb of K,) then P of N, innermost.
  int64_t kb = 1;
  if (w.inner_nblks == 2 && w.inner_indices[0] == k_dim && w.inner_indices[1] == n_dim) {
    kb = w.inner_blocks[0];
  } else if (w.inner_nblks != 1 || w.inner_indices[0] != n_dim) {
    return refuse("the weights are not in panels of outputs");
  }
  const int64_t panel = w.inner_blocks[w.inner_nblks - 1];
  if (panel != 8 && panel != 16 && panel != 24 && panel != 32 && panel != 48 && panel != 64) {
    return refuse("the weights' panels are not 8, 16, 24, 32, 48 or 64 outputs wide");
  }
  if (w.strides[k_dim] != kb * panel || w.strides[n_dim] < w.dims[k_dim] * panel) {
    return refuse("a panel's rows of weights are not contiguous");
  }
  shape->k = w.dims[k_dim];
  shape->n = w.dims[n_dim];
  shape->panel = panel;
  shape->panel_stride = w.strides[n_dim];
  return true;
}

PanelGemvF32::Path PanelGemvF32::best_path() {
  static const Path best = __builtin_cpu_supports("avx512f")                                  ? Path::kAvx512
                           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? Path::kAvx2
                                                                                             : Path::kPortable;
  return best;
}

void run_panel_gemv_f32(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                        int64_t first, int64_t last, PanelGemvF32::Path path) {
  switch (g.panel) {
    case 8:
      return run_panels<8>(g, x, weights, bias, y, first, last, path);
    case 16:
      return run_panels<16>(g, x, weights, bias, y, first, last, path);
    case 24:
      return run_panels<24>(g, x, weights, bias, y, first, last, path);
    case 32:
      return run_panels<32>(g, x, weights, bias, y, first, last, path);
    case 48:
      return run_panels<48>(g, x, weights, bias, y, first, last, path);
    default:
      return run_panels<64>(g, x, weights, bias, y, first, last, path);
  }
}

}  // namespace kiln::backends::onednn
