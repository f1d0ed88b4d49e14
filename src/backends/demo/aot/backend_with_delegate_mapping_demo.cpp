#include "backends/demo/aot/backend_with_delegate_mapping_demo.h"

#include "aot/delegate/debug_handle.h"
#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::backends::demo {

using aot::AotError;
using aot::Node;

namespace {

bool calls(const Node* node, const char* op) {
  if (node == nullptr || !node->is_call_function()) return false;
  const aot::OpSchema* schema = aot::find_op_schema(node->target());
  return schema != nullptr && schema->qualified_name() == op;
}

const Node* first_input(const Node& node) {
  return !node.args().empty() && node.args()[0].is_node() ? node.args()[0].node() : nullptr;
}

// A convolution fuses with the relu that is its only user.
bool fuses_with_relu(const Node& conv) {
  return conv.users().size() == 1 && calls(conv.users()[0], "aten::relu.default");
}

// One op of the backend's program, as the seed's DummyOp serializes it.
std::string dummy_op(const std::string& op, const aot::DelegateDebugId& id) {
  return op + "," + (std::holds_alternative<int64_t>(id) ? std::to_string(std::get<int64_t>(id)) : std::get<std::string>(id)) + ",";
}

}  // namespace

std::vector<std::string> BackendWithDelegateMappingDemo::supported_ops() const {
  return {"aten::convolution.default", "aten::relu.default", "aten::tan.default"};
}

aot::NodeSupport BackendWithDelegateMappingDemo::supports(const Node& node, const aot::ExportedProgram&) const {
  if (calls(&node, "aten::tan.default")) return aot::NodeSupport::yes();
  if (calls(&node, "aten::convolution.default")) {
    return fuses_with_relu(node) ? aot::NodeSupport::yes()
                                 : aot::NodeSupport::no("a convolution must be followed by its only user, a relu");
  }
  if (calls(&node, "aten::relu.default")) {
    const Node* input = first_input(node);
    return calls(input, "aten::convolution.default") && fuses_with_relu(*input)
               ? aot::NodeSupport::yes()
               : aot::NodeSupport::no("a relu must follow a convolution");
  }
  return aot::NodeSupport::no(node.target() + " is not an op of " + id() + " (convolution + relu, tan)");
}

aot::PreprocessResult BackendWithDelegateMappingDemo::preprocess(const aot::ExportedProgram& edge_program,
                                                                 const std::vector<aot::CompileSpec>&) const {
  std::string processed;
  int64_t number_of_instructions = 0;
  aot::DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  for (const Node* node : edge_program.graph()) {
    if (!node->is_call_function()) continue;  // placeholders, get_attr, output
    if (calls(node, "aten::relu.default") && calls(first_input(*node), "aten::convolution.default")) {
      // Case 1: convolution + relu fuse into one backend op.
      const aot::DelegateDebugId id = builder.insert_delegate_mapping_entry(std::vector<const Node*>{first_input(*node), node});
      processed += dummy_op("conv_relu_op", id);
      ++number_of_instructions;
    } else if (calls(node, "aten::tan.default")) {
      // Case 2: tan is decomposed into three backend ops.
      for (const char* op : {"sin_decomp_from_tan", "cos_decomp_from_tan", "div_decomp_from_tan"}) {
        processed += dummy_op(op, builder.insert_delegate_mapping_entry(node));
        ++number_of_instructions;
      }
    } else if (!(calls(node, "aten::convolution.default") && fuses_with_relu(*node))) {
      throw AotError("node '" + node->name() + "' (" + node->target() + ") is not supported in backend " + id() +
                     " (it takes a convolution followed by a relu, and tan)");
    }
  }
  const std::string blob = std::to_string(number_of_instructions) + "#" + processed;
  aot::PreprocessResult result;
  result.processed_bytes.assign(blob.begin(), blob.end());
  result.debug_handle_map = builder.get_delegate_mapping();
  return result;
}

namespace {
const aot::BackendRegistration delegate_mapping_demo_registration(std::make_unique<BackendWithDelegateMappingDemo>());
}  // namespace

}  // namespace kiln::backends::demo
