// The pytree specs a .pte records for a method's inputs and outputs
// (ContainerMetadata), in torch's treespec_dumps text: `[1, {"type": ...,
// "context": ..., "children_spec": [...]}]`, spaced as Python's json.dumps.
#pragma once

#include <string>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// The text of `spec`.
std::string tree_spec_to_json(const TreeSpec& spec);
/// The program's input spec ((args...), {kwargs}); for a program without a
/// module call graph, a tuple of its user inputs and an empty dict.
std::string encode_in_spec(const ExportedProgram& program);
/// The program's output spec; without one, a tuple of its user outputs.
std::string encode_out_spec(const ExportedProgram& program);

}  // namespace kiln::aot
