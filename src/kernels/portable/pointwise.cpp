// Pointwise selection and filling: where.self, clamp (Scalar and Tensor
// bounds), masked_fill.Scalar and full_like.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/scalar.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;
using util::Operand;

// The bounds a missing min or max stands for.
template <typename K>
constexpr K lowest_value() {
  if constexpr (std::is_floating_point_v<K>) return -std::numeric_limits<K>::infinity();
  else return std::numeric_limits<K>::lowest();
}
template <typename K>
constexpr K highest_value() {
  if constexpr (std::is_floating_point_v<K>) return std::numeric_limits<K>::infinity();
  else return std::numeric_limits<K>::max();
}

// min(max(x, lo), hi), so hi wins when lo > hi; NaN in any of them propagates.
template <typename K>
K clamp_value(K x, K lo, K hi) {
  if constexpr (std::is_floating_point_v<K>) {
    if (x != x) return x;
    if (lo != lo) return lo;
    if (hi != hi) return hi;
  }
  const K raised = x < lo ? lo : x;
  return hi < raised ? hi : raised;
}

bool optional_scalar(KernelArgs& a, Span<EValue*> args, size_t index, const char* name, const EValue** out) {
  *out = nullptr;
  return args[index]->isNone() || a.scalar(index, name, out);
}

// A Scalar bound of clamp as K for the result type T. A floating T takes it
// only within range (PyTorch's overflow check); an integral T saturates it to
// its range, except a min above the range or a max below it, which PyTorch
// rejects.
template <typename T>
bool clamp_bound(KernelArgs& a, const EValue* bound, const char* name, bool is_min, util::compute_t<T>* out) {
  using K = util::compute_t<T>;
  if (bound == nullptr) {
    *out = is_min ? lowest_value<K>() : highest_value<K>();
    return true;
  }
  if constexpr (std::is_floating_point_v<K>) {
    if (!util::scalar_fits<T>(*bound)) {
      a.fail(Error::InvalidArgument, "'%s' %g cannot be converted to %s without overflow", name,
             bound->toScalarAsDouble(), runtime::to_string(runtime::CppTypeToScalarType<T>::value));
      return false;
    }
    *out = util::convert<K>(util::scalar_to<T>(*bound));
  } else {
    // An integral result means an Int or Bool bound.
    const int64_t v = bound->isBool() ? int64_t{bound->toBool()} : bound->toInt();
    const int64_t lo = std::numeric_limits<K>::lowest(), hi = std::numeric_limits<K>::max();
    if ((is_min && v > hi) || (!is_min && v < lo)) {
      a.fail(Error::InvalidArgument, "'%s' %lld is outside the range of %s", name, static_cast<long long>(v),
             runtime::to_string(runtime::CppTypeToScalarType<T>::value));
      return false;
    }
    *out = static_cast<K>(std::min(std::max(v, lo), hi));
  }
  return true;
}

// The result type of clamp over self and the given bounds. PyTorch rejects
// Bool except for the Tensor overload with a single bound (which it computes
// as clamp_min or clamp_max).
bool clamp_result_type(KernelArgs& a, Span<const Operand> operands, bool allow_bool, ScalarType* out) {
  if (!util::check_elementwise_dtypes(a, operands)) return false;
  if (!util::result_type(operands, out)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and its bounds have no promoted dtype",
           runtime::to_string(operands[0].dtype()));
    return false;
  }
  if (*out == ScalarType::Bool && !allow_bool) {
    a.fail(Error::InvalidArgument, "'self' and its bounds are Bool; clamp is not supported for Bool");
    return false;
  }
  return true;
}

}  // namespace

void clamp_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::clamp.out", args);
  Tensor self, out;
  const EValue* min = nullptr;
  const EValue* max = nullptr;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !optional_scalar(a, args, 1, "min", &min) ||
      !optional_scalar(a, args, 2, "max", &max) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (min == nullptr && max == nullptr) {
    a.fail(Error::InvalidArgument, "'min' and 'max' are both None; at least one must be given");
    return;
  }
  Operand operands[3] = {Operand::of("self", self)};
  size_t count = 1;
  if (min != nullptr) operands[count++] = Operand::of("min", *min);
  if (max != nullptr) operands[count++] = Operand::of("max", *max);
  ScalarType dtype;
  if (!clamp_result_type(a, {operands, count}, false, &dtype) || !a.check_dtype(out, "out", dtype)) return;
  const Operand inputs[1] = {operands[0]};
  util::visit_real_or_half(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = util::compute_t<T>;
    K lo, hi;
    if (!clamp_bound<T>(a, min, "min", true, &lo) || !clamp_bound<T>(a, max, "max", false, &hi) ||
        !a.resize_out(out, "out", self.sizes())) {
      return;
    }
    util::map_elementwise<T, T>(inputs, out, [lo, hi](K x) { return clamp_value(x, lo, hi); });
  });
}

void clamp_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::clamp.Tensor_out", args);
  Tensor self, out;
  std::optional<Tensor> min, max;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.optional_tensor(1, "min", &min) ||
      !a.optional_tensor(2, "max", &max) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!min && !max) {
    a.fail(Error::InvalidArgument, "'min' and 'max' are both None; at least one must be given");
    return;
  }
  const Operand x = Operand::of("self", self);
  const Operand lo = min ? Operand::of("min", *min) : Operand();
  const Operand hi = max ? Operand::of("max", *max) : Operand();
  Operand operands[3] = {x};
  size_t count = 1;
  if (min) operands[count++] = lo;
  if (max) operands[count++] = hi;
  ScalarType dtype;
  if (!clamp_result_type(a, {operands, count}, count == 2, &dtype)) return;
  if (!util::is_real_or_bool_or_half(out.scalar_type()) || !util::can_cast(dtype, out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, which the %s result cannot be cast to",
           runtime::to_string(out.scalar_type()), runtime::to_string(dtype));
    return;
  }
  if (!util::resize_to_broadcast(a, {operands, count}, out)) return;
  util::visit_real_or_bool_or_half(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = util::compute_t<T>;
    if (min && max) {
      const Operand inputs[3] = {x, lo, hi};
      util::map_elementwise<T, T, T, T>(inputs, out, [](K v, K l, K h) { return clamp_value(v, l, h); });
    } else if (min) {
      const Operand inputs[2] = {x, lo};
      util::map_elementwise<T, T, T>(inputs, out, [](K v, K l) { return clamp_value(v, l, highest_value<K>()); });
    } else {
      const Operand inputs[2] = {x, hi};
      util::map_elementwise<T, T, T>(inputs, out, [](K v, K h) { return clamp_value(v, lowest_value<K>(), h); });
    }
  });
}

void masked_fill_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::masked_fill.Scalar_out", args);
  Tensor self, mask, out;
  const EValue* value = nullptr;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.tensor(1, "mask", &mask) ||
      !a.scalar(2, "value", &value) || !a.tensor(3, "out", &out)) {
    return;
  }
  const Operand inputs[2] = {Operand::of("self", self), Operand::of("mask", mask)};
  if (!util::check_elementwise_dtypes(a, inputs) || !a.check_dtype(mask, "mask", ScalarType::Bool)) return;
  bool fits = false;
  util::visit_real_or_bool_or_half(self.scalar_type(),
                                   [&](auto tag) { fits = util::scalar_fits<typename decltype(tag)::type>(*value); });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'value' %g cannot be converted to %s without overflow", value->toScalarAsDouble(),
           runtime::to_string(self.scalar_type()));
    return;
  }
  // The result broadcasts self and mask (a larger mask repeats self).
  if (!a.check_dtype(out, "out", self.scalar_type()) || !util::resize_to_broadcast(a, inputs, out)) return;
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = util::compute_t<T>;
    const K fill = util::convert<K>(util::scalar_to<T>(*value));
    util::map_elementwise<T, T, bool>(inputs, out, [fill](K x, bool m) { return m ? fill : x; });
  });
}

void where_self_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::where.self_out", args);
  Tensor condition, self, other, out;
  if (!a.check_count(4) || !a.tensor(0, "condition", &condition) || !a.tensor(1, "self", &self) ||
      !a.tensor(2, "other", &other) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!a.check_dtype(condition, "condition", ScalarType::Bool)) return;
  const Operand inputs[3] = {Operand::of("condition", condition), Operand::of("self", self),
                             Operand::of("other", other)};
  const Operand values[2] = {inputs[1], inputs[2]};
  ScalarType dtype;
  if (!util::check_elementwise_dtypes(a, values)) return;
  if (!util::result_type(values, &dtype)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) have no common dtype",
           runtime::to_string(self.scalar_type()), runtime::to_string(other.scalar_type()));
    return;
  }
  if (!a.check_dtype(out, "out", dtype) || !util::resize_to_broadcast(a, inputs, out)) return;
  util::visit_real_or_bool_or_half(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = util::compute_t<T>;
    util::map_elementwise<T, bool, T, T>(inputs, out, [](bool c, K x, K y) { return c ? x : y; });
  });
}

void full_like_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::full_like.out", args);
  Tensor self, out;
  const EValue* fill = nullptr;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.scalar(1, "fill_value", &fill) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool_or_half(out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has unsupported dtype %s", runtime::to_string(out.scalar_type()));
    return;
  }
  if (!args[2]->isNone()) {
    int64_t format = 0;  // any memory format: every element gets the value
    if (!a.integer(2, "memory_format", &format)) return;
  }
  // PyTorch's overflow check, which it skips for a single-element 16-bit
  // float (1e5 becomes inf there).
  bool fits = true;
  if (!util::is_half(out.scalar_type()) || self.numel() != 1) {
    util::visit_real_or_bool_or_half(out.scalar_type(),
                                     [&](auto tag) { fits = util::scalar_fits<typename decltype(tag)::type>(*fill); });
  }
  if (!fits) {
    a.fail(Error::InvalidArgument, "'fill_value' %g cannot be converted to %s without overflow",
           fill->toScalarAsDouble(), runtime::to_string(out.scalar_type()));
    return;
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  util::visit_real_or_bool_or_half(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = util::scalar_to<T>(*fill);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = value;  // every element: the layout does not matter
  });
}

}  // namespace kiln::kernels::portable
