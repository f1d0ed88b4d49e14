#include "aot/pipeline/reference_call.h"

#include <algorithm>
#include <cctype>

#include "aot/ir/error.h"
#include "aot/ir/pytree.h"

namespace kiln::aot {

PyTree call_with_leaves(ExportedProgram& program, const std::vector<Value>& leaves, const NodeObserver& observer) {
  PyTree args_tree = PyTree::tuple({});
  PyTree kwargs_tree = PyTree::dict({});
  if (const TreeSpec* in_spec = program.in_spec()) {
    PyTree call = tree_unflatten(leaves, *in_spec);
    if (call.kind != PyTree::Kind::Tuple || call.children.size() != 2) {
      throw AotError("the program's input spec is not (args, kwargs): " + in_spec->to_string());
    }
    args_tree = call.children[0];
    kwargs_tree = call.children[1];
  } else {
    for (const Value& leaf : leaves) args_tree.children.push_back(PyTree::make_leaf(leaf));
  }
  return call_program(program, args_tree, kwargs_tree, observer);
}

std::vector<Value> order_inputs(const ExportedProgram& program, std::vector<std::pair<std::string, HostTensor>> arrays,
                                const std::string& label) {
  std::vector<std::string> names = program.graph_signature().user_inputs();
  const bool positional = std::all_of(arrays.begin(), arrays.end(), [](const auto& array) {
    return array.first.rfind("arr_", 0) == 0;
  });
  std::string expected;
  for (const std::string& name : names) expected += (expected.empty() ? "" : ", ") + name;
  if (arrays.size() != names.size()) {
    throw AotError(label + " holds " + std::to_string(arrays.size()) + " arrays, but the program takes " +
                   std::to_string(names.size()) + " user inputs (" + expected + ")");
  }
  std::vector<Value> leaves(names.size());
  for (auto& [key, tensor] : arrays) {
    size_t index = names.size();
    if (positional) {
      const std::string digits = key.substr(4);
      // At most 8 digits: a longer number matches no input (and stoul cannot overflow).
      if (!digits.empty() && digits.size() < 9 && std::all_of(digits.begin(), digits.end(), ::isdigit)) {
        index = std::stoul(digits);
      }
    } else {
      index = static_cast<size_t>(std::find(names.begin(), names.end(), key) - names.begin());
    }
    if (index >= names.size() || !std::holds_alternative<None>(leaves[index])) {
      throw AotError(label + ": array '" + key + "' matches no user input (expected " +
                     (positional ? std::string("arr_0 ... arr_") + std::to_string(names.size() - 1) : expected) + ")");
    }
    leaves[index] = std::move(tensor);
  }
  return leaves;
}

}  // namespace kiln::aot
