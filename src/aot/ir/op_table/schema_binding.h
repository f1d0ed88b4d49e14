// Binding a call's args and kwargs to its op schema: one value per schema
// argument, in schema order, with defaults filled in.
#pragma once

#include <string>
#include <vector>

#include "aot/ir/node.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {

/// The value of every argument of `schema` for a call with `args` and
/// `kwargs`. Out arguments (`Tensor(a!) out`) are skipped unless
/// `include_out` is set. Throws AotError naming `where` (a node or op) on too
/// many positional arguments, an unknown or repeated keyword, or a missing
/// argument without default.
std::vector<Argument> bind_arguments(const OpSchema& schema, const ArgumentList& args, const KwargList& kwargs,
                                     const std::string& where, bool include_out = false);

/// bind_arguments for a call_function node, with its own op's schema.
std::vector<Argument> bind_node_arguments(const Node& node);

}  // namespace kiln::aot
