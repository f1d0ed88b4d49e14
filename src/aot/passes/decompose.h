// Decomposition of torch.export's training IR into core ATen: the ops
// torch.export.export leaves (conv1d/conv2d and transposed convs, linear,
// matmul, the norms, pools, softmax, attention, reshapes, pad, chunk, stack,
// dtype conversions, in-place activations ...) rewritten into ops that have
// portable kernels (out variants), as run_decompositions() does.
#pragma once

#include <functional>
#include <string>

#include "aot/ir/pass_manager.h"

namespace kiln::aot {

/// Rewrites `program` in place: first functionalizes in-place ops (see
/// functionalize_inplace_ops), then replaces each training-IR op by core-ATen
/// ops, and sets the dialect to ATEN. Returns true if anything changed.
/// Throws AotError naming the node, its op and the reason when an op cannot be
/// decomposed (training-mode batch_norm or dropout, causal attention, a pad
/// mode other than constant, chunks of a symbolic size, ...). silu,
/// hardswish and hardsigmoid become their formulas, as torch writes them:
/// they are not core ATen and ExecuTorch's runtime has no kernels for them.
bool decompose_to_core_aten(ExportedProgram& program);

/// True if decompose_to_core_aten rewrites calls of `target` ("aten::matmul",
/// "aten::relu_"): a decomposition rule or a functionalized in-place op.
bool has_decomposition(const std::string& target);

/// For a program already in core ATen: rewrites each call of an op that
/// `has_kernel` has no kernel for but a decomposition rule does
/// (op_support's kDecomposition: mean.default, fill.Scalar, avg_pool1d,
/// normal_functional, ...), sweeping until none is left, then the FFT forms
/// (rewrite_ffts_of_real_tensors). An op with a kernel stays as it is. True
/// if it rewrote any.
bool decompose_ops_without_kernels(ExportedProgram& program, const std::function<bool(const std::string&)>& has_kernel);

/// The complex FFTs of real tensors core ATen spells out (view_as_real of
/// _fft_c2c of a real tensor made complex: FNet's fftn(x).real) as real
/// ops; decompose_to_core_aten ends with it, and a core program gets it
/// alone. True if it rewrote any.
bool rewrite_ffts_of_real_tensors(ExportedProgram& program);

/// decompose_to_core_aten as a Pass named "decompose_to_core_aten".
Pass decompose_to_core_aten();

/// Replaces in-place ops (relu_, add_.Tensor, dropout_, ...: every op the op
/// table's functional_of_inplace pairs with a functional op, and copy_) by
/// their functional ops (cast back to self's dtype
/// where the functional op would widen it), points later uses of the mutated
/// value at the new one, and adds a BUFFER_MUTATION or USER_INPUT_MUTATION
/// output (before the user outputs, in placeholder order) for each mutated
/// buffer or user input. Mutating a parameter, or a view of an input, throws.
bool functionalize_inplace_ops(ExportedProgram& program);

}  // namespace kiln::aot
