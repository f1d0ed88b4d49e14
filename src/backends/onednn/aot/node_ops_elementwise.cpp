// Elementwise ops: activations as EltwiseOp, arithmetic with a number as an
// EltwiseOp Linear (alpha * x + beta), arithmetic of two tensors as BinaryOp
// with the full-sized operand first.
#include <cmath>
#include <limits>
#include <sstream>

#include "backends/onednn/aot/node_op_checks.h"

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;

namespace {

using Args = std::vector<Argument>;

NodeOp eltwise_op(const Node& node, const Args& args, fb::EltwiseAlgorithm algorithm, float alpha = 0, float beta = 0) {
  tensor_arg(args.at(0), "its input");
  fb::EltwiseOpT params;
  params.eltwise = std::make_unique<fb::EltwiseT>(make_eltwise(algorithm, alpha, beta));
  NodeOp op;
  op.op.Set(std::move(params));
  op.inputs = {args[0].node()};
  op.sizes = result_sizes(node);
  return op;
}

float number(const Argument& arg, const std::string& what) { return static_cast<float>(number_arg(arg, what)); }

NodeOp relu(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Relu); }
NodeOp leaky_relu(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Relu, number(a.at(1), "negative_slope")); }
NodeOp sigmoid(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Logistic); }
NodeOp silu(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Swish, 1.0f); }
NodeOp tanh_op(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Tanh); }
NodeOp exp_op(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Exp); }
NodeOp abs_op(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Abs); }
NodeOp sqrt_op(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Sqrt); }
// -x: a rotary embedding's rotated half (GPT-J's, CodeGen's), left on the
// portable kernels, split each attention block into delegates.
NodeOp neg(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::Linear, -1.0f, 0.0f); }
NodeOp hardswish(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::HardSwish, 1.0f / 6, 0.5f); }
NodeOp hardsigmoid(const Node& n, const Args& a) { return eltwise_op(n, a, fb::EltwiseAlgorithm::HardSigmoid, 1.0f / 6, 0.5f); }

NodeOp gelu(const Node& n, const Args& a) {
  const std::string approximate = a.at(1).is_string() ? a[1].to_string() : "";
  if (approximate == "none") return eltwise_op(n, a, fb::EltwiseAlgorithm::GeluErf);
  if (approximate == "tanh") return eltwise_op(n, a, fb::EltwiseAlgorithm::GeluTanh);
  refuse("approximate=" + aot::to_string(a[1]) + " is neither 'none' nor 'tanh'");
}

NodeOp elu(const Node& n, const Args& a) {
  if (number_arg(a.at(2), "scale") != 1.0 || number_arg(a.at(3), "input_scale") != 1.0) {
    refuse("scale=" + aot::to_string(a[2]) + ", input_scale=" + aot::to_string(a[3]) + "; oneDNN's elu has neither (both must be 1)");
  }
  return eltwise_op(n, a, fb::EltwiseAlgorithm::Elu, number(a.at(1), "alpha"));
}

NodeOp clip(const Node& n, const Args& a, const Argument& low, const Argument& high) {
  const float lowest = -std::numeric_limits<float>::max();
  const float highest = std::numeric_limits<float>::max();
  const float min = low.is_none() ? lowest : number(low, "min");
  const float max = high.is_none() ? highest : number(high, "max");
  return eltwise_op(n, a, fb::EltwiseAlgorithm::Clip, min, max);
}
NodeOp clamp(const Node& n, const Args& a) { return clip(n, a, a.at(1), a.at(2)); }
NodeOp hardtanh(const Node& n, const Args& a) { return clip(n, a, a.at(1), a.at(2)); }

// ---- arithmetic ----

enum class Arith { kAdd, kSub, kMul, kDiv, kMax, kMin };

// x (op) c as alpha * x + beta.
NodeOp with_number(const Node& n, const Args& a, Arith arith, double c) {
  switch (arith) {
    case Arith::kAdd: return eltwise_op(n, a, fb::EltwiseAlgorithm::Linear, 1.0f, static_cast<float>(c));
    case Arith::kSub: return eltwise_op(n, a, fb::EltwiseAlgorithm::Linear, 1.0f, static_cast<float>(-c));
    case Arith::kMul: return eltwise_op(n, a, fb::EltwiseAlgorithm::Linear, static_cast<float>(c), 0.0f);
    case Arith::kDiv:
      if (c == 0.0) refuse("it divides by zero");
      return eltwise_op(n, a, fb::EltwiseAlgorithm::Linear, static_cast<float>(1.0 / c), 0.0f);
    default: refuse("it compares with a number");
  }
}

fb::BinaryAlgorithm binary_algorithm(Arith arith) {
  switch (arith) {
    case Arith::kAdd: return fb::BinaryAlgorithm::Add;
    case Arith::kSub: return fb::BinaryAlgorithm::Sub;
    case Arith::kMul: return fb::BinaryAlgorithm::Mul;
    case Arith::kDiv: return fb::BinaryAlgorithm::Div;
    case Arith::kMax: return fb::BinaryAlgorithm::Max;
    case Arith::kMin: return fb::BinaryAlgorithm::Min;
  }
  return fb::BinaryAlgorithm::Add;
}

// `sizes` right-aligned equals `result`.
bool fills(const std::vector<int64_t>& sizes, const std::vector<int64_t>& result) {
  if (sizes.size() > result.size()) return false;
  int64_t numel = 1, result_numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t s : result) result_numel *= s;
  return numel == result_numel && std::equal(sizes.rbegin(), sizes.rend(), result.rbegin());
}

NodeOp arithmetic(const Node& n, const Args& a, Arith arith, const Argument* alpha) {
  double scale = alpha == nullptr ? 1.0 : number_arg(*alpha, "alpha");
  const Argument& other = a.at(1);
  if (!other.is_node()) return with_number(n, a, arith, number_arg(other, "other") * scale);
  if (scale != 1.0) refuse("alpha=" + aot::to_string(*alpha) + " with a tensor; OneDnnBackend adds tensors with alpha=1 only");
  const std::vector<int64_t> first = tensor_arg(a.at(0), "its first operand").static_sizes();
  const std::vector<int64_t> second = tensor_arg(other, "its second operand").static_sizes();
  const std::vector<int64_t> result = result_sizes(n);
  const bool commutes = arith == Arith::kAdd || arith == Arith::kMul || arith == Arith::kMax || arith == Arith::kMin;
  NodeOp op;
  fb::BinaryOpT params;
  params.algorithm = binary_algorithm(arith);
  op.op.Set(std::move(params));
  op.sizes = result;
  if (fills(first, result)) {
    op.inputs = {a[0].node(), other.node()};
  } else if (commutes && fills(second, result)) {
    op.inputs = {other.node(), a[0].node()};
  } else {
    refuse("operands " + list_text(first) + " and " + list_text(second) + " both broadcast" +
           (commutes ? "" : " or the first does") + "; oneDNN broadcasts its second operand only");
  }
  return op;
}

NodeOp add(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kAdd, &a.at(2)); }
NodeOp sub(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kSub, &a.at(2)); }
NodeOp mul(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kMul, nullptr); }
NodeOp div_op(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kDiv, nullptr); }
NodeOp maximum(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kMax, nullptr); }
NodeOp minimum(const Node& n, const Args& a) { return arithmetic(n, a, Arith::kMin, nullptr); }

// x ** 2 and x ** 3 as products of x, as PyTorch's CPU pow computes them
// (a cube: x * x, then times x as a post-op); x ** 0.5 a Sqrt. oneDNN 3.2's
// eltwise pow took 18 us for 4096 elements, slower than the portable
// kernel, so other exponents stay there. GPT-2's tanh gelu spells out
// pow(x, 3).
NodeOp pow_op(const Node& n, const Args& a) {
  const double exponent = number_arg(a.at(1), "exponent");
  if (exponent == 0.5) return eltwise_op(n, a, fb::EltwiseAlgorithm::Sqrt);
  if (exponent != 2 && exponent != 3) {
    std::ostringstream text;
    text << "x ** " << exponent << " (OneDnnBackend raises to 2, 3 and 0.5 only)";
    refuse(text.str());
  }
  tensor_arg(a.at(0), "its input");
  NodeOp op;
  fb::BinaryOpT params;
  params.algorithm = fb::BinaryAlgorithm::Mul;
  op.op.Set(std::move(params));
  op.inputs = {a[0].node(), a[0].node()};
  op.sizes = result_sizes(n);
  op.cube = exponent == 3;
  return op;
}

std::string number_text(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

const std::map<std::string, NodeDescriber>& elementwise_describers() {
  static const std::map<std::string, NodeDescriber> table = {
      {"aten::relu.default", relu},          {"aten::leaky_relu.default", leaky_relu},
      {"aten::sigmoid.default", sigmoid},    {"aten::silu.default", silu},
      {"aten::tanh.default", tanh_op},          {"aten::exp.default", exp_op},
      {"aten::abs.default", abs_op},            {"aten::sqrt.default", sqrt_op},
      {"aten::neg.default", neg},
      {"aten::hardswish.default", hardswish}, {"aten::hardsigmoid.default", hardsigmoid},
      {"aten::gelu.default", gelu},          {"aten::elu.default", elu},
      {"aten::clamp.default", clamp},        {"aten::hardtanh.default", hardtanh},
      {"aten::add.Tensor", add},             {"aten::sub.Tensor", sub},
      {"aten::mul.Tensor", mul},             {"aten::div.Tensor", div_op},
      {"aten::add.Scalar", add},             {"aten::sub.Scalar", sub},
      {"aten::mul.Scalar", mul},             {"aten::div.Scalar", div_op},
      {"aten::maximum.default", maximum},    {"aten::minimum.default", minimum},
      {"aten::pow.Tensor_Scalar", pow_op},
  };
  return table;
}

fb::EltwiseT make_eltwise(fb::EltwiseAlgorithm algorithm, double alpha, double beta) {
  fb::EltwiseT e;
  e.algorithm = algorithm;
  e.alpha = static_cast<float>(alpha);
  e.beta = static_cast<float>(beta);
  return e;
}

std::string describe_eltwise(const fb::EltwiseT& e) {
  const std::string name = fb::EnumNameEltwiseAlgorithm(e.algorithm);
  switch (e.algorithm) {
    case fb::EltwiseAlgorithm::Clip: return name + "(min=" + number_text(e.alpha) + ", max=" + number_text(e.beta) + ")";
    case fb::EltwiseAlgorithm::Linear:
    case fb::EltwiseAlgorithm::HardSwish:
    case fb::EltwiseAlgorithm::HardSigmoid: return name + "(alpha=" + number_text(e.alpha) + ", beta=" + number_text(e.beta) + ")";
    case fb::EltwiseAlgorithm::Relu:
    case fb::EltwiseAlgorithm::Elu:
    case fb::EltwiseAlgorithm::Swish: return name + "(alpha=" + number_text(e.alpha) + ")";
    default: return name;
  }
}

}  // namespace kiln::backends::onednn
