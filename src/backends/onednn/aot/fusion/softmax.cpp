#include "backends/onednn/aot/fusion/softmax.h"

#include <cmath>

#include "backends/onednn/aot/fusion/rule.h"
#include "backends/onednn/aot/node_ops.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

bool is_op(const Node* node, const char* op) {
  return node != nullptr && node->is_call_function() && qualified_op(*node) == op;
}

// The node argument `i` of `node`, or null.
const Node* node_arg(const Node* node, size_t i) {
  return node->args().size() > i && node->args()[i].is_node() ? node->args()[i].node() : nullptr;
}

bool only_user_is(const Node* node, const Node* user) {
  return node->users().size() == 1 && node->users()[0] == user;
}

bool is_number(const aot::Argument& arg, double value) {
  if (arg.is_int()) return static_cast<double>(arg.to_int()) == value;
  return arg.is_double() && arg.to_double() == value;
}

// A dim argument as a dimension of a rank-`rank` tensor, or -1.
int64_t dim_of(const aot::Argument& arg, size_t rank) {
  int64_t dim = -1;
  if (arg.is_int()) dim = arg.to_int();
  if (arg.is_list() && arg.list().size() == 1 && arg.list()[0].is_int()) dim = arg.list()[0].to_int();
  if (dim < 0) dim += static_cast<int64_t>(rank);
  return dim >= 0 && dim < static_cast<int64_t>(rank) ? dim : -1;
}

size_t rank_of(const Node* node) {
  const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
  return meta == nullptr ? 0 : meta->rank();
}

}  // namespace

std::optional<SafeSoftmax> match_safe_softmax(const Node& anchor) {
  if (!is_op(&anchor, "aten::where.self") || anchor.args().size() != 3) return std::nullopt;
  const Node* rows = node_arg(&anchor, 0);
  const Node* zeros = node_arg(&anchor, 1);
  const Node* y = node_arg(&anchor, 2);
  if (!is_op(y, "aten::_softmax.default") || !is_op(zeros, "aten::full_like.default") || !is_op(rows, "aten::logical_not.default")) {
    return std::nullopt;
  }
  const Node* s = node_arg(y, 0);
  if (s == nullptr || y->args().size() < 3 || !y->args()[2].is_bool() || y->args()[2].to_bool()) return std::nullopt;
  const size_t rank = rank_of(s);
  const int64_t dim = dim_of(y->args()[1], rank);
  if (dim < 0) return std::nullopt;
  // zeros = full_like(y, 0), read by the where alone; y read by those two alone.
  if (node_arg(zeros, 0) != y || zeros->args().size() < 2 || !is_number(zeros->args()[1], 0.0) || !only_user_is(zeros, &anchor)) {
    return std::nullopt;
  }
  if (y->users().size() != 2) return std::nullopt;
  // rows = logical_not(any(logical_not(eq(s, -inf)), dim, keepdim=True)), each read once.
  const Node* any = node_arg(rows, 0);
  if (!is_op(any, "aten::any.dim") || !only_user_is(rows, &anchor) || !only_user_is(any, rows)) return std::nullopt;
  if (any->args().size() < 3 || dim_of(any->args()[1], rank) != dim || !any->args()[2].is_bool() || !any->args()[2].to_bool()) {
    return std::nullopt;
  }
  const Node* finite = node_arg(any, 0);
  if (!is_op(finite, "aten::logical_not.default") || !only_user_is(finite, any)) return std::nullopt;
  const Node* eq = node_arg(finite, 0);
  if (!is_op(eq, "aten::eq.Scalar") || !only_user_is(eq, finite) || node_arg(eq, 0) != s) return std::nullopt;
  if (eq->args().size() < 2 || !eq->args()[1].is_double() || !std::isinf(eq->args()[1].to_double()) ||
      eq->args()[1].to_double() > 0) {
    return std::nullopt;
  }
  return SafeSoftmax{s, y, {eq, finite, any, rows, y, zeros, &anchor}};
}

std::optional<SafeSoftmax> safe_softmax_containing(const Node& node) {
  // The where is at most four users away (eq -> logical_not -> any -> logical_not -> where).
  std::vector<const Node*> frontier{&node};
  for (int depth = 0; depth <= 4 && !frontier.empty(); ++depth) {
    std::vector<const Node*> next;
    for (const Node* candidate : frontier) {
      if (std::optional<SafeSoftmax> pattern = match_safe_softmax(*candidate)) {
        for (const Node* member : pattern->nodes) {
          if (member == &node) return pattern;
        }
      }
      next.insert(next.end(), candidate->users().begin(), candidate->users().end());
    }
    frontier = std::move(next);
  }
  return std::nullopt;
}

namespace {

// The action: the group is the softmax, with its sizes those of the where.
std::optional<Match> select_safe_softmax(const FusedGroup& group, const FusionContext&) {
  std::optional<SafeSoftmax> pattern = match_safe_softmax(*group.base);
  if (!pattern) return std::nullopt;
  Match match;
  match.nodes.assign(pattern->nodes.begin(), pattern->nodes.end() - 1);  // the where is the group's base
  match.apply = [pattern = *pattern](FusedGroup& group) {
    group.op = describe_or_throw(*pattern.softmax);
    group.op.safe_softmax = true;
    group.op.sizes = sizes_of(group.base);
    group.nodes = pattern.nodes;
  };
  return match;
}

constexpr FusionRule kSoftmaxRules[] = {{"safe_softmax", FusionStage::Pattern, select_safe_softmax}};

}  // namespace

std::span<const FusionRule> softmax_rules() { return kSoftmaxRules; }

}  // namespace kiln::backends::onednn
