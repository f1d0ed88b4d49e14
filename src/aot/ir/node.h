// Node: one operation of a Graph, in torch.fx's shape.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/argument.h"
#include "aot/ir/tensor_meta.h"

namespace kiln::aot {

class Graph;

/// The four node kinds of an exported graph (fx's `node.op`).
enum class OpKind { Placeholder, GetAttr, CallFunction, Output };
std::string to_string(OpKind kind);  // "placeholder", "get_attr", ...

/// One frame of meta["nn_module_stack"]: the module's path and class.
struct ModuleStackEntry {
  std::string key;   ///< fx's stable key, e.g. "L__self___conv1"
  std::string path;  ///< "conv1"
  std::string type;  ///< "torch.nn.modules.conv.Conv2d"
  bool operator==(const ModuleStackEntry&) const = default;
};

/// What passes and tools record about a node besides its computation.
struct NodeMeta {
  ValueMeta val;                                 ///< meta["val"]
  std::optional<int64_t> debug_handle;           ///< meta["debug_handle"]
  std::string stack_trace;                       ///< meta["stack_trace"]
  std::vector<ModuleStackEntry> nn_module_stack; ///< meta["nn_module_stack"], outermost first
  std::string delegation_tag;                    ///< meta["delegation_tag"]; empty: not tagged
  /// meta["no_copy"]: a tagged constant that must not be duplicated when
  /// another partition also uses it (lowering fails instead).
  bool no_copy = false;
  std::string torch_fn;                          ///< meta["torch_fn"], if recorded

  /// The tensor meta; throws AotError if val is not a single tensor.
  const TensorMeta& tensor() const;
};

/// The keyword arguments of a call, in the order they were given.
using KwargList = std::vector<std::pair<std::string, Argument>>;

/// A node belongs to one Graph, which creates, owns and destroys it. Inputs
/// are read through args/kwargs; edits go through the setters so that every
/// node's `users()` stays in step.
class Node {
 public:
  OpKind op() const { return op_; }
  const std::string& name() const { return name_; }
  /// placeholder: its name; get_attr: the attribute path; call_function: the
  /// op ("aten::add.Tensor", "getitem", ...); output: "output".
  const std::string& target() const { return target_; }
  const ArgumentList& args() const { return args_; }
  const KwargList& kwargs() const { return kwargs_; }
  /// The keyword argument `name`, or null.
  const Argument* kwarg(const std::string& name) const;
  Graph& graph() const { return *graph_; }

  NodeMeta meta;

  void set_args(ArgumentList args);
  void set_kwargs(KwargList kwargs);
  void set_arg(size_t index, Argument value);
  void set_target(std::string target) { target_ = std::move(target); }

  /// Nodes whose args or kwargs reference this one, in the order they became users.
  const std::vector<Node*>& users() const { return users_; }
  /// Nodes this one references, each once, in order of first reference.
  std::vector<Node*> input_nodes() const;

  /// Points every user of this node at `replacement` instead; returns the
  /// users that changed.
  std::vector<Node*> replace_all_uses_with(Node* replacement);
  /// Points this node's references to `old_input` at `new_input`.
  void replace_input_with(Node* old_input, Node* new_input);

  /// The node before/after this one in the graph, or null at either end.
  Node* prev() const;
  Node* next() const;
  /// True if this node comes before `other` in their graph: O(1), from an
  /// order key the graph keeps up to date as nodes are inserted and moved.
  bool is_before(const Node& other) const { return order_ < other.order_; }

  bool is_placeholder() const { return op_ == OpKind::Placeholder; }
  bool is_call_function() const { return op_ == OpKind::CallFunction; }
  bool is_output() const { return op_ == OpKind::Output; }
  bool is_get_attr() const { return op_ == OpKind::GetAttr; }

  /// "add = call_function[target=aten::add.Tensor](x, y, alpha=2)": a
  /// one-line description for error messages.
  std::string format() const;

 private:
  friend class Graph;
  Node(Graph* graph, OpKind op, std::string name, std::string target)
      : graph_(graph), op_(op), name_(std::move(name)), target_(std::move(target)) {}

  void unlink_inputs();
  /// Adds this node to its inputs' users; throws, changing nothing, if an
  /// input belongs to another graph.
  void link_inputs();
  void check_same_graph(const ArgumentList& args, const KwargList& kwargs) const;

  Graph* graph_;
  OpKind op_;
  std::string name_;
  std::string target_;
  ArgumentList args_;
  KwargList kwargs_;
  std::vector<Node*> users_;
  std::list<std::unique_ptr<Node>>::iterator position_;
  uint64_t order_ = 0;  // increasing along the graph's list (Graph::assign_order)
  // This node's entry in its graph's name table (set by the graph), which
  // lint checks without a lookup.
  const std::pair<const std::string, Node*>* name_entry_ = nullptr;
};

}  // namespace kiln::aot
