// What the quantized kernels (quantize.cpp, choose_qparams.cpp,
// quantized_embedding.cpp, quantized_mixed.cpp) share: the integer dtypes
// that hold quantized values, reading ScalarType arguments, and the checks of
// a quantization range, a scale and a zero point, each failing with one
// message naming the argument.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable::util {

/// Byte, Char, Short, UInt16, Int: the integer dtypes torch.ao quantizes to
/// (its _DTYPE_TO_QVALUE_BOUNDS, less the float8 types).
bool is_quantized_dtype(ScalarType t);

/// Runs `f` with the C++ type of a quantized dtype; false (without calling
/// `f`) for any other dtype.
template <typename F>
bool visit_quantized(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::UInt16: f(TypeTag<uint16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    default: return false;
  }
}

/// The smallest and largest value of a quantized dtype.
int64_t quantized_lowest(ScalarType t);
int64_t quantized_highest(ScalarType t);

/// A `ScalarType` argument: an Int holding the code of a dtype the runtime
/// knows.
bool scalar_type_arg(KernelArgs& a, size_t index, const char* name, ScalarType* out);
/// A `ScalarType?` argument: None, or as for scalar_type_arg (`args` are
/// the kernel's arguments, already counted).
bool optional_scalar_type_arg(KernelArgs& a, Span<EValue*> args, size_t index, const char* name,
                              std::optional<ScalarType>* out);

/// Fails unless `dtype` (what argument `name` gives) is Float, Double, Half or
/// BFloat16.
bool check_float_dtype(KernelArgs& a, const char* name, ScalarType dtype);

/// The range quantized values are clamped to, and the dtype that holds them.
struct QuantRange {
  int64_t min = 0;
  int64_t max = 0;
  ScalarType dtype = ScalarType::Char;
};

/// Reads `quant_min`, `quant_max` and `dtype` from arguments `index` to
/// `index + 2` and checks them: dtype quantized (and not UInt16 unless
/// `uint16_ok`), quant_min <= quant_max, both within the dtype's values.
bool read_quant_range(KernelArgs& a, size_t index, bool uint16_ok, QuantRange* out);

/// The checks of read_quant_range for a range given otherwise; `min_name` and
/// `max_name` name its arguments.
bool check_quant_range(KernelArgs& a, const QuantRange& range, const char* min_name, const char* max_name);

/// Fails unless `scale` (argument `name`, element `element` of it or -1) is
/// positive and finite.
bool check_scale(KernelArgs& a, const char* name, long element, double scale);

/// Fails unless `zero_point` (argument `name`, element `element` of it or -1)
/// lies within the range.
bool check_zero_point(KernelArgs& a, const char* name, long element, int64_t zero_point, const QuantRange& range);

/// Element `i` of a Float or Double tensor, as double.
double float_at(const Tensor& t, int64_t i);
/// Element `i` of an integer (Byte, Char, Short, Int or Long) tensor.
int64_t integer_at(const Tensor& t, int64_t i);

/// Fails unless `t` is Float or Double (`name` is the argument).
bool check_scales_dtype(KernelArgs& a, const Tensor& t, const char* name);
/// Fails unless `t` is Byte, Char, Short, Int or Long.
bool check_zero_points_dtype(KernelArgs& a, const Tensor& t, const char* name);

/// Checks that the scales (and zero points, if any) hold `count` elements
/// each, every scale positive and finite and every zero point in the range.
bool check_channel_params(KernelArgs& a, const Tensor& scales, const std::optional<Tensor>& zero_points, int64_t count,
                          const QuantRange& range);

}  // namespace kiln::kernels::portable::util
