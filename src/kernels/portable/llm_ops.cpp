// Kernels of Kiln's own ops (src/aot/ir/op_table/kiln_ops.def), the fused
// forms the lowering writes for a language model's hot loop: attention over
// the filled part of a KV cache with grouped-query heads read in place
// (kiln::sdpa), RMS normalization (kiln::rms_norm) and the half-rotated
// rotary embedding (kiln::rotary_embedding). float32, contiguous; the inner
// loops are compiled once per ISA (target_clones) and picked at load.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/vector_math.h"
#include "runtime/kernel/thread_pool.h"

namespace kiln::kernels::portable {

using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

namespace {

// Enough for every attention head seen (64 to 256 values): the accumulator
// of one query row lives on the stack, so the kernel needs no scratch.
constexpr int64_t kMaxValueSize = 1024;


// Sixteen partial sums, one per vector lane, added up as a tree: the
// compiler vectorizes both without reassociating a single sum (the library
// keeps strict float math). kE > 0: the length known when compiling.
template <int64_t kE>
KILN_VECTOR_MATH_INLINE float dot(const float* a, const float* b, int64_t n) {
  constexpr int64_t kLanes = 16;
  if constexpr (kE > 0) n = kE;
  float partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) partial[j] += a[i + j] * b[i + j];
  }
  if constexpr (kE == 0 || kE % kLanes != 0) {
    for (int64_t j = 0; i < n; ++i, ++j) partial[j] += a[i] * b[i];  // fewer than kLanes left
  }
  for (int64_t width = kLanes / 2; width > 0; width /= 2) {
    for (int64_t j = 0; j < width; ++j) partial[j] += partial[j + width];
  }
  return partial[0];
}

// exp(x[t] - top) for t < n, in place (x[t] <= top; -inf gives 0), with
// vector_math.h's exp: the loop vectorizes in each ISA's clone of the caller.
KILN_VECTOR_MATH_INLINE void exp_shifted(float* x, int64_t n, float top) {
  for (int64_t t = 0; t < n; ++t) x[t] = util::exp_f32(x[t] - top);
}

// Keys are scored, exponentiated and summed this many at a time.
constexpr int64_t kKeyBlock = 64;

// One query row against keys 0..last in blocks: a block's scores, their
// maximum (which rescales what was summed before it, once per block), their
// exponentials, then out = sum p_j v_j / sum p_j. `allowed` / `bias` follow
// the mask (null: none); a row that may attend to nothing gives zeros, as
// torch's safe softmax does. kE, kEv > 0: the head sizes known when
// compiling (64 and 128 are most models'), so the compiler keeps the row's
// sums in registers.
template <int64_t kE, int64_t kEv>
KILN_VECTOR_MATH_INLINE void attend_row(const float* q, const float* k, const float* v, int64_t last, int64_t e, int64_t ev,
                       float scale, const bool* allowed, const float* bias, float* out) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  if constexpr (kE > 0) e = kE;
  if constexpr (kEv > 0) ev = kEv;
  float acc[kEv > 0 ? kEv : kMaxValueSize];
  float p[kKeyBlock];
  for (int64_t i = 0; i < ev; ++i) acc[i] = 0;
  float top = kMinusInf, total = 0;
  for (int64_t j0 = 0; j0 <= last; j0 += kKeyBlock) {
    const int64_t n = std::min(kKeyBlock, last + 1 - j0);
    float block_top = kMinusInf;
    for (int64_t t = 0; t < n; ++t) {
      const int64_t j = j0 + t;
      float s = kMinusInf;
      if (allowed == nullptr || allowed[j]) {
        s = dot<kE>(q, k + j * e, e) * scale;
        if (bias != nullptr) s += bias[j];
      }
      p[t] = s;
      block_top = std::max(block_top, s);
    }
    if (block_top == kMinusInf) continue;
    if (block_top > top) {
      if (top != kMinusInf) {
        const float shrink = util::exp_f32(top - block_top);
        total *= shrink;
        for (int64_t i = 0; i < ev; ++i) acc[i] *= shrink;
      }
      top = block_top;
    }
    exp_shifted(p, n, top);
    for (int64_t t = 0; t < n; ++t) {
      total += p[t];
      const float* vj = v + (j0 + t) * ev;
      for (int64_t i = 0; i < ev; ++i) acc[i] += p[t] * vj[i];
    }
  }
  const float inverse = total > 0 ? 1.0f / total : 0.0f;
  for (int64_t i = 0; i < ev; ++i) out[i] = acc[i] * inverse;
}

// Sixteen floats as one value: GCC lowers its arithmetic to each clone's
// vectors (one AVX-512 register, two AVX2 ones), and a fixed number of them
// stays in registers across a loop, which an array indexed in one does not.
typedef float Float16 __attribute__((vector_size(64)));
// Float16 is passed only between always-inlined functions: no call passes
// one, so the ABI GCC warns about never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

KILN_VECTOR_MATH_INLINE Float16 load16(const float* p) {
  Float16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

typedef float Float8 __attribute__((vector_size(32)));
typedef float Float4 __attribute__((vector_size(16)));

// The lanes added as a tree of halves (shuffles, not a loop through memory).
KILN_VECTOR_MATH_INLINE float sum16(Float16 v) {
  const Float8 a = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                   __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  const Float4 b = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
  return (b[0] + b[2]) + (b[1] + b[3]);
}

// attend_row for head sizes kE and kEv that are multiples of 16: the query,
// and the row's weighted sum of values, held in registers.
template <int kE, int kEv>
KILN_VECTOR_MATH_INLINE void attend_row_fixed(const float* q, const float* k, const float* v, int64_t last, float scale,
                                  const bool* allowed, const float* bias, float* out) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  Float16 qv[kE / 16];
#pragma GCC unroll 16
  for (int c = 0; c < kE / 16; ++c) qv[c] = load16(q + 16 * c);
  Float16 acc[kEv / 16] = {};
  float p[kKeyBlock];
  float top = kMinusInf, total = 0;
  for (int64_t j0 = 0; j0 <= last; j0 += kKeyBlock) {
    const int64_t n = std::min(kKeyBlock, last + 1 - j0);
    float block_top = kMinusInf;
    for (int64_t t = 0; t < n; ++t) {
      const int64_t j = j0 + t;
      float s = kMinusInf;
      if (allowed == nullptr || allowed[j]) {
        const float* kj = k + j * kE;
        Float16 d = qv[0] * load16(kj);
#pragma GCC unroll 16
        for (int c = 1; c < kE / 16; ++c) d += qv[c] * load16(kj + 16 * c);
        s = sum16(d) * scale;
        if (bias != nullptr) s += bias[j];
      }
      p[t] = s;
      block_top = std::max(block_top, s);
    }
    if (block_top == kMinusInf) continue;
    if (block_top > top) {
      if (top != kMinusInf) {
        const float shrink = util::exp_f32(top - block_top);
        total *= shrink;
#pragma GCC unroll 16
        for (int c = 0; c < kEv / 16; ++c) acc[c] *= shrink;
      }
      top = block_top;
    }
    exp_shifted(p, n, top);
    for (int64_t t = 0; t < n; ++t) {
      total += p[t];
      const float* vj = v + (j0 + t) * kEv;
#pragma GCC unroll 16
      for (int c = 0; c < kEv / 16; ++c) acc[c] += p[t] * load16(vj + 16 * c);
    }
  }
  const float inverse = total > 0 ? 1.0f / total : 0.0f;
#pragma GCC unroll 16
  for (int c = 0; c < kEv / 16; ++c) {
    const Float16 result = acc[c] * inverse;
    std::memcpy(out + 16 * c, &result, sizeof result);
  }
}

// attend_row compiled for the common head sizes, once per ISA.
KILN_VECTOR_CLONES void attend(const float* q, const float* k, const float* v, int64_t last, int64_t e, int64_t ev,
                               float scale, const bool* allowed, const float* bias, float* out) {
  if (e == 64 && ev == 64) return attend_row_fixed<64, 64>(q, k, v, last, scale, allowed, bias, out);
  if (e == 128 && ev == 128) return attend_row_fixed<128, 128>(q, k, v, last, scale, allowed, bias, out);
  attend_row<0, 0>(q, k, v, last, e, ev, scale, allowed, bias, out);
}

// The last j <= from with row[j] true, or -1: eight flags a word while they
// are all false (a KV cache's empty tail is most of its length).
int64_t last_allowed(const bool* row, int64_t from) {
  int64_t j = from;
  for (; j >= 0 && (j & 7) != 7; --j) {
    if (row[j]) return j;
  }
  for (; j >= 7; j -= 8) {
    uint64_t word;
    std::memcpy(&word, row + j - 7, sizeof word);
    if (word != 0) break;
  }
  while (j >= 0 && !row[j]) --j;
  return j;
}

// The last j <= from with bias[j] > -inf, or -1.
int64_t last_finite(const float* bias, int64_t from) {
  while (from >= 0 && bias[from] == -std::numeric_limits<float>::infinity()) --from;
  return from;
}

// The strides of `mask` broadcast to `sizes` (0 along a broadcast dim), or
// false if it does not broadcast.
bool broadcast_strides(const Tensor& mask, const int64_t* sizes, size_t rank, int64_t* strides) {
  const size_t m = static_cast<size_t>(mask.dim());
  if (m > rank) return false;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    if (d + m < rank) {
      strides[d] = 0;
      continue;
    }
    const int64_t size = mask.size(static_cast<ssize_t>(d + m - rank));
    if (size != 1 && size != sizes[d]) return false;
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return true;
}

// The rows of one kiln::sdpa call, shared by the tasks of parallel_for:
// row r is (batch b, query i, head h) with r = (b * len + i) * heads + h.
struct SdpaRows {
  const float *q, *k, *v;
  float* out;
  const bool* allowed;
  const float* bias;
  int64_t mask_strides[4];
  int64_t heads, kv_heads, len, keys, e, ev, rows, rows_per_task;
  float scale;
  bool is_causal;
};

// Multiply-adds below which another thread costs more than it saves.
constexpr int64_t kMinTaskWork = int64_t{1} << 14;

void run_sdpa_rows(void* context, int64_t task) {
  const SdpaRows& s = *static_cast<const SdpaRows*>(context);
  const int64_t group = s.heads / s.kv_heads;
  const int64_t end = std::min(s.rows, (task + 1) * s.rows_per_task);
  int64_t shared_bi = -1, shared_last = -1;  // the heads' last key when they share the mask row
  for (int64_t r = task * s.rows_per_task; r < end; ++r) {
    const int64_t h = r % s.heads, bi = r / s.heads;
    const int64_t b = bi / s.len, i = bi % s.len;
    const int64_t mask_row = b * s.mask_strides[0] + h * s.mask_strides[1] + i * s.mask_strides[2];
    const bool* row_allowed = s.allowed != nullptr ? s.allowed + mask_row : nullptr;
    const float* row_bias = s.bias != nullptr ? s.bias + mask_row : nullptr;
    // The last key the row may attend to: the keys past it are never read.
    int64_t last;
    if (bi == shared_bi) {
      last = shared_last;
    } else {
      last = s.is_causal ? std::min(i, s.keys - 1) : s.keys - 1;
      if (row_allowed != nullptr) last = last_allowed(row_allowed, last);
      else if (row_bias != nullptr) last = last_finite(row_bias, last);
      if (s.mask_strides[1] == 0) shared_bi = bi, shared_last = last;
    }
    const int64_t kv = b * s.kv_heads + h / group;
    const int64_t row = (b * s.heads + h) * s.len + i;
    attend(s.q + row * s.e, s.k + kv * s.keys * s.e, s.v + kv * s.keys * s.ev, last, s.e, s.ev, s.scale, row_allowed,
           row_bias, s.out + row * s.ev);
  }
}

}  // namespace

// kiln::sdpa.out(query, key, value, attn_mask, is_causal, scale, *, out).
void kiln_sdpa_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "kiln::sdpa.out", args);
  Tensor q, k, v, out;
  std::optional<Tensor> mask;
  bool is_causal = false;
  double scale = 1;
  if (!a.check_count(7) || !a.tensor(0, "query", &q) || !a.tensor(1, "key", &k) || !a.tensor(2, "value", &v) ||
      !a.optional_tensor(3, "attn_mask", &mask) || !a.boolean(4, "is_causal", &is_causal) ||
      !a.floating(5, "scale", &scale) || !a.tensor(6, "out", &out)) {
    return;
  }
  for (const auto& [t, name] : {std::pair{&q, "query"}, {&k, "key"}, {&v, "value"}, {&out, "out"}}) {
    if (!a.check_dtype(*t, name, ScalarType::Float) || !a.check_contiguous(*t, name)) return;
  }
  const size_t n = static_cast<size_t>(q.dim());
  if (n < 3 || k.dim() != q.dim() || v.dim() != q.dim()) {
    a.fail(runtime::Error::InvalidArgument, "query, key and value must have one rank >= 3");
    return;
  }
  int64_t batch = 1;
  for (size_t d = 0; d + 3 < n; ++d) {
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d)) {
      a.fail(runtime::Error::InvalidArgument, "query, key and value differ in batch dim %zu", d);
      return;
    }
    batch *= q.size(d);
  }
  const int64_t heads = q.size(n - 3), len = q.size(n - 2), e = q.size(n - 1);
  const int64_t kv_heads = k.size(n - 3), keys = k.size(n - 2), ev = v.size(n - 1);
  if (kv_heads <= 0 || heads % kv_heads != 0 || v.size(n - 3) != kv_heads || v.size(n - 2) != keys ||
      k.size(n - 1) != e) {
    a.fail(runtime::Error::InvalidArgument, "key and value do not fit query (heads %ld, key heads %ld)",
           static_cast<long>(heads), static_cast<long>(kv_heads));
    return;
  }
  if (ev > kMaxValueSize) {
    a.fail(runtime::Error::NotSupported, "values of %ld elements per head (at most %ld)", static_cast<long>(ev),
           static_cast<long>(kMaxValueSize));
    return;
  }
  SizesType sizes[util::kMaxDims];
  for (size_t d = 0; d < n; ++d) sizes[d] = static_cast<SizesType>(q.size(d));
  sizes[n - 1] = static_cast<SizesType>(ev);
  if (!a.resize_out(out, "out", Span<const SizesType>(sizes, n))) return;

  // The mask as [batch, heads, len, keys] strides.
  int64_t mask_strides[4] = {0, 0, 0, 0};
  const bool* allowed = nullptr;
  const float* bias = nullptr;
  if (mask) {
    if (mask->scalar_type() != ScalarType::Bool && mask->scalar_type() != ScalarType::Float) {
      a.fail(runtime::Error::InvalidArgument, "'attn_mask' must be Bool or Float, got %s",
             runtime::to_string(mask->scalar_type()));
      return;
    }
    if (!a.check_contiguous(*mask, "attn_mask")) return;
    int64_t scores[util::kMaxDims];
    int64_t strides[util::kMaxDims];
    for (size_t d = 0; d + 1 < n; ++d) scores[d] = q.size(d);
    scores[n - 1] = keys;
    if (!broadcast_strides(*mask, scores, n, strides)) {
      a.fail(runtime::Error::InvalidArgument, "'attn_mask' does not broadcast to the scores [..., %ld, %ld, %ld]",
             static_cast<long>(heads), static_cast<long>(len), static_cast<long>(keys));
      return;
    }
    // Broadcast batch dims must be all or nothing to flatten into one stride.
    int64_t batch_stride = n > 3 ? strides[n - 4] : 0;
    for (size_t d = 0; d + 4 < n; ++d) {
      if ((strides[d] == 0) != (batch_stride == 0)) {
        a.fail(runtime::Error::NotSupported, "'attn_mask' broadcasts over some batch dims and not others");
        return;
      }
    }
    mask_strides[0] = batch_stride;
    mask_strides[1] = strides[n - 3];
    mask_strides[2] = strides[n - 2];
    mask_strides[3] = strides[n - 1];
    if (mask_strides[3] != 1 && keys > 1) {
      a.fail(runtime::Error::NotSupported, "'attn_mask' broadcast along the keys");
      return;
    }
    if (mask->scalar_type() == ScalarType::Bool) allowed = mask->const_data_ptr<bool>();
    else bias = mask->const_data_ptr<float>();
  }

  SdpaRows job;
  job.q = q.const_data_ptr<float>();
  job.k = k.const_data_ptr<float>();
  job.v = v.const_data_ptr<float>();
  job.out = out.mutable_data_ptr<float>();
  job.allowed = allowed;
  job.bias = bias;
  std::copy(std::begin(mask_strides), std::end(mask_strides), job.mask_strides);
  job.heads = heads;
  job.kv_heads = kv_heads;
  job.len = len;
  job.keys = keys;
  job.e = e;
  job.ev = ev;
  job.scale = static_cast<float>(scale);
  job.is_causal = is_causal;
  // Tasks of at least kMinTaskWork multiply-adds, about eight per thread: a
  // decode step has only a few rows (one per head), and a thread that finishes
  // first takes the next one.
  const int64_t rows = batch * len * heads;
  const int64_t row_work = std::max<int64_t>(1, keys * (e + ev));
  const int64_t by_work = std::max<int64_t>(1, kMinTaskWork / row_work);
  const int64_t slots = 8 * runtime::kernel_threads();
  job.rows_per_task = std::max(by_work, (rows + slots - 1) / slots);
  job.rows = rows;
  runtime::parallel_for((rows + job.rows_per_task - 1) / job.rows_per_task, run_sdpa_rows, &job);
}

namespace {

// One row: weight * (x * rsqrt(mean(x^2) + eps)), the mean summed in double as
// aten::mean's kernel sums.
KILN_VECTOR_CLONES void rms_norm_row(const float* x, const float* weight, int64_t n, float eps, float* y) {
  constexpr int64_t kLanes = 8;
  double partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) partial[j] += static_cast<double>(x[i + j]) * static_cast<double>(x[i + j]);
  }
  double squares = 0;
  for (; i < n; ++i) squares += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  for (int64_t j = 0; j < kLanes; ++j) squares += partial[j];
  const float mean = static_cast<float>(squares / static_cast<double>(n));
  const float r = 1.0f / std::sqrt(mean + eps);
  if (weight != nullptr) {
    for (int64_t k = 0; k < n; ++k) y[k] = weight[k] * (x[k] * r);
  } else {
    for (int64_t k = 0; k < n; ++k) y[k] = x[k] * r;
  }
}

// out = x * cos + rotate_half(x) * sin on one row of `n` (even) values.
KILN_VECTOR_CLONES void rotary_row(const float* x, const float* cos, const float* sin, int64_t n, float* y) {
  const int64_t half = n / 2;
  for (int64_t i = 0; i < half; ++i) y[i] = x[i] * cos[i] + (-x[i + half]) * sin[i];
  for (int64_t i = half; i < n; ++i) y[i] = x[i] * cos[i] + x[i - half] * sin[i];
}

}  // namespace

// kiln::rms_norm.out(input, weight, eps, *, out).
void kiln_rms_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "kiln::rms_norm.out", args);
  Tensor input, out;
  std::optional<Tensor> weight;
  double eps = 0;
  if (!a.check_count(4) || !a.tensor(0, "input", &input) || !a.optional_tensor(1, "weight", &weight) ||
      !a.floating(2, "eps", &eps) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!a.check_dtype(input, "input", ScalarType::Float) || !a.check_contiguous(input, "input") ||
      !a.check_dtype(out, "out", ScalarType::Float) || !a.resize_out(out, "out", input.sizes())) {
    return;
  }
  if (input.dim() == 0) {
    a.fail(runtime::Error::InvalidArgument, "'input' must have at least one dim");
    return;
  }
  const int64_t n = input.size(input.dim() - 1);
  if (weight && !a.check_dtype(*weight, "weight", ScalarType::Float)) return;
  if (weight && weight->numel() != n) {
    a.fail(runtime::Error::InvalidArgument, "'weight' has %zd elements, the last dim %ld", weight->numel(),
           static_cast<long>(n));
    return;
  }
  if (n == 0) return;
  const float* x = input.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const float* w = weight ? weight->const_data_ptr<float>() : nullptr;
  const int64_t rows = input.numel() / n;
  for (int64_t r = 0; r < rows; ++r) rms_norm_row(x + r * n, w, n, static_cast<float>(eps), y + r * n);
}

// kiln::rotary_embedding.out(input, cos, sin, *, out).
void kiln_rotary_embedding_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "kiln::rotary_embedding.out", args);
  Tensor input, cos, sin, out;
  if (!a.check_count(4) || !a.tensor(0, "input", &input) || !a.tensor(1, "cos", &cos) || !a.tensor(2, "sin", &sin) ||
      !a.tensor(3, "out", &out)) {
    return;
  }
  for (const auto& [t, name] : {std::pair{&input, "input"}, {&cos, "cos"}, {&sin, "sin"}, {&out, "out"}}) {
    if (!a.check_dtype(*t, name, ScalarType::Float) || !a.check_contiguous(*t, name)) return;
  }
  if (!a.resize_out(out, "out", input.sizes())) return;
  const size_t rank = static_cast<size_t>(input.dim());
  const int64_t n = rank > 0 ? input.size(rank - 1) : 0;
  if (rank == 0 || n % 2 != 0) {
    a.fail(runtime::Error::InvalidArgument, "'input' must end in a dim of even size");
    return;
  }
  int64_t sizes[util::kMaxDims], cos_strides[util::kMaxDims], sin_strides[util::kMaxDims];
  for (size_t d = 0; d < rank; ++d) sizes[d] = input.size(d);
  if (!broadcast_strides(cos, sizes, rank, cos_strides) || !broadcast_strides(sin, sizes, rank, sin_strides) ||
      cos_strides[rank - 1] != 1 || sin_strides[rank - 1] != 1) {
    a.fail(runtime::Error::InvalidArgument, "'cos' and 'sin' must broadcast to 'input' along all but its last dim");
    return;
  }
  if (input.numel() == 0) return;
  const float* x = input.const_data_ptr<float>();
  const float* c = cos.const_data_ptr<float>();
  const float* s = sin.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const int64_t rows = input.numel() / n;
  int64_t index[util::kMaxDims] = {};
  int64_t cos_offset = 0, sin_offset = 0;
  for (int64_t r = 0; r < rows; ++r) {
    rotary_row(x + r * n, c + cos_offset, s + sin_offset, n, y + r * n);
    // Next row: the multi-index over the leading dims, odometer style.
    for (size_t d = rank - 1; d-- > 0;) {
      cos_offset += cos_strides[d];
      sin_offset += sin_strides[d];
      if (++index[d] < sizes[d]) break;
      cos_offset -= cos_strides[d] * sizes[d];
      sin_offset -= sin_strides[d] * sizes[d];
      index[d] = 0;
    }
  }
}

namespace {

// activation(gate) * up with vector_math.h's functions: the same operations,
// in the same order, as the unfused ops (silu as x * sigmoid(x), gelu's
// kernel), so the fusion changes no bit.
template <typename Activation>
KILN_VECTOR_MATH_INLINE void gate_rows(const float* gate, const float* up, float* out, int64_t n, Activation f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(gate[i]) * up[i];
}

KILN_VECTOR_CLONES void gate_silu(const float* gate, const float* up, float* out, int64_t n) {
  gate_rows(gate, up, out, n, [](float x) KILN_INLINE_LAMBDA { return x * util::sigmoid_f32(x); });
}

KILN_VECTOR_CLONES void gate_gelu(const float* gate, const float* up, float* out, int64_t n) {
  gate_rows(gate, up, out, n, [](float x) KILN_INLINE_LAMBDA { return util::gelu_f32(x); });
}

KILN_VECTOR_CLONES void gate_gelu_tanh(const float* gate, const float* up, float* out, int64_t n) {
  gate_rows(gate, up, out, n, [](float x) KILN_INLINE_LAMBDA { return util::gelu_tanh_f32(x); });
}

}  // namespace

// kiln::gated_activation.out(gate, up, activation, *, out).
void kiln_gated_activation_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "kiln::gated_activation.out", args);
  Tensor gate, up, out;
  Span<const char> activation;
  if (!a.check_count(4) || !a.tensor(0, "gate", &gate) || !a.tensor(1, "up", &up) ||
      !a.string(2, "activation", &activation) || !a.tensor(3, "out", &out)) {
    return;
  }
  for (const auto& [t, name] : {std::pair{&gate, "gate"}, {&up, "up"}, {&out, "out"}}) {
    if (!a.check_dtype(*t, name, ScalarType::Float) || !a.check_contiguous(*t, name)) return;
  }
  if (gate.dim() != up.dim() || gate.numel() != up.numel()) {
    a.fail(runtime::Error::InvalidArgument, "'gate' and 'up' differ in shape");
    return;
  }
  for (ssize_t d = 0; d < gate.dim(); ++d) {
    if (gate.size(d) != up.size(d)) {
      a.fail(runtime::Error::InvalidArgument, "'gate' and 'up' differ in dim %zd", d);
      return;
    }
  }
  const std::string_view name(activation.data(), activation.size());
  void (*kernel)(const float*, const float*, float*, int64_t) =
      name == "silu" ? gate_silu : name == "gelu" ? gate_gelu : name == "gelu_tanh" ? gate_gelu_tanh : nullptr;
  if (kernel == nullptr) {
    a.fail(runtime::Error::InvalidArgument, "'activation' must be 'silu', 'gelu' or 'gelu_tanh'");
    return;
  }
  if (!a.resize_out(out, "out", gate.sizes())) return;
  kernel(gate.const_data_ptr<float>(), up.const_data_ptr<float>(), out.mutable_data_ptr<float>(), gate.numel());
}

}  // namespace kiln::kernels::portable
