// The prim kernels on tensors: sizes as ints (sym_size, sym_numel), the
// run-time view (et_view), and the copies ExecuTorch programs call that the
// portable library has no kernel for (copy_, copy.out, _to_dim_order_copy,
// _clone_dim_order). The copies share two steps: src broadcast to a shape and
// cast (copy_, copy.out), and the dim order argument checked against out's
// (the dim_order ops); the element loop is the portable library's.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"
#include "kernels/prim/prim_kernels.h"

namespace kiln::kernels::prim {

namespace {

using portable::util::KernelArgs;
using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;

// The return slot takes the value the kernel wrote (it is often the same
// EValue already).
void set_return(Span<EValue*> args, size_t from) {
  if (args[args.size() - 1] != args[from]) *args[args.size() - 1] = *args[from];
}

bool check_convertible(KernelArgs& a, ScalarType from, ScalarType to) {
  if (from == to && runtime::is_valid(from)) return true;
  if (portable::util::is_convertible(from) && portable::util::is_convertible(to)) return true;
  a.fail(Error::NotSupported, "dtype %s cannot be converted to %s", runtime::to_string(from), runtime::to_string(to));
  return false;
}

// Copies all of `src` (already of `dst`'s shape, or broadcast to it through
// `src_strides`) into `dst`, casting each element.
void convert_into(const Tensor& dst, const Tensor& src, const int64_t* src_strides) {
  if (dst.numel() == 0) return;
  const portable::util::Geometry d = portable::util::geometry(dst);
  portable::util::convert_block(d.sizes, d.rank, dst.mutable_data_ptr(), dst.scalar_type(), d.strides,
                                src.const_data_ptr(), src.scalar_type(), src_strides);
}

// Writes "[0, 2, 3, 1]" into `buffer` (truncated if short).
template <typename T>
void format_dims(Span<const T> dims, char* buffer, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, size, "["));
  for (size_t d = 0; d < dims.size() && used < size; ++d) {
    used += static_cast<size_t>(
        std::snprintf(buffer + used, size - used, d == 0 ? "%lld" : ", %lld", static_cast<long long>(dims[d])));
  }
  if (used < size) std::snprintf(buffer + used, size - used, "]");
}

bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t d = 0; d < static_cast<size_t>(a.dim()); ++d) {
    if (a.dim_order()[d] != b.dim_order()[d]) return false;
  }
  return true;
}

bool check_broadcasts(KernelArgs& a, const Tensor& src, const Tensor& self) {
  if (portable::util::broadcasts_to(src.sizes(), self.sizes())) return true;
  char have[96], want[96];
  portable::util::format_sizes(src.sizes(), have, sizeof have);
  portable::util::format_sizes(self.sizes(), want, sizeof want);
  a.fail(Error::InvalidArgument, "'src' of shape %s does not broadcast to 'self' of shape %s", have, want);
  return false;
}

// Writes `src`, broadcast to dst's shape (check_broadcasts), into `dst` with
// dst's dtype.
void broadcast_convert(const Tensor& src, const Tensor& dst) {
  // Copying a tensor onto its own bytes, laid out alike, changes nothing.
  if (src.const_data_ptr() == dst.const_data_ptr() && src.scalar_type() == dst.scalar_type() &&
      portable::util::same_sizes(src, dst) && same_dim_order(src, dst)) {
    return;
  }
  portable::util::StridedLayout<1> layout;
  portable::util::set_index_space(layout, dst.sizes());
  portable::util::set_broadcast_strides(layout, 0, src);
  convert_into(dst, src, layout.strides[0]);
}

// The dim_order argument (index 2) of the dim_order ops: out was planned in
// the dim order given, so a list must be out's; None keeps self's layout, so
// out must have self's dim order (ExecuTorch's rule). Either way a mismatch
// means the program disagrees with its own tensors.
bool check_dim_order(KernelArgs& a, const EValue& arg, const Tensor& self, const Tensor& out) {
  char want[96], have[96];
  format_dims(out.dim_order(), have, sizeof have);
  if (arg.isNone()) {
    if (same_dim_order(self, out)) return true;
    format_dims(self.dim_order(), want, sizeof want);
    a.fail(Error::InvalidArgument, "'dim_order' is None, so 'out' must keep the dim order %s of 'self', but has %s",
           want, have);
    return false;
  }
  Span<const int64_t> dim_order;
  if (!a.int_list(2, "dim_order", &dim_order)) return false;
  bool same = dim_order.size() == static_cast<size_t>(out.dim());
  for (size_t d = 0; d < dim_order.size() && same; ++d) same = dim_order[d] == out.dim_order()[d];
  if (same) return true;
  format_dims(dim_order, want, sizeof want);
  a.fail(Error::InvalidArgument, "'dim_order' %s differs from the dim order of 'out' %s", want, have);
  return false;
}

}  // namespace

void sym_size_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::sym_size.int", args);
  Tensor self;
  int64_t dim = 0;
  size_t d = 0;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) {
    return;
  }
  if (self.dim() == 0) {
    a.fail(Error::InvalidArgument, "'self' is 0-dim and has no size");
    return;
  }
  *args[2] = EValue(static_cast<int64_t>(self.sizes()[d]));
}

void sym_numel(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::sym_numel", args);
  Tensor self;
  if (!a.check_count(1) || !a.tensor(0, "self", &self)) return;
  *args[1] = EValue(static_cast<int64_t>(self.numel()));
}

void local_scalar_dense(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_local_scalar_dense", args);
  Tensor self;
  if (!a.check_count(1) || !a.tensor(0, "self", &self)) return;
  if (self.numel() != 1) {
    a.fail(Error::InvalidArgument, "'self' has %zd elements, expected one", self.numel());
    return;
  }
  const ScalarType type = self.scalar_type();
  if (type == ScalarType::Bool) {
    *args[1] = EValue(*self.const_data_ptr<bool>());
    return;
  }
  if (!portable::util::is_convertible(type)) {
    a.fail(Error::NotSupported, "'self' has dtype %s", runtime::to_string(type));
    return;
  }
  // One element converted to int64 or double, as the convert helpers cast.
  const int64_t one[1] = {1};
  if (runtime::is_floating_type(type)) {
    double value = 0;
    portable::util::convert_block(one, 1, &value, ScalarType::Double, one, self.const_data_ptr(), type, one);
    *args[1] = EValue(value);
  } else {
    int64_t value = 0;
    portable::util::convert_block(one, 1, &value, ScalarType::Long, one, self.const_data_ptr(), type, one);
    *args[1] = EValue(value);
  }
}

void et_view(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "executorch_prim::et_view.default", args);
  Tensor self, out;
  Span<const int64_t> size;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.int_list(1, "size", &size)) return;
  if (!args[2]->isTensor() || args[2]->toTensor().unsafeGetTensorImpl() == nullptr) {
    a.fail(Error::InvalidArgument, "'out' must be a Tensor, got %s", runtime::to_string(args[2]->tag()));
    return;
  }
  out = args[2]->toTensor();
  if (out.scalar_type() != self.scalar_type()) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, 'self' %s", runtime::to_string(out.scalar_type()),
           runtime::to_string(self.scalar_type()));
    return;
  }
  if (size.size() > portable::util::kMaxDims) {
    a.fail(Error::NotSupported, "'size' has %zu entries, at most %zu are supported", size.size(),
           portable::util::kMaxDims);
    return;
  }
  SizesType sizes[portable::util::kMaxDims];
  int64_t known = 1;
  long inferred = -1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == -1 && inferred < 0) {
      inferred = static_cast<long>(d);
      continue;
    }
    if (size[d] < 0 || size[d] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'size' entry %zu is %lld", d, static_cast<long long>(size[d]));
      return;
    }
    sizes[d] = static_cast<SizesType>(size[d]);
    known *= size[d];
  }
  if (inferred >= 0) {
    if (known == 0 || self.numel() % known != 0) {
      a.fail(Error::InvalidArgument, "'size' cannot be inferred: %zd elements are not a multiple of %lld",
             self.numel(), static_cast<long long>(known));
      return;
    }
    sizes[inferred] = static_cast<SizesType>(self.numel() / known);
    known *= sizes[inferred];
  }
  if (known != self.numel()) {
    a.fail(Error::InvalidArgument, "'size' holds %lld elements, 'self' %zd", static_cast<long long>(known),
           self.numel());
    return;
  }
  // The view's bytes are self's: point out at them before resizing, since
  // resize_out wants data for a non-empty tensor.
  out.unsafeGetTensorImpl()->set_data(self.mutable_data_ptr());
  if (!a.resize_out(out, "out", {sizes, size.size()})) return;
}

void copy_(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::copy_", args);
  Tensor self, src;
  bool non_blocking = false;  // nothing is asynchronous here
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.tensor(1, "src", &src) ||
      !a.boolean(2, "non_blocking", &non_blocking) || !check_convertible(a, src.scalar_type(), self.scalar_type()) ||
      !check_broadcasts(a, src, self)) {
    return;
  }
  broadcast_convert(src, self);
  set_return(args, 0);
}

void copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::copy.out", args);
  Tensor self, src, out;
  bool non_blocking = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.tensor(1, "src", &src) ||
      !a.boolean(2, "non_blocking", &non_blocking) || !a.tensor(3, "out", &out) ||
      !a.check_dtype(out, "out", self.scalar_type()) || !check_convertible(a, src.scalar_type(), out.scalar_type()) ||
      !check_broadcasts(a, src, self) || !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  // self gives only the shape and dtype: out is what copy_ would make of self.
  broadcast_convert(src, out);
  set_return(args, 3);
}

void to_dim_order_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "dim_order_ops::_to_dim_order_copy.out", args);
  Tensor self, out;
  bool non_blocking = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.boolean(1, "non_blocking", &non_blocking) ||
      !a.tensor(3, "out", &out) || !check_convertible(a, self.scalar_type(), out.scalar_type()) ||
      !check_dim_order(a, *args[2], self, out) || !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  const portable::util::Geometry s = portable::util::geometry(self);
  convert_into(out, self, s.strides);
  set_return(args, 3);
}

void clone_dim_order_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "dim_order_ops::_clone_dim_order.out", args);
  Tensor self, out;
  bool non_blocking = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.boolean(1, "non_blocking", &non_blocking) ||
      !a.tensor(3, "out", &out) || !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  // A clone moves elements of any dtype the copy loop steps through.
  const ScalarType type = self.scalar_type();
  const size_t element_size = runtime::is_valid(type) ? runtime::element_size(type) : 0;
  if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) {
    a.fail(Error::NotSupported, "'self' has dtype %s, which cannot be copied element by element",
           runtime::to_string(type));
    return;
  }
  if (!check_dim_order(a, *args[2], self, out) || !a.resize_out(out, "out", self.sizes())) return;
  const portable::util::Geometry s = portable::util::geometry(self);
  convert_into(out, self, s.strides);
  set_return(args, 3);
}

}  // namespace kiln::kernels::prim
