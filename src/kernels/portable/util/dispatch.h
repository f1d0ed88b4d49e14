// Dtype dispatch for the portable kernels: run a generic lambda with the C++
// type of a runtime ScalarType.
//
//   visit_real(t.scalar_type(), [&](auto tag) {
//     using T = typename decltype(tag)::type;
//     ...
//   });
//
// Each visit_* covers one set of dtypes, matched by an is_* predicate so a
// kernel can reject an unsupported dtype (with a message) before dispatching.
// A visit_* returns false, without calling `f`, for a dtype outside its set.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/core/scalar_type.h"

namespace kiln::kernels::portable::util {

/// Carries a type through a generic lambda's `auto` parameter.
template <typename T>
struct TypeTag {
  using type = T;
};

/// Float, Double.
inline bool is_floating(runtime::ScalarType t) {
  return t == runtime::ScalarType::Float || t == runtime::ScalarType::Double;
}
/// Int, Long, Float, Double.
inline bool is_real(runtime::ScalarType t) {
  return is_floating(t) || t == runtime::ScalarType::Int || t == runtime::ScalarType::Long;
}
/// Int, Long, Float, Double, Bool.
inline bool is_real_or_bool(runtime::ScalarType t) { return is_real(t) || t == runtime::ScalarType::Bool; }
/// Half, BFloat16: stored in 16 bits, computed in float.
inline bool is_half(runtime::ScalarType t) {
  return t == runtime::ScalarType::Half || t == runtime::ScalarType::BFloat16;
}
inline bool is_floating_or_half(runtime::ScalarType t) { return is_floating(t) || is_half(t); }
inline bool is_real_or_half(runtime::ScalarType t) { return is_real(t) || is_half(t); }
inline bool is_real_or_bool_or_half(runtime::ScalarType t) { return is_real_or_bool(t) || is_half(t); }

/// The 16-bit floats (Half, BFloat16), the floating types with them, and the
/// integer types without bool.
template <typename T>
constexpr bool is_half_v = std::is_same_v<T, runtime::Half> || std::is_same_v<T, runtime::BFloat16>;
template <typename T>
constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_half_v<T>;
template <typename T>
constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// True for a NaN; false for every value of a type without NaN.
template <typename T>
inline bool is_nan(T value) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(value);
  else if constexpr (is_half_v<T>) return std::isnan(static_cast<float>(value));
  else return false;
}

/// The type arithmetic on a T is done in: float for the 16-bit floats, T
/// otherwise. Kernels load a T, compute in compute_t<T> and store a T.
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<runtime::Half> {
  using type = float;
};
template <>
struct ComputeType<runtime::BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeType<T>::type;

/// Converts a computed value back to T (the 16-bit floats round to nearest even).
template <typename T, typename C>
inline T store_as(C value) {
  if constexpr (std::is_same_v<T, runtime::Half> || std::is_same_v<T, runtime::BFloat16>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

template <typename F>
bool visit_floating(runtime::ScalarType t, F&& f) {
  switch (t) {
    case runtime::ScalarType::Float: f(TypeTag<float>{}); return true;
    case runtime::ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

/// Float, Double, Half, BFloat16.
template <typename F>
bool visit_floating_or_half(runtime::ScalarType t, F&& f) {
  switch (t) {
    case runtime::ScalarType::Half: f(TypeTag<runtime::Half>{}); return true;
    case runtime::ScalarType::BFloat16: f(TypeTag<runtime::BFloat16>{}); return true;
    default: return visit_floating(t, f);
  }
}

template <typename F>
bool visit_real(runtime::ScalarType t, F&& f) {
  switch (t) {
    case runtime::ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    case runtime::ScalarType::Long: f(TypeTag<int64_t>{}); return true;
    default: return visit_floating(t, f);
  }
}

template <typename F>
bool visit_real_or_bool(runtime::ScalarType t, F&& f) {
  if (t == runtime::ScalarType::Bool) {
    f(TypeTag<bool>{});
    return true;
  }
  return visit_real(t, f);
}

/// Int, Long, Float, Double, Half, BFloat16.
template <typename F>
bool visit_real_or_half(runtime::ScalarType t, F&& f) {
  if (is_half(t)) return visit_floating_or_half(t, f);
  return visit_real(t, f);
}

/// Int, Long, Float, Double, Half, BFloat16, Bool.
template <typename F>
bool visit_real_or_bool_or_half(runtime::ScalarType t, F&& f) {
  if (is_half(t)) return visit_floating_or_half(t, f);
  return visit_real_or_bool(t, f);
}

/// Sixteen bytes that copy as one value (a ComplexDouble element).
struct alignas(16) Bytes16 {
  uint64_t low, high;
};

/// An unsigned integer type of `size` bytes (1, 2, 4 or 8), or Bytes16, for
/// copying elements of any dtype without caring what they mean.
template <typename F>
bool visit_element_size(size_t size, F&& f) {
  switch (size) {
    case 1: f(TypeTag<uint8_t>{}); return true;
    case 2: f(TypeTag<uint16_t>{}); return true;
    case 4: f(TypeTag<uint32_t>{}); return true;
    case 8: f(TypeTag<uint64_t>{}); return true;
    case 16: f(TypeTag<Bytes16>{}); return true;
    default: return false;
  }
}

/// The compile-time twin of runtime::promote_types for the types above
/// (bool < int32 < int64 < half, bfloat16 < float < double; half with
/// bfloat16 gives float).
template <typename T>
constexpr int promotion_rank() {
  if constexpr (std::is_same_v<T, bool>) return 0;
  else if constexpr (std::is_same_v<T, int32_t>) return 1;
  else if constexpr (std::is_same_v<T, int64_t>) return 2;
  else if constexpr (std::is_same_v<T, runtime::Half> || std::is_same_v<T, runtime::BFloat16>) return 3;
  else if constexpr (std::is_same_v<T, float>) return 4;
  else return 5;
}
template <typename A, typename B>
using promoted_t = std::conditional_t<
    promotion_rank<A>() == 3 && promotion_rank<B>() == 3 && !std::is_same_v<A, B>, float,
    std::conditional_t<(promotion_rank<A>() >= promotion_rank<B>()), A, B>>;

/// Wrapping arithmetic for signed integers (as PyTorch's results; signed
/// overflow would be undefined behaviour in C++). Plain arithmetic for the rest.
template <typename T>
inline T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
inline T wrapping_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

}  // namespace kiln::kernels::portable::util
