// Decomposition to core ATen: after functionalizing in-place ops, visits each
// call in graph order and, if its op has a rule in the decomposition table,
// builds the replacement nodes just before it, then erases it; sweeps again
// while the new nodes have rules of their own.
#include "aot/passes/decompose.h"

#include <string>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/decompositions.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {
namespace {

const passes::DecompositionTable& decompositions() {
  static const passes::DecompositionTable table = [] {
    passes::DecompositionTable t;
    passes::add_nn_decompositions(t);
    passes::add_pool_decompositions(t);
    passes::add_resample_decompositions(t);
    passes::add_special_decompositions(t);
    passes::add_quantile_decompositions(t);
    passes::add_tensor_decompositions(t);
    passes::add_spectral_decompositions(t);
    passes::add_alias_decompositions(t);
    passes::add_elementwise_decompositions(t);
    passes::add_reduce_decompositions(t);
    passes::add_shape_decompositions(t);
    passes::add_loss_decompositions(t);
    passes::add_layer_decompositions(t);
    passes::add_conv_decompositions(t);
    passes::add_index_decompositions(t);
    passes::add_linalg_decompositions(t);
    return t;
  }();
  return table;
}

}  // namespace

bool has_decomposition(const std::string& target) {
  const std::string name = passes::canonical_target(target);
  return decompositions().count(name) > 0 || passes::is_inplace(name);
}

namespace {

// One sweep over the graph: each call with a rule is rewritten. By name: a
// rule may erase nodes after its own (the getitems of a tuple it replaces
// item by item).
bool decompose_once(ExportedProgram& program) {
  std::vector<std::string> names;
  for (const Node* node : program.graph()) names.push_back(node->name());
  bool changed = false;
  for (const std::string& name : names) {
    Node* node = program.graph().find_node(name);
    if (node == nullptr || !node->is_call_function()) continue;
    auto rule = decompositions().find(passes::canonical_target(node->target()));
    if (rule == decompositions().end()) continue;
    passes::Rewriter rewriter(*node);
    rule->second(rewriter);
    changed = true;
  }
  return changed;
}

}  // namespace

bool decompose_to_core_aten(ExportedProgram& program) {
  bool changed = functionalize_inplace_ops(program);
  // A rule may build ops that have rules of their own (log_sigmoid builds
  // softplus): sweeps until none is left. Rules only ever move towards core
  // ops, so a few sweeps end it; a cycle would be a bug in the rules.
  constexpr int kMaxSweeps = 8;
  int sweeps = 0;
  while (decompose_once(program)) {
    changed = true;
    if (++sweeps == kMaxSweeps) throw AotError("decompose_to_core_aten: the rules still rewrite after " + std::to_string(kMaxSweeps) + " sweeps (a cycle)");
  }
  changed = rewrite_ffts_of_real_tensors(program) || changed;
  if (changed) update_signature_from_graph(program);
  program.set_dialect(kAtenDialect);
  return changed;
}

bool decompose_ops_without_kernels(ExportedProgram& program, const std::function<bool(const std::string&)>& has_kernel) {
  const auto without_kernel = [&](const Node& node) {
    const OpSchema* schema = find_op_schema(node.target());
    return schema != nullptr && op_support(*schema, has_kernel) == OpSupport::kDecomposition;
  };
  bool changed = false;
  constexpr int kMaxSweeps = 8;
  for (int sweep = 0;; ++sweep) {
    std::vector<std::string> names;
    for (const Node* node : program.graph()) {
      if (!node->is_call_function() || !without_kernel(*node)) continue;
      if (decompositions().count(passes::canonical_target(node->target())) > 0) names.push_back(node->name());
    }
    if (names.empty()) break;
    if (sweep == kMaxSweeps) throw AotError("decompose_ops_without_kernels: the rules still rewrite after " + std::to_string(kMaxSweeps) + " sweeps (a cycle)");
    for (const std::string& name : names) {
      Node* node = program.graph().find_node(name);
      if (node == nullptr) continue;
      passes::Rewriter rewriter(*node);
      decompositions().at(passes::canonical_target(node->target()))(rewriter);
    }
    changed = true;
  }
  changed = rewrite_ffts_of_real_tensors(program) || changed;
  if (changed) update_signature_from_graph(program);
  return changed;
}

bool rewrite_ffts_of_real_tensors(ExportedProgram& program) { return passes::rewrite_ffts_of_real_tensors(program); }

Pass decompose_to_core_aten() {
  return Pass{"decompose_to_core_aten", [](ExportedProgram& program) { return decompose_to_core_aten(program); }};
}

}  // namespace kiln::aot
