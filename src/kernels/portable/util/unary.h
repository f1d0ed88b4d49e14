// Unary elementwise kernels: reading `self` and `out`, choosing out's dtype as
// PyTorch does, and the loops, with the 16-bit floats computed in float.
//
// Two shapes cover the unary math and activation ops:
//   - "floating" ops (exp, sin, sigmoid, ...): a floating self keeps its
//     dtype, an integral or bool self gives a Float out;
//   - "same dtype" ops (neg, floor, relu, silu, ...): out has self's dtype,
//     from a set of accepted dtypes.
// In both, the op's function sees one value of compute_t<dtype> (float for
// Half and BFloat16, float for integral inputs of floating ops) and returns
// one of the same type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/vector_math.h"

namespace kiln::kernels::portable::util {

/// The dtypes a unary kernel accepts for `self`.
enum class UnaryDtypes {
  kFloating,    // Float, Double, Half, BFloat16
  kReal,        // the above and Int, Long
  kRealOrBool,  // the above and Bool
};

inline bool accepts(UnaryDtypes dtypes, ScalarType t) {
  switch (dtypes) {
    case UnaryDtypes::kFloating: return is_floating_or_half(t);
    case UnaryDtypes::kReal: return is_real_or_half(t);
    case UnaryDtypes::kRealOrBool: return is_real_or_bool_or_half(t);
  }
  return false;
}

inline const char* describe(UnaryDtypes dtypes) {
  switch (dtypes) {
    case UnaryDtypes::kFloating: return "Float, Double, Half or BFloat16";
    case UnaryDtypes::kReal: return "Int, Long, Float, Double, Half or BFloat16";
    case UnaryDtypes::kRealOrBool: return "Bool, Int, Long, Float, Double, Half or BFloat16";
  }
  return "";
}

/// Calls `f(TypeTag<T>{})` for a dtype of the set; false for any other dtype.
template <UnaryDtypes kDtypes, typename F>
bool visit_unary_dtypes(ScalarType t, F&& f) {
  if constexpr (kDtypes == UnaryDtypes::kFloating) return visit_floating_or_half(t, f);
  else if constexpr (kDtypes == UnaryDtypes::kReal) return visit_real_or_half(t, f);
  else return visit_real_or_bool_or_half(t, f);
}

/// PyTorch's result dtype of a floating op: Float for integral and bool inputs.
inline ScalarType floating_result(ScalarType self) { return is_floating_or_half(self) ? self : ScalarType::Float; }

/// Reads `self` (argument 0, with a dtype in `dtypes`) and `out` (the last of
/// the op's `num_args` schema arguments).
inline bool read_unary_tensors(KernelArgs& a, size_t num_args, UnaryDtypes dtypes, Tensor* self, Tensor* out) {
  if (!a.check_count(num_args) || !a.tensor(0, "self", self) || !a.tensor(num_args - 1, "out", out)) return false;
  if (!accepts(dtypes, self->scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s, expected %s", runtime::to_string(self->scalar_type()),
           describe(dtypes));
    return false;
  }
  return true;
}

/// Checks that `out` has dtype `dtype` and resizes it to self's shape; the
/// last step before a unary kernel writes.
inline bool prepare_unary_out(KernelArgs& a, const Tensor& self, const Tensor& out, ScalarType dtype) {
  return a.check_dtype(out, "out", dtype) && a.resize_out(out, "out", self.sizes());
}

/// read_unary_tensors and prepare_unary_out for an op without other
/// arguments, whose out has self's dtype.
inline bool read_same_dtype_unary(KernelArgs& a, size_t num_args, UnaryDtypes dtypes, Tensor* self, Tensor* out) {
  return read_unary_tensors(a, num_args, dtypes, self, out) && prepare_unary_out(a, *self, *out, self->scalar_type());
}

/// out = f(self) for a same-dtype op whose arguments read_same_dtype_unary
/// accepted; f takes and returns compute_t<T>.
template <UnaryDtypes kDtypes, typename F>
void map_same_dtype(const Tensor& self, const Tensor& out, F f) {
  visit_unary_dtypes<kDtypes>(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map_unary<T, T>(self, out, [f](T x) { return store_as<T>(f(static_cast<C>(x))); });
  });
}

/// out = f(self) for a floating op (self real, bool or half; out of dtype
/// floating_result): integral and bool values are converted to float first.
template <typename F>
void map_floating(const Tensor& self, const Tensor& out, F f) {
  if (is_floating_or_half(self.scalar_type())) {
    map_same_dtype<UnaryDtypes::kFloating>(self, out, f);
    return;
  }
  visit_real_or_bool(self.scalar_type(), [&](auto tag) {
    using In = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<In>) {
      map_unary<In, float>(self, out, [f](In x) { return f(static_cast<float>(x)); });
    }
  });
}

/// y[i] = fast(x[i]) for i < n, compiled for each ISA of KILN_VECTOR_CLONES.
template <typename Fast>
KILN_VECTOR_CLONES void map_floats(const float* x, float* y, int64_t n, Fast fast) {
  for (int64_t i = 0; i < n; ++i) y[i] = fast(x[i]);
}

/// The float32 fast path of a floating op: if self and out are dense Float
/// tensors (out checked and resized already), out[i] = fast(self[i]) in one
/// flat loop, which vectorises when `fast` is branch-free inline code such as
/// vector_math.h's; false, with nothing written, for any other input.
template <typename Fast>
bool map_dense_float(const Tensor& self, const Tensor& out, Fast fast) {
  if (self.scalar_type() != ScalarType::Float || out.scalar_type() != ScalarType::Float || !is_dense(self) ||
      !is_dense(out)) {
    return false;
  }
  map_floats(self.const_data_ptr<float>(), out.mutable_data_ptr<float>(), out.numel(), fast);
  return true;
}

/// A whole kernel for a floating op with one argument: aten::exp.out, ...
/// `fast` (float -> float), if given, computes dense Float tensors instead of
/// `f` (see map_dense_float).
template <typename F, typename Fast = std::nullptr_t>
void floating_unary_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, F f, Fast fast = nullptr) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  if (!read_unary_tensors(a, 2, UnaryDtypes::kRealOrBool, &self, &out) ||
      !prepare_unary_out(a, self, out, floating_result(self.scalar_type()))) {
    return;
  }
  if constexpr (!std::is_same_v<Fast, std::nullptr_t>) {
    if (map_dense_float(self, out, fast)) return;
  }
  map_floating(self, out, f);
}

/// A whole kernel for a same-dtype op with one argument: aten::neg.out, ...
/// `fast` as for floating_unary_kernel.
template <UnaryDtypes kDtypes, typename F, typename Fast = std::nullptr_t>
void same_dtype_unary_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, F f, Fast fast = nullptr) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  if (!read_same_dtype_unary(a, 2, kDtypes, &self, &out)) return;
  if constexpr (!std::is_same_v<Fast, std::nullptr_t>) {
    if (map_dense_float(self, out, fast)) return;
  }
  map_same_dtype<kDtypes>(self, out, f);
}

}  // namespace kiln::kernels::portable::util
