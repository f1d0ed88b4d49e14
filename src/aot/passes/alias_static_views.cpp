// alias_static_views: a static reshape (aten::view_copy) of a tensor that an
// op call writes becomes `memory.view(base, sizes)`, which shares base's
// bytes instead of copying them: no instruction, no memory of its own, as
// ExecuTorch's ReplaceViewCopyWithViewPass does. Only contiguous bases and
// static sizes qualify; a view of a placeholder (a weight or an input, whose
// memory the program does not plan) or with a dynamic size stays a copy.
#include "aot/ir/exec_kind.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {
namespace {

bool is_contiguous_static(const Node& node) {
  const auto* meta = std::get_if<TensorMeta>(&node.meta.val);
  if (meta == nullptr || !meta->is_static()) return false;
  const std::vector<uint8_t> order = meta->resolved_dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

// A tensor whose memory the executable form allocates: an op's result, an
// element of one, or a view of one.
bool has_planned_memory(const Node& node) {
  if (!node.is_call_function()) return false;
  const ExecKind kind = exec_kind(node);
  return kind != ExecKind::CopyInPlace && kind != ExecKind::SymSize && kind != ExecKind::DelegateCall;
}

}  // namespace

bool alias_static_views(ExportedProgram& program) {
  bool changed = false;
  for (Node* node : program.graph()) {
    if (!node->is_call_function() || node->target() != "aten::view_copy.default") continue;
    if (node->args().size() != 2 || !node->args()[0].is_node()) continue;
    const Node& base = *node->args()[0].node();
    if (!has_planned_memory(base) || !is_contiguous_static(base) || !is_contiguous_static(*node)) continue;
    ArgumentList sizes;
    for (int64_t size : node->meta.tensor().static_sizes()) sizes.emplace_back(size);
    node->set_target(kMemoryView);
    node->set_args({node->args()[0], std::move(sizes)});
    node->set_kwargs({});
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
