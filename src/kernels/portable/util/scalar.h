// PyTorch's type promotion where 0-dim tensors and Scalar arguments take part,
// and its overflow check for converting a Scalar argument to a tensor dtype.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable::util {

/// The categories of PyTorch's type promotion: bool < integral < floating.
inline int category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_floating(t) ? 2 : 1; }

/// PyTorch's result_type for two tensors: a 0-dim tensor takes part only when
/// it raises the category of one with dims, so f32[3] with f64[] stays f32 and
/// i32[3] with i64[] stays i32. False if the dtypes have no promotion.
inline bool result_type(const Tensor& a, const Tensor& b, ScalarType* out) {
  const bool a_zero = a.dim() == 0, b_zero = b.dim() == 0;
  if (a_zero == b_zero) return runtime::promote_types(a.scalar_type(), b.scalar_type(), out);
  const ScalarType dims = a_zero ? b.scalar_type() : a.scalar_type();
  const ScalarType zero = a_zero ? a.scalar_type() : b.scalar_type();
  if (category(zero) > category(dims)) return runtime::promote_types(dims, zero, out);
  *out = dims;
  return true;
}

/// The dtype of `tensor op number` for a Scalar EValue: the number only raises
/// the category, taking the default dtype of its kind (Long, Float) when it does.
inline ScalarType with_number(ScalarType tensor, const EValue& number) {
  if (number.isDouble() && !is_floating(tensor)) return ScalarType::Float;
  if (number.isInt() && tensor == ScalarType::Bool) return ScalarType::Long;
  return tensor;
}

/// True if the Scalar `value` converts to T without overflow, as PyTorch's
/// checked conversion (Scalar::to<T>) requires: integral T takes only finite
/// values in its range; float takes infinities and NaN but no finite value
/// beyond its range; bool and double take anything.
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
    if (!value.isDouble()) return true;
    const double v = value.toDouble();
    return !std::isfinite(v) || std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
  }
}

}  // namespace kiln::kernels::portable::util
