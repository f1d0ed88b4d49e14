// A reduction or softmax over dimensions that are not the innermost runs on
// oneDNN's reference kernel (a channel mean of 8x24x40: 0.16 ms, ref:any).
// Its JIT kernels reduce the innermost dimensions of a plain source: the
// source is permuted so that the reduced dimensions come last (one reorder,
// which reads a channels-last source as it is), reduced there, and the
// result reshaped (a reduction's reduced dimensions have size 1, so moving
// them does not move an element) or permuted back (a softmax's). A reduction
// over dimensions of size 1 alone is its source, reshaped.
#include <algorithm>

#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// Eltwise post-ops apply per element, in any layout; binary ones would need
// their operand permuted too (no case has one).
bool only_eltwise_post_ops(const fb::OperationT& op) {
  return std::all_of(op.post_ops.begin(), op.post_ops.end(), [](const auto& post) { return post->op.AsEltwise() != nullptr; });
}

}  // namespace

bool reduce_innermost_dims(FormWriter& writer, const fb::OperationT& op) {
  if (op.op.AsReduction() == nullptr || op.inputs.size() != 1 || !writer.reads_and_writes_plain_floats(op) ||
      !only_eltwise_post_ops(op)) {
    return false;
  }
  const std::vector<int64_t>& in = writer.sizes(op.inputs[0]);
  const std::vector<int64_t>& out = writer.sizes(op.outputs[0]);
  if (in.size() != out.size()) return false;
  // Kept dimensions first (their order unchanged), then the reduced ones.
  std::vector<int64_t> kept, reduced;
  for (size_t d = 0; d < in.size(); ++d) (out[d] == 1 && in[d] != 1 ? reduced : kept).push_back(static_cast<int64_t>(d));
  if (reduced.empty()) {
    // Every reduced dimension has size 1 (a mean over a sequence of one
    // token): the result is the source, which oneDNN's reduction refuses
    // to compute (its dimensions must differ).
    if (!op.post_ops.empty()) return false;
    writer.reshape(op, op.inputs[0], out, op.outputs[0]);
    return true;
  }
  // Dimensions of size 1 are nowhere in particular.
  bool innermost = true;
  for (int64_t d : kept) innermost = innermost && (in[static_cast<size_t>(d)] == 1 || d < reduced.front());
  if (innermost) return false;
  std::vector<int64_t> permutation = kept;
  permutation.insert(permutation.end(), reduced.begin(), reduced.end());

  const int32_t permuted = writer.permute(op, op.inputs[0], permutation);
  std::vector<int64_t> reduced_sizes = writer.sizes(permuted);
  for (size_t i = kept.size(); i < reduced_sizes.size(); ++i) reduced_sizes[i] = 1;
  auto reduction = std::make_unique<fb::OperationT>(op);
  reduction->inputs = {permuted};
  reduction->outputs = {writer.intermediate(std::move(reduced_sizes))};
  const int32_t result = reduction->outputs[0];
  writer.emit(std::move(reduction));
  writer.reshape(op, result, out, op.outputs[0]);
  return true;
}

bool softmax_over_innermost_dim(FormWriter& writer, const fb::OperationT& op) {
  const fb::SoftmaxT* softmax = op.op.AsSoftmax();
  if (softmax == nullptr || op.inputs.size() != 1 || !writer.reads_and_writes_plain_floats(op) ||
      !only_eltwise_post_ops(op)) {
    return false;
  }
  const auto rank = static_cast<int32_t>(writer.sizes(op.inputs[0]).size());
  const int32_t axis = softmax->axis < 0 ? softmax->axis + rank : softmax->axis;
  if (axis < 0 || axis >= rank - 1) return false;

  // The other dimensions in order, then the axis; and back.
  std::vector<int64_t> forward, back(static_cast<size_t>(rank));
  for (int32_t d = 0; d < rank; ++d) {
    if (d != axis) forward.push_back(d);
  }
  forward.push_back(axis);
  for (size_t i = 0; i < forward.size(); ++i) back[static_cast<size_t>(forward[i])] = static_cast<int64_t>(i);

  const int32_t permuted = writer.permute(op, op.inputs[0], forward);
  auto innermost = std::make_unique<fb::OperationT>(op);
  innermost->op.AsSoftmax()->axis = rank - 1;
  innermost->inputs = {permuted};
  innermost->outputs = {writer.intermediate(writer.sizes(permuted))};
  const int32_t result = innermost->outputs[0];
  writer.emit(std::move(innermost));
  writer.permute(op, result, back, op.outputs[0]);
  return true;
}

}  // namespace kiln::backends::onednn
