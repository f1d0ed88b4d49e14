// remove_graph_asserts: drops the runtime checks torch.export leaves in a
// graph (_assert_tensor_metadata, _assert_scalar, sym_constrain_range, ...).
// They have no users (a functional assert's token feeds only other asserts),
// so they are erased last to first; one that something else uses is an error.
#include <set>

#include "aot/ir/error.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"

namespace kiln::aot {

bool is_graph_assert(const std::string& target) {
  static const std::set<std::string> kAsserts = {
      "aten::_assert_tensor_metadata",
      "aten::_assert_scalar",
      "aten::_assert_async",
      "aten::_functional_assert_async",
      "aten::_functional_assert_scalar",
      "aten::sym_constrain_range",
      "aten::sym_constrain_range_for_size",
      "aten::_functional_sym_constrain_range",
      "aten::_functional_sym_constrain_range_for_size",
  };
  // "aten::_assert_scalar.default" -> "aten::_assert_scalar".
  const size_t colons = target.find("::");
  const size_t dot = target.find('.', colons == std::string::npos ? 0 : colons);
  return kAsserts.count(target.substr(0, dot)) > 0;
}

bool remove_graph_asserts(ExportedProgram& program) {
  Graph& graph = program.graph();
  bool changed = false;
  const std::vector<Node*> nodes = graph.node_list();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* node = *it;
    if (!node->is_call_function() || !is_graph_assert(node->target())) continue;
    if (!node->users().empty()) {
      throw AotError(passes::describe_node(*node) + " is a graph assert but '" + node->users()[0]->name() +
                     "' uses its result");
    }
    graph.erase_node(node);
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
