// Meta rules of the quantized_decomposed namespace: the quantize, dequantize
// and choose_qparams ops of PT2E programs and ExecuTorch's quantized kernels
// (embedding_byte/2bit/4bit, mixed_mm, mixed_linear, add). Constant
// quantization parameters are checked here, where the node can be named: a
// scale that is not positive, bounds outside the dtype, a zero point outside
// the bounds.
#include <cmath>

#include "aot/ir/op_table/infer_meta_rules.h"
#include "aot/ir/quantization.h"

namespace kiln::aot::meta {
namespace {

ScalarType quantized_dtype(const Call& c, size_t i) {
  const std::optional<ScalarType> dtype = c.dtype(i);
  if (!dtype) c.fail(c.arg_name(i) + " must be a dtype, got None");
  if (!quant_range_of(*dtype)) {
    c.fail(c.arg_name(i) + " " + dtype_name(*dtype) + " is not a quantized dtype (uint8, int8, uint16, int16 or int32)");
  }
  return *dtype;
}

// quant_min/quant_max at `min_arg`, min_arg + 1, against the dtype at `dtype_arg`.
void check_bounds(const Call& c, size_t min_arg, size_t dtype_arg) {
  if (!c.arg(min_arg).is_int() || !c.arg(min_arg + 1).is_int()) return;  // tensor2: bounds come at run time
  const ScalarType dtype = quantized_dtype(c, dtype_arg);
  if (const std::string why = check_quant_range(c.integer(min_arg), c.integer(min_arg + 1), dtype); !why.empty()) {
    c.fail(why);
  }
}

// A constant `float scale` and `int zero_point` (per-tensor ops).
void check_scalar_qparams(const Call& c, size_t scale_arg, size_t min_arg) {
  if (c.arg(scale_arg).is_double() || c.arg(scale_arg).is_int()) {
    if (const std::string why = check_scale(c.number(scale_arg)); !why.empty()) c.fail(why);
  }
  if (c.arg(scale_arg + 1).is_int() && c.arg(min_arg).is_int()) {
    const int64_t zero_point = c.integer(scale_arg + 1);
    if (const std::string why = check_zero_point(zero_point, c.integer(min_arg), c.integer(min_arg + 1)); !why.empty()) {
      c.fail(why);
    }
  }
}

void check_input_dtype(const Call& c, ScalarType expected) {
  const TensorMeta& input = c.tensor(0);
  if (input.dtype != expected) {
    c.fail("argument 'input' is " + dtype_name(input.dtype) + " but argument 'dtype' says " + dtype_name(expected));
  }
}

// quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype) and its .tensor forms.
ValueMeta quantize_per_tensor(const Call& c) {
  check_float_input(c, 0);
  check_bounds(c, 3, 5);
  check_scalar_qparams(c, 1, 3);
  return TensorMeta(quantized_dtype(c, 5), c.tensor(0).sizes);
}

// dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None).
ValueMeta dequantize_per_tensor(const Call& c) {
  check_input_dtype(c, quantized_dtype(c, 5));
  check_bounds(c, 3, 5);
  check_scalar_qparams(c, 1, 3);
  return TensorMeta(c.dtype(6).value_or(ScalarType::Float), c.tensor(0).sizes);
}

void check_channel_scales(const Call& c, size_t scales_arg, size_t axis_arg) {
  const TensorMeta& input = c.tensor(0);
  const size_t axis = c.dim(c.integer(axis_arg), input.rank(), "axis");
  const TensorMeta& scales = c.tensor(scales_arg);
  if (scales.rank() != 1) c.fail("argument 'scales' must be 1-D, got " + scales.to_string());
  if (!(scales.sizes[0] == input.sizes[axis])) {
    c.fail("argument 'scales' has " + scales.sizes[0].to_string() + " entries but the input has " +
           input.sizes[axis].to_string() + " channels on axis " + std::to_string(axis));
  }
}

// quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype).
ValueMeta quantize_per_channel(const Call& c) {
  check_float_input(c, 0);
  check_bounds(c, 4, 6);
  check_channel_scales(c, 1, 3);
  return TensorMeta(quantized_dtype(c, 6), c.tensor(0).sizes);
}

// dequantize_per_channel(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *, out_dtype=None).
ValueMeta dequantize_per_channel(const Call& c) {
  check_input_dtype(c, quantized_dtype(c, 6));
  check_bounds(c, 4, 6);
  check_channel_scales(c, 1, 3);
  return TensorMeta(c.dtype(7).value_or(ScalarType::Float), c.tensor(0).sizes);
}

// (scale f64, zero_point i64) of `sizes`, as torch's meta kernels give them.
ValueMeta qparams(std::vector<SymExpr> sizes) {
  return std::vector<TensorMeta>{TensorMeta(ScalarType::Double, sizes), TensorMeta(ScalarType::Long, sizes)};
}

ValueMeta choose_qparams_tensor(const Call& c) {
  check_float_input(c, 0);
  check_bounds(c, 1, 4);
  return qparams({SymExpr::constant(1)});
}

ValueMeta choose_qparams_per_token(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() == 0) c.fail("argument 'input' must have at least one dim");
  if (!is_float_input(input.dtype)) c.fail("argument 'input' must be a float tensor, got " + input.to_string());
  std::vector<SymExpr> sizes = input.sizes;
  sizes.back() = SymExpr::constant(1);
  return qparams(std::move(sizes));
}

// The embedding ops: weight [rows, packed columns] of 8/bits values per byte.
ValueMeta embedding(const Call& c, int bits, std::optional<size_t> dtype_arg) {
  const TensorMeta& weight = c.tensor(0);
  if (weight.dtype != ScalarType::Char && weight.dtype != ScalarType::Byte) {
    c.fail("argument 'weight' must be int8 or uint8, got " + weight.to_string());
  }
  if (weight.rank() != 2) c.fail("argument 'weight' must be 2-D, got " + weight.to_string());
  const TensorMeta& scales = c.tensor(1);
  const TensorMeta& indices = c.tensor(5);
  if (indices.dtype != ScalarType::Long && indices.dtype != ScalarType::Int) {
    c.fail("argument 'indices' must be int64 or int32, got " + indices.to_string());
  }
  std::vector<SymExpr> sizes = indices.sizes;
  sizes.push_back(weight.sizes[1] * SymExpr::constant(8 / bits));
  const ScalarType dtype = dtype_arg ? c.dtype(*dtype_arg).value_or(scales.dtype) : scales.dtype;
  return TensorMeta(dtype, std::move(sizes));
}

}  // namespace

void add_quantized_rules(RuleTable& t) {
  const std::string q = "quantized_decomposed::";
  t[q + "quantize_per_tensor.default"] = quantize_per_tensor;
  t[q + "quantize_per_tensor.tensor"] = quantize_per_tensor;
  t[q + "quantize_per_tensor.tensor2"] = quantize_per_tensor;
  t[q + "dequantize_per_tensor.default"] = dequantize_per_tensor;
  t[q + "dequantize_per_tensor.tensor"] = dequantize_per_tensor;
  t[q + "dequantize_per_tensor.tensor2"] = dequantize_per_tensor;
  t[q + "quantize_per_channel.default"] = quantize_per_channel;
  t[q + "dequantize_per_channel.default"] = dequantize_per_channel;
  // quantize_per_channel_group(input, scales, zero_points, quant_min, quant_max, dtype, group_size)
  t[q + "quantize_per_channel_group.default"] = [](const Call& c) {
    check_float_input(c, 0);
    check_bounds(c, 3, 5);
    return ValueMeta(TensorMeta(quantized_dtype(c, 5), c.tensor(0).sizes));
  };
  // dequantize_per_channel_group(input, scales, zero_points?, quant_min, quant_max, dtype, group_size, output_dtype)
  t[q + "dequantize_per_channel_group.default"] = [](const Call& c) {
    check_input_dtype(c, quantized_dtype(c, 5));
    return ValueMeta(TensorMeta(c.dtype(7).value_or(ScalarType::Float), c.tensor(0).sizes));
  };
  // quantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype)
  t[q + "quantize_per_token.default"] = [](const Call& c) {
    check_float_input(c, 0);
    check_bounds(c, 3, 5);
    return ValueMeta(TensorMeta(quantized_dtype(c, 5), c.tensor(0).sizes));
  };
  // dequantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype, output_dtype)
  t[q + "dequantize_per_token.default"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(6).value_or(ScalarType::Float), c.tensor(0).sizes));
  };
  t[q + "choose_qparams.tensor"] = choose_qparams_tensor;
  t[q + "choose_qparams_symmetric.tensor"] = choose_qparams_tensor;
  t[q + "choose_qparams_per_token.default"] = choose_qparams_per_token;
  t[q + "choose_qparams_per_token_asymmetric.default"] = choose_qparams_per_token;
  t[q + "_choose_qparams_per_token_asymmetric_impl.default"] = choose_qparams_per_token;
  t[q + "embedding_byte.default"] = [](const Call& c) { return embedding(c, 8, std::nullopt); };
  t[q + "embedding_byte.dtype"] = [](const Call& c) { return embedding(c, 8, 6); };
  t[q + "embedding_4bit.default"] = [](const Call& c) { return embedding(c, 4, std::nullopt); };
  t[q + "embedding_4bit.dtype"] = [](const Call& c) { return embedding(c, 4, 6); };
  t[q + "embedding_2bit.default"] = [](const Call& c) { return embedding(c, 2, std::nullopt); };
  t[q + "embedding_2bit.dtype"] = [](const Call& c) { return embedding(c, 2, 6); };
  // mixed_mm(input [M, K], weight [K, N], weight_scales, weight_zero_points?) -> [M, N]
  t[q + "mixed_mm.default"] = [](const Call& c) {
    const TensorMeta &input = c.tensor(0), &weight = c.tensor(1);
    if (input.rank() != 2 || weight.rank() != 2) c.fail("input and weight must be 2-D");
    return ValueMeta(TensorMeta(input.dtype, {input.sizes[0], weight.sizes[1]}));
  };
  // mixed_linear(input [..., K], weight [N, K], weight_scales, weight_zero_points?, dtype?) -> [..., N]
  t[q + "mixed_linear.default"] = [](const Call& c) {
    const TensorMeta &input = c.tensor(0), &weight = c.tensor(1);
    if (input.rank() < 1 || weight.rank() != 2) c.fail("input must have a dim and weight must be 2-D");
    std::vector<SymExpr> sizes = input.sizes;
    sizes.back() = weight.sizes[0];
    return ValueMeta(TensorMeta(c.dtype(4).value_or(input.dtype), std::move(sizes)));
  };
  // add(a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, ..., out_scale, out_zero_point, ...)
  auto quantized_add = [](const Call& c) {
    const TensorMeta &a = c.tensor(0), &b = c.tensor(5);
    return ValueMeta(TensorMeta(a.dtype, broadcast_shapes(c, {a.sizes, b.sizes})));
  };
  t[q + "add.default"] = quantized_add;
  t[q + "add_relu.default"] = quantized_add;
  // add.scalar(qa, a_scale, a_zero_point, a_quant_min, a_quant_max, a_dtype, b, out_scale, ..., out_dtype)
  t[q + "add.scalar"] = [](const Call& c) {
    return ValueMeta(TensorMeta(quantized_dtype(c, 11), c.tensor(0).sizes));
  };
  t[q + "fake_quant_per_channel.default"] = [](const Call& c) {
    check_float_input(c, 0);
    return ValueMeta(TensorMeta(c.tensor(0).dtype, c.tensor(0).sizes));
  };
  t[q + "convert_element_type.no_fuse"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(1).value_or(c.tensor(0).dtype), c.tensor(0).sizes));
  };
}

}  // namespace kiln::aot::meta
