#include "backends/onednn/aot/onednn_backend.h"

#include "aot/ir/exec_kind.h"
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/implementations.h"
#include "backends/onednn/aot/lowering.h"
#include "backends/onednn/aot/node_ops.h"
#include "backends/onednn/aot/packing.h"
#include "backends/onednn/aot/runtime_sizes.h"
#include "backends/onednn/aot/fusion/activation.h"
#include "backends/onednn/aot/fusion/softmax.h"
#include "backends/onednn/onednn_blob.h"

namespace kiln::backends::onednn {

using aot::Node;
using aot::NodeSupport;

namespace {

// How far through other layout ops a layout op looks for a compute op.
constexpr int kLayoutReach = 3;

bool is_supported_compute(const Node& node, const aot::ExportedProgram& program) {
  if (!node.is_call_function() || aot::is_call_of(node, aot::ExecKind::GetItem)) return false;
  if (has_symbolic_sizes(node)) return runtime_size_problem(node, program).empty();
  const Supported<NodeOp> op = describe_node(node);
  return op && !op->is_layout();
}

bool is_layout(const Node& node) {
  if (!node.is_call_function() || aot::is_call_of(node, aot::ExecKind::GetItem)) return false;
  const Supported<NodeOp> op = describe_node(node);
  return op && op->is_layout();
}

// A compute op OneDnnBackend runs feeds `node` through at most `reach` layout ops.
bool compute_upstream(const Node& node, int reach, const aot::ExportedProgram& program) {
  for (const Node* input : node.input_nodes()) {
    const Node* source = aot::is_call_of(*input, aot::ExecKind::GetItem) && !input->input_nodes().empty() ? input->input_nodes()[0] : input;
    if (is_supported_compute(*source, program)) return true;
    if (reach > 0 && is_layout(*source) && compute_upstream(*source, reach - 1, program)) return true;
  }
  return false;
}

// ... or reads `node`'s result through at most `reach` layout ops.
bool compute_downstream(const Node& node, int reach, const aot::ExportedProgram& program) {
  for (const Node* user : node.users()) {
    if (is_supported_compute(*user, program)) return true;
    if (reach > 0 && is_layout(*user) && compute_downstream(*user, reach - 1, program)) return true;
  }
  return false;
}

// Why a tensor `node` reads is not laid out as OneDnnBackend takes it, or "".
std::string input_layout_problem(const Node& node) {
  for (const Node* input : node.input_nodes()) {
    if (std::string problem = layout_problem(*input, "input"); !problem.empty()) return problem;
  }
  return "";
}

// Whether `node` is a placeholder of `program` that is no user input (a
// parameter, buffer or constant).
bool is_constant_input(const aot::ExportedProgram& program, const Node& node) {
  const auto placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    if (placeholders[i] == &node) return specs[i].kind != aot::InputKind::UserInput;
  }
  return false;
}

// Why a dequantize_per_channel `node` does not dequantize a weight (a
// parameter, buffer or constant of `program`), or "": OneDnnBackend computes
// the float32 weight at lowering.
std::string unweighted_dequantize(const Node& node, const aot::ExportedProgram& program) {
  if (aot::quant_op_kind(node.target()) != aot::QuantOpKind::DequantizePerChannel) return "";
  for (const Node* input : node.input_nodes()) {
    if (input->is_placeholder() && !is_constant_input(program, *input)) {
      return "it dequantizes the user input '" + input->name() + "' per channel; OneDnnBackend dequantizes weights only";
    }
  }
  return "";
}

}  // namespace

std::string OneDnnBackend::id() const { return kBackendId; }

std::vector<std::string> OneDnnBackend::supported_ops() const { return supported_op_names(); }

std::string OneDnnBackend::describe_blob(const std::vector<uint8_t>& blob) const { return describe_onednn_blob(blob); }

std::string OneDnnBackend::explain_blob(const std::vector<uint8_t>& blob) const {
  return describe_implementations(onednn_implementations(blob));
}

NodeSupport OneDnnBackend::supports(const Node& node, const aot::ExportedProgram& program) const {
  // The boolean nodes of a safe softmax run as part of it (fusion/softmax.h).
  if (std::optional<SafeSoftmax> pattern = safe_softmax_containing(node)) {
    if (const Supported<NodeOp> softmax = describe_node(*pattern->softmax); !softmax) return NodeSupport::no(softmax.reason());
    if (std::string problem = input_layout_problem(*pattern->softmax); !problem.empty()) return NodeSupport::no(problem);
    return NodeSupport::yes();
  }
  // So do a PReLU's comparison, product and select, when its slope is a
  // constant (fusion/activation.h).
  if (std::optional<PRelu> pattern = prelu_containing(node)) {
    if (!is_constant_input(program, *pattern->slope)) return NodeSupport::no("its PReLU's slope is an input, not a constant");
    if (has_symbolic_sizes(*pattern->x)) return NodeSupport::no("its PReLU's input has a run-time size");
    return NodeSupport::yes();
  }
  if (has_symbolic_sizes(node)) {
    // A matmul with a run-time number of rows (runtime_sizes.h).
    std::string problem = runtime_size_problem(node, program);
    return problem.empty() ? NodeSupport::yes() : NodeSupport::no(problem);
  }
  const Supported<NodeOp> op = describe_node(node);
  if (!op) return NodeSupport::no(op.reason());
  if (std::string problem = input_layout_problem(node); !problem.empty()) return NodeSupport::no(problem);
  if (std::string problem = unweighted_dequantize(node, program); !problem.empty()) return NodeSupport::no(problem);
  if (op->is_layout() && !compute_upstream(node, kLayoutReach, program) && !compute_downstream(node, kLayoutReach, program)) {
    return NodeSupport::no("a layout op with no oneDNN compute op next to it; alone it is not worth a delegate call");
  }
  return NodeSupport::yes();
}

aot::PreprocessResult OneDnnBackend::preprocess(const aot::ExportedProgram& edge_program,
                                                const std::vector<aot::CompileSpec>&) const {
  std::optional<ConcretePartition> concrete = concretize_runtime_sizes(edge_program);
  LoweredPartition lowered = concrete ? lower_partition(concrete->program, concrete->runtime_dims) : lower_partition(edge_program);
  pack_weights(&lowered);
  aot::PreprocessResult result;
  result.processed_bytes = serialize_onednn_blob(*lowered.graph);
  result.debug_handle_map = std::move(lowered.debug_handle_map);
  result.data_store_output = std::move(lowered.named_data);
  return result;
}

namespace {
const aot::BackendRegistration registration(std::make_unique<OneDnnBackend>());
}  // namespace

}  // namespace kiln::backends::onednn
