#include "aot/delegate/lowered_backend_module.h"
#include "aot/delegate/lowering_steps.h"

#include <set>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"

namespace kiln::aot {

LoweredBackendModule::LoweredBackendModule(ExportedProgram edge_program, std::string backend_id,
                                           std::vector<uint8_t> processed_bytes, std::vector<CompileSpec> compile_specs,
                                           NamedDataStoreOutput named_data_store_output)
    : original_program_(std::move(edge_program)),
      backend_id_(std::move(backend_id)),
      processed_bytes_(std::move(processed_bytes)),
      compile_specs_(std::move(compile_specs)),
      named_data_(std::move(named_data_store_output)) {}

LoweredBackendModule LoweredBackendModule::deep_copy() const {
  const ExportedProgram& p = original_program_;
  ExportedProgram copied(p.graph().clone(), p.graph_signature(), p.state_dict(), p.range_constraints(),
                         p.module_call_graph(), p.constants(), p.dialect(), p.attributes());
  LoweredBackendModule result(std::move(copied), backend_id_, processed_bytes_, compile_specs_, named_data_);
  result.meta = meta;
  return result;
}

std::shared_ptr<ModuleAttribute> LoweredBackendModule::clone() const {
  auto result = std::make_shared<LoweredBackendModule>(original_program_.deep_copy(), backend_id_, processed_bytes_,
                                                       compile_specs_, named_data_);
  result->meta = meta;
  return result;
}

std::string LoweredBackendModule::describe() const {
  size_t ops = 0;
  for (const Node* node : original_program_.graph()) {
    if (node->is_call_function() && !is_call_of(*node, ExecKind::GetItem)) ++ops;
  }
  std::string specs;
  for (const CompileSpec& spec : compile_specs_) specs += (specs.empty() ? "" : ", ") + spec.key;
  return "backend_id='" + backend_id_ + "', " + std::to_string(processed_bytes_.size()) + " bytes, " +
         std::to_string(ops) + " ops, compile_specs=[" + specs + "]";
}

namespace {

// get_attr + executorch_call_delegate, in `graph` before its insert point.
Node* insert_call_node(Graph& graph, const std::string& name, const LoweredBackendModule& module,
                       const ArgumentList& inputs) {
  Node* lowered = graph.get_attr(name);
  ArgumentList args = {lowered};
  args.insert(args.end(), inputs.begin(), inputs.end());
  Node* call = graph.call_function(kCallDelegate, std::move(args), {}, kCallDelegate);
  call->meta.val = delegate_call_meta(module.original_module());
  return call;
}

// The call and one getitem per returned output.
std::vector<Node*> insert_call(Graph& graph, const std::string& name, const LoweredBackendModule& module,
                               const ArgumentList& inputs) {
  Node* call = insert_call_node(graph, name, module, inputs);
  const auto& metas = std::get<std::vector<TensorMeta>>(call->meta.val);
  std::vector<Node*> results;
  for (size_t i = 0; i < metas.size(); ++i) {
    Node* item = graph.call_function(kGetItem, {call, static_cast<int64_t>(i)});
    item->meta.val = metas[i];
    results.push_back(item);
  }
  return results;
}

}  // namespace

ExportedProgram LoweredBackendModule::program() const {
  const ExportedProgram& original = original_program_;
  auto graph = std::make_unique<Graph>();
  std::vector<InputSpec> input_specs;
  ArgumentList inputs;
  const auto placeholders = original.graph().placeholders();
  const auto& specs = original.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != InputKind::UserInput) continue;
    Node* input = graph->placeholder(placeholders[i]->name(), placeholders[i]->meta.val);
    input->meta = placeholders[i]->meta;
    input_specs.push_back(specs[i]);
    inputs.push_back(input);
  }
  const std::string name = "lowered_module_0";
  auto module = std::make_shared<LoweredBackendModule>(deep_copy());
  const std::vector<Node*> results = insert_call(*graph, name, *module, inputs);

  std::vector<OutputSpec> output_specs;
  const std::vector<size_t> returned = delegate_call_output_indices(original);
  for (size_t i = 0; i < returned.size(); ++i) {
    OutputSpec spec = original.graph_signature().output_specs[returned[i]];
    spec.arg = ArgumentSpec::tensor(results[i]->name());
    output_specs.push_back(spec);
  }
  graph->output(ArgumentList(results.begin(), results.end()));
  return ExportedProgram(std::move(graph), GraphSignature(std::move(input_specs), std::move(output_specs)), {},
                         original.range_constraints(), original.module_call_graph(), {}, original.dialect(),
                         {{name, std::move(module)}});
}

std::string get_lowered_module_name(const ExportedProgram& program) {
  for (size_t i = 0;; ++i) {
    const std::string name = "lowered_module_" + std::to_string(i);
    if (program.find_attribute(name) == nullptr && program.graph().find_node(name) == nullptr) return name;
  }
}

Node* detail::insert_delegate_call_named(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                                         const ArgumentList& inputs, const std::string& name) {
  if (module == nullptr) throw AotError("insert_delegate_call: null module");
  Node* call = insert_call_node(program.graph(), name, *module, inputs);
  program.set_attribute(name, std::move(module));
  return call;
}

Node* insert_delegate_call(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                           const ArgumentList& inputs) {
  if (module == nullptr) throw AotError("insert_delegate_call: null module");
  return detail::insert_delegate_call_named(program, std::move(module), inputs, get_lowered_module_name(program));
}

std::vector<Node*> call_lowered_module(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                                       const ArgumentList& inputs) {
  if (module == nullptr) throw AotError("call_lowered_module: null module");
  const std::string name = get_lowered_module_name(program);
  std::vector<Node*> results = insert_call(program.graph(), name, *module, inputs);
  program.set_attribute(name, std::move(module));
  return results;
}

std::vector<LoweredSubmodule> get_lowered_submodules(const ExportedProgram& program) {
  std::vector<LoweredSubmodule> result;
  for (Node* node : program.graph()) {
    if (!is_call_of(*node, ExecKind::DelegateCall)) continue;
    if (node->args().empty() || !node->args()[0].is_node()) {
      throw AotError("node '" + node->name() + "' calls a delegate without a lowered module");
    }
    const std::string& name = node->args()[0].node()->target();
    auto module = std::dynamic_pointer_cast<LoweredBackendModule>(program.find_attribute(name));
    if (module == nullptr) {
      throw AotError("node '" + node->name() + "' calls '" + name + "', which is not a LoweredBackendModule");
    }
    result.push_back({name, std::move(module), node});
  }
  return result;
}

std::vector<std::shared_ptr<LoweredBackendModule>> get_lowered_backend_modules(const ExportedProgram& program) {
  std::vector<std::shared_ptr<LoweredBackendModule>> result;
  for (LoweredSubmodule& submodule : get_lowered_submodules(program)) result.push_back(std::move(submodule.module));
  return result;
}

}  // namespace kiln::aot
