// The int8 side of the GraphWriter (graph_writer.h).
#include "backends/onednn/aot/graph_writer.h"

#include <cmath>

#include "aot/ir/error.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

// ---- int8 (onednn_graph.fbs): a quantize op whose grid a group ends with
// becomes an int8 value, which int8 convolutions and matmuls read as it is.

// A quantized value, always held as uint8: an int8 one (its whole range,
// requantization() checks) shifted by 128, q + 128 with zero point + 128,
// the same numbers. The CPU's int8 dot products multiply unsigned by
// signed bytes; a signed source costs oneDNN a compensation pass.
int32_t GraphWriter::add_quantized_value(std::vector<int64_t> sizes, const aot::TensorQParams& params) {
  const int32_t value = add_value(std::move(sizes), fb::ValueKind::Intermediate);
  set_quantization(value, fb::DataType::UInt8, static_cast<float>(params.scale),
                   static_cast<int32_t>(params.zero_point + (params.dtype == aot::ScalarType::Char ? 128 : 0)));
  return value;
}

void GraphWriter::set_quantization(int32_t value, fb::DataType dtype, float scale, int32_t zero_point) {
  fb::ValueT& v = *graph_->values[static_cast<size_t>(value)];
  v.dtype = dtype;
  v.scale = scale;
  v.zero_point = zero_point;
}

// The parameters of the quantize op `group` ends with, when its result
// can be an int8 value: the op's whole range is its dtype's, so that
// oneDNN's saturation is its clamp; and the group's last eltwise ops are
// exactly its grid (a Linear composed with one before it is not).
std::optional<aot::TensorQParams> GraphWriter::requantization(const FusedGroup& group) const {
  const Node* q = group.result;
  if (q == nullptr || aot::quant_op_kind(q->target()) != aot::QuantOpKind::QuantizePerTensor) return std::nullopt;
  const std::optional<aot::TensorQParams> params = aot::constant_tensor_qparams(*q);
  if (!params) return std::nullopt;
  const auto range = aot::quant_range_of(params->dtype);
  if ((params->dtype != aot::ScalarType::Char && params->dtype != aot::ScalarType::Byte) || !range ||
      params->quant_min != range->first || params->quant_max != range->second) {
    return std::nullopt;
  }
  if (group.op.safe_softmax || group.op.group_norm || group.op.keepdim_sizes) return std::nullopt;
  const Supported<QuantizedGrid> quantized = quantized_grid(*q);
  if (!quantized) throw AotError("OneDnnBackend: '" + q->name() + "': " + quantized.reason());  // fusion matched it
  const std::vector<fb::EltwiseT> grid = quantized->eltwises();
  std::vector<fb::EltwiseT> tail;
  if (group.base == q) {
    const auto* eltwise = group.op.op.AsEltwiseOp();
    if (eltwise == nullptr) return std::nullopt;
    tail.push_back(*eltwise->eltwise);
  }
  const size_t wanted = grid.size() - tail.size();
  if (group.post_ops.size() < wanted) return std::nullopt;
  for (size_t i = group.post_ops.size() - wanted; i < group.post_ops.size(); ++i) {
    if (!group.post_ops[i].eltwise) return std::nullopt;
    tail.push_back(*group.post_ops[i].eltwise);
  }
  for (size_t i = 0; i < grid.size(); ++i) {
    if (tail[i].algorithm != grid[i].algorithm || tail[i].alpha != grid[i].alpha || tail[i].beta != grid[i].beta) {
      return std::nullopt;
    }
  }
  return params;
}

std::optional<GraphWriter::Int8Weight> GraphWriter::int8_weight(const Node* node) const {
  if (node == nullptr || aot::quant_op_kind(node->target()) != aot::QuantOpKind::DequantizePerChannel) return std::nullopt;
  const aot::ArgumentList& args = node->args();
  const auto constant = [&](size_t i) -> const aot::HostTensor* {
    if (i >= args.size() || !args[i].is_node()) return nullptr;
    auto it = constants_.find(args[i].node());
    return it == constants_.end() ? nullptr : it->second;
  };
  const aot::HostTensor* values = constant(0);
  const aot::HostTensor* scales = constant(1);
  if (values == nullptr || scales == nullptr || values->dtype() != aot::ScalarType::Char || values->rank() < 2 ||
      args.size() < 4 || !args[3].is_int() || args[3].to_int() != 0 || scales->numel() != values->sizes()[0]) {
    return std::nullopt;
  }
  if (const aot::HostTensor* zero_points = constant(2)) {
    for (double z : zero_points->to_doubles()) {
      if (z != 0) return std::nullopt;
    }
  } else if (!args[2].is_none()) {
    return std::nullopt;
  }
  Int8Weight weight{values, aot::HostTensor::zeros(aot::ScalarType::Float, {scales->numel()})};
  const std::vector<double> s = scales->to_doubles();
  for (size_t i = 0; i < s.size(); ++i) weight.scales.data<float>()[i] = static_cast<float>(s[i]);
  return weight;
}

// The group is a convolution or matmul on int8 weights (a linear's: [N,
// K], transposed), stored as they are; with a source stored quantized it
// runs in int8, else in float32 on the weights dequantized at load.
std::optional<GraphWriter::Int8Weight> GraphWriter::int8_weights_of(const FusedGroup& group) const {
  if (operation_rules(group.op.kind()).quantized != QuantizedValues::kWeighted || group.batch_norm != nullptr ||
      group.op.inputs.size() < 2) {
    return std::nullopt;
  }
  // The weight layouts the runtime reads as int8: a convolution's own (not
  // a transposed one's), a linear's [N, K].
  const auto* convolution = group.op.op.AsConvolution();
  const auto* matmul = group.op.op.AsMatMul();
  if ((convolution != nullptr && convolution->transposed) || (matmul != nullptr && !matmul->transpose_b)) return std::nullopt;
  std::optional<Int8Weight> weight = int8_weight(group.op.inputs[1]);
  if (!weight || (matmul != nullptr && weight->values->rank() != 2)) return std::nullopt;
  return weight;
}

// A dynamic quantization: float32 to a uint8 value whose scale and zero
// point the runtime computes, read as it is by an int8 matmul.
void GraphWriter::emit_dynamic_quantize(const FusedGroup& group) {
  auto op = operation(group, debug_id(group));
  op->inputs = {value_of(group.op.inputs.at(0))};
  const int32_t value = add_value(group.op.sizes, fb::ValueKind::Intermediate);
  fb::ValueT& v = *graph_->values[static_cast<size_t>(value)];
  v.dtype = fb::DataType::UInt8;
  v.dynamic = true;
  op->outputs = {value};
  graph_->operations.push_back(std::move(op));
  value_of_[group.result] = value;
}

// A max or average pool, layout op or concat whose quantize op after it is the
// identity (fusion/quantize.cpp), on the int8 values when every input is
// held so with the same parameters; false to lower it as a float op (its
// result, on the grid already, then names the quantize op's value). A group
// without that quantize op: only an op whose result is some of its inputs'
// values (a layout op, a max pool, a concat, a crop), which an average's
// rounding is not.
bool GraphWriter::emit_on_its_grid(const FusedGroup& group) {
  const auto* pooling = group.op.op.AsPooling();
  const fb::PoolingAlgorithm algorithm = pooling != nullptr ? pooling->algorithm : fb::PoolingAlgorithm::Max;
  const auto inputs_count = static_cast<uint32_t>(group.op.inputs.size());
  if (!moves_values_on_their_grid(group.op.kind(), algorithm, inputs_count, pads(group.op))) return false;
  const bool rounds = group.result != nullptr &&
                      aot::quant_op_kind(group.result->target()) == aot::QuantOpKind::QuantizePerTensor;
  if (!rounds && group.op.kind() != fb::OperationKind::Reorder &&
      !picks_input_values(group.op.kind(), algorithm, inputs_count, pads(group.op))) {
    return false;
  }
  std::vector<int32_t> inputs;
  for (const Node* input : group.op.inputs) inputs.push_back(stored_value_of(input));
  const fb::ValueT& first = *graph_->values[static_cast<size_t>(inputs[0])];
  bool int8 = is_quantized(inputs[0]) && !first.dynamic;
  for (int32_t input : inputs) {
    const fb::ValueT& v = *graph_->values[static_cast<size_t>(input)];
    int8 = int8 && v.dtype == first.dtype && !v.dynamic && v.scale == first.scale && v.zero_point == first.zero_point;
  }
  if (!int8) return false;
  auto op = operation(group, debug_id(group));
  op->inputs = inputs;
  // More inputs than one concat joins (DenseNet's later blocks): a chain.
  if (const auto* concat = group.op.op.AsConcat()) join_in_steps(*concat, *op);
  // A mean without keepdim: the pool's sizes, then a reshape on the grid.
  int32_t value = add_value(group.op.keepdim_sizes ? *group.op.keepdim_sizes : group.op.sizes, fb::ValueKind::Intermediate);
  set_quantization(value, first.dtype, first.scale, first.zero_point);
  op->outputs = {value};
  graph_->operations.push_back(std::move(op));
  if (group.op.keepdim_sizes) {
    auto reshape = operation(group, debug_id(group));
    reshape->op.Set(fb::ReorderT());
    reshape->inputs = {value};
    value = add_value(group.op.sizes, fb::ValueKind::Intermediate);
    set_quantization(value, first.dtype, first.scale, first.zero_point);
    reshape->outputs = {value};
    graph_->operations.push_back(std::move(reshape));
  }
  value_of_[group.result] = value;
  return true;
}

// A quantize op on its own: float32 to its int8 value, one reorder. Of
// values on a static grid already (moved there: emit_on_its_grid), the
// same values when the grids agree, else the bytes requantized onto its
// grid, one reorder too.
void GraphWriter::emit_quantize(const FusedGroup& group, const aot::TensorQParams& params) {
  const int32_t stored = stored_value_of(group.op.inputs.at(0));
  const bool on_a_grid = is_quantized(stored) && !graph_->values[static_cast<size_t>(stored)]->dynamic;
  if (on_a_grid) {
    const fb::ValueT& from = *graph_->values[static_cast<size_t>(stored)];
    const auto zero_point = static_cast<int32_t>(params.zero_point + (params.dtype == aot::ScalarType::Char ? 128 : 0));
    if (from.dtype == fb::DataType::UInt8 && from.scale == static_cast<float>(params.scale) &&
        from.zero_point == zero_point && from.sizes == group.op.sizes) {
      value_of_[group.result] = stored;
      return;
    }
  }
  auto op = operation(group, debug_id(group));
  op->op.Set(fb::ReorderT());
  op->inputs = {on_a_grid ? stored : value_of(group.op.inputs.at(0))};
  const int32_t value = add_quantized_value(group.op.sizes, params);
  op->outputs = {value};
  graph_->operations.push_back(std::move(op));
  value_of_[group.result] = value;
}

// A batch norm between two grids (fusion/quantize.cpp's norm_between_grids)
// on an int8 source: per channel c an affine map, a_c x + b_c with a_c =
// gamma_c / sqrt(var_c + eps) and b_c = beta_c - mean_c a_c, written as an
// int8 depthwise 1x1 convolution -- weight +-127 (0 where a_c is), weight
// scale |a_c| / 127, bias b_c -- with the norm's relu and the grid after it
// as its requantization: one pass over the int8 values instead of a
// dequantization, the norm in float32 and a quantization (DenseNet's every
// layer). False (nothing written) when the source is not stored int8 or the
// norm's parameters are not constants: the norm then runs in float32.
bool GraphWriter::emit_norm_between_grids(const FusedGroup& group, const aot::TensorQParams& params) {
  const fb::BatchNormT* norm = group.op.op.AsBatchNorm();
  const int32_t source = stored_value_of(group.op.inputs.at(0));
  const size_t rank = group.op.sizes.size();
  if (norm == nullptr || !is_quantized(source) || graph_->values[static_cast<size_t>(source)]->dynamic || rank < 3 ||
      rank > 5 || group.op.inputs.size() < 5) {
    return false;
  }
  const auto tensor = [&](const Node* node) -> const aot::HostTensor* {
    if (node == nullptr) return nullptr;
    auto it = constants_.find(node);
    return it == constants_.end() ? nullptr : it->second;
  };
  const aot::HostTensor* mean = tensor(group.op.inputs[1]);
  const aot::HostTensor* variance = tensor(group.op.inputs[2]);
  const aot::HostTensor* gamma = tensor(group.op.inputs[3]);
  const aot::HostTensor* beta = tensor(group.op.inputs[4]);
  if (mean == nullptr || variance == nullptr || (group.op.inputs[3] != nullptr && gamma == nullptr) ||
      (group.op.inputs[4] != nullptr && beta == nullptr)) {
    return false;
  }
  const int64_t channels = group.op.sizes[1];
  const std::vector<double> m = mean->to_doubles(), v = variance->to_doubles();
  const std::vector<double> g = gamma != nullptr ? gamma->to_doubles() : std::vector<double>(channels, 1.0);
  const std::vector<double> b = beta != nullptr ? beta->to_doubles() : std::vector<double>(channels, 0.0);
  std::vector<int64_t> weight_sizes(rank, 1);
  weight_sizes[0] = channels;
  aot::HostTensor weights = aot::HostTensor::zeros(aot::ScalarType::Char, weight_sizes);
  aot::HostTensor scales = aot::HostTensor::zeros(aot::ScalarType::Float, {channels});
  aot::HostTensor bias = aot::HostTensor::zeros(aot::ScalarType::Float, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    const double a = g[c] / std::sqrt(v[c] + static_cast<double>(norm->epsilon));
    weights.data<int8_t>()[c] = static_cast<int8_t>(a > 0 ? 127 : a < 0 ? -127 : 0);
    scales.data<float>()[c] = static_cast<float>(std::fabs(a) / 127.0);
    bias.data<float>()[c] = static_cast<float>(b[c] - m[c] * a);
  }
  auto op = operation(group, debug_id(group));
  fb::ConvolutionT conv;
  const size_t spatial = rank - 2;
  conv.strides.assign(spatial, 1);
  conv.padding_l.assign(spatial, 0);
  conv.padding_r.assign(spatial, 0);
  conv.dilations.assign(spatial, 1);
  conv.groups = channels;
  op->op.Set(std::move(conv));
  const int32_t weight = add_value(weight_sizes, fb::ValueKind::Constant, 0, weights_.add(weights));
  graph_->values[static_cast<size_t>(weight)]->dtype = fb::DataType::Int8;
  op->inputs = {source, weight, constant_value(bias), constant_value(scales)};
  add_post_ops(group, *op);
  op->post_ops.resize(op->post_ops.size() - 4);  // the grid: the result's rounding and saturation
  const int32_t value = add_quantized_value(group.op.sizes, params);
  op->outputs = {value};
  graph_->operations.push_back(std::move(op));
  value_of_[group.result] = value;
  return true;
}

// A product of an image and one value per channel between grids (a
// squeeze-excitation's gate times its input, as PT2E quantizes it), on the
// int8 values when both are stored so: one pass of Kiln's kernel over the
// image's bytes (channel_scale_int8.h) instead of dequantizing the image, a
// float32 product and a quantization. False (nothing written) for any other
// product, which then runs in float32.
bool GraphWriter::emit_channel_product(const FusedGroup& group, const aot::TensorQParams& params) {
  const fb::BinaryOpT* binary = group.op.op.AsBinaryOp();
  if (binary == nullptr || binary->algorithm != fb::BinaryAlgorithm::Mul || group.op.inputs.size() != 2 ||
      group.post_ops.size() != 4) {  // the grid's four eltwise ops alone
    return false;
  }
  int32_t image = stored_value_of(group.op.inputs[0]);
  int32_t gate = stored_value_of(group.op.inputs[1]);
  const auto sizes = [&](int32_t v) { return graph_->values[static_cast<size_t>(v)]->sizes; };
  if (sizes(image) != group.op.sizes) std::swap(image, gate);
  const std::vector<int64_t>& y = group.op.sizes;
  const std::vector<int64_t>& g = sizes(gate);
  if (!is_quantized(image) || !is_quantized(gate) || graph_->values[static_cast<size_t>(image)]->dynamic ||
      graph_->values[static_cast<size_t>(gate)]->dynamic || sizes(image) != y || y.size() < 3 || y.size() > 5 ||
      g.size() != y.size()) {
    return false;
  }
  for (size_t d = 0; d < y.size(); ++d) {
    if (g[d] != (d < 2 ? y[d] : 1)) return false;
  }
  auto op = operation(group, debug_id(group));
  op->inputs = {image, gate};
  const int32_t value = add_quantized_value(group.op.sizes, params);
  op->outputs = {value};
  graph_->operations.push_back(std::move(op));
  value_of_[group.result] = value;
  return true;
}

}  // namespace kiln::backends::onednn
