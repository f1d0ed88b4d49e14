// Copies that change shape or layout: view_copy, permute_copy, clone, cat,
// split_with_sizes_copy, constant_pad_nd, repeat. Elements move as raw bytes
// of the dtype's size, in contiguous runs where the layouts allow; only cat
// (across dtypes) and constant_pad_nd (its value) convert.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"
#include "runtime/core/c10_enums.h"
#include "runtime/core/result_type.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Reads self (0) and out (2) of a three-argument copy op; out must have
// self's dtype, which must be one with a known element size.
bool read_copy_args(KernelArgs& a, Tensor* self, Tensor* out) {
  if (!a.check_count(3) || !a.tensor(0, "self", self) || !a.tensor(2, "out", out)) return false;
  if (!a.check_valid_dtype(*self, "self")) return false;
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

// cat skips 1-D empty tensors whatever the other inputs' shapes (PyTorch's
// legacy behaviour).
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// The promoted dtype of cat's inputs, checked against out's dtype.
bool cat_dtypes(KernelArgs& a, Span<const Tensor> tensors, const Tensor& out) {
  ScalarType result = tensors[0].scalar_type();
  bool mixed = false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ScalarType t = tensors[i].scalar_type();
    if (!runtime::is_valid(t) || !runtime::promote_types(result, t, &result)) {
      a.fail(Error::InvalidArgument, "'tensors'[%zu] has dtype %s, which does not promote with the %s before it", i,
             runtime::to_string(t), runtime::to_string(result));
      return false;
    }
    mixed = mixed || t != out.scalar_type();
  }
  if (!runtime::can_cast(result, out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, which the inputs' dtype %s cannot be cast to",
           runtime::to_string(out.scalar_type()), runtime::to_string(result));
    return false;
  }
  if (!mixed) return true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!util::is_convertible(tensors[i].scalar_type()) || !util::is_convertible(out.scalar_type())) {
      a.fail(Error::NotSupported, "'tensors'[%zu] has dtype %s and 'out' %s: conversion between them is not supported",
             i, runtime::to_string(tensors[i].scalar_type()), runtime::to_string(out.scalar_type()));
      return false;
    }
  }
  return true;
}

// cat's result shape into `shape`; false (failed) on mismatched inputs. With
// every input skipped the result is 1-D empty.
bool cat_shape(KernelArgs& a, Span<const Tensor> tensors, int64_t dim, SizesType* shape, size_t* rank,
               size_t* cat_dim) {
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dim() == 0) {
      a.fail(Error::InvalidArgument, "'tensors'[%zu] is 0-dim and cannot be concatenated", i);
      return false;
    }
    if (ref == nullptr && !is_legacy_empty(tensors[i])) ref = &tensors[i];
  }
  if (ref == nullptr) {
    shape[0] = 0;
    *rank = 1;
    *cat_dim = 0;
    return true;
  }
  *rank = static_cast<size_t>(ref->dim());
  if (!a.wrap_dim(dim, *rank, "dim", cat_dim)) return false;
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    if (static_cast<size_t>(t.dim()) != *rank) {
      a.fail(Error::InvalidArgument, "'tensors'[%zu] has %zd dims but the first non-empty input has %zu", i, t.dim(),
             *rank);
      return false;
    }
    for (size_t d = 0; d < *rank; ++d) {
      if (d != *cat_dim && t.sizes()[d] != ref->sizes()[d]) {
        a.fail(Error::InvalidArgument, "'tensors'[%zu] has size %d in dim %zu, expected %d (only dim %zu may differ)",
               i, t.sizes()[d], d, ref->sizes()[d], *cat_dim);
        return false;
      }
    }
    total += t.sizes()[*cat_dim];
  }
  if (total > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'tensors' concatenate to %lld elements along dim %zu, too many",
           static_cast<long long>(total), *cat_dim);
    return false;
  }
  std::copy(ref->sizes().begin(), ref->sizes().end(), shape);
  shape[*cat_dim] = static_cast<SizesType>(total);
  return true;
}

// The element `offset` elements into t's storage.
uint8_t* element_at(const Tensor& t, int64_t offset) {
  return static_cast<uint8_t*>(t.mutable_data_ptr()) + offset * static_cast<int64_t>(t.element_size());
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
    if (!runtime::is_memory_format(value, runtime::MemoryFormat::Contiguous) &&
        !runtime::is_memory_format(value, runtime::MemoryFormat::Preserve)) {
      a.fail(Error::NotSupported, "'memory_format' %lld is not supported (only contiguous or preserve)",
             static_cast<long long>(value));
      return;
    }
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  util::copy_logical(self, out);
}

void cat_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::cat.out", args);
  Span<const Tensor> tensors;
  int64_t dim = 0;
  Tensor out;
  if (!a.check_count(3) || !a.tensor_list(0, "tensors", &tensors) || !a.integer(1, "dim", &dim) ||
      !a.tensor(2, "out", &out)) {
    return;
  }
  if (tensors.empty()) {
    a.fail(Error::InvalidArgument, "'tensors' is empty");
    return;
  }
  SizesType shape[util::kMaxDims];
  size_t rank = 0, cat_dim = 0;
  if (!cat_dtypes(a, tensors, out) || !cat_shape(a, tensors, dim, shape, &rank, &cat_dim)) return;
  if (!a.resize_out(out, "out", {shape, rank})) return;
  if (out.numel() == 0) return;
  const util::Geometry to = util::geometry(out);
  int64_t offset = 0;  // along cat_dim
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    const util::Geometry from = util::geometry(t);
    util::convert_block(from.sizes, rank, element_at(out, offset * to.strides[cat_dim]), out.scalar_type(),
                        to.strides, t.const_data_ptr(), t.scalar_type(), from.strides);
    offset += from.sizes[cat_dim];
  }
}

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::split_with_sizes_copy.out", args);
  Tensor self;
  Span<const int64_t> split_sizes;
  int64_t dim = 0;
  Span<const Tensor> outs;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.int_list(1, "split_sizes", &split_sizes) ||
      !a.integer(2, "dim", &dim) || !a.tensor_list(3, "out", &outs)) {
    return;
  }
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and cannot be split");
    return;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return;
  if (outs.size() != split_sizes.size()) {
    a.fail(Error::InvalidArgument, "'out' has %zu tensors but 'split_sizes' has %zu entries", outs.size(),
           split_sizes.size());
    return;
  }
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    if (split_sizes[i] < 0 || split_sizes[i] > self.size(static_cast<ssize_t>(d))) {
      a.fail(Error::InvalidArgument, "'split_sizes'[%zu] is %lld, outside [0, %d]", i,
             static_cast<long long>(split_sizes[i]), self.size(static_cast<ssize_t>(d)));
      return;
    }
    total += split_sizes[i];
  }
  if (total != self.size(static_cast<ssize_t>(d))) {
    a.fail(Error::InvalidArgument, "'split_sizes' sum to %lld but 'self' has size %d in dim %zu",
           static_cast<long long>(total), self.size(static_cast<ssize_t>(d)), d);
    return;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].scalar_type() != self.scalar_type()) {
      a.fail(Error::InvalidArgument, "'out'[%zu] has dtype %s, expected %s", i, runtime::to_string(outs[i].scalar_type()),
             runtime::to_string(self.scalar_type()));
      return;
    }
  }
  util::Geometry from = util::geometry(self);
  SizesType shape[util::kMaxDims];
  std::copy(self.sizes().begin(), self.sizes().end(), shape);
  for (size_t i = 0; i < outs.size(); ++i) {
    shape[d] = static_cast<SizesType>(split_sizes[i]);
    if (!a.resize_out(outs[i], "out", {shape, from.rank}, static_cast<long>(i))) return;
  }
  int64_t offset = 0;  // along d
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].numel() > 0) {
      const util::Geometry to = util::geometry(outs[i]);
      util::BlockCopier(to.sizes, to.rank, to.strides, from.strides, self.element_size())
          .copy(outs[i].mutable_data_ptr(), element_at(self, offset * from.strides[d]));
    }
    offset += split_sizes[i];
  }
}


void constant_pad_nd_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::constant_pad_nd.out", args);
  Tensor self, out;
  Span<const int64_t> pad;
  const EValue* value = nullptr;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.int_list(1, "pad", &pad) ||
      !a.scalar(2, "value", &value) || !a.tensor(3, "out", &out) || !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  const ScalarType dtype = self.scalar_type();
  if (!util::is_convertible(dtype)) {
    a.fail(Error::NotSupported, "'self' has dtype %s, which is not supported", runtime::to_string(dtype));
    return;
  }
  const size_t rank = static_cast<size_t>(self.dim());
  if (pad.size() % 2 != 0 || pad.size() / 2 > rank) {
    a.fail(Error::InvalidArgument, "'pad' has %zu entries; it needs an even number, at most twice the %zu dims",
           pad.size(), rank);
    return;
  }
  bool fits = false;
  util::visit_convertible(dtype, [&](auto tag) { fits = util::scalar_converts<typename decltype(tag)::type>(*value); });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'value' %g cannot be converted to %s without overflow", value->toScalarAsDouble(),
           runtime::to_string(dtype));
    return;
  }
  // Per dim: out's size, and the kept block of self (negative pads crop it)
  // with its start in self and in out.
  const util::Geometry from = util::geometry(self);
  SizesType shape[util::kMaxDims];
  int64_t kept[util::kMaxDims], self_start = 0, out_start[util::kMaxDims];
  for (size_t d = 0; d < rank; ++d) {
    const size_t pair = rank - 1 - d;  // pairs run from the last dim
    const int64_t before = pair < pad.size() / 2 ? pad[2 * pair] : 0;
    const int64_t after = pair < pad.size() / 2 ? pad[2 * pair + 1] : 0;
    const int64_t size = from.sizes[d];
    const int64_t crop = std::max<int64_t>(0, -before) + std::max<int64_t>(0, -after);
    const int64_t grow = std::max<int64_t>(0, before) + std::max<int64_t>(0, after);
    // Compared before adding, so that no pad, however large, overflows.
    if (crop > size || grow > INT32_MAX - (size - crop)) {
      a.fail(Error::InvalidArgument, "'pad' (%lld, %lld) gives dim %zu of size %lld an invalid size",
             static_cast<long long>(before), static_cast<long long>(after), d, static_cast<long long>(size));
      return;
    }
    kept[d] = size - crop;
    shape[d] = static_cast<SizesType>(kept[d] + grow);
    self_start += std::max<int64_t>(0, -before) * from.strides[d];
    out_start[d] = std::max<int64_t>(0, before);
  }
  if (!a.resize_out(out, "out", {shape, rank})) return;
  if (out.numel() == 0) return;
  util::visit_convertible(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = util::scalar_as<T>(*value);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = fill;  // every element: the layout does not matter
  });
  const util::Geometry to = util::geometry(out);
  int64_t out_offset = 0;
  for (size_t d = 0; d < rank; ++d) {
    out_offset += out_start[d] * to.strides[d];
    if (kept[d] == 0) return;
  }
  util::BlockCopier(kept, rank, to.strides, from.strides, self.element_size())
      .copy(element_at(out, out_offset), element_at(self, self_start));
}

namespace {

// repeat into a dense out: self goes into the leading corner, then each dim,
// innermost first, is replicated by copying what is already written.
void repeat_dense(const Tensor& self, const int64_t* self_strides, const int64_t* self_sizes,
                  const int64_t* repeats, size_t rank, const Tensor& out) {
  const util::Geometry to = util::geometry(out);
  util::BlockCopier(self_sizes, rank, to.strides, self_strides, self.element_size())
      .copy(out.mutable_data_ptr(), self.const_data_ptr());
  const auto element = static_cast<int64_t>(out.element_size());
  auto* base = static_cast<uint8_t*>(out.mutable_data_ptr());
  for (size_t d = rank; d-- > 0;) {
    if (repeats[d] == 1) continue;
    const int64_t block = self_sizes[d] * to.strides[d] * element;  // bytes of dims d.. already filled
    const int64_t total = block * repeats[d];
    util::StridedCursor<1> outer(self_sizes, d);
    outer.set_strides(0, to.strides);
    do {
      uint8_t* start = base + outer.offset(0) * element;
      // Doubling copies: each one copies everything filled so far.
      for (int64_t filled = block; filled < total;) {
        const int64_t n = std::min(filled, total - filled);
        std::memcpy(start + filled, start, static_cast<size_t>(n));
        filled += n;
      }
    } while (outer.next());
  }
}

// repeat into any out: one block copy of self per tile.
void repeat_tiles(const Tensor& self, const int64_t* self_strides, const int64_t* self_sizes,
                  const int64_t* repeats, size_t rank, const Tensor& out) {
  const util::Geometry to = util::geometry(out);
  const util::BlockCopier tile(self_sizes, rank, to.strides, self_strides, self.element_size());
  int64_t tile_strides[util::kMaxDims];
  for (size_t d = 0; d < rank; ++d) tile_strides[d] = self_sizes[d] * to.strides[d];
  util::StridedCursor<1> tiles(repeats, rank);
  tiles.set_strides(0, tile_strides);
  do {
    tile.copy(element_at(out, tiles.offset(0)), self.const_data_ptr());
  } while (tiles.next());
}

}  // namespace

void repeat_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::repeat.out", args);
  Tensor self, out;
  Span<const int64_t> repeats;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.int_list(1, "repeats", &repeats) ||
      !a.tensor(2, "out", &out) || !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  const size_t rank = repeats.size();
  const size_t lead = rank - std::min(rank, static_cast<size_t>(self.dim()));
  if (rank < static_cast<size_t>(self.dim()) || rank > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'repeats' has %zu entries; it needs at least the %zd dims of 'self', at most %zu",
           rank, self.dim(), util::kMaxDims);
    return;
  }
  if (!a.check_valid_dtype(self, "self")) return;
  // self seen with `rank` dims: leading dims of size 1.
  int64_t sizes[util::kMaxDims], strides[util::kMaxDims];
  SizesType shape[util::kMaxDims];
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = d < lead ? 1 : self.sizes()[d - lead];
    strides[d] = d < lead ? 0 : self.strides()[d - lead];
    if (repeats[d] < 0 || (sizes[d] > 0 && repeats[d] > INT32_MAX / sizes[d])) {
      a.fail(Error::InvalidArgument, "'repeats'[%zu] is %lld, which is negative or too large for a dim of size %lld", d,
             static_cast<long long>(repeats[d]), static_cast<long long>(sizes[d]));
      return;
    }
    shape[d] = static_cast<SizesType>(sizes[d] * repeats[d]);
  }
  if (!a.resize_out(out, "out", {shape, rank})) return;
  if (out.numel() == 0) return;
  if (util::is_dense(out)) {
    repeat_dense(self, strides, sizes, repeats.data(), rank, out);
  } else {
    repeat_tiles(self, strides, sizes, repeats.data(), rank, out);
  }
}

}  // namespace kiln::kernels::portable
