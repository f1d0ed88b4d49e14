// Debug handles: the number each operator node carries so that a profile or a
// numerical check at run time can be traced back to the user's node
// (ExecuTorch's DebugHandleGeneratorPass). They are given to the program as
// imported, before any pass; every pass hands a node's handle on to the nodes
// that replace it (provenance.h), so each piece of a decomposed op carries its
// source op's handle, and a delegate maps its instructions to them
// (DelegateMappingBuilder).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aot/ir/pass_manager.h"

namespace kiln::aot {

/// What a debug handle stands for: one node of the user's program as
/// imported (what the devtools' debug record maps a .pte back to).
struct SourceNode {
  int64_t handle = 0;
  std::string name;  ///< the node's name in the .pt2 graph ("conv2d_1")
  std::string op;    ///< its target ("aten::conv2d.default")
  std::vector<ModuleStackEntry> module_stack;  ///< outermost first
  std::string stack_trace;

  /// The innermost module's path ("layer1.0.conv1"), or "" at top level.
  std::string module_path() const;
};

/// The nodes of `source` (call_function nodes with a handle), by handle.
std::map<int64_t, SourceNode> source_nodes(const ExportedProgram& source);

/// "aten::convolution.default" -> "convolution".
std::string short_op_name(const std::string& target);

/// Gives every call_function node of `program` a debug handle, 1, 2, 3, ...
/// in graph order, replacing any it had; other nodes get none. Returns true.
bool generate_debug_handles(ExportedProgram& program);
/// generate_debug_handles as a Pass named "generate_debug_handles".
Pass generate_debug_handles();

}  // namespace kiln::aot
