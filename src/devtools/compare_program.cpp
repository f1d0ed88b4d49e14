#include "aot/pipeline/compare_program.h"

#include <map>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/quantization.h"
#include "aot/passes/debug_handles.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "devtools/profile_session.h"
#include "devtools/trace_recorder.h"

namespace kiln::aot {

namespace {

// Throws unless the reference numbers its nodes as the record does.
void check_reference(const devtools::DebugRecord& record, const std::map<int64_t, devtools::SourceNode>& nodes,
                     const std::string& label) {
  for (const auto& [handle, node] : record.nodes) {
    const auto it = nodes.find(handle);
    if (it == nodes.end() || it->second.name != node.name || it->second.op != node.op) {
      throw AotError(label + " is not the program the debug record was lowered from: handle " +
                     std::to_string(handle) + " is '" + node.name + "' (" + node.op + ") in the record, " +
                     (it == nodes.end() ? std::string("absent") : "'" + it->second.name + "' (" + it->second.op + ")") +
                     " in " + label);
    }
  }
}

// Each source op's result on the reference interpreter: the last node
// carrying its handle (a decomposed op's last piece is the op's result).
std::map<int64_t, devtools::ReferenceOutput> reference_outputs(ExportedProgram& reference,
                                                              const std::vector<Value>& leaves) {
  std::map<int64_t, devtools::ReferenceOutput> expected;
  size_t order = 0;
  call_with_leaves(reference, leaves, [&](const Node& node, const std::vector<Value>& values) {
    ++order;
    if (!node.meta.debug_handle || is_call_of(node, ExecKind::Alloc) || values.empty()) return;
    if (const auto* tensor = std::get_if<HostTensor>(&values.front())) {
      devtools::ReferenceOutput& output = expected[*node.meta.debug_handle] = {order, tensor->clone()};
      if (const std::optional<TensorQParams> grid = constant_tensor_qparams(node)) {
        output.scale = grid->scale;
        output.zero_point = grid->zero_point;
      }
    }
  });
  return expected;
}

// The run, every intermediate output logged.
devtools::TraceRecorder run_logged(devtools::RuntimeSession& session) {
  devtools::TraceRecorder run(/*keep_outputs=*/true);
  {
    devtools::ScopedEventTracer traced(session, run);
    session.execute();
  }
  run.end_run();
  return run;
}

}  // namespace

std::vector<Value> ones_user_inputs(const ExportedProgram& program) {
  std::vector<Value> leaves;
  const auto placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != InputKind::UserInput) continue;
    const Node* node = placeholders.at(i);
    const auto* meta = std::get_if<TensorMeta>(&node->meta.val);
    if (meta == nullptr) throw AotError("input '" + node->name() + "' is not a tensor; pass the inputs with --inputs");
    if (!meta->is_static()) {
      throw AotError("input '" + node->name() + "' has a dynamic size; pass the inputs with --inputs");
    }
    leaves.emplace_back(devtools::ones(meta->dtype, meta->static_sizes()));
  }
  return leaves;
}

devtools::Comparison compare_program(const devtools::DebugRecord& record, devtools::RuntimeSession& session,
                                     ExportedProgram reference, const std::string& reference_label,
                                     std::optional<std::vector<Value>> inputs) {
  devtools::check_session_method(session, record);
  generate_debug_handles(reference);  // as lower numbered it
  check_reference(record, devtools::source_nodes(reference), reference_label);
  const std::vector<Value> leaves = inputs ? std::move(*inputs) : ones_user_inputs(reference);
  // Copies: the reference call writes a mutated user input back into its tensor.
  std::vector<HostTensor> runtime_inputs;
  for (const Value& leaf : leaves) {
    const auto* tensor = std::get_if<HostTensor>(&leaf);
    if (tensor == nullptr) throw AotError("'kiln compare' passes tensor inputs only; an input is a number");
    runtime_inputs.push_back(tensor->clone());
  }
  to_core_aten(reference);
  const std::map<int64_t, devtools::ReferenceOutput> expected = reference_outputs(reference, leaves);
  session.set_inputs(std::move(runtime_inputs));
  const devtools::TraceRecorder run = run_logged(session);
  return devtools::compare_outputs(record, run, expected);
}

}  // namespace kiln::aot
