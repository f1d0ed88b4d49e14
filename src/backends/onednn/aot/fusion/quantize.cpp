// The quantization family of fusion rules (rule.h): a quantize_per_tensor
// read only by dequantize ops of its parameters (QuantizedGrid, node_ops.h)
// is, in float32, its input on the quantization grid -- the eltwise ops
// x * (1/s), round (ties to even), clamp to the range less the zero point,
// * s -- exactly as PyTorch's quantize and dequantize compute it. A Pattern
// of the one node, so a convolution's or a matmul's post-op chain takes it
// (post_ops.cpp): the requantization of a quantized model's every layer is
// then four post-ops of the layer. The dequantize ops name its value.
#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

namespace {

std::optional<Match> select_fake_quant(const FusedGroup& group, const FusionContext&) {
  QuantizedGrid grid;
  try {
    grid = quantized_grid(*group.base);
  } catch (const Refusal&) {
    return std::nullopt;
  }
  if (grid.input == nullptr) return std::nullopt;
  Match match;
  match.eltwise_input = grid.input;
  match.eltwises = grid.eltwises();
  match.apply = [eltwises = match.eltwises, input = grid.input](FusedGroup& group) {
    group.op = describe_or_throw(*group.base);
    fb::EltwiseOpT eltwise;
    eltwise.eltwise = std::make_unique<fb::EltwiseT>(eltwises.front());
    group.op.op.Set(std::move(eltwise));
    group.op.inputs = {input};
    for (size_t i = 1; i < eltwises.size(); ++i) add_eltwise_post_op(group, eltwises[i], group.base);
  };
  return match;
}

constexpr FusionRule kRules[] = {{"fake_quant", FusionStage::Pattern, select_fake_quant}};

}  // namespace

std::span<const FusionRule> quantize_rules() { return kRules; }

}  // namespace kiln::backends::onednn
