// col2im (fold): sums the columns of sliding blocks, (N, C * kh * kw, L) or
// (C * kh * kw, L), back into an image (N, C, H, W) or (C, H, W). Each column
// element is added where its block puts it, in PyTorch's order (kernel
// offset, then block row, then block column) and rounded to the dtype at each
// addition as PyTorch's CPU kernel does, so 16-bit floats match it too.
#include <cstdint>

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

// Height and width entries of the int[2] arguments, the image's size, and
// the number of sliding blocks along each.
struct Fold {
  int64_t image[2] = {}, kernel[2] = {}, dilation[2] = {}, padding[2] = {}, stride[2] = {}, blocks[2] = {};
};

// An int[2] argument: 2 entries, or 1 for both.
bool pair_param(KernelArgs& a, size_t index, const char* name, int64_t* out) {
  Span<const int64_t> values;
  if (!a.int_list(index, name, &values)) return false;
  if (values.size() != 1 && values.size() != 2) {
    a.fail(Error::InvalidArgument, "'%s' must have 1 or 2 entries, got %zu", name, values.size());
    return false;
  }
  out[0] = values[0];
  out[1] = values[values.size() - 1];
  return true;
}

bool read_fold(KernelArgs& a, Fold* f) {
  if (!pair_param(a, 1, "output_size", f->image) || !pair_param(a, 2, "kernel_size", f->kernel) ||
      !pair_param(a, 3, "dilation", f->dilation) || !pair_param(a, 4, "padding", f->padding) ||
      !pair_param(a, 5, "stride", f->stride)) {
    return false;
  }
  for (int d = 0; d < 2; ++d) {
    const char* bad = f->kernel[d] <= 0 || f->kernel[d] > INT32_MAX       ? "kernel_size"
                      : f->dilation[d] <= 0 || f->dilation[d] > INT32_MAX ? "dilation"
                      : f->stride[d] <= 0 || f->stride[d] > INT32_MAX     ? "stride"
                      : f->padding[d] < 0 || f->padding[d] > INT32_MAX    ? "padding"
                      : f->image[d] < 0 || f->image[d] > INT32_MAX        ? "output_size"
                                                                          : nullptr;
    if (bad != nullptr) {
      a.fail(Error::InvalidArgument, "'%s' is out of range (kernel_size and dilation and stride must be positive, "
             "padding and output_size not negative)", bad);
      return false;
    }
    const int64_t extent = f->dilation[d] * (f->kernel[d] - 1) + 1;
    if (f->image[d] + 2 * f->padding[d] < extent) {
      a.fail(Error::InvalidArgument, "'output_size' %lldx%lld is too small for any sliding block",
             static_cast<long long>(f->image[0]), static_cast<long long>(f->image[1]));
      return false;
    }
    f->blocks[d] = (f->image[d] + 2 * f->padding[d] - extent) / f->stride[d] + 1;
    // A tensor's dim holds at most INT32_MAX blocks; this bounds their product too.
    if (f->blocks[d] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "the fold has %lld sliding blocks along dim %d, more than INT32_MAX",
             static_cast<long long>(f->blocks[d]), d);
      return false;
    }
  }
  return true;
}

// self: (C * kh * kw, L) or (N, C * kh * kw, L), every dim but N non-empty,
// with L the fold's number of blocks.
bool check_columns(KernelArgs& a, const Tensor& self, const Fold& f) {
  const ssize_t rank = self.dim();
  if ((rank != 2 && rank != 3) || self.size(rank - 2) == 0 || self.size(rank - 1) == 0) {
    a.fail(Error::InvalidArgument, "'self' must be a (C * kh * kw, L) or (N, C * kh * kw, L) tensor, non-empty "
           "but for N, got %zd dims", rank);
    return false;
  }
  if (self.size(rank - 2) % (f.kernel[0] * f.kernel[1]) != 0) {
    a.fail(Error::InvalidArgument, "'self' has %lld rows, not a multiple of the kernel's %lld elements",
           static_cast<long long>(self.size(rank - 2)), static_cast<long long>(f.kernel[0] * f.kernel[1]));
    return false;
  }
  if (self.size(rank - 1) != f.blocks[0] * f.blocks[1]) {
    a.fail(Error::InvalidArgument, "'self' has %lld columns, but the fold has %lld x %lld sliding blocks",
           static_cast<long long>(self.size(rank - 1)), static_cast<long long>(f.blocks[0]),
           static_cast<long long>(f.blocks[1]));
    return false;
  }
  const ScalarType dtype = self.scalar_type();
  if (!util::is_floating_or_half(dtype) && dtype != ScalarType::Bool) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(dtype));
    return false;
  }
  return a.check_contiguous(self, "self");
}

// Adds one image's columns (rows = channels * kh * kw) into `image` (zeroed).
template <typename T>
void fold_image(const Fold& f, int64_t rows, const T* columns, T* image) {
  using C = util::compute_t<T>;
  const int64_t height = f.image[0], width = f.image[1];
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t kw = row % f.kernel[1], kh = row / f.kernel[1] % f.kernel[0];
    const int64_t channel = row / f.kernel[1] / f.kernel[0];
    T* plane = image + channel * height * width;
    for (int64_t bh = 0; bh < f.blocks[0]; ++bh) {
      const int64_t h = bh * f.stride[0] - f.padding[0] + kh * f.dilation[0];
      for (int64_t bw = 0; bw < f.blocks[1]; ++bw, ++columns) {
        const int64_t w = bw * f.stride[1] - f.padding[1] + kw * f.dilation[1];
        if (h < 0 || h >= height || w < 0 || w >= width) continue;
        T& pixel = plane[h * width + w];
        pixel = util::store_as<T>(static_cast<C>(pixel) + static_cast<C>(*columns));
      }
    }
  }
}

}  // namespace

void col2im_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::col2im.out", args);
  Tensor self, out;
  Fold f;
  if (!a.check_count(7) || !a.tensor(0, "self", &self) || !a.tensor(6, "out", &out) || !read_fold(a, &f) ||
      !check_columns(a, self, f)) {
    return;
  }
  const ssize_t rank = self.dim();
  const int64_t rows = self.size(rank - 2);
  const int64_t images = rank == 3 ? self.size(0) : 1;
  SizesType shape[4];
  size_t d = 0;
  if (rank == 3) shape[d++] = self.size(0);
  shape[d++] = static_cast<SizesType>(rows / (f.kernel[0] * f.kernel[1]));
  shape[d++] = static_cast<SizesType>(f.image[0]);
  shape[d++] = static_cast<SizesType>(f.image[1]);
  if (!a.check_dtype(out, "out", self.scalar_type()) || !a.resize_out(out, "out", {shape, d}) ||
      !a.check_contiguous(out, "out")) {
    return;
  }
  const int64_t image_size = out.numel() / (images == 0 ? 1 : images);
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* image = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) image[i] = T(0);
    for (int64_t n = 0; n < images; ++n) {
      fold_image(f, rows, self.const_data_ptr<T>() + n * rows * self.size(rank - 1), image + n * image_size);
    }
  });
}

}  // namespace kiln::kernels::portable
