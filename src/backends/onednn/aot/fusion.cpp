#include "backends/onednn/aot/fusion.h"

#include <algorithm>
#include <set>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "backends/onednn/aot/activation_patterns.h"
#include "backends/onednn/aot/softmax_patterns.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

std::vector<int64_t> sizes_of(const Node* node) {
  const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
  return meta == nullptr || !meta->is_static() ? std::vector<int64_t>{} : meta->static_sizes();
}

bool is_getitem(const Node* node) { return node->is_call_function() && aot::is_call_of(*node, aot::ExecKind::GetItem); }

// The single user of `node`, if it has exactly one and that is an op.
const Node* only_user(const Node* node) {
  if (node->users().size() != 1) return nullptr;
  const Node* user = node->users()[0];
  return user->is_call_function() ? user : nullptr;
}

// Activation patterns (activation_patterns.h) by their last node, and each
// inner node of one -> that last node.
struct Activations {
  std::map<const Node*, ActivationPattern> by_anchor;
  std::map<const Node*, const Node*> anchor_of;
};

// The one node that reads `node`, an activation pattern's inner nodes
// counted as the pattern's last node; null if there are several.
const Node* next_in_chain(const Node* node, const Activations& activations) {
  const Node* next = nullptr;
  for (const Node* user : node->users()) {
    auto it = activations.anchor_of.find(user);
    const Node* reader = it == activations.anchor_of.end() ? user : it->second;
    if (next != nullptr && reader != next) return nullptr;
    next = reader;
  }
  return next != nullptr && next->is_call_function() ? next : nullptr;
}

// Appends an eltwise post-op, composing a Linear after a Linear.
void add_eltwise_post_op(FusedGroup& group, const fb::EltwiseT& eltwise, const Node* node) {
  std::vector<fb::EltwiseT> tail;
  if (!group.post_ops.empty() && group.post_ops.back().eltwise) tail.push_back(*group.post_ops.back().eltwise);
  const size_t before = tail.size();
  append_eltwise(tail, eltwise);
  if (before == 1) group.post_ops.pop_back();
  for (const fb::EltwiseT& e : tail) {
    PlannedPostOp post;
    post.eltwise = e;
    post.node = node;
    group.post_ops.push_back(post);
  }
}

NodeOp describe_or_throw(const Node& node) {
  try {
    return describe_node(node);
  } catch (const Refusal& refusal) {
    throw aot::AotError("OneDnnBackend cannot run node '" + node.name() + "' (" + node.target() + "): " + refusal.what());
  }
}

// A matmul's second operand read through a permute that only swaps the last
// two dimensions and has no other user: the permute to absorb, or null.
const Node* absorbable_transpose(const NodeOp& op) {
  if (op.kind() != fb::OperationKind::MatMul) return nullptr;
  const Node* b = op.inputs[1];
  if (b == nullptr || !b->is_call_function() || b->users().size() != 1 || b == op.inputs[0] || b == op.inputs[2]) return nullptr;
  NodeOp layout;
  try {
    layout = describe_node(*b);
  } catch (const Refusal&) {
    return nullptr;
  }
  const auto* reorder = layout.op.AsReorder();
  if (reorder == nullptr || reorder->permutation.size() < 2 || layout.inputs[0] == nullptr) return nullptr;
  const size_t rank = reorder->permutation.size();
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (reorder->permutation[i] != static_cast<int64_t>(i)) return nullptr;
  }
  const bool swaps = reorder->permutation[rank - 2] == static_cast<int64_t>(rank - 1) &&
                     reorder->permutation[rank - 1] == static_cast<int64_t>(rank - 2);
  return swaps ? b : nullptr;
}

// A layout node that is a plain reshape, described; null otherwise.
std::optional<NodeOp> as_reshape(const Node* node) {
  if (node == nullptr || !node->is_call_function() || is_getitem(node)) return std::nullopt;
  try {
    NodeOp op = describe_node(*node);
    const auto* reorder = op.op.AsReorder();
    if (reorder == nullptr || !reorder->permutation.empty()) return std::nullopt;
    return op;
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

// Linear on a 3-D input runs as view(x, [B*M, K]) -> 2-D matmul ->
// view(_, [B, M, N]): the two reshapes to absorb, so that the MatMul reads x
// and writes the [B, M, N] result itself (its 2-D second operand broadcast),
// and what follows the second reshape (a relu, a residual add) can fuse.
// Only when the batch dimensions are all 1 ([1, M, K]: a batch of one
// sequence) or M has kMinRowsPerBatch rows at least: oneDNN runs a batched
// matmul as one small GEMM per batch, on weights it does not pack, so MultiheadAttention's sequence-first [L, 1, E]
// projection as [L] GEMMs of one row each ran at a fifth of the 2-D
// matmul's speed, and ConvNeXt's channels-last MLP on [1, 7, 7, 768] as 7
// GEMMs of 7 rows (at 64x64: [1, 2, 2, 768], 1.3 ms against 0.1).
constexpr int64_t kMinRowsPerBatch = 64;

struct Flattening {
  const Node* flatten = nullptr;
  const Node* restore = nullptr;
};

std::optional<Flattening> absorbable_flattening(const Node& matmul, const NodeOp& op) {
  if (op.kind() != fb::OperationKind::MatMul || op.sizes.size() != 2) return std::nullopt;
  const Node* flatten = op.inputs[0];
  if (flatten == nullptr || flatten->users().size() != 1 || flatten == op.inputs[1] || flatten == op.inputs[2]) return std::nullopt;
  const std::optional<NodeOp> flat = as_reshape(flatten);
  if (!flat || flat->inputs[0] == nullptr) return std::nullopt;
  std::vector<int64_t> restored = sizes_of(flat->inputs[0]);
  if (restored.size() < 3 || restored.back() != flat->sizes.back()) return std::nullopt;
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < restored.size(); ++i) batch *= restored[i];
  if (batch != 1 && restored[restored.size() - 2] < kMinRowsPerBatch) return std::nullopt;
  restored.back() = op.sizes[1];
  const Node* restore = only_user(&matmul);
  const std::optional<NodeOp> unflat = as_reshape(restore);
  if (!unflat || unflat->inputs[0] != &matmul || unflat->sizes != restored) return std::nullopt;
  if (op.inputs[2] != nullptr) {
    const std::vector<int64_t> bias = sizes_of(op.inputs[2]);
    int64_t numel = 1;
    for (int64_t size : bias) numel *= size;
    if (bias.empty() || bias.back() != op.sizes[1] || numel != op.sizes[1]) return std::nullopt;  // a bias per column only
  }
  return Flattening{flatten, restore};
}

bool is_constant(const Node* node, const ConstantTensors& constants) {
  return node == nullptr || constants.count(node) > 0;
}

// The batch norm right after a convolution that can be folded into it.
const Node* foldable_batch_norm(const FusedGroup& group, const ConstantTensors& constants) {
  const auto* conv = group.op.op.AsConvolution();
  if (conv == nullptr || conv->transposed) return nullptr;
  const Node* bn = only_user(group.base);
  if (bn == nullptr || bn->users().size() != 1) return nullptr;
  NodeOp op;
  try {
    op = describe_node(*bn);
  } catch (const Refusal&) {
    return nullptr;
  }
  if (op.kind() != fb::OperationKind::BatchNorm || op.inputs[0] != group.base) return nullptr;
  if (!is_constant(group.op.inputs[1], constants) || !is_constant(group.op.inputs[2], constants)) return nullptr;
  for (size_t i = 1; i < op.inputs.size(); ++i) {
    if (!is_constant(op.inputs[i], constants)) return nullptr;
  }
  return bn;
}

// The operations a chain of eltwise and binary ops after them rides on (a
// safe softmax ends in a BinaryOp Mul). Not an eltwise op: oneDNN runs an
// eltwise primitive with post-ops on its reference implementation, ten
// times slower than the ops apart (GPT-2's tanh gelu: 0.5 ms against 0.05).
bool takes_post_ops(const NodeOp& op) {
  const fb::OperationKind kind = op.kind();
  return op.safe_softmax || kind == fb::OperationKind::Convolution || kind == fb::OperationKind::MatMul ||
         kind == fb::OperationKind::BinaryOp;
}

// Extends `group` by the eltwise and binary ops that follow its result.
void follow_post_ops(FusedGroup& group, const std::set<const Node*>& taken, const Activations& activations) {
  // A group norm with weight and bias spends one post-op on the bias.
  const size_t limit = kMaxPostOps - (group.op.group_norm && group.op.inputs[1] && group.op.inputs[2] ? 1 : 0);
  while (const Node* user = next_in_chain(group.result, activations)) {
    if (taken.count(user) || is_getitem(user) || group.post_ops.size() >= limit) return;
    if (auto it = activations.by_anchor.find(user); it != activations.by_anchor.end()) {
      const ActivationPattern& pattern = it->second;
      if (pattern.input != group.result || group.post_ops.size() + pattern.eltwises.size() > limit) return;
      for (const fb::EltwiseT& e : pattern.eltwises) add_eltwise_post_op(group, e, user);
      group.nodes.insert(group.nodes.end(), pattern.nodes.begin(), pattern.nodes.end());
      group.result = user;
      continue;
    }
    NodeOp op;
    try {
      op = describe_node(*user);
    } catch (const Refusal&) {
      return;
    }
    if (op.sizes != group.op.sizes || op.group_norm) return;  // a post-op writes the operation's own result
    PlannedPostOp post;
    post.node = user;
    if (const auto* eltwise = op.op.AsEltwiseOp(); eltwise != nullptr && op.inputs[0] == group.result) {
      add_eltwise_post_op(group, *eltwise->eltwise, user);
      group.nodes.push_back(user);
      group.result = user;
      continue;
    } else if (const auto* binary = op.op.AsBinaryOp(); binary != nullptr && op.inputs[0] != op.inputs[1]) {
      // The result must be the operand oneDNN does not broadcast: the first,
      // or (both being full-sized) the second of an op that commutes.
      const bool commutes = binary->algorithm == fb::BinaryAlgorithm::Add || binary->algorithm == fb::BinaryAlgorithm::Mul ||
                            binary->algorithm == fb::BinaryAlgorithm::Max || binary->algorithm == fb::BinaryAlgorithm::Min;
      if (op.inputs[0] == group.result) {
        post.other = op.inputs[1];
      } else if (commutes && op.inputs[1] == group.result && sizes_of(op.inputs[0]) == op.sizes) {
        post.other = op.inputs[0];
      } else {
        return;
      }
      post.binary = binary->algorithm;
    } else {
      return;
    }
    group.post_ops.push_back(post);
    group.nodes.push_back(user);
    group.result = user;
  }
}

// Extends a Reorder group by the reshapes after a reshape and the permutes
// after a permute (composed: dst dim i of the second is dim p1[p2[i]] of
// the first's source), as one Reorder.
void follow_layout_chain(FusedGroup& group, const std::set<const Node*>& taken) {
  auto* first = group.op.op.AsReorder();
  while (const Node* user = only_user(group.result)) {
    if (taken.count(user) || is_getitem(user)) return;
    NodeOp op;
    try {
      op = describe_node(*user);
    } catch (const Refusal&) {
      return;
    }
    const auto* next = op.op.AsReorder();
    if (next == nullptr || op.inputs[0] != group.result || first->permutation.empty() != next->permutation.empty()) return;
    if (!first->permutation.empty()) {
      std::vector<int64_t> composed;
      bool identity = true;
      for (int64_t d : next->permutation) {
        composed.push_back(first->permutation.at(static_cast<size_t>(d)));
        identity = identity && composed.back() == static_cast<int64_t>(composed.size() - 1);
      }
      first->permutation = identity ? std::vector<int64_t>{} : composed;  // back where it was: a reshape
    }
    group.op.sizes = op.sizes;
    group.nodes.push_back(user);
    group.result = user;
  }
}

// The getitem(base, 0) nodes of a multi-output op: the first is the result.
void take_first_results(FusedGroup& group, const Node* multi) {
  for (const Node* user : multi->users()) {
    if (group.result == nullptr || group.result == multi) {
      group.result = user;
    } else {
      group.aliases.push_back(user);
    }
    group.nodes.push_back(user);
  }
  if (group.result == multi) group.result = nullptr;
}

}  // namespace

ConstantTensors constant_tensors(const aot::ExportedProgram& partition) {
  ConstantTensors result;
  const auto placeholders = partition.graph().placeholders();
  const auto& specs = partition.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    if (specs[i].kind == aot::InputKind::UserInput) continue;
    const aot::HostTensor* tensor = partition.find_lifted_tensor(specs[i]);
    if (tensor == nullptr) throw aot::AotError("OneDnnBackend: input '" + placeholders[i]->name() + "' has no tensor");
    result[placeholders[i]] = tensor;
  }
  return result;
}

std::vector<FusedGroup> plan_fusion(const aot::ExportedProgram& partition, const ConstantTensors& constants) {
  std::set<const Node*> taken;
  std::map<const Node*, const Node*> transposes;  // matmul -> the permute it absorbs
  std::map<const Node*, Flattening> flattenings;  // matmul -> the reshapes around it
  Activations activations;
  std::map<const Node*, SafeSoftmax> safe_softmaxes;  // by their where
  for (const Node* node : partition.graph()) {
    if (std::optional<SafeSoftmax> pattern = match_safe_softmax(*node)) {
      for (const Node* member : pattern->nodes) {
        if (member != node) taken.insert(member);
      }
      safe_softmaxes.emplace(node, std::move(*pattern));
    }
  }
  for (const Node* node : partition.graph()) {
    if (!node->is_call_function() || is_getitem(node) || taken.count(node) || safe_softmaxes.count(node)) continue;
    const NodeOp op = describe_or_throw(*node);
    if (std::optional<ActivationPattern> pattern = match_activation(*node)) {
      for (const Node* inner : pattern->nodes) {
        if (inner == node) continue;
        activations.anchor_of[inner] = node;
        taken.insert(inner);
      }
      activations.by_anchor.emplace(node, std::move(*pattern));
    }
    if (const Node* permute = absorbable_transpose(op)) {
      transposes[node] = permute;
      taken.insert(permute);
    }
    if (const std::optional<Flattening> flattening = absorbable_flattening(*node, op)) {
      flattenings[node] = *flattening;
      taken.insert(flattening->flatten);
      taken.insert(flattening->restore);
    }
  }
  std::vector<FusedGroup> groups;
  for (const Node* node : partition.graph()) {
    if (!node->is_call_function() || is_getitem(node) || taken.count(node)) continue;
    FusedGroup group;
    group.base = node;
    if (auto it = safe_softmaxes.find(node); it != safe_softmaxes.end()) {
      group.op = describe_or_throw(*it->second.softmax);
      group.op.safe_softmax = true;
      group.op.sizes = sizes_of(node);
      group.nodes = it->second.nodes;
    } else {
      group.op = describe_or_throw(*node);
      group.nodes = {node};
    }
    group.result = node;
    if (auto it = activations.by_anchor.find(node); it != activations.by_anchor.end()) {
      // The pattern on its own: its first eltwise, the others as post-ops.
      const ActivationPattern& pattern = it->second;
      fb::EltwiseOpT eltwise;
      eltwise.eltwise = std::make_unique<fb::EltwiseT>(pattern.eltwises.front());
      group.op.op.Set(std::move(eltwise));
      group.op.inputs = {pattern.input};
      group.nodes = pattern.nodes;
      for (size_t i = 1; i < pattern.eltwises.size(); ++i) add_eltwise_post_op(group, pattern.eltwises[i], node);
    }
    if (auto it = transposes.find(node); it != transposes.end()) {
      group.nodes.insert(group.nodes.begin(), it->second);
      group.op.inputs[1] = describe_node(*it->second).inputs[0];
      group.op.op.AsMatMul()->transpose_b = !group.op.op.AsMatMul()->transpose_b;
    }
    if (auto it = flattenings.find(node); it != flattenings.end()) {
      group.op.inputs[0] = describe_node(*it->second.flatten).inputs[0];
      group.op.sizes = sizes_of(it->second.restore);
      group.nodes.push_back(it->second.flatten);
      group.nodes.push_back(it->second.restore);
      std::sort(group.nodes.begin(), group.nodes.end(), [](const Node* a, const Node* b) { return a->is_before(*b); });
      group.result = it->second.restore;
    }
    if (group.op.multi_output) take_first_results(group, node);
    if (const Node* bn = foldable_batch_norm(group, constants)) {
      group.batch_norm = bn;
      group.nodes.push_back(bn);
      group.result = bn;
      take_first_results(group, bn);
    }
    if (takes_post_ops(group.op) && group.result != nullptr && group.aliases.empty()) {
      follow_post_ops(group, taken, activations);
    }
    if (group.op.is_layout()) follow_layout_chain(group, taken);
    for (const Node* fused : group.nodes) taken.insert(fused);
    groups.push_back(std::move(group));
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const FusedGroup& a, const FusedGroup& b) { return a.last()->is_before(*b.last()); });
  return groups;
}

}  // namespace kiln::backends::onednn
