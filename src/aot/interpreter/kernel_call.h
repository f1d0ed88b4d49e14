// Calling one portable kernel from the AOT side: the node is an out-variant
// call of the executable form (aot/ir/memory_ops.h); its arguments, bound to
// the out variant's schema, become runtime EValues (with storage kept alive
// for the call), its out arguments are the tensors of its memory.alloc nodes,
// and a kernel failure becomes an AotError naming the node.
#pragma once

#include <functional>
#include <vector>

#include "aot/ir/node.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/value.h"

namespace kiln::aot {

/// What a node evaluated to: one value, or several for a multi-output op.
struct NodeValue {
  std::vector<Value> values;
  bool is_list = false;
};

/// Runs `node` (a call of an out variant, "aten::add.out") on the already
/// computed values of its inputs and allocs (`lookup(Node*)`), and returns its
/// out tensors: one, or a list when its meta is a list (a multi-output op).
NodeValue call_out_variant_kernel(const Node& node, const std::function<const NodeValue&(const Node*)>& lookup);

/// True if the interpreter can call a kernel called `name` ("aten::add.out"):
/// a portable kernel, or sym_size, which it computes itself.
bool interpreter_has_kernel(const std::string& name);

}  // namespace kiln::aot
