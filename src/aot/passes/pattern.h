// Small matchers for the fusion passes (fuse_*.cpp): is a node a call of an
// op, what are its bound arguments, and removing what a fusion left unused.
// Internal to passes/.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"
#include "aot/ir/graph.h"
#include "aot/ir/pass_manager.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/passes/lowering.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot::passes {

/// `node`'s bound arguments if it calls `target` (a qualified op,
/// "aten::mul.Tensor"), else nothing.
inline std::optional<std::vector<Argument>> call_args(const Node* node, const std::string& target) {
  if (node == nullptr || !node->is_call_function() || canonical_target(node->target()) != target) return std::nullopt;
  return bind_node_arguments(*node);
}

/// True if `node` is a float32 tensor.
inline bool is_float(const Node* node) {
  const auto* meta = node != nullptr ? std::get_if<TensorMeta>(&node->meta.val) : nullptr;
  return meta != nullptr && meta->dtype == ScalarType::Float;
}

/// `node`'s sizes if it is a tensor of static sizes, else nothing.
inline std::optional<std::vector<int64_t>> static_sizes_of(const Node* node) {
  const auto* meta = node != nullptr ? std::get_if<TensorMeta>(&node->meta.val) : nullptr;
  if (meta == nullptr || !meta->is_static()) return std::nullopt;
  return meta->static_sizes();
}

/// The node an argument names, or null.
inline Node* node_of(const Argument& arg) { return arg.is_node() ? arg.node() : nullptr; }

/// True if `arg` is the number `value` (an int or a float).
inline bool is_number(const Argument& arg, double value) {
  return (arg.is_int() && static_cast<double>(arg.to_int()) == value) || (arg.is_double() && arg.to_double() == value);
}

/// The nodes that read `node`'s value: its users but the graph asserts
/// (torch.export's metadata checks, which lowering drops).
inline std::vector<Node*> readers(const Node* node) {
  std::vector<Node*> result;
  for (Node* user : node->users()) {
    if (!user->is_call_function() || !is_graph_assert(user->target())) result.push_back(user);
  }
  return result;
}

/// True if `node`'s value is read by `user` only.
inline bool only_read_by(const Node* node, const Node* user) {
  const std::vector<Node*> r = readers(node);
  return r.size() == 1 && r.front() == user;
}

/// Erases `nodes` (a fusion's pattern) that nothing reads any more, users
/// before the nodes they read, with the graph asserts on them.
inline void erase_unused(Graph& graph, std::vector<Node*> nodes) {
  for (bool erased = true; erased;) {
    erased = false;
    for (Node*& node : nodes) {
      if (node == nullptr || !readers(node).empty()) continue;
      for (Node* check : std::vector<Node*>(node->users())) graph.erase_node(check);
      graph.erase_node(node);
      node = nullptr;
      erased = true;
    }
  }
}

/// Scans the graph in order; each node `match` accepts is rewritten
/// (`rewrite` returns the node that replaced the match) and the scan goes on
/// after that node, over the graph as it is now: a rewrite erases nodes, so
/// no list of them outlives one. Returns true if anything was rewritten.
template <typename MatchT, typename Match, typename Rewrite>
bool rewrite_each_match(ExportedProgram& program, Match&& match, Rewrite&& rewrite) {
  Graph& graph = program.graph();
  bool changed = false;
  std::vector<Node*> nodes = graph.node_list();
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::optional<MatchT> matched = match(nodes[i]);
    if (!matched) continue;
    const Node* replacement = rewrite(*matched);
    changed = true;
    nodes = graph.node_list();
    i = static_cast<size_t>(std::find(nodes.begin(), nodes.end(), replacement) - nodes.begin());
  }
  // Outputs the rewrites replaced: their specs name the new nodes.
  if (changed) update_output_specs_from_graph(program);
  return changed;
}

}  // namespace kiln::aot::passes
