// Predicates and bit operations, one path per family: comparisons (eq, ne,
// lt, le, gt, ge; Tensor and Scalar overloads) in the promoted dtype, the
// logical ops on each operand's truth value, and the bitwise ops on Bool and
// integral dtypes. Comparisons and logical ops write 0/1 in any out dtype, as
// PyTorch allows.
#include <cmath>
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

// Reads self (a Tensor), other (a Tensor, or a Scalar if `scalar_other`) and
// out, for the schemas (self, other, *, out).
bool read_binary(KernelArgs& a, bool scalar_other, Operand* self, Operand* other, Tensor* out) {
  Tensor t;
  if (!a.check_count(3) || !a.tensor(0, "self", &t)) return false;
  *self = Operand::of("self", t);
  if (scalar_other) {
    const EValue* value = nullptr;
    if (!a.scalar(1, "other", &value)) return false;
    *other = Operand::of("other", *value);
  } else {
    if (!a.tensor(1, "other", &t)) return false;
    *other = Operand::of("other", t);
  }
  return a.tensor(2, "out", out);
}

// Fails unless out's dtype is one the elementwise loops write.
bool check_out_dtype(KernelArgs& a, const Tensor& out) {
  const Operand checked[] = {Operand::of("out", out)};
  return util::check_elementwise_dtypes(a, checked);
}

// ---- comparisons ----

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

template <typename T>
void compare(Cmp op, const Operand (&in)[2], const Tensor& out) {
  using K = util::compute_t<T>;
  const auto map = [&](auto f) { util::map_elementwise<bool, T, T>(in, out, f); };
  switch (op) {
    case Cmp::Eq: return map([](K x, K y) { return x == y; });
    case Cmp::Ne: return map([](K x, K y) { return x != y; });
    case Cmp::Lt: return map([](K x, K y) { return x < y; });
    case Cmp::Le: return map([](K x, K y) { return x <= y; });
    case Cmp::Gt: return map([](K x, K y) { return x > y; });
    case Cmp::Ge: return map([](K x, K y) { return x >= y; });
  }
}

// Compared in the dtype of `self op other` (so f32 0.1 == 0.1 holds, the
// number being cast to float first, as in PyTorch).
void compare_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* name, Cmp op, bool scalar_other) {
  KernelArgs a(ctx, name, args);
  Operand self, other;
  Tensor out;
  if (!read_binary(a, scalar_other, &self, &other, &out)) return;
  const Operand inputs[2] = {self, other};
  ScalarType common;
  if (!util::check_elementwise_dtypes(a, inputs) || !check_out_dtype(a, out)) return;
  if (!util::result_type(inputs, &common)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) have no promoted dtype",
           runtime::to_string(self.dtype()), runtime::to_string(other.dtype()));
    return;
  }
  if (!util::resize_to_broadcast(a, inputs, out)) return;
  util::visit_real_or_bool_or_half(common, [&](auto tag) { compare<typename decltype(tag)::type>(op, inputs, out); });
}

// ---- logical ----

enum class Logic { And, Or, Xor };

template <typename T>
void logical(Logic op, const Operand (&in)[2], const Tensor& out) {
  using K = util::compute_t<T>;
  const auto map = [&](auto f) { util::map_elementwise<bool, T, T>(in, out, f); };
  switch (op) {
    case Logic::And: return map([](K x, K y) { return x != K(0) && y != K(0); });
    case Logic::Or: return map([](K x, K y) { return x != K(0) || y != K(0); });
    case Logic::Xor: return map([](K x, K y) { return (x != K(0)) != (y != K(0)); });
  }
}

// Each operand's truth value (nonzero; NaN is true) once cast to the
// promoted dtype, as PyTorch casts first: 2^40 is false against an int32.
void logical_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* name, Logic op) {
  KernelArgs a(ctx, name, args);
  Operand self, other;
  Tensor out;
  if (!read_binary(a, false, &self, &other, &out)) return;
  const Operand inputs[2] = {self, other};
  ScalarType common;
  if (!util::check_elementwise_dtypes(a, inputs) || !check_out_dtype(a, out)) return;
  if (!util::result_type(inputs, &common)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) have no promoted dtype",
           runtime::to_string(self.dtype()), runtime::to_string(other.dtype()));
    return;
  }
  if (!util::resize_to_broadcast(a, inputs, out)) return;
  util::visit_real_or_bool_or_half(common, [&](auto tag) { logical<typename decltype(tag)::type>(op, inputs, out); });
}

// ---- bitwise ----

enum class Bitwise { And, Or, Xor };

bool is_bitwise_dtype(ScalarType t) { return t == ScalarType::Bool || t == ScalarType::Int || t == ScalarType::Long; }

// Bool, Int, Long.
template <typename F>
void visit_bitwise(ScalarType t, F&& f) {
  util::visit_real_or_bool(t, [&](auto tag) {
    if constexpr (std::is_integral_v<typename decltype(tag)::type>) f(tag);
  });
}

void bitwise_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* name, Bitwise op, bool scalar) {
  KernelArgs a(ctx, name, args);
  Operand self, other;
  Tensor out;
  if (!read_binary(a, scalar, &self, &other, &out)) return;
  const Operand inputs[2] = {self, other};
  for (const Operand& operand : inputs) {
    if (!is_bitwise_dtype(operand.dtype())) {
      a.fail(Error::InvalidArgument, "'%s' has dtype %s; bitwise ops take Bool, Int or Long", operand.name,
             runtime::to_string(operand.dtype()));
      return;
    }
  }
  ScalarType common;
  if (!util::result_type(inputs, &common)) return;  // always promotes within Bool, Int, Long
  if (!util::is_real_or_bool_or_half(out.scalar_type()) || !util::can_cast(common, out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, which the %s result cannot be cast to",
           runtime::to_string(out.scalar_type()), runtime::to_string(common));
    return;
  }
  if (!util::resize_to_broadcast(a, inputs, out)) return;
  visit_bitwise(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == Bitwise::And) {
      util::map_elementwise<T, T, T>(inputs, out, [](T x, T y) { return static_cast<T>(x & y); });
    } else if (op == Bitwise::Or) {
      util::map_elementwise<T, T, T>(inputs, out, [](T x, T y) { return static_cast<T>(x | y); });
    } else {
      util::map_elementwise<T, T, T>(inputs, out, [](T x, T y) { return static_cast<T>(x ^ y); });
    }
  });
}

}  // namespace

void eq_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::eq.Tensor_out", Cmp::Eq, false);
}
void ne_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::ne.Tensor_out", Cmp::Ne, false);
}
void lt_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::lt.Tensor_out", Cmp::Lt, false);
}
void le_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::le.Tensor_out", Cmp::Le, false);
}
void gt_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::gt.Tensor_out", Cmp::Gt, false);
}
void ge_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::ge.Tensor_out", Cmp::Ge, false);
}
void eq_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::eq.Scalar_out", Cmp::Eq, true);
}
void ne_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::ne.Scalar_out", Cmp::Ne, true);
}
void lt_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::lt.Scalar_out", Cmp::Lt, true);
}
void le_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::le.Scalar_out", Cmp::Le, true);
}
void gt_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::gt.Scalar_out", Cmp::Gt, true);
}
void ge_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  compare_kernel(ctx, args, "aten::ge.Scalar_out", Cmp::Ge, true);
}

void logical_and_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_kernel(ctx, args, "aten::logical_and.out", Logic::And);
}
void logical_or_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_kernel(ctx, args, "aten::logical_or.out", Logic::Or);
}
void logical_xor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_kernel(ctx, args, "aten::logical_xor.out", Logic::Xor);
}

namespace {

// The arguments of a Bool-per-element op of self (logical_not, isnan, ...):
// self and out, checked, and out resized to self's sizes.
bool read_predicate_args(KernelArgs& a, Tensor* self, Tensor* out) {
  if (!a.check_count(2) || !a.tensor(0, "self", self) || !a.tensor(1, "out", out)) return false;
  const Operand inputs[1] = {Operand::of("self", *self)};
  return util::check_elementwise_dtypes(a, inputs) && check_out_dtype(a, *out) &&
         a.resize_out(*out, "out", self->sizes());
}

}  // namespace

void logical_not_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::logical_not.out", args);
  Tensor self, out;
  if (!read_predicate_args(a, &self, &out)) return;
  const Operand inputs[1] = {Operand::of("self", self)};
  util::map_elementwise<bool, bool>(inputs, out, [](bool x) { return !x; });
}

namespace {

// isnan / isinf: a Bool per element of self (any real, bool or half dtype;
// integers are never NaN or infinite).
template <typename Pred>
void classify_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* name, Pred pred) {
  KernelArgs a(ctx, name, args);
  Tensor self, out;
  if (!read_predicate_args(a, &self, &out)) return;
  const Operand inputs[1] = {Operand::of("self", self)};
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = util::compute_t<T>;
    util::map_elementwise<bool, T>(inputs, out, [&](K x) {
      if constexpr (std::is_floating_point_v<K>) return pred(x);
      else return false;
    });
  });
}

}  // namespace

void isnan_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  classify_kernel(ctx, args, "aten::isnan.out", [](auto x) { return std::isnan(x); });
}
void isinf_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  classify_kernel(ctx, args, "aten::isinf.out", [](auto x) { return std::isinf(x); });
}

void bitwise_and_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_and.Tensor_out", Bitwise::And, false);
}
void bitwise_or_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_or.Tensor_out", Bitwise::Or, false);
}
void bitwise_xor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_xor.Tensor_out", Bitwise::Xor, false);
}
void bitwise_and_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_and.Scalar_out", Bitwise::And, true);
}
void bitwise_or_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_or.Scalar_out", Bitwise::Or, true);
}
void bitwise_xor_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  bitwise_kernel(ctx, args, "aten::bitwise_xor.Scalar_out", Bitwise::Xor, true);
}

// Out has self's dtype (PyTorch does not cast here): ~x, or not x for Bool.
void bitwise_not_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::bitwise_not.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out)) return;
  if (!is_bitwise_dtype(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s; bitwise ops take Bool, Int or Long",
           runtime::to_string(self.scalar_type()));
    return;
  }
  if (!a.check_dtype(out, "out", self.scalar_type()) || !a.resize_out(out, "out", self.sizes())) return;
  const Operand inputs[1] = {Operand::of("self", self)};
  visit_bitwise(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      util::map_elementwise<T, T>(inputs, out, [](bool x) { return !x; });
    } else {
      util::map_elementwise<T, T>(inputs, out, [](T x) { return static_cast<T>(~x); });
    }
  });
}

}  // namespace kiln::kernels::portable
