// fold_constants: the nodes whose every input is a weight or a constant --
// an attention mask made from arange and comparisons, a position-id table, a
// weight transposed or reshaped, a scale computed from a buffer -- are
// computed once, at lowering, on the portable kernels (the reference
// interpreter), and what the rest of the program reads from them becomes a
// lifted constant. They then cost nothing at run time, and a backend's
// partition is no longer cut by ops it lacks (where, eq, logical_not on a
// mask) that never depended on the input.
//
// Not folded: random ops (is_random), ops that write their inputs,
// quantize and dequantize ops (a weight stays int8),
// results that are not tensors of static sizes, values the program returns,
// and, past kMaxGrowthBytes, a result larger than the weights it is computed
// from (an expand of a small constant to a large tensor stays an expand) or
// computed from a weight that other nodes still read (a tied embedding's
// transpose would store the weight twice). Weights no node reads (any
// more, or ever: a PT2E quantized program keeps the float weights its int8
// ones replaced) are dropped from the program. The new constant's placeholder
// keeps the provenance of the node it replaces.
#pragma once

#include <cstddef>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// A folded result may be this large even when its inputs are smaller.
inline constexpr size_t kMaxGrowthBytes = size_t{1} << 16;

/// Folds `program`'s constant subgraphs (above) in place; true if it changed.
/// Throws AotError naming the node if evaluating one fails.
bool fold_constants(ExportedProgram& program);

}  // namespace kiln::aot
