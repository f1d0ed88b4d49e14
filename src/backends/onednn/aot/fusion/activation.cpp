// The activation family of fusion rules (rule.h): activations a decomposed
// program spells out in several nodes, recognised as the one oneDNN eltwise
// they compute:
//   - swish: mul(x, sigmoid(x)) -- silu as core ATen decomposes it
//     (EfficientNet, RegNetY, most LLM MLPs);
//   - hardswish: mul(x, f(x)) where f is a chain of arithmetic with numbers
//     and clamps that computes k * clamp(a*x + b, lo, hi) -- hardswish as
//     core ATen decomposes it (x * clamp(clamp(x + 3, 0), None, 6), then / 6
//     after: MobileNetV3), or any scaling of it;
//   - hardsigmoid: a chain of arithmetic with numbers and clamps that
//     computes s * clamp(a*x + b, lo, hi) - s*lo -- hardsigmoid as core ATen
//     decomposes it (clamp(clamp(x + 3, 0), None, 6) / 6: MobileNetV3's
//     squeeze-excitation gate), or any scaling of it;
//   - prelu of one slope: where(x > 0, x, w * x), w a constant of one
//     element -- nn.PReLU() as decompositions spell it (super-resolution
//     nets, GAN generators): a relu with that negative slope.
// Each is a Pattern rule matched at its last node, which must be the only
// node reading the pattern's inner nodes; the action makes the group an
// eltwise op and its post-ops. A pattern whose input is a convolution's or a
// matmul's result then fuses as that operation's post-ops (post_ops.cpp),
// like any activation.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/onednn/aot/fusion/activation.h"
#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

/// Nodes that compute eltwise ops of one tensor.
struct ActivationPattern {
  const aot::Node* input = nullptr;      ///< the tensor x
  std::vector<const aot::Node*> nodes;   ///< every node of the pattern, the anchor last
  std::vector<fb::EltwiseT> eltwises;    ///< what they compute, in order, on x
};

// `node` as an eltwise op on its first input, or nothing.
std::optional<NodeOp> as_eltwise(const Node* node) {
  std::optional<NodeOp> op = describe_if(node);
  if (!op || op->op.AsEltwiseOp() == nullptr || op->group_norm) return std::nullopt;
  return op;
}

const fb::EltwiseT& eltwise_of(const NodeOp& op) { return *op.op.AsEltwiseOp()->eltwise; }

// mul(x, s) or mul(s, x) as x and s; null x if `node` is not such a mul of two tensors.
struct Product {
  const Node* x = nullptr;
  const Node* other = nullptr;
};

std::vector<Product> factors(const Node& node) {
  if (qualified_op(node) != "aten::mul.Tensor") return {};
  if (node.args().size() < 2 || !node.args()[0].is_node() || !node.args()[1].is_node()) return {};
  const Node* a = node.args()[0].node();
  const Node* b = node.args()[1].node();
  return {{a, b}, {b, a}};
}

// ---- swish: mul(x, sigmoid(x)) ----

std::optional<ActivationPattern> swish(const Node& mul) {
  for (const Product& p : factors(mul)) {
    if (p.other->users().size() != 1) continue;
    const std::optional<NodeOp> op = as_eltwise(p.other);
    if (!op || op->inputs[0] != p.x || eltwise_of(*op).algorithm != fb::EltwiseAlgorithm::Logistic) continue;
    return ActivationPattern{p.x, {p.other, &mul}, {make_eltwise(fb::EltwiseAlgorithm::Swish, 1.0, 0.0)}};
  }
  return std::nullopt;
}

// ---- hardswish: mul(x, k * clamp(a*x + b, lo, hi)) ----

// f(x) = s * clamp(a*x + b, lo, hi) + t, composed from Linear and Clip ops.
struct PiecewiseLinear {
  double a = 1, b = 0, lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  double s = 1, t = 0;

  bool clamped() const { return std::isfinite(lo) || std::isfinite(hi); }

  // f := e(f); false if the result is not of this form.
  bool then(const fb::EltwiseT& e) {
    if (e.algorithm == fb::EltwiseAlgorithm::Linear) {
      if (!clamped()) {
        a *= e.alpha;
        b = b * e.alpha + e.beta;
      } else {
        s *= e.alpha;
        t = t * e.alpha + e.beta;
      }
      return true;
    }
    if (e.algorithm == fb::EltwiseAlgorithm::Clip) {
      // clamp(s*c + t, L, H) = s * clamp(c, (L-t)/s, (H-t)/s) + t for s > 0
      // (a float32 bound at the float range's end means none).
      if (s <= 0) return false;
      const double max = std::numeric_limits<float>::max();
      if (e.alpha > -max) lo = std::max(lo, (e.alpha - t) / s);
      if (e.beta < max) hi = std::min(hi, (e.beta - t) / s);
      return true;
    }
    if (e.algorithm == fb::EltwiseAlgorithm::Relu && e.alpha == 0) return then(make_eltwise(fb::EltwiseAlgorithm::Clip, 0, std::numeric_limits<float>::max()));
    return false;
  }
};

// Walks back from `node` through single-user eltwise ops that `accept`
// takes, until `stop` (or the first that is not one), putting each in front
// of `chain` and what it computes in front of `ops`; returns where it stopped.
template <typename Accept>
const Node* walk_back(const Node* node, const Node* stop, Accept accept, std::vector<const Node*>& chain,
                      std::vector<fb::EltwiseT>& ops) {
  while (node != stop && node->users().size() == 1) {
    const std::optional<NodeOp> op = as_eltwise(node);
    if (!op || !accept(*node, eltwise_of(*op))) break;
    chain.insert(chain.begin(), node);
    ops.insert(ops.begin(), eltwise_of(*op));
    node = op->inputs[0];
  }
  return node;
}

std::optional<ActivationPattern> hardswish(const Node& mul) {
  for (const Product& p : factors(mul)) {
    // Walk back from the other factor through single-user eltwise ops to x.
    std::vector<const Node*> chain;
    std::vector<fb::EltwiseT> ops;
    const Node* node = walk_back(p.other, p.x, [](const Node&, const fb::EltwiseT&) { return true; }, chain, ops);
    if (node != p.x || chain.empty()) continue;
    PiecewiseLinear f;
    bool fits = true;
    for (const fb::EltwiseT& e : ops) fits = fits && f.then(e);
    // x * (s * clamp(u, lo, hi) + t) with t = -s*lo is x * s*(hi-lo) * clamp((u-lo)/(hi-lo), 0, 1).
    if (!fits || !std::isfinite(f.lo) || !std::isfinite(f.hi) || f.hi <= f.lo) continue;
    const double width = f.hi - f.lo;
    if (std::fabs(f.t + f.s * f.lo) > 1e-12 * std::max(1.0, std::fabs(f.t))) continue;
    ActivationPattern pattern{p.x, chain, {make_eltwise(fb::EltwiseAlgorithm::HardSwish, f.a / width, (f.b - f.lo) / width)}};
    pattern.nodes.push_back(&mul);
    append_eltwise(pattern.eltwises, make_eltwise(fb::EltwiseAlgorithm::Linear, f.s * width, 0));
    return pattern;
  }
  return std::nullopt;
}

// ---- hardsigmoid: s * clamp(a*x + b, lo, hi) - s*lo ----

// A quantize or dequantize (a grid's arithmetic, which the quantize rules take).
bool is_quantization(const Node& node) { return qualified_op(node).rfind("quantized_decomposed::", 0) == 0; }

// A chain of single-user Linear and Clip ops ending in a Linear at `last`
// that computes a hardsigmoid of x, scaled: core ATen's hardsigmoid,
// clamp(clamp(x + 3, 0), None, 6) / 6 (MobileNetV3's squeeze-excitation
// gate). One eltwise instead of four post-ops, and one Kiln's own kernels
// take. A chain that a mul by x reads is hardswish's.
std::optional<ActivationPattern> hardsigmoid(const Node& last) {
  const std::optional<NodeOp> op = as_eltwise(&last);
  if (!op || is_quantization(last) || eltwise_of(*op).algorithm != fb::EltwiseAlgorithm::Linear) return std::nullopt;
  std::vector<const Node*> chain = {&last};
  std::vector<fb::EltwiseT> ops = {eltwise_of(*op)};
  const auto linear_or_clip = [](const Node& node, const fb::EltwiseT& e) {
    return !is_quantization(node) &&
           (e.algorithm == fb::EltwiseAlgorithm::Linear || e.algorithm == fb::EltwiseAlgorithm::Clip);
  };
  const Node* x = walk_back(op->inputs[0], nullptr, linear_or_clip, chain, ops);
  if (last.users().size() == 1) {
    for (const Product& p : factors(*last.users().front())) {
      if (p.x == x && p.other == &last) return std::nullopt;
    }
  }
  PiecewiseLinear f;
  for (const fb::EltwiseT& e : ops) {
    if (!f.then(e)) return std::nullopt;
  }
  // s * clamp(u, lo, hi) + t with t = -s*lo is s*(hi-lo) * clamp((u-lo)/(hi-lo), 0, 1).
  if (!std::isfinite(f.lo) || !std::isfinite(f.hi) || f.hi <= f.lo) return std::nullopt;
  if (std::fabs(f.t + f.s * f.lo) > 1e-12 * std::max(1.0, std::fabs(f.t))) return std::nullopt;
  const double width = f.hi - f.lo;
  ActivationPattern pattern{x, chain, {make_eltwise(fb::EltwiseAlgorithm::HardSigmoid, f.a / width, (f.b - f.lo) / width)}};
  if (static_cast<float>(f.s * width) != 1.0f) {
    append_eltwise(pattern.eltwises, make_eltwise(fb::EltwiseAlgorithm::Linear, f.s * width, 0));
  }
  return pattern;
}

// ---- prelu of one slope: where(x > 0, x, w * x) (activation.h) ----

bool is_zero(const aot::Argument& arg) {
  return (arg.is_int() && arg.to_int() == 0) || (arg.is_double() && arg.to_double() == 0.0);
}

std::optional<ActivationPattern> prelu(const Node& where, const FusionContext& context) {
  const std::optional<PRelu> pattern = match_prelu(where);
  if (!pattern) return std::nullopt;
  const auto it = context.constants.find(pattern->slope);
  if (it == context.constants.end()) return std::nullopt;
  const double slope = static_cast<double>(it->second->data<float>()[0]);
  return ActivationPattern{pattern->x, pattern->nodes, {make_eltwise(fb::EltwiseAlgorithm::Relu, slope, 0.0)}};
}

// The action: the group is the pattern's first eltwise on x, the others its
// post-ops; a post-op chain reaching the anchor takes them instead (post_ops.cpp).
std::optional<Match> as_match(std::optional<ActivationPattern> pattern) {
  if (!pattern) return std::nullopt;
  Match match;
  match.nodes.assign(pattern->nodes.begin(), pattern->nodes.end() - 1);  // the anchor is the group's base
  match.eltwise_input = pattern->input;
  match.eltwises = pattern->eltwises;
  match.apply = [pattern = *pattern](FusedGroup& group) {
    // The anchor need not be an op of its own (a PReLU's where).
    group.op = NodeOp{};
    group.op.sizes = sizes_of(group.base);
    fb::EltwiseOpT eltwise;
    eltwise.eltwise = std::make_unique<fb::EltwiseT>(pattern.eltwises.front());
    group.op.op.Set(std::move(eltwise));
    group.op.inputs = {pattern.input};
    group.nodes = pattern.nodes;
    for (size_t i = 1; i < pattern.eltwises.size(); ++i) add_eltwise_post_op(group, pattern.eltwises[i], group.base);
  };
  return match;
}

std::optional<Match> select_swish(const FusedGroup& group, const FusionContext&) { return as_match(swish(*group.base)); }
std::optional<Match> select_hardswish(const FusedGroup& group, const FusionContext&) {
  return as_match(hardswish(*group.base));
}

std::optional<Match> select_hardsigmoid(const FusedGroup& group, const FusionContext&) {
  return as_match(hardsigmoid(*group.base));
}

std::optional<Match> select_prelu(const FusedGroup& group, const FusionContext& context) {
  return as_match(prelu(*group.base, context));
}

constexpr FusionRule kActivationRules[] = {
    {"swish", FusionStage::Pattern, select_swish},
    {"hardswish", FusionStage::Pattern, select_hardswish},
    {"hardsigmoid", FusionStage::Pattern, select_hardsigmoid},
    {"prelu", FusionStage::Pattern, select_prelu},
};

}  // namespace

std::span<const FusionRule> activation_rules() { return kActivationRules; }

std::optional<PRelu> match_prelu(const Node& where) {
  if (qualified_op(where) != "aten::where.self" || where.args().size() != 3) return std::nullopt;
  for (const aot::Argument& arg : where.args()) {
    if (!arg.is_node()) return std::nullopt;
  }
  const Node* condition = where.args()[0].node();
  const Node* x = where.args()[1].node();
  const Node* negative = where.args()[2].node();
  if (condition->users().size() != 1 || negative->users().size() != 1 || qualified_op(*condition) != "aten::gt.Scalar" ||
      condition->args().size() != 2 || !condition->args()[0].is_node() || condition->args()[0].node() != x ||
      !is_zero(condition->args()[1]) || !std::holds_alternative<aot::TensorMeta>(x->meta.val) ||
      x->meta.tensor().dtype != aot::ScalarType::Float) {
    return std::nullopt;
  }
  for (const Product& p : factors(*negative)) {
    const Node* w = p.other;
    if (p.x != x || !w->is_placeholder() || w->users().size() != 1 || !std::holds_alternative<aot::TensorMeta>(w->meta.val) ||
        w->meta.tensor().dtype != aot::ScalarType::Float || !w->meta.tensor().is_static()) {
      continue;
    }
    const std::vector<int64_t> sizes = w->meta.tensor().static_sizes();
    if (std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s != 1; })) continue;
    return PRelu{x, w, {condition, negative, &where}};
  }
  return std::nullopt;
}

std::optional<PRelu> prelu_containing(const Node& node) {
  if (std::optional<PRelu> pattern = match_prelu(node)) return pattern;
  if (node.users().size() != 1) return std::nullopt;
  std::optional<PRelu> pattern = match_prelu(*node.users().front());
  if (!pattern || (&node != pattern->nodes[0] && &node != pattern->nodes[1])) return std::nullopt;
  return pattern;
}

}  // namespace kiln::backends::onednn
