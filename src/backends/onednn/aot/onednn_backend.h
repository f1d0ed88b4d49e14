// OneDnnBackend, the AOT side of the oneDNN CPU backend: `supports` says per
// node whether oneDNN can run it as PyTorch computes it (node_ops.h, with the
// reason when not); `preprocess` fuses a partition (fusion.h), writes its
// graph as a blob (onednn_blob.h + onednn_graph.fbs) and its weights to the
// program's named data, deduplicated by content (weights.h).
// Registered by a static initializer: link `kiln_backends_onednn`.
//
// Ops (float32, static sizes -- but a matmul's rows may be a bounded
// symbolic size, runtime_sizes.h; node_ops.cpp has each one's constraints):
// convolution (1-3 spatial dims, strided, padded, dilated, grouped,
// depthwise, transposed), addmm / mm / bmm / linear, batch norm (inference),
// layer norm, softmax / log-softmax, relu, leaky_relu, clamp, hardtanh,
// hardswish, hardsigmoid, sigmoid, silu, gelu, elu, tanh, exp, abs, sqrt,
// add / sub / mul / div / maximum / minimum (tensor or number, the second
// operand broadcast), max / avg / adaptive-avg pooling, mean / sum over
// dims, nearest / bilinear upsampling, cat, constant_pad_nd, and the layout
// ops between them (view, reshape, permute, transpose, squeeze, unsqueeze,
// clone, an expand that repeats nothing) as Reorder.
// Fusion (fusion.h): batch norm folded into the convolution before it;
// eltwise and binary ops after a convolution, matmul or binary op as
// post-ops (a residual add as a BinaryPostOp); a transpose of a matmul's
// second operand as MatMul.transpose_b (linear's permute + addmm).
#pragma once

#include <vector>

#include "aot/delegate/backend_details.h"

namespace kiln::backends::onednn {

class OneDnnBackend : public aot::BackendDetails {
 public:
  std::string id() const override;
  /// The blob, the weights as named data, and operation debug id -> the
  /// debug handles of every node it fused. Throws AotError naming the node
  /// when one is not supported, and for a partition that mutates buffers.
  aot::PreprocessResult preprocess(const aot::ExportedProgram& edge_program,
                                   const std::vector<aot::CompileSpec>& compile_specs) const override;
  /// Supported when describe_node accepts the node; a layout op (view,
  /// permute, ...) only next to a compute op it supports, as a delegate call
  /// that only moves data costs more than it saves.
  aot::NodeSupport supports(const aot::Node& node, const aot::ExportedProgram& program) const override;
  std::vector<std::string> supported_ops() const override;
  /// The blob operation by operation (describe_onednn_blob).
  std::string describe_blob(const std::vector<uint8_t>& blob) const override;
  /// The oneDNN implementation of each operation's steps on this CPU
  /// (describe_implementations).
  std::string explain_blob(const std::vector<uint8_t>& blob) const override;
};

}  // namespace kiln::backends::onednn
