// The ExportedProgram JSON of a .pt2 (torch/_export/serde/schema.py, major
// version 8) turned into Kiln's IR: graph, signature, range constraints and
// module call graph. Weights are read separately (pt2_reader.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// The parts of a program that its JSON holds.
struct ProgramParts {
  std::unique_ptr<Graph> graph;
  GraphSignature signature;
  RangeConstraints range_constraints;
  std::vector<ModuleCallEntry> module_call_graph;
  std::string dialect;
};

/// The schema's major version Kiln reads.
inline constexpr int kPt2SchemaMajor = 8;

/// Builds the program's parts from `json` (the parsed models/<name>.json).
/// Arguments left out because they had their default are filled in from the
/// op schema table. Throws AotError naming the node or field that is wrong.
ProgramParts program_from_json(const nlohmann::json& json);

/// The .pt2 numbering of dtypes (ScalarType in schema.py) to Kiln's; throws
/// AotError naming the code for one Kiln does not know.
ScalarType scalar_type_from_pt2(int64_t code);

/// A TensorMeta from its JSON ({dtype, sizes, strides, ...}).
TensorMeta tensor_meta_from_json(const nlohmann::json& json);

/// A pytree spec from torch's treespec_dumps text ("[1, {...}]").
TreeSpec tree_spec_from_json(const std::string& text);

}  // namespace kiln::aot
