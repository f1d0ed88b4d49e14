// Activations: silu, hardswish, hardsigmoid, leaky_relu, elu, gelu (floating
// dtypes) and hardtanh (real dtypes), with PyTorch's formulas and Scalar
// argument checks. silu, elu and gelu of dense Float tensors take the
// vectorised approximations of util/vector_math.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/scalar.h"
#include "kernels/portable/util/unary.h"
#include "kernels/portable/util/vector_math.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;
using util::UnaryDtypes;

// A Scalar argument of a floating activation, converted once to each compute
// type (PyTorch converts it straight to float for Float, Half and BFloat16).
struct Parameter {
  float as_float = 0;
  double as_double = 0;

  template <typename C>
  C as() const {
    if constexpr (std::is_same_v<C, double>) return as_double;
    else return as_float;
  }
};

// Reads Scalar argument `index`; fails, as PyTorch does, if the compute type
// of `dtype` (float unless Double) cannot hold it.
bool read_parameter(KernelArgs& a, size_t index, const char* name, ScalarType dtype, Parameter* out) {
  const EValue* value = nullptr;
  if (!a.scalar(index, name, &value)) return false;
  if (dtype != ScalarType::Double && !util::scalar_fits<float>(*value)) {
    a.fail(Error::InvalidArgument, "'%s' (%g) cannot be converted to Float without overflow", name,
           value->toScalarAsDouble());
    return false;
  }
  out->as_float = util::scalar_to<float>(*value);
  out->as_double = util::scalar_to<double>(*value);
  return true;
}

// The largest finite value of each floating dtype, for the range checks on
// hardtanh's bounds.
double largest_finite(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;  // 0x7f7f
    case ScalarType::Float: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// hardtanh's bounds in the dtype of self. Integral tensors take the bounds
// truncated to integers (PyTorch's legacy rule: no type promotion), and a
// bound beyond the dtype's range only fails when it would clamp everything
// out of range; floating tensors take them converted to their dtype.
struct Bounds {
  double low = 0, high = 0;  // floating dtypes
  int64_t low_int = 0, high_int = 0;  // integral dtypes, saturated to the dtype's range
};

bool read_integral_bounds(KernelArgs& a, const EValue& min_val, const EValue& max_val, ScalarType dtype, Bounds* out) {
  for (const auto& [value, name] : {std::pair{&min_val, "min_val"}, std::pair{&max_val, "max_val"}}) {
    if (!util::scalar_fits<int64_t>(*value)) {
      a.fail(Error::InvalidArgument, "'%s' (%g) cannot be converted to Long without overflow", name,
             value->toScalarAsDouble());
      return false;
    }
  }
  const int64_t low = util::scalar_to<int64_t>(min_val);
  const int64_t high = util::scalar_to<int64_t>(max_val);
  const int64_t lowest = dtype == ScalarType::Int ? std::numeric_limits<int32_t>::lowest()
                                                  : std::numeric_limits<int64_t>::lowest();
  const int64_t largest = dtype == ScalarType::Int ? std::numeric_limits<int32_t>::max()
                                                   : std::numeric_limits<int64_t>::max();
  if (low > largest || high < lowest) {
    const bool bad_low = low > largest;
    a.fail(Error::InvalidArgument, "'%s' (%lld) is outside the range of %s", bad_low ? "min_val" : "max_val",
           static_cast<long long>(bad_low ? low : high), runtime::to_string(dtype));
    return false;
  }
  out->low_int = std::max(low, lowest);
  out->high_int = std::min(high, largest);
  return true;
}

bool read_floating_bounds(KernelArgs& a, const EValue& min_val, const EValue& max_val, ScalarType dtype, Bounds* out) {
  for (const auto& [value, name] : {std::pair{&min_val, "min_val"}, std::pair{&max_val, "max_val"}}) {
    const double v = value->toScalarAsDouble();
    if (std::isfinite(v) && std::fabs(v) > largest_finite(dtype)) {
      a.fail(Error::InvalidArgument, "'%s' (%g) cannot be converted to %s without overflow", name, v,
             runtime::to_string(dtype));
      return false;
    }
  }
  out->low = min_val.toScalarAsDouble();
  out->high = max_val.toScalarAsDouble();
  return true;
}

template <typename T>
void hardtanh_loop(const Tensor& self, const Tensor& out, const Bounds& bounds) {
  using C = util::compute_t<T>;
  C low, high;
  if constexpr (std::is_integral_v<T>) {
    low = static_cast<T>(bounds.low_int);
    high = static_cast<T>(bounds.high_int);
  } else {
    // The bounds are rounded to T, as PyTorch converts them to the tensor's dtype.
    low = static_cast<C>(util::store_as<T>(bounds.low));
    high = static_cast<C>(util::store_as<T>(bounds.high));
    if (std::isnan(low) || std::isnan(high)) {  // a NaN bound gives NaN everywhere, as in PyTorch
      const T nan = util::store_as<T>(std::numeric_limits<float>::quiet_NaN());
      util::map_unary<T, T>(self, out, [nan](T) { return nan; });
      return;
    }
  }
  // max with low, then min with high: high wins when low > high; NaN stays.
  util::map_unary<T, T>(self, out, [low, high](T value) {
    const C x = static_cast<C>(value);
    const C y = x < low ? low : x;
    return util::store_as<T>(y > high ? high : y);
  });
}

bool equals(Span<const char> text, const char* literal) {
  size_t i = 0;
  for (; literal[i] != '\0'; ++i) {
    if (i >= text.size() || text[i] != literal[i]) return false;
  }
  return i == text.size();
}

}  // namespace

void silu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kFloating>(
      ctx, args, "aten::silu.out",
      [](auto x) {
        using C = decltype(x);
        return x / (C(1) + std::exp(-x));
      },
      [](float x) KILN_INLINE_LAMBDA { return util::silu_f32(x); });
}

void hardswish_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kFloating>(ctx, args, "aten::hardswish.out", [](auto x) {
    using C = decltype(x);
    // std::max and std::min return their first argument for a NaN one.
    return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  });
}

void hardsigmoid_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  util::same_dtype_unary_kernel<UnaryDtypes::kFloating>(ctx, args, "aten::hardsigmoid.out", [](auto x) {
    using C = decltype(x);
    return std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  });
}

void leaky_relu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::leaky_relu.out", args);
  Tensor self, out;
  Parameter slope;
  if (!util::read_unary_tensors(a, 3, UnaryDtypes::kFloating, &self, &out) ||
      !read_parameter(a, 1, "negative_slope", self.scalar_type(), &slope) ||
      !util::prepare_unary_out(a, self, out, self.scalar_type())) {
    return;
  }
  util::map_same_dtype<UnaryDtypes::kFloating>(self, out, [slope](auto x) {
    using C = decltype(x);
    return x > C(0) ? x : x * slope.as<C>();
  });
}

void elu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::elu.out", args);
  Tensor self, out;
  Parameter alpha, scale, input_scale;
  if (!util::read_unary_tensors(a, 5, UnaryDtypes::kFloating, &self, &out) ||
      !read_parameter(a, 1, "alpha", self.scalar_type(), &alpha) ||
      !read_parameter(a, 2, "scale", self.scalar_type(), &scale) ||
      !read_parameter(a, 3, "input_scale", self.scalar_type(), &input_scale) ||
      !util::prepare_unary_out(a, self, out, self.scalar_type())) {
    return;
  }
  const float negative_coefficient = alpha.as_float * scale.as_float;
  const float positive_scale = scale.as_float, exp_scale = input_scale.as_float;
  if (util::map_dense_float(self, out, [=](float x) KILN_INLINE_LAMBDA {
        return x <= 0.0f ? util::expm1_f32(x * exp_scale) * negative_coefficient : x * positive_scale;
      })) {
    return;
  }
  util::map_same_dtype<UnaryDtypes::kFloating>(self, out, [alpha, scale, input_scale](auto x) {
    using C = decltype(x);
    const C negative_coefficient = alpha.as<C>() * scale.as<C>();
    return x <= C(0) ? std::expm1(x * input_scale.as<C>()) * negative_coefficient : x * scale.as<C>();
  });
}

void hardtanh_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::hardtanh.out", args);
  Tensor self, out;
  const EValue* min_val = nullptr;
  const EValue* max_val = nullptr;
  if (!util::read_unary_tensors(a, 4, UnaryDtypes::kReal, &self, &out) || !a.scalar(1, "min_val", &min_val) ||
      !a.scalar(2, "max_val", &max_val)) {
    return;
  }
  const ScalarType dtype = self.scalar_type();
  Bounds bounds;
  const bool ok = util::is_floating_or_half(dtype) ? read_floating_bounds(a, *min_val, *max_val, dtype, &bounds)
                                                   : read_integral_bounds(a, *min_val, *max_val, dtype, &bounds);
  if (!ok || !util::prepare_unary_out(a, self, out, dtype)) return;
  util::visit_real_or_half(dtype, [&](auto tag) { hardtanh_loop<typename decltype(tag)::type>(self, out, bounds); });
}

void gelu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::gelu.out", args);
  Tensor self, out;
  if (!util::read_unary_tensors(a, 3, UnaryDtypes::kFloating, &self, &out)) return;
  if (!args[1]->isString()) {
    a.fail(Error::InvalidArgument, "'approximate' must be a String, got %s", runtime::to_string(args[1]->tag()));
    return;
  }
  const Span<const char> mode = args[1]->toString();
  const bool tanh = equals(mode, "tanh");
  if (!tanh && !equals(mode, "none")) {
    a.fail(Error::InvalidArgument, "'approximate' must be 'none' or 'tanh', got '%.*s'", static_cast<int>(mode.size()),
           mode.data());
    return;
  }
  if (!util::prepare_unary_out(a, self, out, self.scalar_type())) return;
  if (tanh) {
    if (util::map_dense_float(self, out, [](float x) KILN_INLINE_LAMBDA { return util::gelu_tanh_f32(x); })) return;
    util::map_same_dtype<UnaryDtypes::kFloating>(self, out, [](auto x) {
      using C = decltype(x);
      const C k = C(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
      return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
    });
  } else {
    if (util::map_dense_float(self, out, [](float x) KILN_INLINE_LAMBDA { return util::gelu_f32(x); })) return;
    util::map_same_dtype<UnaryDtypes::kFloating>(self, out, [](auto x) {
      using C = decltype(x);
      return C(0.5) * x * (C(1) + std::erf(x * C(M_SQRT1_2)));
    });
  }
}

}  // namespace kiln::kernels::portable
