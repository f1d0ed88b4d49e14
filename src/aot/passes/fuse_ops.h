// The fusions into Kiln's own ops (src/aot/ir/op_table/kiln_ops.def): the
// patterns a transformer's layers repeat, each made one kernel call, so that a
// language model's step runs a few calls per layer instead of dozens, and its
// attention reads the KV cache in place. Each pass is one fusion in its own
// file; a pattern that does not match exactly stays as it is.
#pragma once

#include <cstddef>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// How the fusions below fuse.
struct KilnOpsOptions {
  /// Weight-only linears quantize their activations (see fuse_linear).
  bool quantize_activations = false;
  /// Patterns of static sizes whose parts a backend runs well are fused
  /// too: attention (matmuls and a softmax), gated activations, and float
  /// linears of static rows on weights of their own. True for the portable
  /// kernels, which run them far slower than Kiln's ops; lower() makes it
  /// false when a backend is asked for, which takes such ops into its graph
  /// (oneDNN packs static-row weights itself) where one of Kiln's ops would
  /// split the graph's partition. Patterns of run-time sizes (a language
  /// model's sequence) are fused either way, and so are norms and rotations,
  /// whose parts (pow, rsqrt, slices) a backend would leave to the portable
  /// kernels one by one.
  bool static_shapes = true;
  /// Without static_shapes, a float linear of static rows on a weight other
  /// ops read too (an embedding table tied to the output projection) stays
  /// for the backends when the weight is at most this many bytes: the
  /// partitioner copies a shared constant that small into the delegate
  /// (CapabilityPartitionerOptions::max_shared_constant_copy_bytes, which
  /// lower() passes here), where it is packed; a larger one is read in place
  /// by kiln::linear ('f32_rows'), stored once.
  size_t max_shared_weight_copy_bytes = 0;
};

/// aten::scaled_dot_product_attention (the training IR's op; dropout 0) as
/// kiln::sdpa (where `fuses`). A key or
/// value that repeats its heads for grouped-query attention (transformers'
/// repeat_kv: unsqueeze, expand, reshape) is read in place instead;
/// enable_gqa's is too. Runs before decomposition. (fuse_attention.cpp)
bool fuse_attention(ExportedProgram& program, const KilnOpsOptions& options = {});

/// Whether a fusion whose result is `anchor` is Kiln's to make: always for
/// run-time sizes, for static ones with `options.static_shapes`.
bool fuses(const KilnOpsOptions& options, const Node& anchor);

/// x * rsqrt(mean(x ** 2, -1, keepdim) + eps), times a weight of x's last
/// dim or not, as kiln::rms_norm. Core ATen. (fuse_rms_norm.cpp)
bool fuse_rms_norm(ExportedProgram& program);

/// x * cos + cat(-x[..., E/2:], x[..., :E/2]) * sin as kiln::rotary_embedding.
/// Core ATen. (fuse_rotary_embedding.cpp)
bool fuse_rotary_embedding(ExportedProgram& program);

/// A linear layer on constant weights as kiln::linear on those weights
/// packed for Kiln's tuned kernels (the packed bytes a lifted constant, the
/// weights they replace dropped): torchao's int8 and int4 weight-only and
/// dynamic-activation forms, and a float linear of run-time rows (a
/// language model's sequence), or of static rows (a language model's
/// projection of its last position to the vocabulary) with
/// `options.static_shapes`. Weight-only forms keep float activations unless
/// `options.quantize_activations`, which quantizes them per block of 32, as
/// llama.cpp does. Runs on the training IR. (fuse_linear.cpp)
bool fuse_linear(ExportedProgram& program, const KilnOpsOptions& options = {});

/// activation(gate) * up, the activation silu (x * sigmoid(x), as
/// decomposition writes it) or gelu (exact or tanh), as one
/// kiln::gated_activation (where `fuses`). Core ATen. (fuse_gated_activation.cpp)
bool fuse_gated_activation(ExportedProgram& program, const KilnOpsOptions& options = {});

/// An embedding of a table torchao quantized (dequantize_affine of int8 or
/// int4 weights) as ExecuTorch's quantized lookup (embedding_byte or
/// embedding_4bit), which dequantizes only the rows it reads. Runs on the
/// training IR. (fuse_embedding.cpp)
bool fuse_embedding(ExportedProgram& program);

/// The fusions above that fit `program`'s dialect: fuse_attention,
/// fuse_linear and fuse_embedding on the training IR, the others on core ATen.
bool fuse_kiln_ops(ExportedProgram& program, const KilnOpsOptions& options = {});

}  // namespace kiln::aot
