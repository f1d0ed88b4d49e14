// linear_rows_f32: float weights read in PyTorch's row-major layout, four
// rows at a time against each row of x, with sixteen partial sums per row
// that the compiler keeps in vector registers (one clone per x86 ISA; NEON
// is aarch64's baseline). Strict float math: the lanes are independent, no
// sum is reassociated.
#include "kernels/tuned/linear.h"

namespace kiln::kernels::tuned {
namespace {

#if defined(__x86_64__) && !defined(__clang__)
#define KILN_ROWS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_ROWS_CLONES
#endif

constexpr int64_t kLanes = 16;

float reduce(const float* partial, float tail) {
  float sum = tail;
  for (int64_t j = 0; j < kLanes; ++j) sum += partial[j];
  return sum;
}

KILN_ROWS_CLONES void rows(const float* x, int64_t m, int64_t x_stride, const float* w, int64_t k, const float* bias,
                           float* y, int64_t y_stride, int64_t n_begin, int64_t n_end) {
  int64_t n = n_begin;
  for (; n + 4 <= n_end; n += 4) {
    const float* w0 = w + n * k;
    const float* w1 = w0 + k;
    const float* w2 = w1 + k;
    const float* w3 = w2 + k;
    for (int64_t r = 0; r < m; ++r) {
      const float* xr = x + r * x_stride;
      float p0[kLanes] = {}, p1[kLanes] = {}, p2[kLanes] = {}, p3[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= k; i += kLanes) {
        for (int64_t j = 0; j < kLanes; ++j) {
          const float xv = xr[i + j];
          p0[j] += w0[i + j] * xv;
          p1[j] += w1[i + j] * xv;
          p2[j] += w2[i + j] * xv;
          p3[j] += w3[i + j] * xv;
        }
      }
      float t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      for (; i < k; ++i) {
        t0 += w0[i] * xr[i];
        t1 += w1[i] * xr[i];
        t2 += w2[i] * xr[i];
        t3 += w3[i] * xr[i];
      }
      float* yr = y + r * y_stride + n;
      yr[0] = reduce(p0, t0) + (bias != nullptr ? bias[n] : 0.0f);
      yr[1] = reduce(p1, t1) + (bias != nullptr ? bias[n + 1] : 0.0f);
      yr[2] = reduce(p2, t2) + (bias != nullptr ? bias[n + 2] : 0.0f);
      yr[3] = reduce(p3, t3) + (bias != nullptr ? bias[n + 3] : 0.0f);
    }
  }
  for (; n < n_end; ++n) {
    const float* wn = w + n * k;
    for (int64_t r = 0; r < m; ++r) {
      const float* xr = x + r * x_stride;
      float p[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= k; i += kLanes) {
        for (int64_t j = 0; j < kLanes; ++j) p[j] += wn[i + j] * xr[i + j];
      }
      float t = 0;
      for (; i < k; ++i) t += wn[i] * xr[i];
      y[r * y_stride + n] = reduce(p, t) + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

}  // namespace

void linear_rows_f32(const float* x, int64_t m, int64_t x_stride, const float* w, int64_t k, const float* bias,
                     float* y, int64_t y_stride, int64_t n_begin, int64_t n_end) {
  rows(x, m, x_stride, w, k, bias, y, y_stride, n_begin, n_end);
}

}  // namespace kiln::kernels::tuned
