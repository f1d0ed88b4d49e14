// _native_batch_norm_legit_no_training, native_layer_norm (contiguous float
// and double tensors), _softmax and _log_softmax (any layout, the 16-bit
// floats too). Layer norm's statistics are accumulated in double (PyTorch uses
// float with a cascaded sum); everything else is computed in the tensor's
// compute type in the order of PyTorch's CPU kernels, except that softmax's
// exponentials of Float tensors come from util/vector_math.h, and a
// contiguous Float line is summed in 16 lanes (both so that it vectorises).
#include <cmath>

#include <algorithm>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/reduction.h"
#include "kernels/portable/util/vector_math.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// A floating, contiguous input and an out of the same dtype and shape.
bool read_floating(KernelArgs& a, const Tensor& input, const char* name, const Tensor& out, const char* out_name) {
  if (!util::is_floating(input.scalar_type())) {
    a.fail(Error::InvalidArgument, "'%s' must be float or double, got %s", name, runtime::to_string(input.scalar_type()));
    return false;
  }
  return a.check_contiguous(input, name) && a.check_dtype(out, out_name, input.scalar_type()) &&
         a.resize_out(out, out_name, input.sizes()) && a.check_contiguous(out, out_name);
}

// An optional per-channel tensor of `count` elements and `dtype`.
bool read_channel_tensor(KernelArgs& a, const std::optional<Tensor>& t, const char* name, int64_t count,
                         ScalarType dtype) {
  if (!t) return true;
  if (t->numel() != count) {
    a.fail(Error::InvalidArgument, "'%s' has %zd elements, expected %lld", name, t->numel(), static_cast<long long>(count));
    return false;
  }
  return a.check_dtype(*t, name, dtype) && a.check_contiguous(*t, name);
}

// The statistics outputs that torch leaves empty ([0]) in eval mode on CPU
// (CUDA fills them): kept empty if given empty, else resized to `sizes`.
bool resize_empty_or(KernelArgs& a, const Tensor& out, const char* name, Span<const SizesType> sizes,
                     ScalarType dtype) {
  const SizesType empty[1] = {0};
  if (out.dim() == 1 && out.size(0) == 0) return a.resize_out(out, name, {empty, 1});
  return a.check_dtype(out, name, dtype) && a.resize_out(out, name, sizes) && a.check_contiguous(out, name);
}

// ---- softmax and log-softmax ----
// Along each line: the max (NaN propagating, as PyTorch's vectorized
// maximum), then exp(x - max) and its sum in the compute type (float for the
// 16-bit floats). Softmax multiplies by the reciprocal of the sum, as PyTorch;
// log-softmax gives (x - max) - log(sum).

template <typename C>
inline C nan_max(C max, C v) {
  return (v > max || std::isnan(v)) && !std::isnan(max) ? v : max;
}

// exp in softmax's compute type: vector_math.h's approximation for Float
// tensors (it vectorises), <cmath>'s for the others.
template <typename T, typename C>
inline C softmax_exp(C v) {
  if constexpr (std::is_same_v<T, float>) return util::exp_f32(v);
  else return std::exp(v);
}

// ---- the float32 fast path: one contiguous line ----
// The reductions keep kLanes partial results (lane j takes elements j,
// j + kLanes, ...) combined in a fixed order at the end, so the loops
// vectorise at any width and give the same sum on every ISA.
constexpr int64_t kLanes = 16;

// nan_max written as two selects, so that it vectorises.
KILN_VECTOR_MATH_INLINE float lane_max(float max, float v) {
  const float larger = v > max ? v : max;  // keeps a NaN max
  return v != v ? v : larger;              // a NaN v wins
}

KILN_VECTOR_MATH_INLINE float dense_max(const float* x, int64_t length) {
  float lanes[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lanes[j] = x[0];
  int64_t k = 0;
  for (; k + kLanes <= length; k += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] = lane_max(lanes[j], x[k + j]);
  }
  float max = lanes[0];
  for (int64_t j = 1; j < kLanes; ++j) max = lane_max(max, lanes[j]);
  for (; k < length; ++k) max = lane_max(max, x[k]);
  return max;
}

// The sum of exp(x - max); with kStore, each exponential is written to y.
template <bool kStore>
KILN_VECTOR_MATH_INLINE float dense_exp_sum(const float* x, float max, float* y, int64_t length) {
  float lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= length; k += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const float e = util::exp_f32(x[k + j] - max);
      if constexpr (kStore) y[k + j] = e;
      lanes[j] += e;
    }
  }
  float sum = 0;
  for (int64_t j = 0; j < kLanes; ++j) sum += lanes[j];
  for (; k < length; ++k) {
    const float e = util::exp_f32(x[k] - max);
    if constexpr (kStore) y[k] = e;
    sum += e;
  }
  return sum;
}

template <bool kLog>
KILN_VECTOR_CLONES void softmax_dense_float_line(const float* x, float* y, int64_t length) {
  const float max = dense_max(x, length);
  if constexpr (kLog) {
    const float log_sum = std::log(dense_exp_sum<false>(x, max, nullptr, length));
    for (int64_t k = 0; k < length; ++k) y[k] = x[k] - max - log_sum;
  } else {
    const float scale = 1.0f / dense_exp_sum<true>(x, max, y, length);
    for (int64_t k = 0; k < length; ++k) y[k] *= scale;
  }
}

// One line of `length` elements, at steps in_step (x) and out_step (y).
template <bool kLog, typename T, typename Out>
void softmax_line(const T* x, int64_t in_step, Out* y, int64_t out_step, int64_t length) {
  using C = util::compute_t<T>;
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Out, float>) {
    if (in_step == 1 && out_step == 1) {
      softmax_dense_float_line<kLog>(x, y, length);
      return;
    }
  }
  C max = util::load(x[0]);
  for (int64_t k = 1; k < length; ++k) max = nan_max(max, util::load(x[k * in_step]));
  C sum = 0;
  if constexpr (kLog) {
    for (int64_t k = 0; k < length; ++k) sum += softmax_exp<T>(util::load(x[k * in_step]) - max);
    const C log_sum = std::log(sum);
    for (int64_t k = 0; k < length; ++k) y[k * out_step] = util::store_as<Out>(util::load(x[k * in_step]) - max - log_sum);
  } else if constexpr (std::is_same_v<Out, C>) {
    for (int64_t k = 0; k < length; ++k) {
      const C e = softmax_exp<T>(util::load(x[k * in_step]) - max);
      y[k * out_step] = e;
      sum += e;
    }
    const C scale = C(1) / sum;
    for (int64_t k = 0; k < length; ++k) y[k * out_step] *= scale;
  } else {
    // A 16-bit out cannot hold the exponentials exactly: compute them twice.
    for (int64_t k = 0; k < length; ++k) sum += softmax_exp<T>(util::load(x[k * in_step]) - max);
    const C scale = C(1) / sum;
    for (int64_t k = 0; k < length; ++k) {
      y[k * out_step] = util::store_as<Out>(softmax_exp<T>(util::load(x[k * in_step]) - max) * scale);
    }
  }
}

// `lines` neighbouring lines (line j at x + j and y + j) in lockstep, so the
// loops over them vectorize; for a softmax over an outer dim.
template <bool kLog, typename T, typename Out>
void softmax_lines(const T* x, int64_t in_step, Out* y, int64_t out_step, int64_t length, int64_t lines) {
  using C = util::compute_t<T>;
  constexpr int64_t kBlock = 64;
  C max[kBlock], sum[kBlock];
  for (int64_t start = 0; start < lines; start += kBlock) {
    const int64_t block = std::min(kBlock, lines - start);
    const T* in = x + start;
    Out* out = y + start;
    for (int64_t j = 0; j < block; ++j) {
      max[j] = util::load(in[j]);
      sum[j] = 0;
    }
    for (int64_t k = 1; k < length; ++k) {
      for (int64_t j = 0; j < block; ++j) max[j] = nan_max(max[j], util::load(in[k * in_step + j]));
    }
    // Softmax keeps the exponentials in out when it holds them exactly.
    constexpr bool kKeep = !kLog && std::is_same_v<Out, C>;
    for (int64_t k = 0; k < length; ++k) {
      for (int64_t j = 0; j < block; ++j) {
        const C e = softmax_exp<T>(util::load(in[k * in_step + j]) - max[j]);
        if constexpr (kKeep) out[k * out_step + j] = e;
        sum[j] += e;
      }
    }
    for (int64_t j = 0; j < block; ++j) sum[j] = kLog ? std::log(sum[j]) : C(1) / sum[j];
    for (int64_t k = 0; k < length; ++k) {
      for (int64_t j = 0; j < block; ++j) {
        Out& o = out[k * out_step + j];
        if constexpr (kKeep) {
          o *= sum[j];
        } else {
          const C shifted = util::load(in[k * in_step + j]) - max[j];
          o = util::store_as<Out>(kLog ? shifted - sum[j] : softmax_exp<T>(shifted) * sum[j]);
        }
      }
    }
  }
}

template <bool kLog, typename T, typename Out>
void softmax_along(const util::AlongDim<2>& along, const T* x, Out* y) {
  const int64_t length = along.length[0], in_step = along.stride[0], out_step = along.stride[1];
  util::for_each_row(along.lines, [&](const int64_t* offsets, int64_t lines, const int64_t* inner) {
    if (lines > 1 && inner[0] == 1 && inner[1] == 1) {
      softmax_lines<kLog>(x + offsets[0], in_step, y + offsets[1], out_step, length, lines);
      return;
    }
    for (int64_t j = 0; j < lines; ++j) {
      softmax_line<kLog>(x + offsets[0] + j * inner[0], in_step, y + offsets[1] + j * inner[1], out_step, length);
    }
  });
}

// _softmax.out (kLog false) and _log_softmax.out: (self, dim, half_to_float, out).
template <bool kLog>
void softmax_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  int64_t dim = 0;
  bool half_to_float = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "half_to_float", &half_to_float) || !a.tensor(3, "out", &out)) {
    return;
  }
  const ScalarType dtype = self.scalar_type();
  if (!util::is_floating_or_half(dtype)) {
    a.fail(Error::InvalidArgument, "'self' must be floating (Float, Double, Half, BFloat16), got %s",
           runtime::to_string(dtype));
    return;
  }
  // half_to_float asks for a Float result from a 16-bit input, as PyTorch's
  // CUDA kernels give (its CPU kernels refuse the flag); on Float it changes
  // nothing.
  if (half_to_float && !util::is_half(dtype) && dtype != ScalarType::Float) {
    a.fail(Error::NotSupported, "'half_to_float' is set for a %s input; only Half, BFloat16 and Float are supported",
           runtime::to_string(dtype));
    return;
  }
  const ScalarType out_dtype = half_to_float ? ScalarType::Float : dtype;
  size_t d = 0;
  if (!util::wrap_dim(a, "dim", dim, static_cast<size_t>(self.dim()), &d) || !a.check_dtype(out, "out", out_dtype) ||
      !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  if (self.numel() == 0) return;
  const Tensor tensors[2] = {self, out};
  const util::AlongDim<2> along = util::along_dim(tensors, d);
  util::visit_floating_or_half(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out_dtype == dtype) {
      softmax_along<kLog>(along, self.const_data_ptr<T>(), out.mutable_data_ptr<T>());
    } else if constexpr (!std::is_same_v<T, float>) {
      softmax_along<kLog>(along, self.const_data_ptr<T>(), out.mutable_data_ptr<float>());
    }
  });
}


}  // namespace

void native_batch_norm_legit_no_training_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_native_batch_norm_legit_no_training.out", args);
  Tensor input, mean, var, out0, out1, out2;
  std::optional<Tensor> weight, bias;
  if (!a.check_count(10) || !a.tensor(0, "input", &input) || !a.optional_tensor(1, "weight", &weight) ||
      !a.optional_tensor(2, "bias", &bias) || !a.tensor(3, "running_mean", &mean) || !a.tensor(4, "running_var", &var) ||
      !a.tensor(7, "out0", &out0) || !a.tensor(8, "out1", &out1) || !a.tensor(9, "out2", &out2)) {
    return;
  }
  double momentum = 0, eps = 0;
  if (!a.floating(5, "momentum", &momentum) || !a.floating(6, "eps", &eps)) return;  // momentum: unused in eval
  if (input.dim() < 2) {
    a.fail(Error::InvalidArgument, "'input' must have at least 2 dims (N, C, ...), got %zd", input.dim());
    return;
  }
  if (!read_floating(a, input, "input", out0, "out0")) return;
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.scalar_type();
  if (!read_channel_tensor(a, weight, "weight", channels, dtype) || !read_channel_tensor(a, bias, "bias", channels, dtype) ||
      !read_channel_tensor(a, mean, "running_mean", channels, dtype) ||
      !read_channel_tensor(a, var, "running_var", channels, dtype)) {
    return;
  }
  const SizesType channel_shape[1] = {static_cast<SizesType>(channels)};
  if (!resize_empty_or(a, out1, "out1", channel_shape, dtype) || !resize_empty_or(a, out2, "out2", channel_shape, dtype)) {
    return;
  }
  int64_t inner = 1;
  for (ssize_t d = 2; d < input.dim(); ++d) inner *= input.size(d);
  const int64_t batch = input.size(0);
  util::visit_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input.const_data_ptr<T>();
    T* y = out0.mutable_data_ptr<T>();
    for (int64_t c = 0; c < channels; ++c) {
      // y = (x - mean) * invstd * w + b, folded into one scale and shift as PyTorch's CPU kernel does.
      const T invstd = static_cast<T>(1) / std::sqrt(var.const_data_ptr<T>()[c] + static_cast<T>(eps));
      const T w = weight ? weight->const_data_ptr<T>()[c] : T(1);
      const T b = bias ? bias->const_data_ptr<T>()[c] : T(0);
      const T scale = invstd * w;
      const T shift = b - mean.const_data_ptr<T>()[c] * scale;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) y[base + i] = x[base + i] * scale + shift;
      }
    }
    // out1 and out2 are now [0] or [C]: filled, as CUDA does, when [C].
    if (out1.numel() > 0) {
      for (int64_t c = 0; c < channels; ++c) out1.mutable_data_ptr<T>()[c] = mean.const_data_ptr<T>()[c];
    }
    if (out2.numel() > 0) {
      for (int64_t c = 0; c < channels; ++c) {
        out2.mutable_data_ptr<T>()[c] = static_cast<T>(1) / std::sqrt(var.const_data_ptr<T>()[c] + static_cast<T>(eps));
      }
    }
  });
}

void native_layer_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::native_layer_norm.out", args);
  Tensor input, out0, out1, out2;
  Span<const int64_t> normalized;
  std::optional<Tensor> weight, bias;
  if (!a.check_count(8) || !a.tensor(0, "input", &input) || !a.int_list(1, "normalized_shape", &normalized) ||
      !a.optional_tensor(2, "weight", &weight) || !a.optional_tensor(3, "bias", &bias) || !a.tensor(5, "out0", &out0) ||
      !a.tensor(6, "out1", &out1) || !a.tensor(7, "out2", &out2)) {
    return;
  }
  double eps = 0;
  if (!a.floating(4, "eps", &eps)) return;
  const size_t rank = static_cast<size_t>(input.dim());
  if (normalized.empty() || normalized.size() > rank) {
    a.fail(Error::InvalidArgument, "'normalized_shape' has %zu dims for an input of %zu", normalized.size(), rank);
    return;
  }
  const size_t lead = rank - normalized.size();
  int64_t inner = 1;
  for (size_t i = 0; i < normalized.size(); ++i) {
    if (normalized[i] != input.sizes()[lead + i]) {
      a.fail(Error::InvalidArgument, "'normalized_shape' entry %zu is %lld but 'input' has %d there", i,
             static_cast<long long>(normalized[i]), input.sizes()[lead + i]);
      return;
    }
    inner *= normalized[i];
  }
  if (!read_floating(a, input, "input", out0, "out0")) return;
  const ScalarType dtype = input.scalar_type();
  if (!read_channel_tensor(a, weight, "weight", inner, dtype) || !read_channel_tensor(a, bias, "bias", inner, dtype)) return;
  SizesType stat_shape[util::kMaxDims];
  int64_t rows = 1;
  for (size_t d = 0; d < rank; ++d) {
    stat_shape[d] = d < lead ? input.sizes()[d] : 1;
    rows *= stat_shape[d];
  }
  if (!a.check_dtype(out1, "out1", dtype) || !a.check_dtype(out2, "out2", dtype) ||
      !a.resize_out(out1, "out1", {stat_shape, rank}) || !a.resize_out(out2, "out2", {stat_shape, rank}) ||
      !a.check_contiguous(out1, "out1") || !a.check_contiguous(out2, "out2")) {
    return;
  }
  util::visit_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* w = weight ? weight->const_data_ptr<T>() : nullptr;
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      const T* x = input.const_data_ptr<T>() + r * inner;
      T* y = out0.mutable_data_ptr<T>() + r * inner;
      // Biased variance, two passes in double; an empty row gives NaN as in torch.
      double sum = 0;
      for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(x[i]);
      const double mean = sum / static_cast<double>(inner);
      double squares = 0;
      for (int64_t i = 0; i < inner; ++i) squares += (x[i] - mean) * (x[i] - mean);
      const T rstd = static_cast<T>(1.0 / std::sqrt(squares / static_cast<double>(inner) + eps));
      const T m = static_cast<T>(mean);
      // PyTorch's form: (x * rstd + (-mean * rstd)) * weight + bias.
      const T shift = -m * rstd;
      for (int64_t i = 0; i < inner; ++i) {
        const T v = x[i] * rstd + shift;
        y[i] = (w != nullptr ? v * w[i] : v) + (b != nullptr ? b[i] : T(0));
      }
      out1.mutable_data_ptr<T>()[r] = m;
      out2.mutable_data_ptr<T>()[r] = rstd;
    }
  });
}

void softmax_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  softmax_kernel<false>(ctx, args, "aten::_softmax.out");
}

void log_softmax_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  softmax_kernel<true>(ctx, args, "aten::_log_softmax.out");
}

}  // namespace kiln::kernels::portable
