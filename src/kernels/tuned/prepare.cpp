// Reads the activations into the scratch once per call, for every path:
// padded float rows and their group sums, or the rows quantized to int8. The
// quantization follows torchao's float32 arithmetic step by step (see
// quantize_per_token), so the int8 values are torchao's own.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/tuned/layout.h"
#include "kernels/tuned/linear.h"

namespace kiln::kernels::tuned {

namespace detail {

namespace {

constexpr int64_t kAlign = 64;

int64_t take(int64_t* total, int64_t bytes) {
  const int64_t at = *total;
  *total = round_up(at + bytes, kAlign);
  return at;
}

}  // namespace

ScratchLayout scratch_layout(const WeightLayout& w, ActivationMode mode, int64_t m) {
  ScratchLayout s;
  if (mode == ActivationMode::kFloat) {
    if (w.kpad != w.k) {
      s.xf_stride = w.kpad;
      s.xf = take(&s.total, m * w.kpad * 4);
    }
    if (w.zero_points) {
      s.xsum_stride = w.groups;
      s.xsumf = take(&s.total, m * w.groups * 4);
    }
    return s;
  }
  s.xq_stride = round_up(w.kpad, kAlign);
  s.xq = take(&s.total, m * s.xq_stride);
  s.xsum_stride = mode == ActivationMode::kInt8PerToken ? w.groups : w.kpad / kKAlign;
  s.xsum = take(&s.total, m * s.xsum_stride * 4);
  if (mode == ActivationMode::kInt8Block32) {
    s.dscale = take(&s.total, m * s.xsum_stride * 4);
  } else {
    s.sx = take(&s.total, m * 4);
    s.zx = take(&s.total, m * 4);
  }
  return s;
}

Prepared prepared_view(const LinearArgs& args, const WeightLayout& w) {
  const ScratchLayout s = scratch_layout(w, args.mode, args.m);
  auto* base = static_cast<uint8_t*>(args.scratch);
  auto at = [base](int64_t offset) { return offset < 0 ? nullptr : base + offset; };
  Prepared p;
  p.xf = s.xf >= 0 ? reinterpret_cast<const float*>(at(s.xf)) : args.x;
  p.xf_stride = s.xf >= 0 ? s.xf_stride : args.x_stride;
  p.xsumf = reinterpret_cast<const float*>(at(s.xsumf));
  p.xq = reinterpret_cast<const int8_t*>(at(s.xq));
  p.xq_stride = s.xq_stride;
  p.xsum = reinterpret_cast<const int32_t*>(at(s.xsum));
  p.xsum_stride = s.xsum_stride;
  p.dscale = reinterpret_cast<const float*>(at(s.dscale));
  p.sx = reinterpret_cast<const float*>(at(s.sx));
  p.zx = reinterpret_cast<const int32_t*>(at(s.zx));
  return p;
}

}  // namespace detail

namespace {

using detail::ScratchLayout;
using detail::WeightLayout;

template <typename T>
T* at(void* scratch, int64_t offset) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(scratch) + offset);
}

// torch.round: half to even. Adding and taking away 1.5 * 2^23 leaves a
// float with no fraction bits, rounded in the default mode (to nearest,
// ties to even); a value past 2^22 needs no rounding that matters here (the
// callers clamp to int8's range). Inline and vectorisable, unlike a call to
// nearbyint on x86-64's baseline.
float round_even(float v) {
  constexpr float kMagic = 12582912.0f;
  return std::fabs(v) < 4194304.0f ? (v + kMagic) - kMagic : v;
}

// NaN goes to lo: every activation becomes some int8 value.
float clampf(float v, float lo, float hi) {
  v = v > lo ? v : lo;
  return v < hi ? v : hi;
}

// choose_qparams_affine (ASYMMETRIC, int8, per token) and quantize_affine, in
// torchao's float32 steps: scale = (max(x, 0) - min(x, 0)) / 255, at least
// eps; z = clamp(-128 - round(min / scale)); q = clamp(round(x * (1 / scale))
// + z).
// Sixteen lanes of minima and maxima, one per vector lane, so that the
// compiler vectorizes the scan (a single running min is a chain it keeps
// scalar); each clone compiled for its ISA (x86-64; aarch64's baseline has NEON).
#if defined(__x86_64__) && !defined(__clang__)
#define KILN_PREPARE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_PREPARE_CLONES
#endif

KILN_PREPARE_CLONES void quantize_per_token(const float* x, int64_t k, float eps, int8_t* q, float* scale,
                                            int32_t* zero) {
  constexpr int64_t kLanes = 16;
  float lows[kLanes] = {}, highs[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      // std::min's and std::max's choices, NaN included (it is passed over).
      lows[j] = x[i + j] < lows[j] ? x[i + j] : lows[j];
      highs[j] = highs[j] < x[i + j] ? x[i + j] : highs[j];
    }
  }
  float lo = 0.0f, hi = 0.0f;
  for (; i < k; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  for (int64_t j = 0; j < kLanes; ++j) {
    lo = std::min(lo, lows[j]);
    hi = std::max(hi, highs[j]);
  }
  const float s = std::max((hi - lo) / 255.0f, eps);
  const float z = clampf(-128.0f - round_even(lo / s), -128.0f, 127.0f);
  const float inverse = 1.0f / s;
  for (i = 0; i < k; ++i) q[i] = static_cast<int8_t>(clampf(round_even(x[i] * inverse) + z, -128.0f, 127.0f));
  *scale = s;
  *zero = static_cast<int32_t>(z);
}

// Symmetric per block of 32: d = max|x| / 127, q = round(x / d).
void quantize_block32(const float* x, int64_t k, int8_t* q, float* d) {
  for (int64_t b = 0; b * detail::kKAlign < k; ++b) {
    const int64_t begin = b * detail::kKAlign, end = std::min(k, begin + detail::kKAlign);
    float amax = 0.0f;
    for (int64_t i = begin; i < end; ++i) amax = std::max(amax, std::fabs(x[i]));
    d[b] = amax / 127.0f;
    const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
    for (int64_t i = begin; i < end; ++i) q[i] = static_cast<int8_t>(clampf(round_even(x[i] * inverse), -127.0f, 127.0f));
  }
}

void sums_of(const int8_t* q, int64_t kpad, int64_t span, int32_t* out) {
  for (int64_t b = 0; b * span < kpad; ++b) {
    int32_t sum = 0;
    for (int64_t i = b * span; i < std::min(kpad, (b + 1) * span); ++i) sum += q[i];
    out[b] = sum;
  }
}

void prepare_float(const LinearArgs& a, const WeightLayout& w, const ScratchLayout& s) {
  for (int64_t r = 0; r < a.m; ++r) {
    const float* x = a.x + r * a.x_stride;
    if (s.xf >= 0) {
      float* row = at<float>(a.scratch, s.xf) + r * s.xf_stride;
      std::memcpy(row, x, static_cast<size_t>(w.k) * 4);
      std::fill(row + w.k, row + w.kpad, 0.0f);
    }
    if (s.xsumf >= 0) {
      float* sums = at<float>(a.scratch, s.xsumf) + r * s.xsum_stride;
      for (int64_t g = 0; g < w.groups; ++g) {
        float sum = 0.0f;
        for (int64_t i = g * w.group; i < std::min(w.k, (g + 1) * w.group); ++i) sum += x[i];
        sums[g] = sum;
      }
    }
  }
}

}  // namespace

void prepare_linear(const LinearArgs& a) {
  const WeightLayout w = detail::weight_layout(*a.desc);
  const ScratchLayout s = detail::scratch_layout(w, a.mode, a.m);
  if (a.mode == ActivationMode::kFloat) {
    prepare_float(a, w, s);
    return;
  }
  for (int64_t r = 0; r < a.m; ++r) {
    const float* x = a.x + r * a.x_stride;
    int8_t* q = at<int8_t>(a.scratch, s.xq) + r * s.xq_stride;
    std::memset(q, 0, static_cast<size_t>(s.xq_stride));
    int32_t* sums = at<int32_t>(a.scratch, s.xsum) + r * s.xsum_stride;
    if (a.mode == ActivationMode::kInt8PerToken) {
      quantize_per_token(x, w.k, a.eps, q, at<float>(a.scratch, s.sx) + r, at<int32_t>(a.scratch, s.zx) + r);
      sums_of(q, w.kpad, w.group, sums);
    } else {
      quantize_block32(x, w.k, q, at<float>(a.scratch, s.dscale) + r * s.xsum_stride);
      sums_of(q, w.kpad, detail::kKAlign, sums);
    }
  }
}

size_t linear_scratch_bytes(const LinearDesc& desc, ActivationMode mode, int64_t m) {
  if (check_linear_mode(desc, mode) != runtime::Error::Ok) return 0;
  return static_cast<size_t>(detail::scratch_layout(detail::weight_layout(desc), mode, m).total);
}

}  // namespace kiln::kernels::tuned
