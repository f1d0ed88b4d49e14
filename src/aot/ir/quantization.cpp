#include "aot/ir/quantization.h"

#include <cmath>
#include <unordered_map>

#include "runtime/core/scalar_type.h"

namespace kiln::aot {

std::optional<std::pair<int64_t, int64_t>> quant_range_of(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte: return std::pair<int64_t, int64_t>{0, 255};
    case ScalarType::Char: return std::pair<int64_t, int64_t>{-128, 127};
    case ScalarType::UInt16: return std::pair<int64_t, int64_t>{0, 65535};
    case ScalarType::Short: return std::pair<int64_t, int64_t>{-32768, 32767};
    case ScalarType::Int: return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    default: return std::nullopt;
  }
}

std::string dtype_name(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Half: return "float16";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Float: return "float32";
    case ScalarType::Double: return "float64";
    case ScalarType::Bool: return "bool";
    default: return runtime::to_string(dtype);
  }
}

std::string check_quant_range(int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  const auto range = quant_range_of(dtype);
  const std::string name = dtype_name(dtype);
  if (!range) return name + " is not a quantized dtype";
  if (quant_min < range->first) {
    return "quant_min " + std::to_string(quant_min) + " is below " + name + "'s lowest value " +
           std::to_string(range->first);
  }
  if (quant_max > range->second) {
    return "quant_max " + std::to_string(quant_max) + " is above " + name + "'s highest value " +
           std::to_string(range->second);
  }
  if (quant_min > quant_max) {
    return "quant_min " + std::to_string(quant_min) + " is above quant_max " + std::to_string(quant_max);
  }
  return "";
}

std::string check_scale(double scale) {
  if (std::isfinite(scale) && scale > 0.0) return "";
  return "scale " + std::to_string(scale) + " is not a positive finite number";
}

std::string check_zero_point(int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  if (zero_point >= quant_min && zero_point <= quant_max) return "";
  return "zero point " + std::to_string(zero_point) + " is outside [quant_min, quant_max] = [" +
         std::to_string(quant_min) + ", " + std::to_string(quant_max) + "]";
}

std::optional<TensorQParams> constant_tensor_qparams(const Node& node) {
  const QuantOpKind kind = quant_op_kind(node.target());
  if (kind != QuantOpKind::QuantizePerTensor && kind != QuantOpKind::DequantizePerTensor) return std::nullopt;
  const ArgumentList& args = node.args();
  if (args.size() < 6 || !(args[1].is_double() || args[1].is_int()) || !args[2].is_int() || !args[3].is_int() ||
      !args[4].is_int()) {
    return std::nullopt;
  }
  const auto* dtype = std::get_if<ScalarType>(&args[5].value);
  if (dtype == nullptr) return std::nullopt;
  TensorQParams params;
  params.scale = args[1].is_double() ? args[1].to_double() : static_cast<double>(args[1].to_int());
  params.zero_point = args[2].to_int();
  params.quant_min = args[3].to_int();
  params.quant_max = args[4].to_int();
  params.dtype = *dtype;
  return params;
}

QuantOpKind quant_op_kind(std::string_view name) {
  static const std::unordered_map<std::string_view, QuantOpKind> kinds = {
      {"quantized_decomposed::quantize_per_tensor.default", QuantOpKind::QuantizePerTensor},
      {"quantized_decomposed::quantize_per_tensor.tensor", QuantOpKind::QuantizePerTensor},
      {"quantized_decomposed::quantize_per_tensor.tensor2", QuantOpKind::QuantizePerTensor},
      {"quantized_decomposed::quantize_per_tensor.out", QuantOpKind::QuantizePerTensor},
      {"quantized_decomposed::quantize_per_tensor.Tensor_out", QuantOpKind::QuantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.out", QuantOpKind::DequantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.Tensor_out", QuantOpKind::DequantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.default", QuantOpKind::DequantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.tensor", QuantOpKind::DequantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.tensor2", QuantOpKind::DequantizePerTensor},
      {"quantized_decomposed::quantize_per_channel.default", QuantOpKind::QuantizePerChannel},
      {"quantized_decomposed::dequantize_per_channel.default", QuantOpKind::DequantizePerChannel},
      {"quantized_decomposed::choose_qparams.tensor", QuantOpKind::ChooseQParams},
      {"quantized_decomposed::choose_qparams_symmetric.tensor", QuantOpKind::ChooseQParams},
      {"torchao::quantize_affine.default", QuantOpKind::AffineQuantize},
      {"torchao::quantize_affine.out", QuantOpKind::AffineQuantize},
      {"torchao::dequantize_affine.default", QuantOpKind::AffineDequantize},
      {"torchao::dequantize_affine.out", QuantOpKind::AffineDequantize},
      {"torchao::choose_qparams_affine.default", QuantOpKind::AffineChooseQParams},
      {"torchao::choose_qparams_affine.out", QuantOpKind::AffineChooseQParams},
  };
  if (auto it = kinds.find(name); it != kinds.end()) return it->second;
  // A node's target may name the default overload without ".default".
  if (const size_t ns = name.find("::"); ns != std::string_view::npos && name.find('.', ns) == std::string_view::npos) {
    if (auto it = kinds.find(std::string(name) + ".default"); it != kinds.end()) return it->second;
  }
  return name.starts_with("quantized_decomposed::") ? QuantOpKind::Other : QuantOpKind::None;
}

}  // namespace kiln::aot
