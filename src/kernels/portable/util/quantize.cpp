#include "kernels/portable/util/quantize.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace kiln::kernels::portable::util {

bool is_quantized_dtype(ScalarType t) {
  return visit_quantized(t, [](auto) {});
}

int64_t quantized_lowest(ScalarType t) {
  int64_t value = 0;
  visit_quantized(t, [&](auto tag) { value = std::numeric_limits<typename decltype(tag)::type>::lowest(); });
  return value;
}

int64_t quantized_highest(ScalarType t) {
  int64_t value = 0;
  visit_quantized(t, [&](auto tag) { value = std::numeric_limits<typename decltype(tag)::type>::max(); });
  return value;
}

bool scalar_type_arg(KernelArgs& a, size_t index, const char* name, ScalarType* out) {
  int64_t code = 0;
  if (!a.integer(index, name, &code)) return false;
  const auto dtype = static_cast<ScalarType>(code);
  if (code < 0 || code > 127 || !runtime::is_valid(dtype)) {
    a.fail(Error::InvalidArgument, "'%s' %lld is not a dtype", name, static_cast<long long>(code));
    return false;
  }
  *out = dtype;
  return true;
}

bool optional_scalar_type_arg(KernelArgs& a, Span<EValue*> args, size_t index, const char* name,
                              std::optional<ScalarType>* out) {
  *out = std::nullopt;
  if (args[index]->isNone()) return true;
  ScalarType dtype = ScalarType::Float;
  if (!scalar_type_arg(a, index, name, &dtype)) return false;
  *out = dtype;
  return true;
}

bool check_float_dtype(KernelArgs& a, const char* name, ScalarType dtype) {
  if (is_floating_or_half(dtype)) return true;
  a.fail(Error::InvalidArgument, "'%s' is %s; it must be Float, Double, Half or BFloat16", name,
         runtime::to_string(dtype));
  return false;
}

bool check_quant_range(KernelArgs& a, const QuantRange& range, const char* min_name, const char* max_name) {
  const auto lowest = static_cast<long long>(quantized_lowest(range.dtype));
  const auto highest = static_cast<long long>(quantized_highest(range.dtype));
  const auto min = static_cast<long long>(range.min);
  const auto max = static_cast<long long>(range.max);
  if (min > max) {
    a.fail(Error::InvalidArgument, "'%s' %lld is greater than '%s' %lld", min_name, min, max_name, max);
    return false;
  }
  if (min < lowest || max > highest) {
    const bool low = min < lowest;
    a.fail(Error::InvalidArgument, "'%s' %lld is outside the values of %s [%lld, %lld]", low ? min_name : max_name,
           low ? min : max, runtime::to_string(range.dtype), lowest, highest);
    return false;
  }
  return true;
}

bool read_quant_range(KernelArgs& a, size_t index, bool uint16_ok, QuantRange* out) {
  if (!a.integer(index, "quant_min", &out->min) || !a.integer(index + 1, "quant_max", &out->max) ||
      !scalar_type_arg(a, index + 2, "dtype", &out->dtype)) {
    return false;
  }
  if (!is_quantized_dtype(out->dtype) || (!uint16_ok && out->dtype == ScalarType::UInt16)) {
    a.fail(Error::InvalidArgument, "'dtype' is %s; it must be Byte, Char, Short%s or Int",
           runtime::to_string(out->dtype), uint16_ok ? ", UInt16" : "");
    return false;
  }
  return check_quant_range(a, *out, "quant_min", "quant_max");
}

namespace {

// "'name'" or "'name'[element]".
struct Which {
  char text[96];
  Which(const char* name, long element) {
    if (element < 0) {
      std::snprintf(text, sizeof text, "'%s'", name);
    } else {
      std::snprintf(text, sizeof text, "'%s'[%ld]", name, element);
    }
  }
};

}  // namespace

bool check_scale(KernelArgs& a, const char* name, long element, double scale) {
  if (scale > 0 && std::isfinite(scale)) return true;
  a.fail(Error::InvalidArgument, "%s is %g; a scale must be positive and finite", Which(name, element).text, scale);
  return false;
}

bool check_zero_point(KernelArgs& a, const char* name, long element, int64_t zero_point, const QuantRange& range) {
  if (zero_point >= range.min && zero_point <= range.max) return true;
  a.fail(Error::InvalidArgument, "%s %lld is outside [quant_min, quant_max] = [%lld, %lld]",
         Which(name, element).text, static_cast<long long>(zero_point), static_cast<long long>(range.min),
         static_cast<long long>(range.max));
  return false;
}

double float_at(const Tensor& t, int64_t i) {
  return t.scalar_type() == ScalarType::Double ? t.const_data_ptr<double>()[i] : t.const_data_ptr<float>()[i];
}

int64_t integer_at(const Tensor& t, int64_t i) {
  switch (t.scalar_type()) {
    case ScalarType::Byte: return t.const_data_ptr<uint8_t>()[i];
    case ScalarType::Char: return t.const_data_ptr<int8_t>()[i];
    case ScalarType::Short: return t.const_data_ptr<int16_t>()[i];
    case ScalarType::Int: return t.const_data_ptr<int32_t>()[i];
    default: return t.const_data_ptr<int64_t>()[i];
  }
}

bool check_scales_dtype(KernelArgs& a, const Tensor& t, const char* name) {
  if (is_floating(t.scalar_type())) return true;
  a.fail(Error::InvalidArgument, "'%s' has dtype %s; it must be Float or Double", name,
         runtime::to_string(t.scalar_type()));
  return false;
}

bool check_zero_points_dtype(KernelArgs& a, const Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long: return true;
    default:
      a.fail(Error::InvalidArgument, "'%s' has dtype %s; it must be an integer dtype (Byte, Char, Short, Int or Long)",
             name, runtime::to_string(t.scalar_type()));
      return false;
  }
}

bool check_channel_params(KernelArgs& a, const Tensor& scales, const std::optional<Tensor>& zero_points, int64_t count,
                          const QuantRange& range) {
  if (!check_scales_dtype(a, scales, "scales") ||
      (zero_points && !check_zero_points_dtype(a, *zero_points, "zero_points"))) {
    return false;
  }
  for (const auto& [t, name] : {std::pair{&scales, "scales"}, std::pair{zero_points ? &*zero_points : nullptr,
                                                                           "zero_points"}}) {
    if (t == nullptr || t->numel() == count) continue;
    a.fail(Error::InvalidArgument, "'%s' has %zd elements; it needs one per channel or token (%lld)", name, t->numel(),
           static_cast<long long>(count));
    return false;
  }
  if (!a.check_contiguous(scales, "scales") || (zero_points && !a.check_contiguous(*zero_points, "zero_points"))) {
    return false;
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!check_scale(a, "scales", static_cast<long>(i), float_at(scales, i))) return false;
    if (zero_points && !check_zero_point(a, "zero_points", static_cast<long>(i), integer_at(*zero_points, i), range)) {
      return false;
    }
  }
  return true;
}

}  // namespace kiln::kernels::portable::util
