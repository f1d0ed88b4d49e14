#include "aot/ir/pass_manager.h"

#include "aot/ir/error.h"

namespace kiln::aot {

Pass graph_pass(std::string name, std::function<bool(Graph&)> run) {
  return Pass{std::move(name), [run = std::move(run)](ExportedProgram& program) { return run(program.graph()); }};
}

void update_signature_from_graph(ExportedProgram& program) {
  GraphSignature& signature = program.graph_signature();
  const auto placeholders = program.graph().placeholders();
  if (placeholders.size() != signature.input_specs.size()) {
    throw AotError("the number of placeholders changed from " + std::to_string(signature.input_specs.size()) +
                   " to " + std::to_string(placeholders.size()));
  }
  // A user-input mutation names its input by placeholder name: follow renames.
  std::map<std::string, std::string> renamed;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    ArgumentSpec& arg = signature.input_specs[i].arg;
    if (!arg.names_node()) continue;
    if (arg.name != placeholders[i]->name()) renamed[arg.name] = placeholders[i]->name();
    arg.name = placeholders[i]->name();
  }
  update_output_specs_from_graph(program, renamed);
}

void update_output_specs_from_graph(ExportedProgram& program, const std::map<std::string, std::string>& renamed_inputs) {
  GraphSignature& signature = program.graph_signature();
  const Node* output = program.graph().output_node();
  if (output == nullptr) throw AotError("the graph lost its output node");
  const ArgumentList& values = output->args().at(0).list();
  if (values.size() != signature.output_specs.size()) {
    throw AotError("the number of outputs changed from " + std::to_string(signature.output_specs.size()) + " to " +
                   std::to_string(values.size()));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    OutputSpec& spec = signature.output_specs[i];
    if (spec.arg.names_node() && values[i].is_node()) spec.arg.name = values[i].node()->name();
    if (spec.kind != OutputKind::UserInputMutation) continue;
    if (auto renamed = renamed_inputs.find(spec.target); renamed != renamed_inputs.end()) spec.target = renamed->second;
  }
}

void PassManager::run(ExportedProgram& program) const {
  modified_by_.clear();
  for (const Pass& pass : passes_) {
    bool modified = false;
    try {
      modified = pass.run(program);
      if (modified) update_signature_from_graph(program);
      if (verify_each_) program.verify();
    } catch (const AotError& error) {
      throw AotError("pass '" + pass.name + "': " + error.what());
    }
    if (modified) modified_by_.push_back(pass.name);
  }
}

ExportedProgram transform(const ExportedProgram& program, const std::vector<Pass>& passes) {
  ExportedProgram result(program.graph().clone(), program.graph_signature(), program.state_dict(),
                         program.range_constraints(), program.module_call_graph(), program.constants(),
                         program.dialect(), program.attributes());
  PassManager(passes).run(result);
  return result;
}

}  // namespace kiln::aot
