// eliminate_common_subexpressions: a call of a pure op with the same
// arguments as an earlier one is that earlier call's value. Walks the graph
// in order with the calls seen so far keyed by their target and arguments
// (a node argument by identity, so a call whose inputs were merged matches
// too), points each repeated call's users at the first and erases it. What a
// transformer computes once per layer from the call's inputs alone (the cache
// positions, the rotary tables' unsqueezes) is then computed once per call.
// Pure: no argument written, not random (op_support's is_random), not
// a graph assert (which lowering drops).
#include <map>
#include <sstream>
#include <string>

#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/lowering.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {
namespace {

bool is_pure(const Node& node) {
  if (!node.is_call_function()) return false;
  if (is_call_of(node, ExecKind::GetItem) || is_call_of(node, ExecKind::SymSize)) return true;
  if (is_graph_assert(node.target())) return false;
  const OpSchema* schema = find_op_schema(node.target());
  if (schema == nullptr || is_random(*schema)) return false;
  for (const SchemaArgument& argument : schema->arguments) {
    if (argument.is_write()) return false;
  }
  return true;
}

void write_argument(std::ostringstream& out, const Argument& arg) {
  if (arg.is_node()) {
    out << '%' << static_cast<const void*>(arg.node());
  } else if (arg.is_list()) {
    out << '[';
    for (const Argument& item : arg.list()) {
      write_argument(out, item);
      out << ',';
    }
    out << ']';
  } else {
    out << to_string(arg);
  }
}

std::string key_of(const Node& node) {
  std::ostringstream out;
  out << node.target() << '(';
  for (const Argument& arg : node.args()) {
    write_argument(out, arg);
    out << ',';
  }
  for (const auto& [name, arg] : node.kwargs()) {
    out << name << '=';
    write_argument(out, arg);
    out << ',';
  }
  out << ')';
  return out.str();
}

}  // namespace

bool eliminate_common_subexpressions(ExportedProgram& program) {
  Graph& graph = program.graph();
  std::map<std::string, Node*> seen;
  bool changed = false;
  for (Node* node : graph.node_list()) {
    if (!is_pure(*node)) continue;
    auto [it, inserted] = seen.emplace(key_of(*node), node);
    if (inserted) continue;
    node->replace_all_uses_with(it->second);
    graph.erase_node(node);
    changed = true;
  }
  if (changed) update_output_specs_from_graph(program);
  return changed;
}

}  // namespace kiln::aot
