#include "aot/ir/node.h"

#include <algorithm>
#include <unordered_set>

#include "aot/ir/error.h"
#include "aot/ir/graph.h"

namespace kiln::aot {

std::string to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Placeholder: return "placeholder";
    case OpKind::GetAttr: return "get_attr";
    case OpKind::CallFunction: return "call_function";
    case OpKind::Output: return "output";
  }
  return "unknown";
}

const TensorMeta& NodeMeta::tensor() const {
  if (const auto* tensor = std::get_if<TensorMeta>(&val)) return *tensor;
  throw AotError("node meta holds no single tensor (val = '" + aot::to_string(val) + "')");
}

const Argument* Node::kwarg(const std::string& name) const {
  for (const auto& [key, value] : kwargs_) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::vector<Node*> Node::input_nodes() const {
  // Most nodes take a handful of inputs, which a linear scan dedupes fastest;
  // a node taking thousands (a delegate call, the output) needs a set.
  constexpr size_t kLinearScanLimit = 16;
  std::vector<Node*> inputs;
  std::unordered_set<Node*> seen;
  auto add = [&](Node* node) {
    if (inputs.size() < kLinearScanLimit) {
      if (std::find(inputs.begin(), inputs.end(), node) == inputs.end()) inputs.push_back(node);
      return;
    }
    if (seen.empty()) seen.insert(inputs.begin(), inputs.end());
    if (seen.insert(node).second) inputs.push_back(node);
  };
  for (const Argument& arg : args_) for_each_node(arg, add);
  for (const auto& [key, value] : kwargs_) for_each_node(value, add);
  return inputs;
}

void Node::unlink_inputs() {
  for (Node* input : input_nodes()) {
    auto& users = input->users_;
    users.erase(std::remove(users.begin(), users.end(), this), users.end());
  }
}

void Node::check_same_graph(const ArgumentList& args, const KwargList& kwargs) const {
  auto check = [this](Node* input) {
    if (&input->graph() != graph_) {
      throw AotError("node '" + name_ + "' cannot use '" + input->name() + "' of another graph");
    }
  };
  for (const Argument& arg : args) for_each_node(arg, check);
  for (const auto& [key, value] : kwargs) for_each_node(value, check);
}

void Node::link_inputs() {
  check_same_graph(args_, kwargs_);
  for (Node* input : input_nodes()) input->users_.push_back(this);
}

void Node::set_args(ArgumentList args) {
  check_same_graph(args, kwargs_);
  unlink_inputs();
  args_ = std::move(args);
  link_inputs();
}

void Node::set_kwargs(KwargList kwargs) {
  check_same_graph(args_, kwargs);
  unlink_inputs();
  kwargs_ = std::move(kwargs);
  link_inputs();
}

void Node::set_arg(size_t index, Argument value) {
  if (index >= args_.size()) {
    throw AotError("node '" + name_ + "' has no argument " + std::to_string(index));
  }
  ArgumentList args = args_;
  args[index] = std::move(value);
  set_args(std::move(args));
}

namespace {

Argument replaced(const Argument& arg, Node* old_node, Node* new_node) {
  if (arg.is_node()) return arg.node() == old_node ? Argument(new_node) : arg;
  if (arg.is_list()) {
    ArgumentList list;
    list.reserve(arg.list().size());
    for (const Argument& item : arg.list()) list.push_back(replaced(item, old_node, new_node));
    return list;
  }
  return arg;
}

}  // namespace

void Node::replace_input_with(Node* old_input, Node* new_input) {
  ArgumentList args;
  for (const Argument& arg : args_) args.push_back(replaced(arg, old_input, new_input));
  KwargList kwargs;
  for (const auto& [key, value] : kwargs_) kwargs.emplace_back(key, replaced(value, old_input, new_input));
  check_same_graph(args, kwargs);
  unlink_inputs();
  args_ = std::move(args);
  kwargs_ = std::move(kwargs);
  link_inputs();
}

std::vector<Node*> Node::replace_all_uses_with(Node* replacement) {
  if (replacement == this) return {};
  std::vector<Node*> changed = users_;
  for (Node* user : changed) user->replace_input_with(this, replacement);
  return changed;
}

Node* Node::prev() const {
  if (position_ == graph_->nodes_.begin()) return nullptr;
  return std::prev(position_)->get();
}

Node* Node::next() const {
  auto after = std::next(position_);
  return after == graph_->nodes_.end() ? nullptr : after->get();
}

std::string Node::format() const {
  std::string text = name_ + " = " + to_string(op_) + "[target=" + target_ + "](";
  bool first = true;
  for (const Argument& arg : args_) {
    text += (first ? "" : ", ") + aot::to_string(arg);
    first = false;
  }
  for (const auto& [key, value] : kwargs_) {
    text += (first ? "" : ", ") + key + "=" + aot::to_string(value);
    first = false;
  }
  return text + ")";
}

}  // namespace kiln::aot
