// The matmul family of fusion rules (rule.h), both Absorb rules: nodes
// around a MatMul that it runs itself, when the value they remove has no
// other reader.
//   - transposed_operand: a permute that swaps the last two dimensions of
//     the second operand is absorbed (MatMul.transpose_b toggles): linear's
//     permute(weight) + addmm becomes one MatMul on the weight as stored.
//   - flattened_linear: the reshapes around a 2-D matmul that flatten its
//     first operand's leading dimensions and restore them (linear on a 3-D
//     input): the MatMul reads [B, M, K] and writes [B, M, N] itself, its
//     2-D second operand broadcast, and what follows the second reshape (a
//     relu, a residual add) can fuse.
#include <algorithm>

#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

std::optional<Match> select_transposed_operand(const FusedGroup& group, const FusionContext&) {
  const NodeOp& op = group.op;
  if (op.kind() != fb::OperationKind::MatMul) return std::nullopt;
  const Node* b = op.inputs[1];
  if (b == nullptr || !b->is_call_function() || b->users().size() != 1 || b == op.inputs[0] || b == op.inputs[2]) {
    return std::nullopt;
  }
  const std::optional<NodeOp> layout = describe_if(b);
  if (!layout) return std::nullopt;
  const auto* reorder = layout->op.AsReorder();
  if (reorder == nullptr || reorder->permutation.size() < 2 || layout->inputs[0] == nullptr) return std::nullopt;
  const size_t rank = reorder->permutation.size();
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (reorder->permutation[i] != static_cast<int64_t>(i)) return std::nullopt;
  }
  const bool swaps = reorder->permutation[rank - 2] == static_cast<int64_t>(rank - 1) &&
                     reorder->permutation[rank - 1] == static_cast<int64_t>(rank - 2);
  if (!swaps) return std::nullopt;
  Match match;
  match.nodes = {b};
  match.apply = [b, source = layout->inputs[0]](FusedGroup& group) {
    group.nodes.insert(group.nodes.begin(), b);
    group.op.inputs[1] = source;
    group.op.op.AsMatMul()->transpose_b = !group.op.op.AsMatMul()->transpose_b;
  };
  return match;
}

// A layout node that is a plain reshape, described; nothing otherwise.
std::optional<NodeOp> as_reshape(const Node* node) {
  std::optional<NodeOp> op = describe_if(node);
  if (!op || op->op.AsReorder() == nullptr || !op->op.AsReorder()->permutation.empty()) return std::nullopt;
  return op;
}

// Only when the batch dimensions are all 1 ([1, M, K]: a batch of one
// sequence) or M has kMinRowsPerBatch rows at least: oneDNN runs a batched
// matmul as one small GEMM per batch, on weights it does not pack, so
// MultiheadAttention's sequence-first [L, 1, E] projection as [L] GEMMs of
// one row each ran at a fifth of the 2-D matmul's speed, and ConvNeXt's
// channels-last MLP on [1, 7, 7, 768] as 7 GEMMs of 7 rows (at 64x64:
// [1, 2, 2, 768], 1.3 ms against 0.1).
constexpr int64_t kMinRowsPerBatch = 64;

std::optional<Match> select_flattened_linear(const FusedGroup& group, const FusionContext&) {
  const NodeOp& op = group.op;
  if (op.kind() != fb::OperationKind::MatMul || op.sizes.size() != 2) return std::nullopt;
  const Node* flatten = op.inputs[0];
  if (flatten == nullptr || flatten->users().size() != 1 || flatten == op.inputs[1] || flatten == op.inputs[2]) {
    return std::nullopt;
  }
  const std::optional<NodeOp> flat = as_reshape(flatten);
  if (!flat || flat->inputs[0] == nullptr) return std::nullopt;
  std::vector<int64_t> restored = sizes_of(flat->inputs[0]);
  if (restored.size() < 3 || restored.back() != flat->sizes.back()) return std::nullopt;
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < restored.size(); ++i) batch *= restored[i];
  if (batch != 1 && restored[restored.size() - 2] < kMinRowsPerBatch) return std::nullopt;
  restored.back() = op.sizes[1];
  const Node* restore = only_user(group.base);
  const std::optional<NodeOp> unflat = as_reshape(restore);
  if (!unflat || unflat->inputs[0] != group.base || unflat->sizes != restored) return std::nullopt;
  if (op.inputs[2] != nullptr) {
    const std::vector<int64_t> bias = sizes_of(op.inputs[2]);
    int64_t numel = 1;
    for (int64_t size : bias) numel *= size;
    if (bias.empty() || bias.back() != op.sizes[1] || numel != op.sizes[1]) return std::nullopt;  // a bias per column only
  }
  Match match;
  match.nodes = {flatten, restore};
  match.apply = [flatten, restore, source = flat->inputs[0]](FusedGroup& group) {
    group.op.inputs[0] = source;
    group.op.sizes = sizes_of(restore);
    group.nodes.push_back(flatten);
    group.nodes.push_back(restore);
    std::sort(group.nodes.begin(), group.nodes.end(), [](const Node* a, const Node* b) { return a->is_before(*b); });
    group.result = restore;
  };
  return match;
}

constexpr FusionRule kMatmulRules[] = {
    {"transposed_operand", FusionStage::Absorb, select_transposed_operand},
    {"flattened_linear", FusionStage::Absorb, select_flattened_linear},
};

}  // namespace

std::span<const FusionRule> matmul_rules() { return kMatmulRules; }

}  // namespace kiln::backends::onednn
