// Decomposition of torch.export's training IR into core ATen: the ops
// torch.export.export leaves (conv2d, linear, batch_norm, layer_norm,
// scaled_dot_product_attention, reshape, in-place add_ ...) rewritten into
// core-ATen ops that have portable kernels, as run_decompositions() does.
#pragma once

#include "aot/ir/pass_manager.h"

namespace kiln::aot {

/// Rewrites `program` in place: first functionalizes in-place ops (see
/// functionalize_inplace_ops), then replaces each training-IR op by core-ATen
/// ops, and sets the dialect to ATEN. Returns true if anything changed.
/// Throws AotError naming the node, its op and the reason when an op cannot be
/// decomposed (adaptive_avg_pool2d to other than [1, 1], training-mode
/// batch_norm or dropout, causal attention, ...).
bool decompose_to_core_aten(ExportedProgram& program);

/// decompose_to_core_aten as a Pass named "decompose_to_core_aten".
Pass decompose_to_core_aten();

/// Replaces in-place ops (aten::add_.Tensor, aten::mul_.Tensor, aten::relu_,
/// aten::copy_) by their functional ops, points later uses of the mutated
/// value at the new one, and adds a BUFFER_MUTATION or USER_INPUT_MUTATION
/// output (before the user outputs, in placeholder order) for each mutated
/// buffer or user input. Mutating a parameter, or a view of an input, throws.
bool functionalize_inplace_ops(ExportedProgram& program);

}  // namespace kiln::aot
