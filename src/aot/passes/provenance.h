// Provenance: what a node a lowering pass creates or rewrites takes over from
// the node it stands for, so that debug handles, stack traces and module
// paths still lead back to the user's source. Internal to passes/.
#pragma once

#include "aot/ir/node.h"

namespace kiln::aot::passes {

/// Copies `source`'s debug handle, stack trace, module stack and torch_fn
/// into `target`.
inline void copy_provenance(const Node& source, Node& target) {
  target.meta.debug_handle = source.meta.debug_handle;
  target.meta.stack_trace = source.meta.stack_trace;
  target.meta.nn_module_stack = source.meta.nn_module_stack;
  target.meta.torch_fn = source.meta.torch_fn;
}

/// "node 'add' (aten::add.Tensor)", for error messages.
inline std::string describe_node(const Node& node) { return "node '" + node.name() + "' (" + node.target() + ")"; }

}  // namespace kiln::aot::passes
