#include "backends/onednn/aot/fusion/rule.h"

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"

namespace kiln::backends::onednn {

using aot::Node;

// The families in the order a group's Extend rules are tried; a layout
// chain before the requantization rules, so that a quantize op after a
// chain of reshapes (each between grids of one parameter set, as PT2E
// leaves ShuffleNet's channel shuffle) is seen after the whole chain.
std::span<const FusionRule> fusion_rules() {
  static const std::vector<FusionRule> table = [] {
    std::vector<FusionRule> rules;
    for (std::span<const FusionRule> family :
         {softmax_rules(), activation_rules(), quantize_rules(), matmul_rules(), batch_norm_rules(), post_op_rules(),
          layout_rules(), requantization_rules(), pointwise_rules()}) {
      rules.insert(rules.end(), family.begin(), family.end());
    }
    return rules;
  }();
  return table;
}

const Match* FusionContext::pattern_at(const Node* node) const {
  auto it = patterns.find(node);
  return it == patterns.end() ? nullptr : &it->second;
}

const Node* FusionContext::next_in_chain(const Node* node) const {
  const Node* next = nullptr;
  for (const Node* user : node->users()) {
    auto it = anchor_of.find(user);
    const Node* reader = it == anchor_of.end() ? user : it->second;
    if (next != nullptr && reader != next) return nullptr;
    next = reader;
  }
  return next != nullptr && next->is_call_function() ? next : nullptr;
}

std::vector<int64_t> sizes_of(const Node* node) {
  const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
  return meta == nullptr || !meta->is_static() ? std::vector<int64_t>{} : meta->static_sizes();
}

bool is_getitem(const Node* node) { return node->is_call_function() && aot::is_call_of(*node, aot::ExecKind::GetItem); }

const Node* only_user(const Node* node) {
  if (node->users().size() != 1) return nullptr;
  const Node* user = node->users()[0];
  return user->is_call_function() ? user : nullptr;
}

std::optional<NodeOp> describe_if(const Node* node) {
  if (node == nullptr || !node->is_call_function() || is_getitem(node)) return std::nullopt;
  return describe_node(*node).value();
}

NodeOp describe_or_throw(const Node& node) {
  Supported<NodeOp> op = describe_node(node);
  if (!op) throw aot::AotError("OneDnnBackend cannot run node '" + node.name() + "' (" + node.target() + "): " + op.reason());
  return *op;
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

}  // namespace kiln::backends::onednn
