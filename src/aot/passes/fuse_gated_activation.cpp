// fuse_gated_activation: a gated linear unit's product as core ATen spells it,
//   mul(mul(a, sigmoid(a)), b)   (silu, as decomposition writes it)
//   mul(gelu(a[, approximate]), b)
// each product in either order, a and b of one shape, becomes one
// kiln::gated_activation(a, b, activation): one pass over the MLP's widest
// tensors instead of three. The activation's intermediate values must have
// no reader outside the pattern.
#include <optional>
#include <string>

#include "aot/passes/fuse_ops.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {
namespace {

using passes::call_args;
using passes::is_float;
using passes::node_of;
using passes::only_read_by;

struct Gated {
  Node* gate = nullptr;
  Node* up = nullptr;
  std::string activation;
  Node* anchor = nullptr;
  std::vector<Node*> pattern;
};

// `node` as activation(gate): silu (x * sigmoid(x)) or gelu, read by `user` only.
std::optional<Gated> activation_of(Node* node, const Node* user) {
  if (node == nullptr || !only_read_by(node, user)) return std::nullopt;
  if (const auto gelu = call_args(node, "aten::gelu.default")) {
    Node* gate = node_of(gelu->at(0));
    const std::string approximate = gelu->at(1).is_string() ? gelu->at(1).to_string() : "none";
    if (gate == nullptr || (approximate != "none" && approximate != "tanh")) return std::nullopt;
    return Gated{gate, nullptr, approximate == "none" ? "gelu" : "gelu_tanh", nullptr, {node}};
  }
  const auto mul = call_args(node, "aten::mul.Tensor");
  if (!mul) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Node* gate = node_of(mul->at(side));
    Node* sigmoid = node_of(mul->at(1 - side));
    const auto s = call_args(sigmoid, "aten::sigmoid.default");
    if (gate != nullptr && s && node_of(s->at(0)) == gate && only_read_by(sigmoid, node)) {
      return Gated{gate, nullptr, "silu", nullptr, {node, sigmoid}};
    }
  }
  return std::nullopt;
}

std::optional<Gated> match_gated(Node* node) {
  const auto mul = call_args(node, "aten::mul.Tensor");
  if (!mul || !is_float(node)) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    std::optional<Gated> gated = activation_of(node_of(mul->at(side)), node);
    Node* up = node_of(mul->at(1 - side));
    if (!gated || up == nullptr || !is_float(up) || !is_float(gated->gate)) continue;
    const TensorMeta& out = node->meta.tensor();
    if (!(gated->gate->meta.tensor().sizes == out.sizes) || !(up->meta.tensor().sizes == out.sizes)) continue;
    gated->up = up;
    gated->anchor = node;
    return gated;
  }
  return std::nullopt;
}

}  // namespace

bool fuse_gated_activation(ExportedProgram& program, const KilnOpsOptions& options) {
  const auto match = [&](Node* node) {
    std::optional<Gated> gated = match_gated(node);
    return gated && fuses(options, *gated->anchor) ? gated : std::nullopt;
  };
  return passes::rewrite_each_match<Gated>(program, match, [&](Gated& gated) {
    passes::Rewriter r(*gated.anchor);
    Node* fused = r.call("kiln::gated_activation", {gated.gate, gated.up, gated.activation}, r.out());
    r.replace_with(fused);
    passes::erase_unused(program.graph(), gated.pattern);
    return fused;
  });
}

}  // namespace kiln::aot
