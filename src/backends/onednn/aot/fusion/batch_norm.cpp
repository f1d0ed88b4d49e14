// The batch-norm family of fusion rules (rule.h): an Extend rule that folds
// a batch norm right after a (non-transposed) convolution into the
// convolution's weights and bias, when the weights, bias and statistics are
// all constants (the lowering does the arithmetic: FusedGroup::batch_norm).
#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

std::optional<Match> select_batch_norm_into_convolution(const FusedGroup& group, const FusionContext& context) {
  const auto* conv = group.op.op.AsConvolution();
  if (conv == nullptr || conv->transposed || group.batch_norm != nullptr) return std::nullopt;
  const Node* bn = only_user(group.base);
  if (bn == nullptr || bn->users().size() != 1 || context.is_taken(bn)) return std::nullopt;
  const std::optional<NodeOp> op = describe_if(bn);
  if (!op || op->kind() != fb::OperationKind::BatchNorm || op->inputs[0] != group.base) return std::nullopt;
  if (!context.is_constant(group.op.inputs[1]) || !context.is_constant(group.op.inputs[2])) return std::nullopt;
  for (size_t i = 1; i < op->inputs.size(); ++i) {
    if (!context.is_constant(op->inputs[i])) return std::nullopt;
  }
  Match match;
  match.nodes = {bn};
  match.apply = [bn](FusedGroup& group) {
    group.batch_norm = bn;
    group.nodes.push_back(bn);
    group.result = bn;
    take_first_results(group, bn);
  };
  return match;
}

constexpr FusionRule kBatchNormRules[] = {
    {"batch_norm_into_convolution", FusionStage::Extend, select_batch_norm_into_convolution},
};

}  // namespace

std::span<const FusionRule> batch_norm_rules() { return kBatchNormRules; }

}  // namespace kiln::backends::onednn
