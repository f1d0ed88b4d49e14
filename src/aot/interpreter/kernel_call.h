// Calling one portable kernel from the AOT side: HostTensors and node
// arguments become runtime EValues (with storage kept alive for the call), the
// out tensors are allocated from the node's meta, and a kernel failure becomes
// an AotError naming the node.
#pragma once

#include <functional>
#include <vector>

#include "aot/ir/node.h"
#include "aot/ir/op_schema.h"
#include "aot/ir/value.h"

namespace kiln::aot {

/// What a node evaluated to: one value, or several for a multi-output op.
struct NodeValue {
  std::vector<Value> values;
  bool is_list = false;
};

/// Runs `node` (a call_function of an op with an out-variant kernel) with the
/// already computed values of its inputs (`lookup(Node*)`), and returns its
/// result(s).
NodeValue call_out_variant_kernel(const Node& node, const std::vector<Argument>& bound_args,
                                  const std::function<const NodeValue&(const Node*)>& lookup,
                                  const SymbolBindings& bindings);

}  // namespace kiln::aot
