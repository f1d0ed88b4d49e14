// Kiln's own kernel for a Pointwise operation (pointwise_f32.h).
#include "backends/onednn/runtime/pointwise_f32.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::backends::onednn {

namespace {

using Op = PointwiseF32::Op;

// Eight floats (GCC's vector extensions): the transcendental functions are
// written on them, since the compiler does not vectorize their scalar form
// (it branches on the clamps).
typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));

// exp(x), Cephes' polynomial for float32 on the reduced argument, with the
// power of two written into the exponent's bits (in two factors at the top,
// where 2^n alone would overflow). Over [-87.3, 88.72] it is within 2 ulp;
// above, infinity (the product overflows: 2^128 times at least 1); below,
// the smallest normal float (the true value is smaller still: an absolute
// error under 1.2e-38).
inline __attribute__((always_inline)) F8 exp8(F8 x) {
  const F8 zero = {}, one = zero + 1.0f, high_bound = zero + 89.0f, low_bound = zero - 87.3365447504f;
  x = x > high_bound ? high_bound : x;
  x = x < low_bound ? low_bound : x;
  const F8 fx = x * 1.44269504088896341f + 0.5f;
  const F8 truncated = __builtin_convertvector(__builtin_convertvector(fx, I8), F8);
  const F8 nf = truncated > fx ? truncated - 1.0f : truncated;  // floor
  const F8 r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  F8 p = zero + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const F8 high = nf > zero ? one : zero;
  const I8 bits = (__builtin_convertvector(nf - high, I8) + 127) << 23;
  return p * __builtin_bit_cast(F8, bits) * (one + high);
}

inline __attribute__((always_inline)) F8 logistic8(F8 x) { return 1.0f / (1.0f + exp8(-x)); }

// tanh from exp(2|x|); near 0 its odd series, which keeps the relative error.
inline __attribute__((always_inline)) F8 tanh8(F8 x) {
  const F8 zero = {};
  const F8 a = x < zero ? -x : x;
  const F8 nine = zero + 9.0f;
  const F8 e = exp8(2.0f * (a > nine ? nine : a));
  F8 t = 1.0f - 2.0f / (e + 1.0f);
  const F8 x2 = x * x;
  const F8 series = a * (1.0f + x2 * (-1.0f / 3.0f + x2 * (2.0f / 15.0f)));
  t = a < 0.0625f ? series : t;
  return x < zero ? -t : t;
}

inline __attribute__((always_inline)) F8 gelu_tanh8(F8 x) {
  return 0.5f * x * (1.0f + tanh8(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

// y[i] = f(a[i]) (f on eight at a time; the tail through a padded copy).
template <typename F>
inline __attribute__((always_inline)) void map8(const float* a, float* y, int64_t len, F f) {
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    F8 v;
    std::memcpy(&v, a + i, sizeof v);
    v = f(v);
    std::memcpy(y + i, &v, sizeof v);
  }
  if (i < len) {
    F8 v = {};
    std::memcpy(&v, a + i, static_cast<size_t>(len - i) * sizeof(float));
    v = f(v);
    std::memcpy(y + i, &v, static_cast<size_t>(len - i) * sizeof(float));
  }
}

inline float exp_approx(float x) {
  const F8 v = exp8(F8{} + x);
  return v[0];
}

inline __attribute__((always_inline)) float clamp01(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

// One step over `len` elements. Each case is one loop the compiler vectorizes.
inline __attribute__((always_inline)) void run_step(const PointwiseF32::Step& s, const float* __restrict a,
                                                    const float* __restrict b, float* __restrict y, int64_t len) {
  const float alpha = s.alpha, beta = s.beta;
  switch (s.op) {
    case Op::kAdd: for (int64_t i = 0; i < len; ++i) y[i] = a[i] + b[i]; break;
    case Op::kSub: for (int64_t i = 0; i < len; ++i) y[i] = a[i] - b[i]; break;
    case Op::kMul: for (int64_t i = 0; i < len; ++i) y[i] = a[i] * b[i]; break;
    case Op::kDiv: for (int64_t i = 0; i < len; ++i) y[i] = a[i] / b[i]; break;
    case Op::kMax: for (int64_t i = 0; i < len; ++i) y[i] = a[i] > b[i] ? a[i] : b[i]; break;
    case Op::kMin: for (int64_t i = 0; i < len; ++i) y[i] = a[i] < b[i] ? a[i] : b[i]; break;
    case Op::kRelu: for (int64_t i = 0; i < len; ++i) y[i] = a[i] > 0.0f ? a[i] : alpha * a[i]; break;
    case Op::kClip:
      for (int64_t i = 0; i < len; ++i) y[i] = a[i] < alpha ? alpha : (a[i] > beta ? beta : a[i]);
      break;
    case Op::kHardSwish: for (int64_t i = 0; i < len; ++i) y[i] = a[i] * clamp01(alpha * a[i] + beta); break;
    case Op::kHardSigmoid: for (int64_t i = 0; i < len; ++i) y[i] = clamp01(alpha * a[i] + beta); break;
    case Op::kLogistic: map8(a, y, len, [](F8 x) { return logistic8(x); }); break;
    case Op::kSwish: map8(a, y, len, [alpha](F8 x) { return x * logistic8(alpha * x); }); break;
    case Op::kGeluTanh: map8(a, y, len, [](F8 x) { return gelu_tanh8(x); }); break;
    case Op::kElu: map8(a, y, len, [alpha](F8 x) { return x > 0.0f ? x : alpha * (exp8(x) - 1.0f); }); break;
    case Op::kTanh: map8(a, y, len, [](F8 x) { return tanh8(x); }); break;
    case Op::kExp: map8(a, y, len, [](F8 x) { return exp8(x); }); break;
    case Op::kAbs: for (int64_t i = 0; i < len; ++i) y[i] = std::fabs(a[i]); break;
    case Op::kSqrt: for (int64_t i = 0; i < len; ++i) y[i] = std::sqrt(a[i]); break;
    case Op::kSquare: for (int64_t i = 0; i < len; ++i) y[i] = a[i] * a[i]; break;
    case Op::kLinear: for (int64_t i = 0; i < len; ++i) y[i] = alpha * a[i] + beta; break;
  }
}

// How a source's view reads the result's order.
enum class ViewKind : uint8_t { kInOrder, kOneValue, kStrided };

ViewKind view_kind(const PointwiseF32& p, uint32_t input) {
  const int64_t* strides = p.strides + static_cast<size_t>(input) * p.rank;
  bool in_order = true, one_value = true;
  int64_t expected = 1;
  for (uint32_t d = p.rank; d-- > 0;) {
    if (p.sizes[d] == 1) continue;
    in_order = in_order && strides[d] == expected;
    one_value = one_value && strides[d] == 0;
    expected *= p.sizes[d];
  }
  return one_value ? ViewKind::kOneValue : (in_order ? ViewKind::kInOrder : ViewKind::kStrided);
}

// The elements [first, first + len) of the result's order, read through the
// view of source `input`, into `buffer`.
void gather(const PointwiseF32& p, uint32_t input, const float* source, int64_t first, int64_t len, float* buffer) {
  const int64_t* strides = p.strides + static_cast<size_t>(input) * p.rank;
  const uint32_t last = p.rank - 1;
  int64_t index[kMaxRank];
  int64_t at = p.offsets[input];
  int64_t rest = first;
  for (uint32_t d = p.rank; d-- > 0;) {
    index[d] = rest % p.sizes[d];
    rest /= p.sizes[d];
    at += index[d] * strides[d];
  }
  const int64_t step = strides[last];
  for (int64_t done = 0; done < len;) {
    const int64_t run = std::min(len - done, p.sizes[last] - index[last]);
    for (int64_t i = 0; i < run; ++i) buffer[done + i] = source[at + i * step];
    done += run;
    index[last] += run;
    at += run * step;
    for (uint32_t d = last; d > 0 && index[d] == p.sizes[d]; --d) {
      at += strides[d - 1] - index[d] * strides[d];
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

inline __attribute__((always_inline)) void run_tiles(const PointwiseF32& p, const float* const* inputs, float* dst,
                                                     float* scratch) {
  const uint32_t registers = p.num_inputs + p.num_steps;
  const float* reg[kMaxOperationArgs + kMaxPointwiseSteps];
  ViewKind kinds[kMaxOperationArgs];
  for (uint32_t i = 0; i < p.num_inputs; ++i) kinds[i] = view_kind(p, i);
  for (int64_t first = 0; first < p.numel; first += kPointwiseTile) {
    const int64_t len = std::min(kPointwiseTile, p.numel - first);
    for (uint32_t i = 0; i < p.num_inputs; ++i) {
      float* buffer = scratch + static_cast<size_t>(i) * kPointwiseTile;
      if (kinds[i] == ViewKind::kInOrder) {
        reg[i] = inputs[i] + p.offsets[i] + first;
      } else if (kinds[i] == ViewKind::kOneValue) {
        if (first == 0) std::fill(buffer, buffer + len, inputs[i][p.offsets[i]]);
        reg[i] = buffer;
      } else {
        gather(p, i, inputs[i], first, len, buffer);
        reg[i] = buffer;
      }
    }
    for (uint32_t s = 0; s < p.num_steps; ++s) {
      const PointwiseF32::Step& step = p.steps[s];
      const uint32_t r = p.num_inputs + s;
      float* y = r + 1 == registers ? dst + first : scratch + static_cast<size_t>(r) * kPointwiseTile;
      run_step(step, reg[step.a], PointwiseF32::is_binary(step.op) ? reg[step.b] : reg[step.a], y, len);
      reg[r] = y;
    }
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma"))) void run_tiles_avx512(const PointwiseF32& p,
                                                                                    const float* const* inputs,
                                                                                    float* dst, float* scratch) {
  run_tiles(p, inputs, dst, scratch);
}
__attribute__((target("avx2,fma"))) void run_tiles_avx2(const PointwiseF32& p, const float* const* inputs, float* dst,
                                                        float* scratch) {
  run_tiles(p, inputs, dst, scratch);
}
#endif

}  // namespace

size_t pointwise_f32_scratch_floats(const PointwiseF32& p) {
  return static_cast<size_t>(p.num_inputs + p.num_steps) * kPointwiseTile;
}

void run_pointwise_f32(const PointwiseF32& p, const float* const* inputs, float* dst, float* scratch) {
#if defined(__x86_64__)
  static const int path = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                                  __builtin_cpu_supports("avx512dq")
                              ? 2
                              : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0);
  if (path == 2) return run_tiles_avx512(p, inputs, dst, scratch);
  if (path == 1) return run_tiles_avx2(p, inputs, dst, scratch);
#endif
  run_tiles(p, inputs, dst, scratch);
}

float pointwise_exp(float x) { return exp_approx(x); }

}  // namespace kiln::backends::onednn
