// Internal to passes/: the table of decompositions, one rule per training-IR
// op, filled by one function per family. A rule builds the replacement nodes
// through the Rewriter and ends with rewriter.replace_with(...), or fails
// naming the node and the reason.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "aot/ir/exported_program.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot::passes {

using Decomposition = std::function<void(Rewriter&)>;
/// Keyed by the op's qualified name ("aten::conv1d.default").
using DecompositionTable = std::map<std::string, Decomposition>;

/// Convolutions, linear, matmul, normalizations, softmax, attention, mish.
void add_nn_decompositions(DecompositionTable& table);
/// Pools and upsampling.
void add_pool_decompositions(DecompositionTable& table);
/// Nearest-exact (1-D, 2-D, 3-D) and bicubic resampling.
void add_resample_decompositions(DecompositionTable& table);
/// Special functions on the erf, erfc and lgamma kernels: gammaln, ndtr,
/// log_ndtr, mvlgamma.
void add_special_decompositions(DecompositionTable& table);
/// quantile and nanquantile through sort and gather.
void add_quantile_decompositions(DecompositionTable& table);
/// Views, padding, dtype conversions, chunk/split/stack/_chunk_cat, factories.
void add_tensor_decompositions(DecompositionTable& table);
/// The real FFTs (fft_rfft, fft_irfft and their 2-D and n-D forms), stft (also
/// centred), istft and hann_window.
void add_spectral_decompositions(DecompositionTable& table);
/// view_as_real(_fft_c2c(_to_copy(x, complex), ...)) of a real x -- core
/// ATen's fftn(x).real -- as products with cos and sin matrices
/// (decompose_spectral.cpp); any other view_as_real stays. True if any.
bool rewrite_ffts_of_real_tensors(ExportedProgram& program);

/// Elementwise compositions: addcmul, lerp, logaddexp, xlogy, the shrinks,
/// celu/selu/softplus/glu/log_sigmoid, isfinite/isclose, casts, lift_fresh_copy.
void add_elementwise_decompositions(DecompositionTable& table);
/// Reductions and products: var/std and their mean forms, nansum, logsumexp,
/// norms, count_nonzero, aminmax, dot, mv, outer, addr, baddbmm, tensordot, kron.
void add_reduce_decompositions(DecompositionTable& table);
/// Shape ops: tril/triu, diag, eye, tile, the stacks, meshgrid, unbind,
/// flips and rot90, pixel and channel shuffles, repeat_interleave, one_hot, ...
void add_shape_decompositions(DecompositionTable& table);
/// The losses' forward: mse, l1, smooth_l1, huber, binary cross entropy
/// (with logits), kl_div, nll and cross entropy.
void add_loss_decompositions(DecompositionTable& table);
/// rms_norm, instance_norm, prelu, the attention internals, _safe_softmax,
/// cosine_similarity, pairwise_distance, bilinear, embedding_bag, 1-D and 3-D
/// pools, 1-D upsampling.
void add_layer_decompositions(DecompositionTable& table);
/// Convolutions with string padding and torch's internal conv entry points,
/// im2col, max_unpool, 3-D nearest and trilinear upsampling.
void add_conv_decompositions(DecompositionTable& table);
/// copy, sym_numel, argsort, take, index_add/index_fill, isin, the pads by mode, fftshift, and special_* compositions.
void add_index_decompositions(DecompositionTable& table);
/// cross, vecdot, norms, multi_dot, matrix_power, block_diag, renorm, weight
/// norm, trapezoid, vander, cov/corrcoef, affine_grid_generator.
void add_linalg_decompositions(DecompositionTable& table);
/// The aliases of aliases.def, each rewritten to the op it names.
void add_alias_decompositions(DecompositionTable& table);

/// True for the in-place ops functionalize_inplace_ops rewrites (qualified name).
bool is_inplace(const std::string& target);

}  // namespace kiln::aot::passes
