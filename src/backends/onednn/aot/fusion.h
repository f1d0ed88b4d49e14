// Fusion planning for OneDnnBackend's preprocess: which nodes of a partition
// become one oneDNN operation.
//
// plan_fusion is the driver of the fusion rules, a table of selector/action
// pairs in families, one file each (fusion/rule.h lists them): torch's safe
// softmax and the activations core ATen spells out (swish, hardswish) as one
// operation; a matmul's transposed operand and the reshapes around a linear
// absorbed; a batch norm folded into the convolution before it; eltwise and
// binary ops after a convolution, matmul or binary op as its post-ops; and
// consecutive reshapes or permutes as one. In graph order, each node not
// yet taken starts a group (its describe_node operation, or its pattern's),
// then the rules extend it. A fusion only removes an intermediate value with
// no other reader. A group runs where its last node was, so a post-op's
// other operand is always computed first. Fusion is only ever an option:
// every node describe_node accepts lowers on its own.
#pragma once

#include <list>

#include <map>
#include <vector>

#include "aot/ir/exported_program.h"
#include "backends/onednn/aot/node_ops.h"

namespace kiln::backends::onednn {

/// One post-op of a group: an eltwise, or a binary op with `other`.
struct PlannedPostOp {
  std::optional<fb::EltwiseT> eltwise;
  fb::BinaryAlgorithm binary = fb::BinaryAlgorithm::Add;
  const aot::Node* other = nullptr;
  const aot::Node* node = nullptr;  ///< the node it came from
};

/// Nodes that run as one oneDNN operation.
struct FusedGroup {
  const aot::Node* base = nullptr;  ///< the node whose operation the group runs
  NodeOp op;                        ///< its description (inputs already rewired by fusion)
  std::vector<const aot::Node*> nodes;  ///< every fused node, getitems included, in graph order
  const aot::Node* batch_norm = nullptr;  ///< folded into `base`, a convolution
  std::vector<PlannedPostOp> post_ops;
  /// The node whose value the group writes (the last of the chain, or a
  /// multi-output op's getitem(_, 0)); null if nothing reads it.
  const aot::Node* result = nullptr;
  /// Further getitem(base, 0) nodes that name the same value.
  std::vector<const aot::Node*> aliases;
  /// The fusion rules that made the group, in the order they first applied
  /// (fusion/rule.h); empty for a node on its own.
  std::vector<const char*> rules;
  /// Where the group runs: its result (every other node it fused comes
  /// before it; aliases are only names), else its last node.
  const aot::Node* last() const { return result != nullptr ? result : nodes.back(); }
};

/// The parameters, buffers and constants a partition owns, by placeholder,
/// and the constants the lowering computes from them: a
/// dequantize_per_channel of an int8 weight, as the float32 weight it stands
/// for (as PyTorch computes it), by node.
struct ConstantTensors : std::map<const aot::Node*, const aot::HostTensor*> {
  ConstantTensors() = default;
  ConstantTensors(ConstantTensors&&) = default;
  ConstantTensors(const ConstantTensors&) = delete;  // the map points into `computed`
  std::list<aot::HostTensor> computed;
};
ConstantTensors constant_tensors(const aot::ExportedProgram& partition);

/// The groups of `partition`'s call_function nodes, ordered by their last
/// node. Throws AotError naming the node if one cannot run on OneDnnBackend.
std::vector<FusedGroup> plan_fusion(const aot::ExportedProgram& partition, const ConstantTensors& constants);

}  // namespace kiln::backends::onednn
