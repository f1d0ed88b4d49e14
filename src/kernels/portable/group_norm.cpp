// native_group_norm: the input read as [N, C, HxW] (the sizes come from the
// arguments, as in PyTorch, which only checks the element count); each
// (n, group) block of C / group channels is normalized by its own mean and
// biased variance, then each channel scaled and shifted. Statistics are
// summed in double, in two passes; the output is x * scale + shift per
// channel, with scale = rstd * weight and shift = bias - mean * scale, as
// PyTorch's CPU kernel folds it.
#include <cmath>

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

struct GroupNormShape {
  int64_t batch = 0, channels = 0, inner = 0, groups = 0;
};

// Checks N, C, HxW and group against each other and the input's size.
bool read_shape(KernelArgs& a, const Tensor& input, GroupNormShape* s) {
  if (!a.integer(3, "N", &s->batch) || !a.integer(4, "C", &s->channels) || !a.integer(5, "HxW", &s->inner) ||
      !a.integer(6, "group", &s->groups)) {
    return false;
  }
  if (s->batch < 0 || s->batch > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'N' must be in [0, INT32_MAX], got %lld", static_cast<long long>(s->batch));
    return false;
  }
  if (s->channels <= 0 || s->channels > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'C' must be in [1, INT32_MAX], got %lld", static_cast<long long>(s->channels));
    return false;
  }
  if (s->inner <= 0 || s->inner > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'HxW' must be in [1, INT32_MAX], got %lld", static_cast<long long>(s->inner));
    return false;
  }
  if (s->groups <= 0 || s->channels % s->groups != 0) {
    a.fail(Error::InvalidArgument, "'group' (%lld) must be positive and divide the %lld channels",
           static_cast<long long>(s->groups), static_cast<long long>(s->channels));
    return false;
  }
  // Each factor is below 2^31, so the product fits unless N * C alone is huge;
  // compare by division to stay clear of overflow.
  const int64_t numel = input.numel();
  if (numel % s->inner != 0 || (s->batch == 0 ? numel != 0 : numel / s->inner != s->batch * s->channels)) {
    a.fail(Error::InvalidArgument, "'input' has %lld elements, not N * C * HxW = %lld * %lld * %lld",
           static_cast<long long>(numel), static_cast<long long>(s->batch), static_cast<long long>(s->channels),
           static_cast<long long>(s->inner));
    return false;
  }
  return true;
}

// An optional per-channel vector of `channels` elements and `dtype`.
bool read_affine(KernelArgs& a, const std::optional<Tensor>& t, const char* name, int64_t channels, ScalarType dtype) {
  if (!t) return true;
  if (t->dim() != 1 || t->size(0) != channels) {
    a.fail(Error::InvalidArgument, "'%s' must be a vector of the %lld channels", name, static_cast<long long>(channels));
    return false;
  }
  return a.check_dtype(*t, name, dtype) && a.check_contiguous(*t, name);
}

template <typename T>
void group_norm(const T* x, const T* weight, const T* bias, double eps, const GroupNormShape& s, T* y, T* mean_out,
                T* rstd_out) {
  const int64_t per_group = s.channels / s.groups;
  const int64_t block = per_group * s.inner;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const int64_t row = n * s.groups + g;
      const T* xb = x + row * block;
      double sum = 0;
      for (int64_t i = 0; i < block; ++i) sum += static_cast<double>(xb[i]);
      const double mean = sum / static_cast<double>(block);
      double squares = 0;
      for (int64_t i = 0; i < block; ++i) {
        const double d = static_cast<double>(xb[i]) - mean;
        squares += d * d;
      }
      const T m = static_cast<T>(mean);
      const T rstd = static_cast<T>(1.0 / std::sqrt(squares / static_cast<double>(block) + eps));
      mean_out[row] = m;
      rstd_out[row] = rstd;
      for (int64_t cg = 0; cg < per_group; ++cg) {
        const int64_t c = g * per_group + cg;
        const T scale = weight != nullptr ? rstd * weight[c] : rstd;
        const T shift = (bias != nullptr ? bias[c] : T(0)) - m * scale;
        const T* xc = xb + cg * s.inner;
        T* yc = y + row * block + cg * s.inner;
        for (int64_t i = 0; i < s.inner; ++i) yc[i] = xc[i] * scale + shift;
      }
    }
  }
}

}  // namespace

void native_group_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::native_group_norm.out", args);
  Tensor input, out0, out1, out2;
  std::optional<Tensor> weight, bias;
  double eps = 0;
  GroupNormShape s;
  if (!a.check_count(11) || !a.tensor(0, "input", &input) || !a.optional_tensor(1, "weight", &weight) ||
      !a.optional_tensor(2, "bias", &bias) || !a.floating(7, "eps", &eps) || !a.tensor(8, "out0", &out0) ||
      !a.tensor(9, "out1", &out1) || !a.tensor(10, "out2", &out2) || !read_shape(a, input, &s)) {
    return;
  }
  const ScalarType dtype = input.scalar_type();
  if (!util::is_floating(dtype)) {
    a.fail(Error::InvalidArgument, "'input' must be float or double, got %s", runtime::to_string(dtype));
    return;
  }
  if (!read_affine(a, weight, "weight", s.channels, dtype) || !read_affine(a, bias, "bias", s.channels, dtype)) return;
  const SizesType stats_shape[2] = {static_cast<SizesType>(s.batch), static_cast<SizesType>(s.groups)};
  if (!a.check_contiguous(input, "input") || !a.check_dtype(out0, "out0", dtype) ||
      !a.resize_out(out0, "out0", input.sizes()) || !a.check_contiguous(out0, "out0") ||
      !a.check_dtype(out1, "out1", dtype) || !a.resize_out(out1, "out1", stats_shape) ||
      !a.check_contiguous(out1, "out1") || !a.check_dtype(out2, "out2", dtype) ||
      !a.resize_out(out2, "out2", stats_shape) || !a.check_contiguous(out2, "out2")) {
    return;
  }
  util::visit_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    group_norm(input.const_data_ptr<T>(), weight ? weight->const_data_ptr<T>() : nullptr,
               bias ? bias->const_data_ptr<T>() : nullptr, eps, s, out0.mutable_data_ptr<T>(),
               out1.mutable_data_ptr<T>(), out2.mutable_data_ptr<T>());
  });
}

}  // namespace kiln::kernels::portable
