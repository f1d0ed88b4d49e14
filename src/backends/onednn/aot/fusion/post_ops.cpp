// The post-op family of fusion rules (rule.h): an Extend rule that takes the
// op after a group's result as a post-op of the group's operation, again
// while it matches:
//   - an eltwise op of the result (an activation, arithmetic with a number;
//     a Linear after a Linear composed into one), or an activation Pattern
//     (activation.cpp) on the result, as its eltwise ops;
//   - a binary op of the result and another tensor (a residual add, a
//     per-channel scale), the result being the operand oneDNN does not
//     broadcast.
// A group whose result is a quantize op's grid (fusion/quantize.cpp) goes on
// past a dequantize op naming it: the residual add after a quantized
// convolution, as PT2E writes it (conv, q, dq, add, relu, q), becomes the
// convolution's post-ops, the grid's eltwise ops before it -- unless a clamp
// to requantize to the same grid follows (quantize.cpp's rule drops the
// first grid then).
// Only after an operation whose kind fuses post-ops (capabilities.h: a
// convolution, a matmul, a binary op -- a safe softmax's product, a group
// norm's affine -- and a batch norm, which takes one relu). At most kMaxPostOps on one operation; each post-op writes
// the operation's own result sizes.
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/fusion/rule.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

// A safe softmax's last operation is the product that takes its post-ops.
bool takes_post_ops(const NodeOp& op) {
  return operation_rules(op.safe_softmax ? fb::OperationKind::BinaryOp : op.kind()).fuses_post_ops;
}

// Whether the group's operation takes `eltwise` after its post-ops so far
// (capabilities.h's verdict on the operation with it).
bool takes_one_more_eltwise(const FusedGroup& group, const fb::EltwiseT& eltwise) {
  OperationFacts facts;
  facts.kind = group.op.kind();
  for (const PlannedPostOp& post : group.post_ops) {
    if (post.eltwise) {
      ++facts.eltwise_post_ops;
      facts.relu_post_ops += post.eltwise->algorithm == fb::EltwiseAlgorithm::Relu ? 1 : 0;
    } else {
      ++facts.binary_post_ops;
    }
  }
  ++facts.eltwise_post_ops;
  facts.relu_post_ops += eltwise.algorithm == fb::EltwiseAlgorithm::Relu ? 1 : 0;
  return static_cast<bool>(verdict_of(facts));
}

bool commutes(fb::BinaryAlgorithm algorithm) {
  return algorithm == fb::BinaryAlgorithm::Add || algorithm == fb::BinaryAlgorithm::Mul ||
         algorithm == fb::BinaryAlgorithm::Max || algorithm == fb::BinaryAlgorithm::Min;
}

// The dequantize op reading the group's quantized result, when it is the
// only reader, one op reads it (a Pattern's nodes counting as one: the
// sigmoid and the product of a decomposed silu, EfficientNet's, which PT2E
// leaves float32 between two grids) and no clamp requantized to the same
// grid follows it.
const Node* dequantize_to_pass(const FusedGroup& group, const FusionContext& context) {
  const Node* q = group.result;
  if (aot::quant_op_kind(q->target()) != aot::QuantOpKind::QuantizePerTensor || q->users().size() != 1) return nullptr;
  const Node* dq = q->users()[0];
  if (aot::quant_op_kind(dq->target()) != aot::QuantOpKind::DequantizePerTensor || context.is_taken(dq)) return nullptr;
  const Node* next = context.next_in_chain(dq);
  if (next == nullptr) return nullptr;
  if (next->users().size() == 1 && aot::constant_tensor_qparams(*next->users()[0]) == aot::constant_tensor_qparams(*q)) {
    if (const std::optional<NodeOp> op = describe_if(next); op && op->op.AsEltwiseOp() != nullptr) {
      const fb::EltwiseAlgorithm algorithm = op->op.AsEltwiseOp()->eltwise->algorithm;
      if (algorithm == fb::EltwiseAlgorithm::Clip || algorithm == fb::EltwiseAlgorithm::Relu) return nullptr;
    }
  }
  return dq;
}

std::optional<Match> select_post_op(const FusedGroup& group, const FusionContext& context) {
  if (!takes_post_ops(group.op) || group.result == nullptr || !group.aliases.empty()) return std::nullopt;
  // A group norm with weight and bias spends one post-op on the bias.
  const size_t limit = kMaxPostOps - (group.op.group_norm && group.op.inputs[1] && group.op.inputs[2] ? 1 : 0);
  // What the next op reads: the group's result, or a dequantize op naming it.
  const Node* passed = dequantize_to_pass(group, context);
  const Node* result = passed != nullptr ? passed : group.result;
  const Node* user = context.next_in_chain(result);
  if (user == nullptr || context.is_taken(user) || is_getitem(user) || group.post_ops.size() >= limit) return std::nullopt;
  Match match;
  match.nodes = {user};
  if (passed != nullptr) match.nodes.insert(match.nodes.begin(), passed);
  // One relu at most (a batch norm): no pattern, no binary op, no grid --
  // but the grid of a batch norm between two grids, which the lowering
  // writes as an int8 depthwise convolution (norm_between_grids).
  const bool relu_only = operation_rules(group.op.kind()).post_ops == PostOpKinds::kRelu;
  if (relu_only && passed != nullptr) return std::nullopt;
  if (const Match* pattern = context.pattern_at(user); pattern != nullptr) {
    const bool takes_grid = relu_only && norm_between_grids(group, *user);
    if ((relu_only && !takes_grid) || pattern->eltwises.empty() || pattern->eltwise_input != result ||
        group.post_ops.size() + pattern->eltwises.size() > limit) {
      return std::nullopt;
    }
    match.apply = [user, passed, inner = pattern->nodes, eltwises = pattern->eltwises](FusedGroup& group) {
      if (passed != nullptr) group.nodes.push_back(passed);
      for (const fb::EltwiseT& e : eltwises) add_eltwise_post_op(group, e, user);
      group.nodes.insert(group.nodes.end(), inner.begin(), inner.end());
      group.nodes.push_back(user);
      group.result = user;
    };
    return match;
  }
  const std::optional<NodeOp> op = describe_if(user);
  if (!op || op->sizes != group.op.sizes || op->group_norm) return std::nullopt;
  if (const auto* eltwise = op->op.AsEltwiseOp(); eltwise != nullptr && op->inputs[0] == result) {
    if (!takes_one_more_eltwise(group, *eltwise->eltwise)) return std::nullopt;
    match.apply = [user, passed, e = *eltwise->eltwise](FusedGroup& group) {
      if (passed != nullptr) group.nodes.push_back(passed);
      add_eltwise_post_op(group, e, user);
      group.nodes.push_back(user);
      group.result = user;
    };
    return match;
  }
  const auto* binary = op->op.AsBinaryOp();
  if (relu_only || binary == nullptr || op->inputs[0] == op->inputs[1]) return std::nullopt;
  PlannedPostOp post;
  post.node = user;
  post.binary = binary->algorithm;
  // The result must be the operand oneDNN does not broadcast: the first, or
  // (both being full-sized) the second of an op that commutes.
  if (op->inputs[0] == result) {
    post.other = op->inputs[1];
  } else if (commutes(binary->algorithm) && op->inputs[1] == result && sizes_of(op->inputs[0]) == op->sizes) {
    post.other = op->inputs[0];
  } else {
    return std::nullopt;
  }
  match.apply = [post, passed](FusedGroup& group) {
    if (passed != nullptr) group.nodes.push_back(passed);
    group.post_ops.push_back(post);
    group.nodes.push_back(post.node);
    group.result = post.node;
  };
  return match;
}

constexpr FusionRule kPostOpRules[] = {{"post_op", FusionStage::Extend, select_post_op}};

}  // namespace

std::span<const FusionRule> post_op_rules() { return kPostOpRules; }

}  // namespace kiln::backends::onednn
