// expand_into_broadcast: an expand read by pointwise ops (torch.Tag.pointwise:
// add, mul, div, where, ...) that broadcast its input to the same result
// anyway is not materialized: those ops read the expand's input. Swin V2's
// and CLIP's cosine attention divide by a norm expanded to the values'
// sizes (F.normalize), and an expand that repeats elements is no op a
// backend's layout steps can do: each one cut the partition around it.
#include <optional>
#include <vector>

#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/lowering.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {

namespace {

bool is_expand(const Node& node) {
  return node.is_call_function() &&
         (node.target() == "aten::expand.default" || node.target() == "aten::expand_copy.default");
}

// NumPy's broadcast of `a` and `b`; none where they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> result(std::max(a.size(), b.size()));
  for (size_t i = 0; i < result.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    result[result.size() - 1 - i] = x == 1 ? y : x;
  }
  return result;
}

// Whether pointwise `user`, reading `source` where it reads `expand`, still
// gives its result's sizes.
bool broadcasts_alike(const Node& user, const Node& expand, const Node& source) {
  const std::optional<std::vector<int64_t>> result = passes::static_sizes_of(&user);
  if (!result) return false;
  std::vector<int64_t> sizes;
  bool known = true;
  const auto add = [&](Node* operand) {
    if (!std::holds_alternative<TensorMeta>(operand->meta.val)) return;  // a scalar, a symbol
    const std::optional<std::vector<int64_t>> own = passes::static_sizes_of(operand == &expand ? &source : operand);
    const std::optional<std::vector<int64_t>> joined = own ? broadcast(sizes, *own) : std::nullopt;
    if (joined) sizes = *joined;
    known = known && joined.has_value();
  };
  for (const Argument& argument : user.args()) for_each_node(argument, add);
  for (const auto& [name, argument] : user.kwargs()) for_each_node(argument, add);
  return known && sizes == *result;
}

}  // namespace

bool expand_into_broadcast(ExportedProgram& program) {
  std::vector<Node*> expands;
  for (Node* node : program.graph().node_list()) {
    if (is_expand(*node) && !node->args().empty() && node->args()[0].is_node()) expands.push_back(node);
  }
  bool changed = false;
  for (Node* expand : expands) {
    Node* source = expand->args()[0].node();
    const std::vector<Node*> users = expand->users();
    for (Node* user : users) {
      const OpSchema* schema = user->is_call_function() ? find_op_schema(user->target()) : nullptr;
      if (schema == nullptr || !schema->is_pointwise || !broadcasts_alike(*user, *expand, *source)) continue;
      user->replace_input_with(expand, source);
      changed = true;
    }
    if (expand->users().empty()) program.graph().erase_node(expand);
  }
  return changed;
}

}  // namespace kiln::aot
