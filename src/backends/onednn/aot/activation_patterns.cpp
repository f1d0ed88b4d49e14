#include "backends/onednn/aot/activation_patterns.h"

#include <cmath>
#include <limits>

namespace kiln::backends::onednn {

using aot::Node;

namespace {

// `node` as an eltwise op on its first input, or null.
std::optional<NodeOp> as_eltwise(const Node* node) {
  if (node == nullptr || !node->is_call_function()) return std::nullopt;
  try {
    NodeOp op = describe_node(*node);
    if (op.op.AsEltwiseOp() == nullptr || op.group_norm) return std::nullopt;
    return op;
  } catch (const Refusal&) {
    return std::nullopt;
  }
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
    return ActivationPattern{"swish", p.x, {p.other, &mul}, {make_eltwise(fb::EltwiseAlgorithm::Swish, 1.0, 0.0)}};
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

std::optional<ActivationPattern> hardswish(const Node& mul) {
  for (const Product& p : factors(mul)) {
    // Walk back from the other factor through single-user eltwise ops to x.
    std::vector<const Node*> chain;
    const Node* node = p.other;
    std::vector<fb::EltwiseT> ops;
    while (node != p.x) {
      if (node->users().size() != 1) break;
      const std::optional<NodeOp> op = as_eltwise(node);
      if (!op) break;
      chain.insert(chain.begin(), node);
      ops.insert(ops.begin(), eltwise_of(*op));
      node = op->inputs[0];
    }
    if (node != p.x || chain.empty()) continue;
    PiecewiseLinear f;
    bool fits = true;
    for (const fb::EltwiseT& e : ops) fits = fits && f.then(e);
    // x * (s * clamp(u, lo, hi) + t) with t = -s*lo is x * s*(hi-lo) * clamp((u-lo)/(hi-lo), 0, 1).
    if (!fits || !std::isfinite(f.lo) || !std::isfinite(f.hi) || f.hi <= f.lo) continue;
    const double width = f.hi - f.lo;
    if (std::fabs(f.t + f.s * f.lo) > 1e-12 * std::max(1.0, std::fabs(f.t))) continue;
    ActivationPattern pattern{"hardswish", p.x, chain, {make_eltwise(fb::EltwiseAlgorithm::HardSwish, f.a / width, (f.b - f.lo) / width)}};
    pattern.nodes.push_back(&mul);
    append_eltwise(pattern.eltwises, make_eltwise(fb::EltwiseAlgorithm::Linear, f.s * width, 0));
    return pattern;
  }
  return std::nullopt;
}

using Rule = std::optional<ActivationPattern> (*)(const Node&);
constexpr Rule kRules[] = {swish, hardswish};

}  // namespace

std::optional<ActivationPattern> match_activation(const Node& anchor) {
  if (!anchor.is_call_function()) return std::nullopt;
  for (Rule rule : kRules) {
    if (std::optional<ActivationPattern> pattern = rule(anchor)) return pattern;
  }
  return std::nullopt;
}

void append_eltwise(std::vector<fb::EltwiseT>& chain, const fb::EltwiseT& next) {
  if (next.algorithm == fb::EltwiseAlgorithm::Linear && !chain.empty() &&
      chain.back().algorithm == fb::EltwiseAlgorithm::Linear) {
    fb::EltwiseT& last = chain.back();
    // next(last(x)) = n.alpha * (l.alpha * x + l.beta) + n.beta
    const double alpha = static_cast<double>(next.alpha) * last.alpha;
    const double beta = static_cast<double>(next.alpha) * last.beta + next.beta;
    last.alpha = static_cast<float>(alpha);
    last.beta = static_cast<float>(beta);
  } else {
    chain.push_back(next);
  }
  if (chain.back().algorithm == fb::EltwiseAlgorithm::Linear && chain.back().alpha == 1 && chain.back().beta == 0) {
    chain.pop_back();
  }
}

}  // namespace kiln::backends::onednn
