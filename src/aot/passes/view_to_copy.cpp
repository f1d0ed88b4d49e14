// view_to_copy: a view op runs as its `_copy` twin, which computes the same
// values into a tensor of its own (aten::permute -> aten::permute_copy), as
// ExecuTorch's edge dialect does. The node keeps its name, arguments and
// provenance; its target changes to view_copy_twin's, and its meta loses the
// view's dim order: a copy writes a contiguous tensor.
#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"

namespace kiln::aot {

bool view_to_copy(ExportedProgram& program) {
  bool changed = false;
  for (Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    const OpSchema* schema = find_op_schema(node->target());
    if (schema == nullptr) continue;
    const OpSchema* twin = view_copy_twin(*schema);
    if (twin == nullptr) continue;
    // The call's arguments must mean the same to the twin.
    bool same = twin->arguments.size() == schema->arguments.size();
    for (size_t i = 0; same && i < twin->arguments.size(); ++i) {
      same = twin->arguments[i].name == schema->arguments[i].name;
    }
    if (!same) {
      throw AotError(passes::describe_node(*node) + ": its copy " + twin->qualified_name() +
                     " takes other arguments (" + twin->to_string() + ")");
    }
    node->set_target(twin->qualified_name());
    if (auto* meta = std::get_if<TensorMeta>(&node->meta.val)) meta->dim_order.clear();
    if (auto* metas = std::get_if<std::vector<TensorMeta>>(&node->meta.val)) {
      for (TensorMeta& meta : *metas) meta.dim_order.clear();
    }
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
