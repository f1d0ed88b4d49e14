// The layout family of fusion rules (rule.h): an Extend rule that takes the
// reshape after a reshape, or the permute after a permute, into one Reorder
// (permutes composed: dst dim i of the second is dim p1[p2[i]] of the
// first's source; a composition back to the identity is a reshape).
#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

std::optional<Match> select_layout_chain(const FusedGroup& group, const FusionContext& context) {
  const auto* first = group.op.op.AsReorder();
  if (first == nullptr || group.result == nullptr) return std::nullopt;
  const Node* user = only_user(group.result);
  if (user == nullptr || context.is_taken(user) || is_getitem(user)) return std::nullopt;
  const std::optional<NodeOp> op = describe_if(user);
  if (!op) return std::nullopt;
  const auto* next = op->op.AsReorder();
  if (next == nullptr || op->inputs[0] != group.result || first->permutation.empty() != next->permutation.empty()) {
    return std::nullopt;
  }
  std::vector<int64_t> permutation;
  if (!first->permutation.empty()) {
    bool identity = true;
    for (int64_t d : next->permutation) {
      permutation.push_back(first->permutation.at(static_cast<size_t>(d)));
      identity = identity && permutation.back() == static_cast<int64_t>(permutation.size() - 1);
    }
    if (identity) permutation.clear();  // back where it was: a reshape
  }
  Match match;
  match.nodes = {user};
  match.apply = [user, permutation, sizes = op->sizes](FusedGroup& group) {
    group.op.op.AsReorder()->permutation = permutation;
    group.op.sizes = sizes;
    group.nodes.push_back(user);
    group.result = user;
  };
  return match;
}

constexpr FusionRule kLayoutRules[] = {{"layout_chain", FusionStage::Extend, select_layout_chain}};

}  // namespace

std::span<const FusionRule> layout_rules() { return kLayoutRules; }

}  // namespace kiln::backends::onednn
