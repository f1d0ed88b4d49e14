// One graph node as the oneDNN operation it becomes: the single place that
// decides whether OneDnnBackend can run a node (the partitioner's `supports`)
// and what the node lowers to (preprocess). Both read `describe_node`, so the
// partitioner never accepts a node preprocess would refuse.
//
// Conventions beyond onednn_graph.fbs that the lowering writes:
// - Convolution.padding_l / padding_r are PyTorch's (symmetric) padding; a
//   transposed convolution's output grows by output_padding at its end, so
//   oneDNN's right padding is padding_r - output_padding (never negative:
//   nodes with output_padding > padding are refused).
// - Pooling dilations are PyTorch's (1 = dense), as everywhere in the blob.
// - Eltwise HardSwish / HardSigmoid carry oneDNN's alpha and beta (1/6 and
//   1/2 for PyTorch's ops; others for a matched pattern, fusion/activation.cpp);
//   Swish carries alpha = 1 (silu).
// - A BinaryOp's first input always has the result's sizes (oneDNN broadcasts
//   its second operand only); add/mul are swapped to make it so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aot/ir/node.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

/// What OneDnnBackend makes of a node, or the reason it cannot run it (the
/// text `kiln lower --explain` shows): support as a value, which the
/// partitioner, the fusion rules and the run-time size checks test.
template <typename T>
class Supported {
 public:
  Supported(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): a value is supported
  static Supported no(std::string reason) { return Supported(std::nullopt, std::move(reason)); }

  explicit operator bool() const { return value_.has_value(); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  /// The value, or nothing.
  const std::optional<T>& value() const { return value_; }
  /// Why not, when not supported.
  const std::string& reason() const { return reason_; }

 private:
  Supported(std::optional<T> value, std::string reason) : value_(std::move(value)), reason_(std::move(reason)) {}

  std::optional<T> value_;
  std::string reason_;
};

/// A node as one oneDNN operation.
struct NodeOp {
  fb::OperationKindUnion op;
  /// The operation's inputs in its order (onednn_graph.fbs); null: absent (-1).
  std::vector<const aot::Node*> inputs;
  /// The result's sizes (the first result of a multi-output op).
  std::vector<int64_t> sizes;
  /// A reduction with keepdim=False, or a select: the sizes the operation
  /// writes (reduced or selected dimensions kept as 1) before a reshape to `sizes`.
  std::optional<std::vector<int64_t>> keepdim_sizes;
  /// A multi-output op (max_pool2d_with_indices, batch, layer and group
  /// norm): only its first result, taken by getitem(node, 0), is used.
  bool multi_output = false;
  /// A group norm: before `op` (its per-channel affine, a BinaryOp Mul by
  /// the weight, or Add of the bias, or an identity Linear), the lowering
  /// emits the normalization: a reshape of inputs[0] to [N * groups, rest],
  /// a LayerNorm without scale and shift, a reshape back. inputs: [x, weight
  /// or null, bias or null], the weight and bias read as [C, 1, ...].
  std::optional<fb::LayerNormT> group_norm;
  int64_t groups = 0;
  /// A softmax (op) whose rows of -inf only give zeros, torch's _safe_softmax
  /// (fusion/softmax.h): the lowering emits the softmax of max(x, -FLT_MAX)
  /// and a per-row 0/1, then their product, which takes the post-ops.
  bool safe_softmax = false;
  /// x ** 3: op is the BinaryOp Mul of x by itself, and the group's first
  /// post-op multiplies by x once more (fusion.cpp).
  bool cube = false;

  fb::OperationKind kind() const { return op.type; }
  bool is_layout() const { return op.type == fb::OperationKind::Reorder; }
};

/// Whether `op` is a Pad that adds elements, not only a crop (capabilities.h).
inline bool pads(const NodeOp& op) {
  const auto* pad = op.op.AsPad();
  return pad != nullptr && pads_any(pad->before, pad->after);
}

/// The oneDNN operation `node` (a call_function node) lowers to, or the
/// reason OneDnnBackend cannot run it: an op it lacks, a dtype other than
/// float32 (but for PT2E's quantize and dequantize ops,
/// node_ops_quantized.cpp), symbolic or empty sizes, or a parameter outside
/// what oneDNN computes as PyTorch does.
Supported<NodeOp> describe_node(const aot::Node& node);

/// Why `input`, a tensor an op reads, is not laid out as OneDnnBackend takes
/// it (contiguous), or "". Only a placeholder has a layout of its own: an
/// op's result is contiguous in the executable form (views run as copies),
/// whatever its meta's dim order.
std::string layout_problem(const aot::Node& input, const std::string& what);

/// The qualified op of a call_function node ("aten::relu.default"), or "" if
/// the op table does not know it.
std::string qualified_op(const aot::Node& node);

/// The ops describe_node may accept.
std::vector<std::string> supported_op_names();

/// A quantize_per_tensor op read only by dequantize ops of its parameters,
/// as float32 on the quantization grid:
///   scale * clamp(round(x * inverse_scale), lowest, highest)
/// with lowest/highest the range less the zero point.
struct QuantizedGrid {
  const aot::Node* input = nullptr;  ///< x
  float inverse_scale = 1;           ///< (float)(1.0 / scale), as PyTorch computes it
  float scale = 1;
  double lowest = 0;
  double highest = 0;

  /// Linear(inverse_scale), Round, Clip(lowest, highest), Linear(scale).
  std::vector<fb::EltwiseT> eltwises() const;
};

/// `quantize` as a QuantizedGrid, or why it is not one (its parameters
/// computed at run time or inconsistent, or its result read by something
/// other than dequantize ops of its parameters).
Supported<QuantizedGrid> quantized_grid(const aot::Node& quantize);

/// PT2E's dynamic quantization of an activation, as OneDnnBackend runs it
/// (one DynamicQuantize): cq = choose_qparams.tensor(x), scale = cq[0], zero point = cq[1], q = quantize_per_tensor.tensor(x,
/// scale, zero point), dq = dequantize_per_tensor.tensor(q, scale, zero
/// point), all of int8's whole range, each node read only inside the chain.
struct DynamicQuantization {
  const aot::Node* input = nullptr;  ///< x
  std::vector<const aot::Node*> nodes;  ///< cq, its getitems, q (dq, the anchor, apart)
  fb::DynamicQuantizeT params;
};

/// The chain ending at `dequantize`, or what does not fit.
Supported<DynamicQuantization> dynamic_quantization(const aot::Node& dequantize);

/// An eltwise of the blob (alpha and beta as float32).
fb::EltwiseT make_eltwise(fb::EltwiseAlgorithm algorithm, double alpha = 0, double beta = 0);

/// "Relu(alpha=0)", "Clip(min=0, max=6)": an eltwise as the blob printer shows it.
std::string describe_eltwise(const fb::EltwiseT& eltwise);

}  // namespace kiln::backends::onednn
