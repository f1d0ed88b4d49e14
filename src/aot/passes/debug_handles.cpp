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

}  // namespace kiln::aot
