#include "devtools/compare_program.h"

#include <map>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/quantization.h"
#include "aot/passes/debug_handles.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "devtools/profile_session.h"

namespace kiln::devtools {

namespace {

using aot::AotError;
using aot::HostTensor;

// Throws unless the reference numbers its nodes as the record does.
void check_reference(const DebugRecord& record, const std::map<int64_t, SourceNode>& nodes, const std::string& label) {
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
std::map<int64_t, ReferenceOutput> reference_outputs(ExportedProgram& reference, const std::vector<Value>& leaves) {
  std::map<int64_t, ReferenceOutput> expected;
  size_t order = 0;
  aot::call_with_leaves(reference, leaves, [&](const aot::Node& node, const std::vector<Value>& values) {
    ++order;
    if (!node.meta.debug_handle || aot::is_call_of(node, aot::ExecKind::Alloc) || values.empty()) return;
    if (const auto* tensor = std::get_if<HostTensor>(&values.front())) {
      ReferenceOutput& output = expected[*node.meta.debug_handle] = {order, tensor->clone()};
      if (const std::optional<aot::TensorQParams> grid = aot::constant_tensor_qparams(node)) {
        output.scale = grid->scale;
        output.zero_point = grid->zero_point;
      }
    }
  });
  return expected;
}

// The run, every intermediate output logged.
TraceRecorder run_logged(RuntimeSession& session) {
  TraceRecorder run(/*keep_outputs=*/true);
  {
    ScopedEventTracer traced(session, run);
    session.execute();
  }
  run.end_run();
  return run;
}

/// The reference numbered as lowering numbered it and checked against the
/// record; its user inputs (`inputs`, or ones) as tensors for the runtime.
std::vector<Value> prepare_reference(const DebugRecord& record, ExportedProgram& reference,
                                     const std::string& reference_label, std::optional<std::vector<Value>>& inputs,
                                     std::vector<HostTensor>* runtime_inputs) {
  aot::generate_debug_handles(reference);  // as lower numbered it
  check_reference(record, source_nodes(reference), reference_label);
  std::vector<Value> leaves = inputs ? std::move(*inputs) : ones_user_inputs(reference);
  // Copies: the reference call writes a mutated user input back into its tensor.
  for (const Value& leaf : leaves) {
    const auto* tensor = std::get_if<HostTensor>(&leaf);
    if (tensor == nullptr) throw AotError("'kiln compare' passes tensor inputs only; an input is a number");
    if (runtime_inputs != nullptr) runtime_inputs->push_back(tensor->clone());
  }
  aot::to_core_aten(reference);
  return leaves;
}

}  // namespace

std::vector<Value> ones_user_inputs(const ExportedProgram& program) {
  std::vector<Value> leaves;
  const auto placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != aot::InputKind::UserInput) continue;
    const aot::Node* node = placeholders.at(i);
    const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
    if (meta == nullptr) throw AotError("input '" + node->name() + "' is not a tensor; pass the inputs with --inputs");
    if (!meta->is_static()) {
      throw AotError("input '" + node->name() + "' has a dynamic size; pass the inputs with --inputs");
    }
    leaves.emplace_back(ones(meta->dtype, meta->static_sizes()));
  }
  return leaves;
}

Comparison compare_program(const DebugRecord& record, RuntimeSession& session, ExportedProgram reference,
                           const std::string& reference_label, std::optional<std::vector<Value>> inputs) {
  check_session_method(session, record);
  std::vector<HostTensor> runtime_inputs;
  const std::vector<Value> leaves = prepare_reference(record, reference, reference_label, inputs, &runtime_inputs);
  const std::map<int64_t, ReferenceOutput> expected = reference_outputs(reference, leaves);
  session.set_inputs(std::move(runtime_inputs));
  const TraceRecorder run = run_logged(session);
  return compare_outputs(record, run, expected);
}

Comparison compare_recorded_run(const DebugRecord& record, const TraceRecorder& run, ExportedProgram reference,
                                const std::string& reference_label, std::optional<std::vector<Value>> inputs) {
  bool logged = false;
  for (const auto& e : run.instructions()) logged = logged || (e.run == 0 && e.output.defined());
  for (const auto& e : run.delegate_events()) logged = logged || (e.run == 0 && e.output.defined());
  if (!logged) {
    throw AotError("the recorded run logged no output to compare (record it with 'kiln run MODEL.pte --etdump FILE "
                   "--debug-buffer FILE', and pass both)");
  }
  const std::vector<Value> leaves = prepare_reference(record, reference, reference_label, inputs, nullptr);
  return compare_outputs(record, run, reference_outputs(reference, leaves));
}

}  // namespace kiln::devtools
