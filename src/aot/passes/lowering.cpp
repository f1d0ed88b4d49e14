// lower_to_executable: the lowering passes in the order each needs the one
// before: asserts go first (their sym_sizes then die with them), views become
// copies and static sizes fold (so that static reshapes can become aliases)
// before numbers are lifted to tensors, the
// mutation write-backs are placed, and out variants come when every call's
// arguments are final; last, a buffer's write-back of an update of itself
// becomes the update writing into it. executable_form_violations checks the
// result.
#include <set>

#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/verifier.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {

std::vector<Pass> lowering_passes() {
  return {
      Pass{"remove_graph_asserts", remove_graph_asserts},
      Pass{"view_to_copy", view_to_copy},
      Pass{"fold_static_sym_sizes", fold_static_sym_sizes},
      Pass{"alias_static_views", alias_static_views},
      Pass{"scalar_to_tensor", scalar_to_tensor},
      Pass{"write_back_mutations", write_back_mutations},
      Pass{"to_out_variant", to_out_variant},
      Pass{"update_buffers_in_place", update_buffers_in_place},
  };
}

ExportedProgram lower_to_executable(const ExportedProgram& program) { return transform(program, lowering_passes()); }

namespace {

// Why `node` has no place in the executable form; "" if it has one.
// `in_place` holds the placeholders of the buffers updated in place, which an
// out argument may name.
std::string violation(const Node& node, const std::set<const Node*>& in_place) {
  switch (exec_kind(node)) {
    case ExecKind::GetItem:
    case ExecKind::DelegateCall:
    case ExecKind::SymSize: return "";
    case ExecKind::Alloc:
      return std::holds_alternative<TensorMeta>(node.meta.val) ? "" : "memory.alloc without a tensor meta";
    case ExecKind::View: {
      const bool shaped = node.args().size() == 2 && node.args()[0].is_node() && node.args()[1].is_list();
      return shaped && std::holds_alternative<TensorMeta>(node.meta.val) ? ""
                                                                         : "memory.view without (base, sizes) and a meta";
    }
    case ExecKind::CopyInPlace: {
      const bool write_back =
          node.args().size() == 2 && node.args()[0].is_node() && node.args()[0].node()->is_placeholder();
      return write_back ? "" : "copy_ that writes no placeholder back";
    }
    case ExecKind::KernelCall: break;
  }
  const OpSchema* schema = find_op_schema(node.target());
  if (schema == nullptr) return "unknown op";
  if (!schema->is_out_variant()) return view_copy_twin(*schema) != nullptr ? "a view op" : "a functional op";
  for (const SchemaArgument& param : schema->arguments) {
    if (!param.is_out) continue;
    const Argument* out = node.kwarg(param.name);
    bool allocs = out != nullptr;
    if (out != nullptr) {
      for_each_node(*out, [&](const Node* n) { allocs = allocs && (is_call_of(*n, ExecKind::Alloc) || in_place.count(n)); });
      allocs = allocs && (out->is_node() || out->is_list());
    }
    if (!allocs) return "out argument '" + param.name + "' is not a memory.alloc keyword argument";
  }
  return "";
}

}  // namespace

std::vector<std::string> executable_form_violations(const ExportedProgram& program) {
  std::vector<std::string> result;
  const ArgumentList& outputs = program.graph().output_node()->args().at(0).list();
  const auto& specs = program.graph_signature().output_specs;
  // A buffer updated in place: its mutation output is its own placeholder.
  std::set<const Node*> in_place;
  for (size_t i = 0; i < specs.size() && i < outputs.size(); ++i) {
    if (specs[i].kind == OutputKind::BufferMutation && outputs[i].is_node() && outputs[i].node()->is_placeholder()) {
      in_place.insert(outputs[i].node());
    }
  }
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    if (const std::string why = violation(*node, in_place); !why.empty()) {
      result.push_back(node->name() + ": " + node->target() + " (" + why + ")");
    }
  }
  for (size_t i = 0; i < specs.size() && i < outputs.size(); ++i) {
    if (specs[i].kind != OutputKind::BufferMutation && specs[i].kind != OutputKind::UserInputMutation) continue;
    const Node* value = outputs[i].is_node() ? outputs[i].node() : nullptr;
    if (value == nullptr || (!value->is_placeholder() && !is_call_of(*value, ExecKind::CopyInPlace))) {
      result.push_back("output " + std::to_string(i) + ": " + to_string(specs[i].kind) + " of '" + specs[i].target +
                       "' is not written back by copy_");
    }
  }
  return result;
}

bool is_executable_form(const ExportedProgram& program) { return executable_form_violations(program).empty(); }

}  // namespace kiln::aot
