// write_back_mutations: a mutated buffer or user input is written back by an
// explicit `aten::copy_.default(target, value)` before the output node, which
// the mutation output then names — ExecuTorch's
// insert_write_back_for_buffers_pass, so that the emitter writes the kernel
// call ExecuTorch writes. An output that is the target placeholder itself
// (nothing changed it), or already its copy_, needs no copy. See memory_ops.h
// for the whole contract.
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/memory_ops.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"

namespace kiln::aot {
namespace {

// The placeholder a mutation output writes into.
Node* mutation_target(const ExportedProgram& program, const OutputSpec& spec) {
  const auto& inputs = program.graph_signature().input_specs;
  const auto placeholders = program.graph().placeholders();
  for (size_t i = 0; i < inputs.size() && i < placeholders.size(); ++i) {
    const bool buffer = spec.kind == OutputKind::BufferMutation && inputs[i].kind == InputKind::Buffer &&
                        inputs[i].target == spec.target;
    const bool user_input = spec.kind == OutputKind::UserInputMutation && inputs[i].kind == InputKind::UserInput &&
                            inputs[i].arg.name == spec.target;
    if (buffer || user_input) return placeholders[i];
  }
  throw AotError(to_string(spec.kind) + " output '" + spec.arg.name + "' names '" + spec.target +
                 "', which is no " + (spec.kind == OutputKind::BufferMutation ? "buffer" : "user input"));
}

}  // namespace

bool write_back_mutations(ExportedProgram& program) {
  Graph& graph = program.graph();
  Node* output = graph.output_node();
  ArgumentList values = output->args().at(0).list();
  const auto& specs = program.graph_signature().output_specs;
  bool changed = false;
  for (size_t i = 0; i < specs.size() && i < values.size(); ++i) {
    if (specs[i].kind != OutputKind::BufferMutation && specs[i].kind != OutputKind::UserInputMutation) continue;
    Node* target = mutation_target(program, specs[i]);
    if (!values[i].is_node()) {
      throw AotError(to_string(specs[i].kind) + " output of '" + specs[i].target + "' is " + to_string(values[i]) +
                     ", not a tensor");
    }
    Node* value = values[i].node();
    const bool written_back = is_call_of(*value, ExecKind::CopyInPlace) && value->args().at(0) == Argument(target);
    if (value == target || written_back) continue;
    graph.set_insert_point(output);
    Node* copy = graph.call_function(kCopyInPlace, {target, value}, {}, "copy_");
    graph.set_insert_point(nullptr);
    copy->meta.val = target->meta.val;
    passes::copy_provenance(*value, *copy);
    values[i] = copy;
    changed = true;
  }
  if (changed) output->set_args(ArgumentList{Argument(std::move(values))});
  return changed;
}

}  // namespace kiln::aot
