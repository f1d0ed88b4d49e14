// order_random_draws: the random draws of a program back in PyTorch's order
// after partitioning (lowering.h).
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/lowering.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {

std::vector<std::string> random_draws(const ExportedProgram& program) {
  std::vector<std::string> names;
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    const OpSchema* schema = find_op_schema(node->target());
    if (schema != nullptr && is_random(*schema)) names.push_back(node->name());
  }
  return names;
}

bool order_random_draws(ExportedProgram& program, const std::vector<std::string>& draws) {
  Graph& graph = program.graph();
  std::vector<const Node*> present;
  for (const std::string& name : draws) {
    if (const Node* node = graph.find_node(name)) present.push_back(node);
  }
  bool in_order = true;
  std::vector<std::pair<const Node*, const Node*>> edges;
  for (size_t i = 1; i < present.size(); ++i) {
    edges.emplace_back(present[i - 1], present[i]);
    in_order = in_order && present[i - 1]->is_before(*present[i]);
  }
  if (in_order) return false;
  try {
    graph.stable_topological_sort(edges);
  } catch (const AotError&) {
    return false;  // a draw reads what a later one feeds: the data decides
  }
  return true;
}

}  // namespace kiln::aot
