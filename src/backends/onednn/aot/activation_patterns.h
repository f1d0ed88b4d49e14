// Activations a decomposed program spells out in several nodes, recognised
// as the one oneDNN eltwise they compute (fusion rules of the activation
// family, run by plan_fusion):
//   - swish: mul(x, sigmoid(x)) -- silu as core ATen decomposes it
//     (EfficientNet, RegNetY, most LLM MLPs);
//   - hardswish: mul(x, f(x)) where f is a chain of arithmetic with numbers
//     and clamps that computes k * clamp(a*x + b, lo, hi) -- hardswish as
//     core ATen decomposes it (x * clamp(clamp(x + 3, 0), None, 6), then / 6
//     after: MobileNetV3), or any scaling of it.
// Each rule is a selector (match from the pattern's last node, which must be
// the only node reading the pattern's inner nodes) and an action (the
// eltwise ops the pattern becomes). A pattern whose input is a convolution's
// or a matmul's result then fuses as its post-ops like any activation.
#pragma once

#include <optional>
#include <vector>

#include "aot/ir/node.h"
#include "backends/onednn/aot/node_ops.h"

namespace kiln::backends::onednn {

/// Nodes that compute eltwise ops of one tensor.
struct ActivationPattern {
  const char* rule = "";                 ///< "swish", "hardswish"
  const aot::Node* input = nullptr;      ///< the tensor x
  std::vector<const aot::Node*> nodes;   ///< every node of the pattern, the anchor last
  std::vector<fb::EltwiseT> eltwises;    ///< what they compute, in order, on x
};

/// The pattern ending at `anchor`, if one of the rules matches.
std::optional<ActivationPattern> match_activation(const aot::Node& anchor);

/// `post_ops` + `next`, a Linear after a Linear composed into one (and an
/// identity Linear dropped): a pattern's rescaling and the division after it
/// cost nothing.
void append_eltwise(std::vector<fb::EltwiseT>& chain, const fb::EltwiseT& next);

}  // namespace kiln::backends::onednn
