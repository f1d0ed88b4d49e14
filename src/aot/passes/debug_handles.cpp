#include "aot/passes/debug_handles.h"

namespace kiln::aot {

bool generate_debug_handles(ExportedProgram& program) {
  int64_t next = 1;
  for (Node* node : program.graph()) {
    node->meta.debug_handle = node->is_call_function() ? std::optional<int64_t>(next++) : std::nullopt;
  }
  return true;
}

Pass generate_debug_handles() {
  return Pass{"generate_debug_handles", [](ExportedProgram& program) { return generate_debug_handles(program); }};
}

std::string SourceNode::module_path() const { return module_stack.empty() ? "" : module_stack.back().path; }

std::map<int64_t, SourceNode> source_nodes(const ExportedProgram& source) {
  std::map<int64_t, SourceNode> nodes;
  for (const Node* node : source.graph()) {
    if (!node->is_call_function() || !node->meta.debug_handle) continue;
    const int64_t handle = *node->meta.debug_handle;
    nodes[handle] = {handle, node->name(), node->target(), node->meta.nn_module_stack, node->meta.stack_trace};
  }
  return nodes;
}

std::string short_op_name(const std::string& target) {
  std::string name = target;
  if (const auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  if (const auto dot = name.find('.'); dot != std::string::npos) name = name.substr(0, dot);
  return name;
}

}  // namespace kiln::aot
