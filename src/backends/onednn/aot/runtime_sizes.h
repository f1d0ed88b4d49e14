// Run-time sizes on OneDnnBackend: a matmul whose rows vary from call to call
// (a language model's sequence, 1 at decode and up to the prompt's bound at
// prefill) runs as one oneDNN matmul made with a run-time dimension
// (DNNL_RUNTIME_DIM_VAL), its weights laid out once at load in the layout
// the primitive chose (oneDNN 3.2 runs it on its gemm, which takes them plain,
// K x N, and packs panels per call; its blocked brgemm takes no run-time M).
//
// What is taken: mm, addmm, bmm and linear whose first operand and result
// have one symbolic size -- a bare symbol with an upper bound, in a row
// dimension (not the reduced K, nor the columns N) -- and whose second
// operand and bias have static sizes. Nothing else with a symbolic size:
// oneDNN 3.2's other primitives (eltwise, binary, normalizations, softmax,
// reductions) fix their sizes when they are made, so they would need a
// primitive per size; the reshapes around a linear carry the size as an
// argument (a SymInt), which a delegate would have to take as an input.
//
// preprocess lowers such a partition as the static partition it is at the
// bound (concretize_runtime_sizes) and marks each value the symbol sizes
// (onednn_graph.fbs Value.runtime_dim).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "aot/ir/exported_program.h"

namespace kiln::backends::onednn {

/// True if `node`'s result or a tensor it reads has a symbolic size.
bool has_symbolic_sizes(const aot::Node& node);

/// Why OneDnnBackend cannot run `node` (which has symbolic sizes) with a
/// run-time size, or "" when it can.
std::string runtime_size_problem(const aot::Node& node, const aot::ExportedProgram& program);

/// A partition with every symbolic size at its upper bound, and for each
/// node (by name) whose tensor had one, that dimension.
struct ConcretePartition {
  aot::ExportedProgram program;
  std::map<std::string, int32_t> runtime_dims;
};

/// Nothing when `partition` has no symbolic sizes. Throws AotError naming the
/// node for a size OneDnnBackend does not take at run time (the partitioner
/// refused those: runtime_size_problem).
std::optional<ConcretePartition> concretize_runtime_sizes(const aot::ExportedProgram& partition);

}  // namespace kiln::backends::onednn
