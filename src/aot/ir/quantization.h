// Facts about quantized programs that the meta rules, the lowering passes and
// the backends share: the range of each quantized dtype, the checks of
// quantization parameters, and which ops of the quantized_decomposed
// namespace quantize or dequantize.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "aot/ir/node.h"
#include "aot/ir/tensor_meta.h"

namespace kiln::aot {

/// [lowest, highest] of a dtype a quantized value may have (uint8, int8,
/// uint16, int16, int32); nullopt for others.
std::optional<std::pair<int64_t, int64_t>> quant_range_of(ScalarType dtype);

/// PyTorch's name of a dtype without its "torch.": "int8", "uint8", "float32".
std::string dtype_name(ScalarType dtype);

/// "" when [quant_min, quant_max] is a non-empty range inside `dtype`'s, else
/// why not ("quant_min -129 is below int8's lowest value -128").
std::string check_quant_range(int64_t quant_min, int64_t quant_max, ScalarType dtype);
/// "" for a positive finite scale, else why not.
std::string check_scale(double scale);
/// "" for a zero point inside [quant_min, quant_max], else why not.
std::string check_zero_point(int64_t zero_point, int64_t quant_min, int64_t quant_max);

/// The kinds of quantization ops a lowering pass looks for.
enum class QuantOpKind : uint8_t {
  None,
  QuantizePerTensor,    ///< quantize_per_tensor (.default, .tensor, .tensor2 and the out variants)
  DequantizePerTensor,  ///< dequantize_per_tensor (.default, .tensor, .tensor2 and the out variants)
  QuantizePerChannel,
  DequantizePerChannel,
  ChooseQParams,        ///< choose_qparams(.tensor), choose_qparams_symmetric
  Other,                ///< every other op of the quantized_decomposed namespace
  AffineQuantize,       ///< torchao::quantize_affine (and its out variant)
  AffineDequantize,     ///< torchao::dequantize_affine (and its out variant)
  AffineChooseQParams,  ///< torchao::choose_qparams_affine (and its out variant)
};

/// The parameters of a per-tensor quantization.
struct TensorQParams {
  double scale = 1;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ScalarType dtype = ScalarType::Char;

  bool operator==(const TensorQParams&) const = default;
};

/// The parameters of a quantize_per_tensor.default or
/// dequantize_per_tensor.default node when they are constants (not computed
/// at run time, as dynamic quantization's are); nullopt otherwise.
std::optional<TensorQParams> constant_tensor_qparams(const Node& node);

/// The kind of the op named `qualified_name` ("quantized_decomposed::quantize_per_tensor.default",
/// "torchao::dequantize_affine.default",
/// or without ".default" for the default overload, as a node's target may name it).
QuantOpKind quant_op_kind(std::string_view qualified_name);

}  // namespace kiln::aot
