// Debug handles: the number each operator node carries so that a profile or a
// numerical check at run time can be traced back to the user's node
// (ExecuTorch's DebugHandleGeneratorPass). They are given to the program as
// imported, before any pass; every pass hands a node's handle on to the nodes
// that replace it (provenance.h), so each piece of a decomposed op carries its
// source op's handle, and a delegate maps its instructions to them
// (DelegateMappingBuilder).
#pragma once

#include "aot/ir/pass_manager.h"

namespace kiln::aot {

/// Gives every call_function node of `program` a debug handle, 1, 2, 3, ...
/// in graph order, replacing any it had; other nodes get none. Returns true.
bool generate_debug_handles(ExportedProgram& program);
/// generate_debug_handles as a Pass named "generate_debug_handles".
Pass generate_debug_handles();

}  // namespace kiln::aot
