// view_copy, permute_copy, clone: copies that change shape or layout, for any
// dtype (elements are moved as raw bytes of the dtype's size).
#include <cstdint>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// PyTorch's c10::MemoryFormat values, as a program serializes them.
constexpr int64_t kContiguousFormat = 0;
constexpr int64_t kPreserveFormat = 1;

// Reads self (0) and out (2) of a three-argument copy op; out must have
// self's dtype, which must be one with a known element size.
bool read_copy_args(KernelArgs& a, Tensor* self, Tensor* out) {
  if (!a.check_count(3) || !a.tensor(0, "self", self) || !a.tensor(2, "out", out)) return false;
  if (!runtime::is_valid(self->scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has an invalid dtype (%d)", static_cast<int>(self->scalar_type()));
    return false;
  }
  return a.check_dtype(*out, "out", self->scalar_type());
}

// view_copy's target shape: `size` with its -1 (if any) inferred from numel.
bool infer_view_shape(KernelArgs& a, Span<const int64_t> size, int64_t numel, SizesType* shape) {
  if (size.size() > util::kMaxDims) {
    a.fail(Error::NotSupported, "'size' has %zu dims, at most %zu are supported", size.size(), util::kMaxDims);
    return false;
  }
  int64_t known = 1;
  size_t inferred = size.size();
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1 && inferred == size.size()) {
      inferred = i;
      continue;
    }
    if (size[i] < 0 || size[i] > INT32_MAX || __builtin_mul_overflow(known, size[i], &known)) {
      a.fail(Error::InvalidArgument, "'size' entry %zu (%lld) is invalid", i, static_cast<long long>(size[i]));
      return false;
    }
    shape[i] = static_cast<SizesType>(size[i]);
  }
  if (inferred != size.size()) {
    if (known == 0 || numel % known != 0 || numel / known > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'size' cannot infer its -1 for %lld elements", static_cast<long long>(numel));
      return false;
    }
    shape[inferred] = static_cast<SizesType>(numel / known);
    known = numel;
  }
  if (known != numel) {
    a.fail(Error::InvalidArgument, "'size' holds %lld elements but 'self' has %lld", static_cast<long long>(known),
           static_cast<long long>(numel));
    return false;
  }
  return true;
}

}  // namespace

void view_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::view_copy.out", args);
  Tensor self, out;
  Span<const int64_t> size;
  if (!read_copy_args(a, &self, &out) || !a.int_list(1, "size", &size)) return;
  SizesType shape[util::kMaxDims];
  if (!infer_view_shape(a, size, self.numel(), shape)) return;
  if (!a.resize_out(out, "out", {shape, size.size()})) return;
  util::copy_logical(self, out);
}

void permute_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::permute_copy.out", args);
  Tensor self, out;
  Span<const int64_t> dims;
  if (!read_copy_args(a, &self, &out) || !a.int_list(1, "dims", &dims)) return;
  const int64_t rank = self.dim();
  if (static_cast<int64_t>(dims.size()) != rank) {
    a.fail(Error::InvalidArgument, "'dims' has %zu entries but 'self' has %lld dims", dims.size(),
           static_cast<long long>(rank));
    return;
  }
  SizesType shape[util::kMaxDims];
  int64_t src_strides[util::kMaxDims];
  bool seen[util::kMaxDims] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i] < 0 ? dims[i] + rank : dims[i];
    if (d < 0 || d >= rank || seen[d]) {
      a.fail(Error::InvalidArgument, "'dims' is not a permutation of the %lld dims (entry %zu is %lld)",
             static_cast<long long>(rank), i, static_cast<long long>(dims[i]));
      return;
    }
    seen[d] = true;
    shape[i] = self.sizes()[static_cast<size_t>(d)];
    src_strides[i] = self.strides()[static_cast<size_t>(d)];
  }
  if (!a.resize_out(out, "out", {shape, dims.size()})) return;
  util::copy_with_strides(self, src_strides, out);
}

void clone_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::clone.out", args);
  Tensor self, out;
  if (!read_copy_args(a, &self, &out)) return;
  const EValue& format = *args[1];
  if (!format.isNone()) {
    int64_t value = 0;
    if (!a.integer(1, "memory_format", &value)) return;
    if (value != kContiguousFormat && value != kPreserveFormat) {
      a.fail(Error::NotSupported, "'memory_format' %lld is not supported (only contiguous or preserve)",
             static_cast<long long>(value));
      return;
    }
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  util::copy_logical(self, out);
}

}  // namespace kiln::kernels::portable
