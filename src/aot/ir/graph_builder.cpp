#include "aot/ir/graph_builder.h"

#include <algorithm>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"

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

Node* GraphBuilder::lift(InputKind kind, const std::string& target, HostTensor value, bool persistent) {
  if (!value.defined()) throw AotError("lifted tensor '" + target + "' has no data");
  if (state_dict_.count(target) || constants_.count(target)) {
    throw AotError(to_string(kind) + " '" + target + "' is defined twice");
  }
  // torch.export's placeholder names: p_ parameters, b_ buffers, c_ constants.
  const char* prefix = kind == InputKind::Parameter ? "p_" : kind == InputKind::Buffer ? "b_" : "c_";
  std::string name = prefix + target;
  std::replace(name.begin(), name.end(), '.', '_');
  Node* node = graph_->placeholder(name, TensorMeta(value.dtype(), value.sizes()));
  lifted_nodes_.push_back(node);
  InputSpec spec{kind, ArgumentSpec::tensor(node->name()), target, std::nullopt};
  if (kind == InputKind::Buffer) spec.persistent = persistent;
  lifted_specs_.push_back(spec);
  if (spec.in_state_dict()) {
    state_dict_[target] = std::move(value);
  } else {
    constants_[target] = std::move(value);
  }
  return node;
}

Node* GraphBuilder::parameter(const std::string& target, HostTensor value) {
  return lift(InputKind::Parameter, target, std::move(value), true);
}

Node* GraphBuilder::buffer(const std::string& target, HostTensor value, bool persistent) {
  return lift(InputKind::Buffer, target, std::move(value), persistent);
}

Node* GraphBuilder::constant(const std::string& target, HostTensor value) {
  return lift(InputKind::ConstantTensor, target, std::move(value), true);
}

Node* GraphBuilder::call(const std::string& op, ArgumentList args, KwargList kwargs) {
  return add_call(get_op_schema(op).qualified_name(), std::move(args), std::move(kwargs));
}

Node* GraphBuilder::getitem(Node* value, int64_t index) { return add_call(kGetItem, {value, index}, {}); }

Node* GraphBuilder::add_call(const std::string& target, ArgumentList args, KwargList kwargs) {
  Node* node = graph_->call_function(target, std::move(args), std::move(kwargs));
  try {
    infer_meta(*node);
  } catch (...) {
    graph_->erase_node(node);  // a rejected call leaves nothing behind
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
