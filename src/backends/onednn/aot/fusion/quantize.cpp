// The quantization family of fusion rules (rule.h): a quantize_per_tensor
// read only by dequantize ops of its parameters (QuantizedGrid, node_ops.h)
// is, in float32, its input on the quantization grid -- the eltwise ops
// x * (1/s), round (ties to even), clamp to the range less the zero point,
// * s -- exactly as PyTorch's quantize and dequantize compute it. A Pattern
// of the one node, so a convolution's or a matmul's post-op chain takes it
// (post_ops.cpp): the requantization of a quantized model's every layer is
// then four post-ops of the layer. The dequantize ops name its value.
//
// A dynamic quantization's chain (choose_qparams, quantize, dequantize of
// run-time parameters) is one DynamicQuantize, matched at its dequantize op.
//
// A max pool, a layout op or a concat between two grids of the same
// parameters takes the second quantize op (the identity on its values).
//
// An Extend rule takes a relu or clamp between two grids of the same
// parameters (PT2E quantizes MobileNet's relu6 apart from its convolution:
// conv, q, dq, hardtanh, q, dq) into the group before them: quantization
// is monotone, so q(clip(dq(q(x)))) = q(clip(x)) exactly -- the clamp
// becomes a post-op before the one grid.
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/fusion/rule.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

namespace {

std::optional<Match> select_fake_quant(const FusedGroup& group, const FusionContext&) {
  const Supported<QuantizedGrid> grid = quantized_grid(*group.base);
  if (!grid || grid->input == nullptr) return std::nullopt;
  Match match;
  match.eltwise_input = grid->input;
  match.eltwises = grid->eltwises();
  match.apply = [eltwises = match.eltwises, input = grid->input](FusedGroup& group) {
    group.op = describe_or_throw(*group.base);
    fb::EltwiseOpT eltwise;
    eltwise.eltwise = std::make_unique<fb::EltwiseT>(eltwises.front());
    group.op.op.Set(std::move(eltwise));
    group.op.inputs = {input};
    for (size_t i = 1; i < eltwises.size(); ++i) add_eltwise_post_op(group, eltwises[i], group.base);
  };
  return match;
}

bool ends_with(const std::vector<PlannedPostOp>& post_ops, const std::vector<fb::EltwiseT>& tail) {
  if (post_ops.size() < tail.size()) return false;
  for (size_t i = 0; i < tail.size(); ++i) {
    const PlannedPostOp& post = post_ops[post_ops.size() - tail.size() + i];
    if (!post.eltwise || post.eltwise->algorithm != tail[i].algorithm || post.eltwise->alpha != tail[i].alpha ||
        post.eltwise->beta != tail[i].beta) {
      return false;
    }
  }
  return true;
}

std::optional<Match> select_activation_between_grids(const FusedGroup& group, const FusionContext& context) {
  const aot::Node* first = group.result;
  if (first == nullptr || aot::quant_op_kind(first->target()) != aot::QuantOpKind::QuantizePerTensor ||
      first->users().size() != 1) {
    return std::nullopt;
  }
  const aot::Node* second = nullptr;
  const aot::Node* dequantize = first->users()[0];
  if (dequantize->users().size() != 1) return std::nullopt;
  const aot::Node* activation = dequantize->users()[0];
  if (activation->users().size() != 1) return std::nullopt;
  second = activation->users()[0];
  if (context.is_taken(dequantize) || context.is_taken(activation) || context.is_taken(second)) return std::nullopt;
  if (aot::constant_tensor_qparams(*first) != aot::constant_tensor_qparams(*second)) return std::nullopt;
  const Supported<QuantizedGrid> first_quantized = quantized_grid(*first);
  const Supported<QuantizedGrid> second_quantized = quantized_grid(*second);
  if (!first_quantized || !second_quantized) return std::nullopt;
  const std::vector<fb::EltwiseT> first_grid = first_quantized->eltwises();
  const std::vector<fb::EltwiseT> second_grid = second_quantized->eltwises();
  // The group ends with the first grid, exactly (in its own post-ops).
  if (group.post_ops.size() + 1 > kMaxPostOps || !ends_with(group.post_ops, first_grid)) return std::nullopt;
  const std::optional<NodeOp> op = describe_if(activation);
  const fb::EltwiseOpT* eltwise = op ? op->op.AsEltwiseOp() : nullptr;
  if (eltwise == nullptr || op->inputs[0] != dequantize) return std::nullopt;
  const fb::EltwiseT clamp = *eltwise->eltwise;
  const bool monotone_clamp = clamp.algorithm == fb::EltwiseAlgorithm::Clip ||
                              (clamp.algorithm == fb::EltwiseAlgorithm::Relu && clamp.alpha == 0);
  if (!monotone_clamp) return std::nullopt;
  Match match;
  match.nodes = {dequantize, activation, second};
  match.apply = [=](FusedGroup& group) {
    group.post_ops.resize(group.post_ops.size() - first_grid.size());
    add_eltwise_post_op(group, clamp, activation);
    for (const fb::EltwiseT& e : second_grid) add_eltwise_post_op(group, e, second);
    group.nodes.insert(group.nodes.end(), {dequantize, activation, second});
    group.result = second;
  };
  return match;
}

// Dynamic quantization: choose_qparams, its getitems, the quantize and the
// dequantize op, matched at the last, as one DynamicQuantize.
std::optional<Match> select_dynamic_quantize(const FusedGroup& group, const FusionContext&) {
  const Supported<DynamicQuantization> chain = dynamic_quantization(*group.base);
  if (!chain) return std::nullopt;
  Match match;
  match.nodes = chain->nodes;
  match.apply = [chain = *chain](FusedGroup& group) {
    group.op = describe_or_throw(*group.base);
    group.nodes = chain.nodes;
    group.nodes.push_back(group.base);
  };
  return match;
}

constexpr FusionRule kQuantizeRules[] = {
    {"fake_quant", FusionStage::Pattern, select_fake_quant},
    {"dynamic_quantize", FusionStage::Pattern, select_dynamic_quantize},
};

// The quantize op reading a group's result, when every input of the group's
// operation is a dequantize op of that quantize op's parameters: on values of
// one grid an op that keeps them on it (a max pool, a layout op, a concat)
// makes that quantize op the identity -- the op's result names it, and the op
// moves the int8 values (lowering_int8.cpp). PT2E gives these ops their input's
// parameters.
std::optional<Match> identity_requantization(const FusedGroup& group, const FusionContext& context) {
  if (!group.post_ops.empty() || group.result == nullptr || group.op.inputs.empty() ||
      group.result->users().size() != 1) {
    return std::nullopt;
  }
  const aot::Node* requantize = group.result->users()[0];
  const std::optional<aot::TensorQParams> grid = aot::constant_tensor_qparams(*requantize);
  if (aot::quant_op_kind(requantize->target()) != aot::QuantOpKind::QuantizePerTensor || context.is_taken(requantize) ||
      !grid) {
    return std::nullopt;
  }
  // A group that starts at a dequantize op (an alias of its quantize op's
  // value, which a reshape after it joins: fusion/layout.cpp) reads that
  // quantize op's value itself.
  const bool from_dequantize = aot::quant_op_kind(group.base->target()) == aot::QuantOpKind::DequantizePerTensor &&
                               aot::constant_tensor_qparams(*group.base) == grid;
  for (const aot::Node* source : group.op.inputs) {
    if (source == nullptr) return std::nullopt;
    const aot::QuantOpKind kind = aot::quant_op_kind(source->target());
    const bool on_grid = (kind == aot::QuantOpKind::DequantizePerTensor ||
                          (from_dequantize && kind == aot::QuantOpKind::QuantizePerTensor)) &&
                         aot::constant_tensor_qparams(*source) == grid;
    if (!on_grid) return std::nullopt;
  }
  if (!quantized_grid(*requantize)) return std::nullopt;
  Match match;
  match.nodes = {requantize};
  match.apply = [requantize](FusedGroup& group) {
    group.nodes.push_back(requantize);
    group.result = requantize;
  };
  return match;
}

// Whether the group's operation moves values on their grid (capabilities.h).
bool keeps_its_grid(const FusedGroup& group) {
  const auto* pooling = group.op.op.AsPooling();
  return moves_values_on_their_grid(group.op.kind(), pooling != nullptr ? pooling->algorithm : fb::PoolingAlgorithm::Max,
                                    static_cast<uint32_t>(group.op.inputs.size()), pads(group.op));
}

// Whether `quantize` is an int8 value's grid (int8's or uint8's whole
// range), which the lowering stores as int8 (lowering_int8.cpp).
bool stored_as_int8(const aot::Node& quantize) {
  const std::optional<aot::TensorQParams> params = aot::constant_tensor_qparams(quantize);
  if (!params || (params->dtype != aot::ScalarType::Char && params->dtype != aot::ScalarType::Byte)) return false;
  const auto range = aot::quant_range_of(params->dtype);
  return range && params->quant_min == range->first && params->quant_max == range->second;
}

// The maximum of grid values is one; an average rounds onto the grid, which
// only the int8 pooling does (on a grid stored as int8: emit_on_its_grid),
// not a float32 one, so it takes the quantize op only there.
std::optional<Match> select_max_pool_on_its_grid(const FusedGroup& group, const FusionContext& context) {
  const auto* pooling = group.op.op.AsPooling();
  if (pooling == nullptr || !keeps_its_grid(group)) return std::nullopt;
  std::optional<Match> match = identity_requantization(group, context);
  if (match && pooling->algorithm != fb::PoolingAlgorithm::Max && !stored_as_int8(*match->nodes.front())) {
    return std::nullopt;
  }
  return match;
}

// A layout op (reshape, permute, their chains) or a concat moves values.
std::optional<Match> select_layout_on_its_grid(const FusedGroup& group, const FusionContext& context) {
  if (group.op.op.AsPooling() != nullptr || !keeps_its_grid(group)) return std::nullopt;
  return identity_requantization(group, context);
}

// After the post-op rule, which gives a group its first grid.
constexpr FusionRule kRequantizationRules[] = {
    {"activation_between_grids", FusionStage::Extend, select_activation_between_grids},
    {"max_pool_on_its_grid", FusionStage::Extend, select_max_pool_on_its_grid},
    {"layout_on_its_grid", FusionStage::Extend, select_layout_on_its_grid},
};

}  // namespace

std::span<const FusionRule> quantize_rules() { return kQuantizeRules; }
std::span<const FusionRule> requantization_rules() { return kRequantizationRules; }

bool norm_between_grids(const FusedGroup& group, const aot::Node& quantize) {
  if (group.op.op.AsBatchNorm() == nullptr || group.op.inputs.empty() || group.op.inputs[0] == nullptr ||
      group.post_ops.size() > 1) {
    return false;
  }
  const aot::Node& source = *group.op.inputs[0];
  if (aot::quant_op_kind(source.target()) != aot::QuantOpKind::DequantizePerTensor ||
      !aot::constant_tensor_qparams(source) || aot::quant_op_kind(quantize.target()) != aot::QuantOpKind::QuantizePerTensor) {
    return false;
  }
  const std::optional<aot::TensorQParams> params = aot::constant_tensor_qparams(quantize);
  if (!params || (params->dtype != aot::ScalarType::Char && params->dtype != aot::ScalarType::Byte)) return false;
  const auto range = aot::quant_range_of(params->dtype);
  return range && params->quant_min == range->first && params->quant_max == range->second;
}

}  // namespace kiln::backends::onednn
