// Combining elements in place, as PyTorch's CPU kernels step through a
// scatter_add, scatter_reduce or index_put(accumulate=True): in the
// element's own dtype, one element at a time.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"

namespace kiln::kernels::portable::util {

/// Every dtype the combining kernels compute in: the convertible ones and
/// the wide unsigned integers (PyTorch sums and multiplies those too).
template <typename F>
bool visit_every_dtype(runtime::ScalarType t, F&& f) {
  switch (t) {
    case runtime::ScalarType::UInt16: f(TypeTag<uint16_t>{}); return true;
    case runtime::ScalarType::UInt32: f(TypeTag<uint32_t>{}); return true;
    case runtime::ScalarType::UInt64: f(TypeTag<uint64_t>{}); return true;
    default: return visit_convertible(t, f);
  }
}

/// The reductions of scatter_reduce.
enum class Reduce { Sum, Prod, Mean, Max, Min };

/// The slot `a` combined with an incoming `b` as PyTorch's CPU kernels step:
/// in T (the 16-bit floats computed in float and rounded each step), integers
/// wrapping, bool as logic. An incoming NaN replaces the slot; one already
/// there stays (std::max(NaN, x) is NaN).
template <Reduce R, typename T>
T combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return R == Reduce::Prod || R == Reduce::Min ? (a && b) : (a || b);
  } else if constexpr (R == Reduce::Max || R == Reduce::Min) {
    using C = compute_t<T>;
    if (is_nan(b)) return b;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    return (R == Reduce::Max ? x < y : y < x) ? b : a;
  } else if constexpr (is_integer_v<T>) {  // two's complement wrap-around
    const auto x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<T>(R == Reduce::Prod ? x * y : x + y);
  } else {
    using C = compute_t<T>;
    const auto x = static_cast<C>(a), y = static_cast<C>(b);
    return store_as<T>(R == Reduce::Prod ? x * y : x + y);
  }
}

}  // namespace kiln::kernels::portable::util
