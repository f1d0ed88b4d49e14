// _native_batch_norm_legit_no_training, native_layer_norm, _softmax.
// Contiguous float/double tensors. Layer norm's statistics are accumulated in
// double (PyTorch uses float with a cascaded sum); everything else is computed
// in the tensor's dtype in the order of PyTorch's CPU kernels.
#include <cmath>

#include <algorithm>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

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
  KernelArgs a(ctx, "aten::_softmax.out", args);
  Tensor self, out;
  int64_t dim = 0;
  bool half_to_float = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "half_to_float", &half_to_float) || !a.tensor(3, "out", &out)) {
    return;
  }
  // Half inputs are not supported, so half_to_float can only be honoured as a
  // no-op on a Float input (whose result is Float anyway).
  if (half_to_float && self.scalar_type() != ScalarType::Float) {
    a.fail(Error::NotSupported, "'half_to_float' is set for a %s input; only Float is supported",
           runtime::to_string(self.scalar_type()));
    return;
  }
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  if (dim < -rank || dim >= rank) {
    a.fail(Error::InvalidArgument, "'dim' %lld is out of range for %lld dims", static_cast<long long>(dim),
           static_cast<long long>(rank));
    return;
  }
  if (dim < 0) dim += rank;
  if (!read_floating(a, self, "self", out, "out")) return;
  const int64_t length = self.dim() == 0 ? 1 : self.size(dim);
  int64_t inner = 1;
  for (ssize_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t outer = length == 0 || inner == 0 ? 0 : self.numel() / (length * inner);
  util::visit_floating(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* x = self.const_data_ptr<T>() + o * length * inner + i;
        T* y = out.mutable_data_ptr<T>() + o * length * inner + i;
        // The max propagates NaN (as torch's vectorized maximum does).
        T max = x[0];
        for (int64_t k = 1; k < length; ++k) {
          const T v = x[k * inner];
          if (v > max || std::isnan(v)) max = std::isnan(max) ? max : v;
        }
        T sum = 0;
        for (int64_t k = 0; k < length; ++k) {
          y[k * inner] = std::exp(x[k * inner] - max);
          sum += y[k * inner];
        }
        const T scale = T(1) / sum;  // torch multiplies by the reciprocal
        for (int64_t k = 0; k < length; ++k) y[k * inner] *= scale;
      }
    }
  });
}

}  // namespace kiln::kernels::portable
