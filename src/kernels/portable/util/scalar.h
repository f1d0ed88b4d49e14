// PyTorch's type promotion where 0-dim tensors and Scalar arguments take part,
// its casting rule for out tensors, and its overflow check for converting a
// Scalar argument to a tensor dtype.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "runtime/core/result_type.h"

namespace kiln::kernels::portable::util {

using runtime::TypeCategory;
using runtime::type_category;

/// One input of an elementwise op as type promotion and the elementwise loops
/// (elementwise.h) see it: a tensor, broadcast to the result's shape, or a
/// Scalar argument. `name` is the schema argument's, for messages.
struct Operand {
  const char* name = "";
  Tensor tensor;
  const EValue* scalar = nullptr;
  /// For a Half/BFloat16 computation: read this input at float precision,
  /// without first rounding it to the 16-bit dtype (PyTorch's CPU mul and div
  /// read a broadcast single-element `other` so).
  bool exact = false;

  static Operand of(const char* name, const Tensor& tensor) { return {name, tensor, nullptr, false}; }
  static Operand of(const char* name, const EValue& scalar) { return {name, Tensor(), &scalar, false}; }
  bool is_scalar() const { return scalar != nullptr; }
  /// The tensor's dtype, or the default dtype of the Scalar's kind: Bool,
  /// Long, or Float for a Double (as PyTorch types a Python number).
  ScalarType dtype() const {
    if (!is_scalar()) return tensor.scalar_type();
    return scalar->isBool() ? ScalarType::Bool : scalar->isInt() ? ScalarType::Long : ScalarType::Float;
  }
};

/// PyTorch's result_type over tensors and Scalars (runtime/core/result_type.h):
/// f32[3] with f64[] stays f32, i32[3] with i64[] or 2**40 stays i32, i32[3]
/// with f64[] is f64, i32[3] with 2.5 is f32, f32[3] with a complex 0-dim
/// tensor is complex. False if the dtypes have no promotion.
inline bool result_type(Span<const Operand> operands, ScalarType* out) {
  runtime::ResultTypeState state;
  for (const Operand& operand : operands) {
    if (operand.is_scalar()) {
      state.add_number(operand.scalar->isBool() ? ScalarType::Bool
                       : operand.scalar->isInt() ? ScalarType::Long
                                                 : ScalarType::Double);
    } else {
      state.add_tensor(operand.tensor.scalar_type(), operand.tensor.dim() == 0);
    }
  }
  return state.result(out);
}

/// result_type for two tensors.
inline bool result_type(const Tensor& a, const Tensor& b, ScalarType* out) {
  const Operand operands[] = {Operand::of("", a), Operand::of("", b)};
  return result_type(operands, out);
}

/// PyTorch's canCast (runtime/core/result_type.h).
using runtime::can_cast;

/// The largest finite value of T (numeric_limits has no 16-bit floats).
template <typename T>
constexpr double largest_finite() {
  if constexpr (std::is_same_v<T, runtime::Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, runtime::BFloat16>) return 3.3895313892515355e38;  // 0x7f7f
  else return static_cast<double>(std::numeric_limits<T>::max());
}

/// True if the Scalar `value` converts to T without overflow, as PyTorch's
/// checked conversion (Scalar::to<T>) requires: integral T takes only finite
/// values in its range; a floating T takes infinities and NaN but no finite
/// value beyond its largest (even one that would round to it); bool and double
/// take anything.
template <typename T>
bool scalar_fits(const EValue& value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    if (value.isBool()) return true;
    if (value.isInt()) {
      const int64_t v = value.toInt();
      return v >= static_cast<int64_t>(std::numeric_limits<T>::lowest()) &&
             v <= static_cast<int64_t>(std::numeric_limits<T>::max());
    }
    const double v = value.toDouble();
    // -2^(bits-1) <= v < 2^(bits-1), exact in double for 32 and 64 bits.
    const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
    return std::isfinite(v) && v >= -limit && v < limit;
  } else {
    const double v = value.toScalarAsDouble();
    return !std::isfinite(v) || std::fabs(v) <= largest_finite<T>();
  }
}

}  // namespace kiln::kernels::portable::util
