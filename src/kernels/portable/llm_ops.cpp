// Kernels of Kiln's own ops (src/aot/ir/op_table/kiln_ops.def), the fused
// forms the lowering writes for a language model's hot loop: attention over
// the filled part of a KV cache with grouped-query heads read in place
// (kiln::sdpa), RMS normalization (kiln::rms_norm) and the half-rotated
// rotary embedding (kiln::rotary_embedding). float32, contiguous; the inner
// loops are compiled once per ISA (target_clones) and picked at load.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

namespace {

// Enough for every attention head seen (64 to 256 values): the accumulator
// of one query row lives on the stack, so the kernel needs no scratch.
constexpr int64_t kMaxValueSize = 1024;

#define KILN_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// Sixteen partial sums, one per vector lane: the compiler vectorizes them
// without reassociating a single sum (the library keeps strict float math).
inline float dot(const float* a, const float* b, int64_t n) {
  constexpr int64_t kLanes = 16;
  float partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) partial[j] += a[i + j] * b[i + j];
  }
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (int64_t j = 0; j < kLanes; ++j) sum += partial[j];
  return sum;
}

// One query row against keys 0..last, softmax computed online (the running
// maximum rescales what was summed before it), then out = sum p_j v_j / sum p_j.
// `allowed` / `bias` follow the mask (null: none); a row that may attend to
// nothing gives zeros, as torch's safe softmax does.
KILN_VECTOR_CLONES void attend_row(const float* q, const float* k, const float* v, int64_t last, int64_t e, int64_t ev,
                                   float scale, const bool* allowed, const float* bias, float* out) {
  float acc[kMaxValueSize];
  for (int64_t i = 0; i < ev; ++i) acc[i] = 0;
  float top = -std::numeric_limits<float>::infinity(), total = 0;
  for (int64_t j = 0; j <= last; ++j) {
    if (allowed != nullptr && !allowed[j]) continue;
    float s = dot(q, k + j * e, e) * scale;
    if (bias != nullptr) s += bias[j];
    if (s == -std::numeric_limits<float>::infinity()) continue;
    if (s > top) {
      const float shrink = std::exp(top - s);
      total *= shrink;
      for (int64_t i = 0; i < ev; ++i) acc[i] *= shrink;
      top = s;
    }
    const float p = std::exp(s - top);
    total += p;
    const float* vj = v + j * ev;
    for (int64_t i = 0; i < ev; ++i) acc[i] += p * vj[i];
  }
  const float inverse = total > 0 ? 1.0f / total : 0.0f;
  for (int64_t i = 0; i < ev; ++i) out[i] = acc[i] * inverse;
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

  const float* qd = q.const_data_ptr<float>();
  const float* kd = k.const_data_ptr<float>();
  const float* vd = v.const_data_ptr<float>();
  float* od = out.mutable_data_ptr<float>();
  const int64_t group = heads / kv_heads;
  const float fscale = static_cast<float>(scale);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t kv = b * kv_heads + h / group;
      const float* kh = kd + kv * keys * e;
      const float* vh = vd + kv * keys * ev;
      for (int64_t i = 0; i < len; ++i) {
        const int64_t mask_row = b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2];
        const bool* row_allowed = allowed != nullptr ? allowed + mask_row : nullptr;
        const float* row_bias = bias != nullptr ? bias + mask_row : nullptr;
        // The last key the row may attend to: the keys past it are never read.
        int64_t last = is_causal ? std::min(i, keys - 1) : keys - 1;
        if (row_allowed != nullptr) {
          while (last >= 0 && !row_allowed[last]) --last;
        } else if (row_bias != nullptr) {
          while (last >= 0 && row_bias[last] == -std::numeric_limits<float>::infinity()) --last;
        }
        const int64_t row = (b * heads + h) * len + i;
        attend_row(qd + row * e, kh, vh, last, e, ev, fscale, row_allowed, row_bias, od + row * ev);
      }
    }
  }
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

}  // namespace kiln::kernels::portable
