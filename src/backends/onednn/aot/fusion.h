// Fusion planning for OneDnnBackend's preprocess: which nodes of a partition
// become one oneDNN operation.
//
// First, the patterns of several nodes that are one operation are found:
// torch's safe softmax (softmax_patterns.h) and activations spelled out in
// core ATen, swish and hardswish (activation_patterns.h); their inner nodes
// are taken by their last node. In graph order, each node not yet taken
// starts a group (its describe_node operation, or its pattern's). Then, when
// the intermediate value a fusion removes has no other user:
//   - a permute/transpose that swaps the last two dimensions of a matmul's
//     second operand is absorbed (MatMul.transpose_b toggles): linear's
//     permute(weight) + addmm becomes one MatMul on the weight as stored;
//   - the reshapes around a 2-D matmul that flatten its first operand's
//     leading dimensions and restore them (linear on a 3-D input) are
//     absorbed: the MatMul reads [B, M, K] and writes [B, M, N] itself;
//   - a batch norm after a (non-transposed) convolution whose weights, bias
//     and statistics are constants is folded into the convolution's weights;
//   - consecutive reshapes are one reshape, consecutive permutes one
//     (composed) permute;
//   - after a convolution, a matmul or a binary op (a safe softmax, a group
//     norm's affine; not an eltwise op, whose post-ops oneDNN runs on its
//     reference implementation), a chain of eltwise ops (activations,
//     activation patterns, arithmetic with a number: consecutive ones
//     composed) and binary ops with another tensor (a residual add, a
//     per-channel scale) become post-ops, at most kMaxPostOps
//     (capabilities.h) on one operation.
// A group runs where its last node was, so a post-op's other operand is
// always computed first. Fusion is only ever an option: every node
// describe_node accepts lowers on its own.
#pragma once

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
  /// Where the group runs: its result (every other node it fused comes
  /// before it; aliases are only names), else its last node.
  const aot::Node* last() const { return result != nullptr ? result : nodes.back(); }
};

/// The parameters, buffers and constants a partition owns, by placeholder.
using ConstantTensors = std::map<const aot::Node*, const aot::HostTensor*>;
ConstantTensors constant_tensors(const aot::ExportedProgram& partition);

/// The groups of `partition`'s call_function nodes, ordered by their last
/// node. Throws AotError naming the node if one cannot run on OneDnnBackend.
std::vector<FusedGroup> plan_fusion(const aot::ExportedProgram& partition, const ConstantTensors& constants);

}  // namespace kiln::backends::onednn
