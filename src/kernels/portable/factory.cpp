// Factories: full, zeros, ones, empty, empty_strided, scalar_tensor, arange.start_out. The out
// tensor's dtype decides the element type; Scalar arguments convert to it
// with PyTorch's overflow check.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

bool check_out_dtype(KernelArgs& a, const Tensor& out) {
  if (util::is_convertible(out.scalar_type())) return true;
  a.fail(Error::NotSupported, "'out' has dtype %s, which is not supported", runtime::to_string(out.scalar_type()));
  return false;
}

// Checks that the Scalar `value` (argument `name`) converts to `dtype`
// without overflow.
bool check_value(KernelArgs& a, const EValue& value, const char* name, ScalarType dtype) {
  bool fits = false;
  util::visit_convertible(dtype, [&](auto tag) { fits = util::scalar_converts<typename decltype(tag)::type>(value); });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'%s' %g cannot be converted to %s without overflow", name,
           value.toScalarAsDouble(), runtime::to_string(dtype));
  }
  return fits;
}

// Sets every element of out to `value` (checked by check_value).
void fill(const EValue& value, const Tensor& out) {
  util::visit_convertible(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = util::scalar_as<T>(value);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = v;  // every element: the layout does not matter
  });
}

// zeros.out and ones.out.
void constant_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, int64_t value) {
  KernelArgs a(ctx, op, args);
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(2) || !a.int_list(0, "size", &size) || !a.tensor(1, "out", &out) || !check_out_dtype(a, out) ||
      !a.resize_out_to_size(out, "size", size)) {
    return;
  }
  fill(EValue(value), out);
}

// arange's length, as PyTorch computes it: in int64 for an int64 out when
// start, end and step are all Ints, else ceil((end - start) / step) in double.
// The bounds are checked in double first.
bool arange_length(KernelArgs& a, const EValue& start, const EValue& end, const EValue& step, ScalarType dtype,
                   int64_t* length) {
  const double dstart = start.toScalarAsDouble(), dend = end.toScalarAsDouble(), dstep = step.toScalarAsDouble();
  if (!std::isfinite(dstep) || dstep == 0) {
    a.fail(Error::InvalidArgument, "'step' must be finite and nonzero, got %g", dstep);
    return false;
  }
  if (!std::isfinite(dstart) || !std::isfinite(dend)) {
    a.fail(Error::InvalidArgument, "'start' and 'end' must be finite, got %g and %g", dstart, dend);
    return false;
  }
  if ((dstep > 0 && dend < dstart) || (dstep < 0 && dend > dstart)) {
    a.fail(Error::InvalidArgument, "'step' %g has the wrong sign for 'start' %g and 'end' %g", dstep, dstart, dend);
    return false;
  }
  double size = 0;
  if (dtype == ScalarType::Long && start.isInt() && end.isInt() && step.isInt()) {
    // In 128 bits: end - start may not fit in int64.
    const __int128 s = step.toInt();
    const __int128 sign = s > 0 ? 1 : -1;
    size = static_cast<double>((static_cast<__int128>(end.toInt()) - start.toInt() + s - sign) / s);
  } else {
    size = std::ceil((dend - dstart) / dstep);
  }
  if (!(size >= 0) || size > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'end' and 'step' give %g elements, too many", size);
    return false;
  }
  *length = static_cast<int64_t>(size);
  return true;
}

// The type arange computes its values in: int64 for integer outs, float for
// the 16-bit floats, double otherwise (PyTorch's CPU accumulate types).
template <typename T>
using arange_acc_t = std::conditional_t<util::is_integer_v<T>, int64_t,
                                        std::conditional_t<util::is_half_v<T>, float, double>>;

}  // namespace

void full_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::full.out", args);
  Span<const int64_t> size;
  const EValue* value = nullptr;
  Tensor out;
  if (!a.check_count(3) || !a.int_list(0, "size", &size) || !a.scalar(1, "fill_value", &value) ||
      !a.tensor(2, "out", &out) || !check_out_dtype(a, out)) {
    return;
  }
  if (!check_value(a, *value, "fill_value", out.scalar_type()) || !a.resize_out_to_size(out, "size", size)) return;
  fill(*value, out);
}

void zeros_out(KernelRuntimeContext& ctx, Span<EValue*> args) { constant_out(ctx, args, "aten::zeros.out", 0); }

void ones_out(KernelRuntimeContext& ctx, Span<EValue*> args) { constant_out(ctx, args, "aten::ones.out", 1); }

// empty.out and empty_strided.out: core ATen keeps empty for a tensor an
// op then fills (torch.empty(...).uniform_()). Its values are unspecified;
// zeros, as Kiln decomposes empty in the training IR, and contiguous
// whatever strides are asked for (only as_strided could tell).
void empty_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::empty.out", args);
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(3) || !a.int_list(0, "size", &size) || !a.tensor(2, "out", &out) || !check_out_dtype(a, out)) return;
  if (!args[1]->isNone()) {
    int64_t format = 0;
    if (!a.integer(1, "memory_format", &format)) return;
  }
  if (!a.resize_out_to_size(out, "size", size)) return;
  fill(EValue(int64_t{0}), out);
}

void empty_strided_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::empty_strided.out", args);
  Span<const int64_t> size, stride;
  Tensor out;
  if (!a.check_count(3) || !a.int_list(0, "size", &size) || !a.int_list(1, "stride", &stride) || !a.tensor(2, "out", &out) ||
      !check_out_dtype(a, out)) {
    return;
  }
  if (stride.size() != size.size()) {
    a.fail(Error::InvalidArgument, "'stride' has %zu entries for the %zu dims of 'size'", stride.size(), size.size());
    return;
  }
  if (!a.resize_out_to_size(out, "size", size)) return;
  fill(EValue(int64_t{0}), out);
}

void scalar_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::scalar_tensor.out", args);
  const EValue* value = nullptr;
  Tensor out;
  if (!a.check_count(2) || !a.scalar(0, "s", &value) || !a.tensor(1, "out", &out) || !check_out_dtype(a, out)) {
    return;
  }
  if (!check_value(a, *value, "s", out.scalar_type()) || !a.resize_out(out, "out", {})) return;
  fill(*value, out);
}

void arange_start_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::arange.start_out", args);
  const EValue *start = nullptr, *end = nullptr, *step = nullptr;
  Tensor out;
  if (!a.check_count(4) || !a.scalar(0, "start", &start) || !a.scalar(1, "end", &end) ||
      !a.scalar(2, "step", &step) || !a.tensor(3, "out", &out) || !check_out_dtype(a, out)) {
    return;
  }
  if (out.scalar_type() == ScalarType::Bool) {
    a.fail(Error::NotSupported, "'out' has dtype Bool, which arange does not support");
    return;
  }
  int64_t length = 0;
  if (!arange_length(a, *start, *end, *step, out.scalar_type(), &length)) return;
  // The values come from start and step in the accumulate type, which they
  // must fit (end is only compared, in double).
  bool fits = true;
  util::visit_convertible(out.scalar_type(), [&](auto tag) {
    using Acc = arange_acc_t<typename decltype(tag)::type>;
    fits = util::scalar_converts<Acc>(*start) && util::scalar_converts<Acc>(*step);
  });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'start' %g or 'step' %g cannot be converted to the type %s is computed in",
           start->toScalarAsDouble(), step->toScalarAsDouble(), runtime::to_string(out.scalar_type()));
    return;
  }
  const SizesType shape[] = {static_cast<SizesType>(length)};
  if (!a.resize_out(out, "out", shape)) return;
  const int64_t stride = out.strides()[0];
  util::visit_convertible(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = arange_acc_t<T>;
    const Acc first = util::scalar_as<Acc>(*start), delta = util::scalar_as<Acc>(*step);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < length; ++i) {
      if constexpr (std::is_same_v<Acc, int64_t>) {
        o[i * stride] = static_cast<T>(util::wrapping_add(first, util::wrapping_mul(delta, i)));
      } else {
        o[i * stride] = util::convert<T>(first + static_cast<Acc>(i) * delta);
      }
    }
  });
}

}  // namespace kiln::kernels::portable
