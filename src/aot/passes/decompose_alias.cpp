// Aliases: ops torch documents as another op under a second name (arccos for
// acos, special_expit for sigmoid, concat for cat; aliases.def, generated
// from torch's docstrings). Both take the same arguments, so the call is
// rewritten to the op it is an alias of, arguments and meta unchanged.
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {

void add_alias_decompositions(DecompositionTable& t) {
  for (const OpSchema& schema : all_op_schemas()) {
    const OpSchema* target = alias_target(schema);
    if (target == nullptr) continue;
    const std::string to = target->qualified_name();
    t[schema.qualified_name()] = [to](Rewriter& r) {
      r.replace_with(r.call(to, r.node().args(), r.node().meta.val, r.node().kwargs()));
    };
  }
}

}  // namespace kiln::aot::passes
