// Dtype conversion for the portable kernels, as PyTorch casts on CPU: element
// casts between tensor dtypes (`convert`), and the checked conversion of a
// Scalar argument to a tensor's dtype (`scalar_converts`, `scalar_as`).
//
// Casts that C++ leaves undefined (a float out of an integer type's range, a
// double beyond float's range) are done explicitly, with the result x86's
// conversion instructions give, which is what PyTorch's kernels produce there.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/portable/util/dispatch.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"

namespace kiln::kernels::portable::util {

/// The dtypes `convert` handles: Bool, Byte, Char, Short, Int, Long, Half,
/// Float, Double, BFloat16.
inline bool is_convertible(runtime::ScalarType t) {
  switch (t) {
    case runtime::ScalarType::Byte:
    case runtime::ScalarType::Char:
    case runtime::ScalarType::Short: return true;
    default: return is_real_or_bool_or_half(t);
  }
}

/// Runs `f` with the C++ type of a convertible dtype; false (without calling
/// `f`) for any other dtype.
template <typename F>
bool visit_convertible(runtime::ScalarType t, F&& f) {
  switch (t) {
    case runtime::ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case runtime::ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case runtime::ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    default: return visit_real_or_bool_or_half(t, f);
  }
}

namespace internal {

// A double truncated toward zero into an integer type. In range of int32
// (for the types up to 32 bits) or int64, the plain truncation; outside, or
// for NaN, the lowest value of that intermediate type, as cvttsd2si gives.
// Narrower types then keep the low bits of the intermediate.
template <typename I>
I truncate_to(double v) {
  if constexpr (sizeof(I) == 8) {
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    const int64_t wide = v >= -kLimit && v < kLimit ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min();
    return static_cast<I>(wide);
  } else {
    constexpr double kLimit = 2147483648.0;  // 2^31
    const int32_t wide = v > -kLimit - 1.0 && v < kLimit ? static_cast<int32_t>(v) : std::numeric_limits<int32_t>::min();
    return static_cast<I>(wide);
  }
}

// A double rounded to float as IEEE does, overflowing to infinity (a plain
// cast of a finite double beyond float's range is undefined in C++).
inline float narrow_to_float(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  if (!(std::fabs(v) > kMax) || std::isinf(v)) return static_cast<float>(v);  // NaN and in-range values too
  // Past the largest float by half an ulp (2^103) or more rounds to infinity.
  constexpr double kOverflow = kMax + 10141204801825835211973625643008.0;  // FLT_MAX + 2^103
  const float magnitude = std::fabs(v) >= kOverflow ? std::numeric_limits<float>::infinity()
                                                    : std::numeric_limits<float>::max();
  return v < 0 ? -magnitude : magnitude;
}

}  // namespace internal

/// `value` cast to To as PyTorch casts tensor elements: to bool is `!= 0`;
/// from bool is 0 or 1; float to integer truncates toward zero; integers wrap
/// to narrower integers; the 16-bit floats go through float (so double to
/// Half rounds twice, as in PyTorch).
template <typename To, typename From>
To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_half_v<From>) {
      return static_cast<float>(value) != 0.0f;
    } else {
      return value != From{0};
    }
  } else if constexpr (is_half_v<From>) {
    return convert<To, float>(static_cast<float>(value));
  } else if constexpr (is_half_v<To>) {
    return To(convert<float, From>(value));
  } else if constexpr (is_integer_v<To> && std::is_floating_point_v<From>) {
    return internal::truncate_to<To>(static_cast<double>(value));
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>) {
    return internal::narrow_to_float(value);
  } else {
    return static_cast<To>(value);  // widening, integer wrap-around, integer to float
  }
}

/// True if the Scalar `value` (Int, Double or Bool) converts to T without
/// overflow, as PyTorch checks a Scalar argument against a tensor's dtype:
/// - a Double into an integer type must be finite and in [lowest, max + 1);
/// - an Int into an integer type must be in range, where unsigned types also
///   take negatives down to -max (they wrap);
/// - a finite Double into a floating type must be within its largest finite
///   value (infinities and NaN pass); an Int always passes;
/// - anything converts to bool, and a Bool to anything.
template <typename T>
bool scalar_converts(const runtime::EValue& value) {
  if (value.isBool() || std::is_same_v<T, bool>) return true;
  if constexpr (is_integer_v<T>) {
    using Limits = std::numeric_limits<T>;
    if (value.isInt()) {
      const int64_t v = value.toInt();
      if constexpr (std::is_unsigned_v<T>) {  // in uint64: UInt64's max is no int64
        const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        return magnitude <= static_cast<uint64_t>(Limits::max());
      } else {
        return v >= static_cast<int64_t>(Limits::lowest()) && v <= static_cast<int64_t>(Limits::max());
      }
    }
    const double v = value.toDouble();
    const double upper = std::ldexp(1.0, Limits::digits);  // max + 1, exact
    return v >= static_cast<double>(Limits::lowest()) && v < upper;  // false for NaN
  } else {
    if (!value.isDouble()) return true;
    const double v = value.toDouble();
    double max = 0;
    if constexpr (std::is_same_v<T, runtime::Half>) {
      max = 65504.0;
    } else if constexpr (std::is_same_v<T, runtime::BFloat16>) {
      max = 3.3895313892515355e38;  // (2 - 2^-7) * 2^127
    } else {
      max = static_cast<double>(std::numeric_limits<T>::max());
    }
    return !std::isfinite(v) || std::fabs(v) <= max;
  }
}

/// The Scalar `value` as a T, converted as PyTorch does once
/// `scalar_converts<T>(value)` holds: an Int wraps into T, a Double truncates
/// toward zero into an integer type and rounds into a floating one.
template <typename T>
T scalar_as(const runtime::EValue& value) {
  if (value.isBool()) return convert<T>(value.toBool());
  if (value.isInt()) return convert<T>(value.toInt());
  return convert<T>(value.toDouble());
}

}  // namespace kiln::kernels::portable::util
