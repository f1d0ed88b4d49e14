// max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d on contiguous
// (N, C, H, W) or (C, H, W) input: one output element at a time, each window
// summed (or searched) row by row in PyTorch's order, so that averages round
// as PyTorch's CPU kernels do.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::EValue;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// A 2-entry pooling parameter; one entry applies to both dims. An empty
// stride means "the kernel size", as in PyTorch.
bool pair_param(KernelArgs& a, size_t index, const char* name, const int64_t* fallback, int64_t* out) {
  Span<const int64_t> values;
  if (!a.int_list(index, name, &values)) return false;
  if (values.empty() && fallback != nullptr) {
    out[0] = fallback[0];
    out[1] = fallback[1];
    return true;
  }
  if (values.size() != 1 && values.size() != 2) {
    a.fail(Error::InvalidArgument, "'%s' must have 1 or 2 entries, got %zu", name, values.size());
    return false;
  }
  out[0] = values[0];
  out[1] = values[values.size() - 1];
  return true;
}

// An `int?` argument: None or an Int.
bool optional_integer(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, std::optional<int64_t>* out) {
  if (args[index]->isNone()) {
    *out = std::nullopt;
    return true;
  }
  int64_t value = 0;
  if (!a.integer(index, name, &value)) return false;
  *out = value;
  return true;
}

// The planes (N * C, or C) of a 3-D or 4-D pooling input, and its H and W.
struct Planes {
  int64_t count = 0, height = 0, width = 0;
};

// The planes of a 3-D or 4-D `self` (its rank checked by the caller).
Planes read_planes(const Tensor& self) {
  const ssize_t rank = self.dim();
  Planes p;
  p.height = self.size(rank - 2);
  p.width = self.size(rank - 1);
  p.count = 1;
  for (ssize_t d = 0; d < rank - 2; ++d) p.count *= self.size(d);
  return p;
}

// Resizes out to self's leading dims followed by out_h x out_w and checks
// that it is a contiguous tensor of self's dtype.
bool resize_pooled(KernelArgs& a, const Tensor& self, const Tensor& out, int64_t out_h, int64_t out_w) {
  const ssize_t rank = self.dim();
  SizesType shape[4];
  for (ssize_t d = 0; d < rank - 2; ++d) shape[d] = self.size(d);
  shape[rank - 2] = static_cast<SizesType>(out_h);
  shape[rank - 1] = static_cast<SizesType>(out_w);
  return a.check_dtype(out, "out", self.scalar_type()) && a.resize_out(out, "out", {shape, size_t(rank)}) &&
         a.check_contiguous(out, "out");
}

// A floating (or 16-bit floating) contiguous 3-D or 4-D input.
bool check_average_input(KernelArgs& a, const Tensor& self) {
  if (self.dim() != 3 && self.dim() != 4) {
    a.fail(Error::InvalidArgument, "'self' must have 3 (C, H, W) or 4 (N, C, H, W) dims, got %zd", self.dim());
    return false;
  }
  if (!util::is_floating_or_half(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return false;
  }
  return a.check_contiguous(self, "self");
}

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

void max_pool2d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::max_pool2d_with_indices.out", args);
  Tensor self, out, indices;
  bool ceil_mode = false;
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  if (!a.check_count(8) || !a.tensor(0, "self", &self) || !pair_param(a, 1, "kernel_size", nullptr, kernel) ||
      !pair_param(a, 2, "stride", kernel, stride) || !pair_param(a, 3, "padding", nullptr, padding) ||
      !pair_param(a, 4, "dilation", nullptr, dilation) || !a.boolean(5, "ceil_mode", &ceil_mode) ||
      !a.tensor(6, "out", &out) || !a.tensor(7, "indices", &indices)) {
    return;
  }
  if (self.dim() != 3 && self.dim() != 4) {
    a.fail(Error::InvalidArgument, "'self' must have 3 or 4 dims, got %zd", self.dim());
    return;
  }
  for (int d = 0; d < 2; ++d) {
    const char* bad = kernel[d] <= 0   ? "kernel_size"
                      : stride[d] <= 0   ? "stride"
                      : dilation[d] <= 0 ? "dilation"
                                         : nullptr;
    if (bad != nullptr) {
      a.fail(Error::InvalidArgument, "'%s' must be positive (kernel %lld, stride %lld, dilation %lld)", bad,
             static_cast<long long>(kernel[d]), static_cast<long long>(stride[d]), static_cast<long long>(dilation[d]));
      return;
    }
    if (padding[d] < 0 || padding[d] > kernel[d] / 2) {
      a.fail(Error::InvalidArgument, "'padding' %lld must be between 0 and half the kernel size %lld",
             static_cast<long long>(padding[d]), static_cast<long long>(kernel[d]));
      return;
    }
  }
  if (!util::is_real(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  const ssize_t rank = self.dim();
  // As PyTorch: every dim but a 4-D input's batch dim must be non-empty.
  for (ssize_t d = rank - 3; d < rank; ++d) {
    if (self.size(d) == 0) {
      a.fail(Error::InvalidArgument, "'self' must be non-empty in its (C, H, W) dims, got size 0 in dim %zd", d);
      return;
    }
  }
  const int64_t height = self.size(rank - 2), width = self.size(rank - 1);
  const int64_t out_h = pooled_size(height, kernel[0], padding[0], stride[0], dilation[0], ceil_mode);
  const int64_t out_w = pooled_size(width, kernel[1], padding[1], stride[1], dilation[1], ceil_mode);
  if (out_h <= 0 || out_w <= 0) {
    a.fail(Error::InvalidArgument, "'self' of %lldx%lld is too small for the pooling window",
           static_cast<long long>(height), static_cast<long long>(width));
    return;
  }
  SizesType shape[4];
  for (ssize_t d = 0; d < rank - 2; ++d) shape[d] = self.size(d);
  shape[rank - 2] = static_cast<SizesType>(out_h);
  shape[rank - 1] = static_cast<SizesType>(out_w);
  if (!a.check_contiguous(self, "self") || !a.check_dtype(out, "out", self.scalar_type()) ||
      !a.check_dtype(indices, "indices", ScalarType::Long) || !a.resize_out(out, "out", {shape, size_t(rank)}) ||
      !a.resize_out(indices, "indices", {shape, size_t(rank)}) || !a.check_contiguous(out, "out") ||
      !a.check_contiguous(indices, "indices")) {
    return;
  }
  const int64_t planes = self.numel() / (height * width);
  util::visit_real(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t p = 0; p < planes; ++p) {
      const T* x = self.const_data_ptr<T>() + p * height * width;
      T* y = out.mutable_data_ptr<T>() + p * out_h * out_w;
      int64_t* idx = indices.mutable_data_ptr<int64_t>() + p * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          // PyTorch's loop: padding acts as -inf (the index starts at the
          // window's first in-bounds element), a larger value or any NaN
          // takes over, so the last NaN of a window wins.
          int64_t best_index = -1;
          T best = std::numeric_limits<T>::lowest();
          if constexpr (std::numeric_limits<T>::has_infinity) best = -std::numeric_limits<T>::infinity();
          for (int64_t kh = 0; kh < kernel[0]; ++kh) {
            const int64_t ih = oh * stride[0] - padding[0] + kh * dilation[0];
            if (ih < 0 || ih >= height) continue;
            for (int64_t kw = 0; kw < kernel[1]; ++kw) {
              const int64_t iw = ow * stride[1] - padding[1] + kw * dilation[1];
              if (iw < 0 || iw >= width) continue;
              const T v = x[ih * width + iw];
              bool is_nan = false;
              if constexpr (std::is_floating_point_v<T>) is_nan = std::isnan(v);
              if (best_index < 0) best_index = ih * width + iw;
              if (v > best || is_nan) {
                best = v;
                best_index = ih * width + iw;
              }
            }
          }
          y[oh * out_w + ow] = best;
          idx[oh * out_w + ow] = best_index;
        }
      }
    }
  });
}

void avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::avg_pool2d.out", args);
  Tensor self, out;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor;
  int64_t kernel[2], stride[2], padding[2];
  if (!a.check_count(8) || !a.tensor(0, "self", &self) || !pair_param(a, 1, "kernel_size", nullptr, kernel) ||
      !pair_param(a, 2, "stride", kernel, stride) || !pair_param(a, 3, "padding", nullptr, padding) ||
      !a.boolean(4, "ceil_mode", &ceil_mode) || !a.boolean(5, "count_include_pad", &count_include_pad) ||
      !optional_integer(a, args, 6, "divisor_override", &divisor) || !a.tensor(7, "out", &out) ||
      !check_average_input(a, self)) {
    return;
  }
  for (int d = 0; d < 2; ++d) {
    if (kernel[d] <= 0 || kernel[d] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'kernel_size' must be in [1, INT32_MAX], got %lld", static_cast<long long>(kernel[d]));
      return;
    }
    if (stride[d] <= 0 || stride[d] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'stride' must be in [1, INT32_MAX], got %lld", static_cast<long long>(stride[d]));
      return;
    }
    if (padding[d] < 0 || padding[d] > kernel[d] / 2) {
      a.fail(Error::InvalidArgument, "'padding' %lld must be between 0 and half the kernel size %lld",
             static_cast<long long>(padding[d]), static_cast<long long>(kernel[d]));
      return;
    }
  }
  if (divisor.has_value() && *divisor == 0) {
    a.fail(Error::InvalidArgument, "'divisor_override' must not be zero");
    return;
  }
  const ssize_t rank = self.dim();
  for (ssize_t d = rank - 3; d < rank; ++d) {
    if (self.size(d) == 0) {
      a.fail(Error::InvalidArgument, "'self' must be non-empty in its (C, H, W) dims, got size 0 in dim %zd", d);
      return;
    }
  }
  const Planes p = read_planes(self);
  const int64_t out_h = pooled_size(p.height, kernel[0], padding[0], stride[0], 1, ceil_mode);
  const int64_t out_w = pooled_size(p.width, kernel[1], padding[1], stride[1], 1, ceil_mode);
  if (out_h <= 0 || out_w <= 0) {
    a.fail(Error::InvalidArgument, "'self' of %lldx%lld is too small for the pooling window",
           static_cast<long long>(p.height), static_cast<long long>(p.width));
    return;
  }
  if (!resize_pooled(a, self, out, out_h, out_w)) return;
  util::visit_floating_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = util::compute_t<T>;
    for (int64_t plane = 0; plane < p.count; ++plane) {
      const T* x = self.const_data_ptr<T>() + plane * p.height * p.width;
      T* y = out.mutable_data_ptr<T>() + plane * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        // The window as PyTorch counts it: clipped to the padded input for
        // count_include_pad, then to the input for the sum.
        const int64_t h_start = oh * stride[0] - padding[0];
        const int64_t h_end = std::min(h_start + kernel[0], p.height + padding[0]);
        const int64_t h0 = std::max<int64_t>(h_start, 0), h1 = std::min(h_end, p.height);
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t w_start = ow * stride[1] - padding[1];
          const int64_t w_end = std::min(w_start + kernel[1], p.width + padding[1]);
          const int64_t w0 = std::max<int64_t>(w_start, 0), w1 = std::min(w_end, p.width);
          if (h0 >= h1 || w0 >= w1) {
            y[oh * out_w + ow] = T(0);
            continue;
          }
          const int64_t count = divisor.has_value() ? *divisor
                                : count_include_pad ? (h_end - h_start) * (w_end - w_start)
                                                    : (h1 - h0) * (w1 - w0);
          C sum = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<C>(x[ih * p.width + iw]);
          }
          y[oh * out_w + ow] = util::store_as<T>(sum / static_cast<C>(count));
        }
      }
    }
  });
}

void adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_adaptive_avg_pool2d.out", args);
  Tensor self, out;
  Span<const int64_t> output_size;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.int_list(1, "output_size", &output_size) ||
      !a.tensor(2, "out", &out) || !check_average_input(a, self)) {
    return;
  }
  if (output_size.size() != 2) {
    a.fail(Error::InvalidArgument, "'output_size' must have 2 entries, got %zu", output_size.size());
    return;
  }
  const int64_t out_h = output_size[0], out_w = output_size[1];
  if (out_h < 0 || out_w < 0 || out_h > INT32_MAX || out_w > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'output_size' [%lld, %lld] must be in [0, INT32_MAX]",
           static_cast<long long>(out_h), static_cast<long long>(out_w));
    return;
  }
  const Planes p = read_planes(self);
  if (p.height == 0 || p.width == 0) {
    a.fail(Error::InvalidArgument, "'self' must be non-empty in its (H, W) dims, got %lldx%lld",
           static_cast<long long>(p.height), static_cast<long long>(p.width));
    return;
  }
  if (!resize_pooled(a, self, out, out_h, out_w)) return;
  util::visit_floating_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = util::compute_t<T>;
    for (int64_t plane = 0; plane < p.count; ++plane) {
      const T* x = self.const_data_ptr<T>() + plane * p.height * p.width;
      T* y = out.mutable_data_ptr<T>() + plane * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        // Window [floor(i * in / out), ceil((i + 1) * in / out)).
        const int64_t h0 = oh * p.height / out_h, h1 = ((oh + 1) * p.height + out_h - 1) / out_h;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t w0 = ow * p.width / out_w, w1 = ((ow + 1) * p.width + out_w - 1) / out_w;
          C sum = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<C>(x[ih * p.width + iw]);
          }
          // Divided by the height, then the width, as PyTorch rounds.
          y[oh * out_w + ow] = util::store_as<T>(sum / static_cast<C>(h1 - h0) / static_cast<C>(w1 - w0));
        }
      }
    }
  });
}

}  // namespace kiln::kernels::portable
