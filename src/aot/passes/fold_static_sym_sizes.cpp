// fold_static_sym_sizes: aten::sym_size.int(t, dim) asks for a size at run
// time. Where t's meta gives that size as a constant, every use of the node
// takes the int instead and the node goes; a dynamic size stays a sym_size
// call (a prim op the interpreter evaluates and the emitter emits).
#include <optional>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/memory_ops.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {
namespace {

// The size sym_size asks for, if t's meta has it as a constant.
std::optional<int64_t> static_size(const Node& node) {
  const auto bound = bind_node_arguments(node);
  if (!bound.at(0).is_node() || !bound.at(1).is_int()) {
    throw AotError(passes::describe_node(node) + " needs a tensor and a dim");
  }
  const auto* meta = std::get_if<TensorMeta>(&bound[0].node()->meta.val);
  if (meta == nullptr) throw AotError(passes::describe_node(node) + ": its input has no tensor meta");
  int64_t dim = bound[1].to_int();
  const auto rank = static_cast<int64_t>(meta->rank());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) {
    throw AotError(passes::describe_node(node) + ": dim " + std::to_string(bound[1].to_int()) + " is out of range for " +
                   meta->to_string());
  }
  return meta->sizes[static_cast<size_t>(dim)].constant_value();
}

bool used_by_output(const Node& node) {
  for (const Node* user : node.users()) {
    if (user->is_output()) return true;
  }
  return false;
}

}  // namespace

bool fold_static_sym_sizes(ExportedProgram& program) {
  bool changed = false;
  for (Node* node : program.graph().node_list()) {
    if (!is_call_of(*node, ExecKind::SymSize)) continue;
    if (node->users().empty()) {  // left over from a removed assert
      program.graph().erase_node(node);
      changed = true;
      continue;
    }
    const std::optional<int64_t> size = static_size(*node);
    if (!size || used_by_output(*node)) continue;
    passes::replace_uses_with_literal(node, *size);
    program.graph().erase_node(node);
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
