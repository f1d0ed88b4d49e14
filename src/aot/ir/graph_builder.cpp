#include "aot/ir/graph_builder.h"

#include <algorithm>

#include "aot/ir/error.h"
#include "aot/ir/infer_meta.h"
#include "aot/ir/op_schema.h"

namespace kiln::aot {

GraphBuilder::GraphBuilder() : graph_(std::make_unique<Graph>()) {}

Node* GraphBuilder::input(const std::string& name, TensorMeta meta) {
  Node* node = graph_->placeholder(name, std::move(meta));
  if (node->name() != name) {
    throw AotError("input name '" + name + "' is taken or not a valid identifier (it would become '" + node->name() + "')");
  }
  user_inputs_.push_back(node);
  return node;
}

Node* GraphBuilder::lifted(const std::string& prefix, const std::string& target, const HostTensor& value) {
  if (!value.defined()) throw AotError("lifted tensor '" + target + "' has no data");
  std::string name = prefix + target;
  std::replace(name.begin(), name.end(), '.', '_');
  Node* node = graph_->placeholder(name, TensorMeta(value.dtype(), value.sizes()));
  lifted_nodes_.push_back(node);
  return node;
}

Node* GraphBuilder::parameter(const std::string& target, HostTensor value) {
  if (state_dict_.count(target)) throw AotError("parameter '" + target + "' is defined twice");
  Node* node = lifted("p_", target, value);
  lifted_specs_.push_back({InputKind::Parameter, ArgumentSpec::tensor(node->name()), target, std::nullopt});
  state_dict_[target] = std::move(value);
  return node;
}

Node* GraphBuilder::buffer(const std::string& target, HostTensor value, bool persistent) {
  if (state_dict_.count(target) || constants_.count(target)) throw AotError("buffer '" + target + "' is defined twice");
  Node* node = lifted("b_", target, value);
  lifted_specs_.push_back({InputKind::Buffer, ArgumentSpec::tensor(node->name()), target, persistent});
  if (persistent) {
    state_dict_[target] = std::move(value);
  } else {
    constants_[target] = std::move(value);
  }
  return node;
}

Node* GraphBuilder::constant(const std::string& target, HostTensor value) {
  if (constants_.count(target)) throw AotError("constant '" + target + "' is defined twice");
  Node* node = lifted("c_", target, value);
  lifted_specs_.push_back({InputKind::ConstantTensor, ArgumentSpec::tensor(node->name()), target, std::nullopt});
  constants_[target] = std::move(value);
  return node;
}

Node* GraphBuilder::call(const std::string& op, ArgumentList args, KwargList kwargs) {
  const OpSchema& schema = get_op_schema(op);
  Node* node = graph_->call_function(schema.qualified_name(), std::move(args), std::move(kwargs));
  try {
    infer_meta(*node);
  } catch (...) {
    graph_->erase_node(node);
    throw;
  }
  return node;
}

Node* GraphBuilder::getitem(Node* value, int64_t index) {
  Node* node = graph_->call_function("getitem", {value, index});
  try {
    infer_meta(*node);
  } catch (...) {
    graph_->erase_node(node);
    throw;
  }
  return node;
}

void GraphBuilder::mutate_buffer(const std::string& target, Node* value) {
  mutations_.push_back({{OutputKind::BufferMutation, ArgumentSpec::tensor(value->name()), target}, value});
}

void GraphBuilder::mutate_input(Node* input, Node* value) {
  if (std::find(user_inputs_.begin(), user_inputs_.end(), input) == user_inputs_.end()) {
    throw AotError("cannot mutate '" + input->name() + "': it is not a user input");
  }
  mutations_.push_back({{OutputKind::UserInputMutation, ArgumentSpec::tensor(value->name()), input->name()}, value});
}

void GraphBuilder::output(std::vector<Node*> values) {
  if (has_output_) throw AotError("the outputs are already set");
  outputs_ = std::move(values);
  has_output_ = true;
}

void GraphBuilder::set_range(const std::string& symbol, ValueRange range) { ranges_[symbol] = range; }

ExportedProgram GraphBuilder::build() && {
  if (!has_output_) throw AotError("the program has no outputs: call output() first");
  // torch.export's calling convention: parameters, buffers, constants, then user inputs.
  std::vector<InputSpec> input_specs;
  std::vector<Node*> placeholder_order;
  for (InputKind kind : {InputKind::Parameter, InputKind::Buffer, InputKind::ConstantTensor}) {
    for (size_t i = 0; i < lifted_specs_.size(); ++i) {
      if (lifted_specs_[i].kind != kind) continue;
      input_specs.push_back(lifted_specs_[i]);
      placeholder_order.push_back(lifted_nodes_[i]);
    }
  }
  placeholder_order.insert(placeholder_order.end(), user_inputs_.begin(), user_inputs_.end());
  TreeSpec args_spec{TreeSpec::Kind::Tuple, {}, {}};
  for (Node* node : user_inputs_) {
    input_specs.push_back({InputKind::UserInput, ArgumentSpec::tensor(node->name()), "", std::nullopt});
    args_spec.children.push_back(TreeSpec::leaf());
  }

  std::vector<OutputSpec> output_specs;
  ArgumentList returned;
  for (const auto& [spec, node] : mutations_) {
    if (spec.kind == OutputKind::BufferMutation) {
      output_specs.push_back(spec);
      returned.push_back(node);
    }
  }
  for (const auto& [spec, node] : mutations_) {
    if (spec.kind == OutputKind::UserInputMutation) {
      output_specs.push_back(spec);
      returned.push_back(node);
    }
  }
  TreeSpec out_spec = TreeSpec::leaf();
  if (outputs_.size() != 1) out_spec = TreeSpec{TreeSpec::Kind::Tuple, {}, std::vector<TreeSpec>(outputs_.size())};
  for (Node* node : outputs_) {
    output_specs.push_back({OutputKind::UserOutput, ArgumentSpec::tensor(node->name()), ""});
    returned.push_back(node);
  }
  graph_->output(std::move(returned));
  Node* first_body_node = graph_->placeholders().empty() ? nullptr : graph_->placeholders().back()->next();
  for (Node* node : placeholder_order) graph_->move_before(node, first_body_node);

  ModuleCallSignature root;
  for (const InputSpec& spec : input_specs) {
    if (spec.kind == InputKind::UserInput) root.inputs.push_back(spec.arg);
  }
  for (const OutputSpec& spec : output_specs) {
    if (spec.kind == OutputKind::UserOutput) root.outputs.push_back(spec.arg);
  }
  root.in_spec = TreeSpec{TreeSpec::Kind::Tuple, {}, {args_spec, TreeSpec{TreeSpec::Kind::Dict, {}, {}}}};
  root.out_spec = out_spec;
  for (Node* node : user_inputs_) root.forward_arg_names.push_back(node->name());

  return ExportedProgram(std::move(graph_), GraphSignature(std::move(input_specs), std::move(output_specs)),
                         std::move(state_dict_), std::move(ranges_), {ModuleCallEntry{"", std::move(root)}},
                         std::move(constants_));
}

}  // namespace kiln::aot
