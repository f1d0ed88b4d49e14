// The quantize and dequantize ops of a PT2E program, as OneDnnBackend runs
// them today: in float32, every quantized value kept as the float it stands
// for. quantize_per_tensor followed by dequantize ops of its parameters is
// the value on the quantization grid (the fake_quant fusion rule spells it as
// eltwise ops: x * (1/s), round, clamp, * s); the dequantize ops name that
// value; a dequantize_per_channel of an int8 weight is that weight in float32,
// computed at lowering (constant_tensors, fusion.cpp).
#include <cmath>

#include "aot/ir/exec_kind.h"
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/node_op_checks.h"

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;
using aot::TensorQParams;

namespace {

using Args = std::vector<Argument>;

std::string describe_qparams(const TensorQParams& p) {
  return "scale " + std::to_string(p.scale) + ", zero point " + std::to_string(p.zero_point) + ", range [" +
         std::to_string(p.quant_min) + ", " + std::to_string(p.quant_max) + "]";
}

TensorQParams constant_qparams(const Node& node) {
  const std::optional<TensorQParams> params = aot::constant_tensor_qparams(node);
  if (!params) {
    refuse("its scale and zero point are computed at run time (dynamic quantization); OneDnnBackend takes constant ones");
  }
  for (const std::string& why : {aot::check_scale(params->scale),
                                 aot::check_quant_range(params->quant_min, params->quant_max, params->dtype),
                                 aot::check_zero_point(params->zero_point, params->quant_min, params->quant_max)}) {
    if (!why.empty()) refuse(why);
  }
  return *params;
}

NodeOp make_alias(const Node* input, std::vector<int64_t> sizes) {
  NodeOp op;
  op.op.Set(fb::ReorderT());
  op.inputs = {input};
  op.sizes = std::move(sizes);
  return op;
}

QuantizedGrid grid_or_refuse(const Node& quantize) {
  if (aot::quant_op_kind(quantize.target()) != aot::QuantOpKind::QuantizePerTensor) {
    refuse(quantize.target() + " is not quantize_per_tensor");
  }
  const TensorQParams params = constant_qparams(quantize);
  for (const Node* user : quantize.users()) {
    const std::optional<TensorQParams> read = aot::constant_tensor_qparams(*user);
    if (aot::quant_op_kind(user->target()) != aot::QuantOpKind::DequantizePerTensor || read != params) {
      refuse("its quantized result is read by '" + user->name() + "' (" + user->target() +
             "), not only by dequantize ops of its parameters (" + describe_qparams(params) +
             "); OneDnnBackend keeps quantized values as the floats they stand for");
    }
  }
  QuantizedGrid grid;
  grid.input = quantize.args().at(0).is_node() ? quantize.args()[0].node() : nullptr;
  grid.inverse_scale = static_cast<float>(1.0 / params.scale);
  grid.scale = static_cast<float>(params.scale);
  grid.lowest = static_cast<double>(params.quant_min - params.zero_point);
  grid.highest = static_cast<double>(params.quant_max - params.zero_point);
  return grid;
}

}  // namespace

std::vector<fb::EltwiseT> QuantizedGrid::eltwises() const {
  return {make_eltwise(fb::EltwiseAlgorithm::Linear, inverse_scale, 0), make_eltwise(fb::EltwiseAlgorithm::Round),
          make_eltwise(fb::EltwiseAlgorithm::Clip, lowest, highest), make_eltwise(fb::EltwiseAlgorithm::Linear, scale, 0)};
}

namespace {

// quantize_per_tensor: the first of its eltwise ops (the fake_quant rule,
// fusion/quantize.cpp, gives the group all of them).
NodeOp quantize_per_tensor(const Node& node, const Args& args) {
  tensor_arg(args.at(0), "its input");
  const QuantizedGrid grid = grid_or_refuse(node);
  fb::EltwiseOpT eltwise;
  eltwise.eltwise = std::make_unique<fb::EltwiseT>(grid.eltwises().front());
  NodeOp op;
  op.op.Set(std::move(eltwise));
  op.inputs = {grid.input};
  // Its result is an integer tensor in the program; the grid's float here.
  const auto* meta = std::get_if<aot::TensorMeta>(&node.meta.val);
  if (meta == nullptr || !meta->is_static()) refuse("its result is not a tensor of static sizes");
  op.sizes = meta->static_sizes();
  return op;
}

// dequantize_per_tensor of a quantize_per_tensor of the same parameters:
// the value on the grid the quantize op computes.
NodeOp dequantize_per_tensor(const Node& node, const Args& args) {
  check_result(node);
  if (!args.at(0).is_node()) refuse("its input is not a tensor");
  const Node* quantize = args[0].node();
  const TensorQParams params = constant_qparams(node);
  if (aot::quant_op_kind(quantize->target()) != aot::QuantOpKind::QuantizePerTensor ||
      aot::constant_tensor_qparams(*quantize) != params) {
    refuse("its input '" + quantize->name() + "' is not a quantize_per_tensor of its parameters (" +
           describe_qparams(params) + ")");
  }
  grid_or_refuse(*quantize);
  return make_alias(quantize, result_sizes(node));
}

// dequantize_per_channel of a weight: a constant (its input must be one; the
// partitioner checks the program's signature, the lowering computes it).
NodeOp dequantize_per_channel(const Node& node, const Args& args) {
  check_result(node);
  for (size_t i : {0, 1, 2}) {
    if (args.at(i).is_none() && i == 2) continue;
    if (!args[i].is_node() || !args[i].node()->is_placeholder()) {
      refuse("its " + std::string(i == 0 ? "input" : i == 1 ? "scales" : "zero points") +
             " is not a weight; OneDnnBackend dequantizes weights per channel, not activations");
    }
  }
  return make_alias(args[0].node(), result_sizes(node));
}

}  // namespace

namespace {

bool is_getitem_of(const Node* node, const Node* source, int64_t index) {
  return aot::is_call_of(*node, aot::ExecKind::GetItem) && node->args().size() == 2 && node->args()[0].is_node() &&
         node->args()[0].node() == source && node->args()[1].is_int() && node->args()[1].to_int() == index;
}

// The int8 range at args[first], args[first + 1] and its dtype at args[dtype_at].
void check_int8_range(const Node& node, size_t first, size_t dtype_at) {
  const aot::ArgumentList& args = node.args();
  const auto* dtype = args.size() > dtype_at ? std::get_if<aot::ScalarType>(&args[dtype_at].value) : nullptr;
  if (dtype == nullptr || *dtype != aot::ScalarType::Char || !args[first].is_int() || !args[first + 1].is_int() ||
      args[first].to_int() != -128 || args[first + 1].to_int() != 127) {
    refuse("'" + node.name() + "' quantizes to another range than int8's whole [-128, 127]");
  }
}

// The dequantize op the dynamic quantization chain through `node` ends at.
const Node& chain_end(const Node& node) {
  const aot::QuantOpKind kind = aot::quant_op_kind(node.target());
  const Node* q = &node;
  if (kind == aot::QuantOpKind::ChooseQParams) {
    q = nullptr;
    for (const Node* item : node.users()) {
      for (const Node* user : item->users()) {
        if (aot::quant_op_kind(user->target()) == aot::QuantOpKind::QuantizePerTensor) q = user;
      }
    }
    if (q == nullptr) refuse("its scale and zero point are not read by a quantize op");
  } else if (kind == aot::QuantOpKind::DequantizePerTensor) {
    return node;
  }
  if (q->users().size() != 1) refuse("'" + q->name() + "' is read by more than one op");
  return *q->users()[0];
}

DynamicQuantization chain_or_refuse(const Node& dq) {
  const aot::ArgumentList& args = dq.args();
  if (dq.target().find("dequantize_per_tensor.tensor") == std::string::npos || args.size() < 6 || !args[0].is_node() ||
      !args[1].is_node() || !args[2].is_node()) {
    refuse("'" + dq.name() + "' is not a dequantize_per_tensor.tensor of run-time parameters");
  }
  const Node* q = args[0].node();
  const Node* scale = args[1].node();
  const Node* zero_point = args[2].node();
  const aot::ArgumentList& qargs = q->args();
  if (q->target().find("quantize_per_tensor.tensor") == std::string::npos || qargs.size() < 6 || !qargs[0].is_node() ||
      !qargs[1].is_node() || qargs[1].node() != scale || !qargs[2].is_node() || qargs[2].node() != zero_point ||
      q->users().size() != 1) {
    refuse("its input '" + q->name() + "' is not a quantize_per_tensor.tensor of its scale and zero point read by it alone");
  }
  const Node* cq = scale->args().empty() || !scale->args()[0].is_node() ? nullptr : scale->args()[0].node();
  if (cq == nullptr || cq->target().find("choose_qparams.tensor") == std::string::npos ||
      !is_getitem_of(scale, cq, 0) || !is_getitem_of(zero_point, cq, 1)) {
    refuse("its scale and zero point do not come from a choose_qparams op");
  }
  const Node* x = qargs[0].node();
  if (cq->args().empty() || !cq->args()[0].is_node() || cq->args()[0].node() != x) {
    refuse("'" + cq->name() + "' chooses the parameters of another tensor than '" + q->name() + "' quantizes");
  }
  for (const Node* item : {scale, zero_point}) {
    for (const Node* user : item->users()) {
      if (user != q && user != &dq) refuse("'" + item->name() + "' is read outside the quantization, by '" + user->name() + "'");
    }
  }
  for (const Node* item : cq->users()) {
    if (item != scale && item != zero_point) refuse("'" + cq->name() + "' is read by '" + item->name() + "'");
  }
  check_int8_range(dq, 3, 5);
  check_int8_range(*q, 3, 5);
  check_int8_range(*cq, 1, 4);  // choose_qparams(input, quant_min, quant_max, eps, dtype)
  tensor_arg(qargs[0], "its input");
  DynamicQuantization chain;
  chain.input = x;
  chain.nodes = {cq, scale, zero_point, q};
  chain.params.quant_min = -128;
  chain.params.quant_max = 127;
  chain.params.eps = static_cast<float>(number_arg(cq->args().at(3), "eps"));
  if (!(chain.params.eps >= 0)) refuse("eps " + std::to_string(chain.params.eps) + " is negative");
  return chain;
}

// Each node of a dynamic quantization: the whole chain's DynamicQuantize
// (the dynamic_quantize fusion rule makes the chain one operation).
NodeOp dynamic_quantize(const Node& node, const Args&) {
  const DynamicQuantization chain = chain_or_refuse(chain_end(node));
  NodeOp op;
  op.op.Set(fb::DynamicQuantizeT(chain.params));
  op.inputs = {chain.input};
  op.sizes = tensor_arg(aot::Argument(const_cast<Node*>(chain.input)), "its input").static_sizes();
  return op;
}

}  // namespace

Supported<QuantizedGrid> quantized_grid(const Node& quantize) {
  return supported([&] { return grid_or_refuse(quantize); });
}

Supported<DynamicQuantization> dynamic_quantization(const Node& dequantize) {
  return supported([&] { return chain_or_refuse(dequantize); });
}

const std::map<std::string, NodeDescriber>& quantized_describers() {
  static const std::map<std::string, NodeDescriber> table = {
      {"quantized_decomposed::choose_qparams.tensor", dynamic_quantize},
      {"quantized_decomposed::quantize_per_tensor.tensor", dynamic_quantize},
      {"quantized_decomposed::dequantize_per_tensor.tensor", dynamic_quantize},
      {"quantized_decomposed::quantize_per_tensor.default", quantize_per_tensor},
      {"quantized_decomposed::dequantize_per_tensor.default", dequantize_per_tensor},
      {"quantized_decomposed::dequantize_per_channel.default", dequantize_per_channel},
  };
  return table;
}

}  // namespace kiln::backends::onednn
