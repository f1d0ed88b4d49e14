// oneDNN's JIT binary kernels broadcast the second operand as a number, one
// channel ([C, 1, 1]), or a block of trailing dimensions, alone or per
// batch; a row per channel broadcast over the rows between ([1, C, 1, W] or
// [N, C, 1, W] over [N, C, H, W]) sends it to the reference kernel. The
// operation then runs with the broadcast dimensions moved first, so that the
// second operand is a trailing block (its moved dimensions have size 1: it is
// only reshaped), and its result is permuted back.
#include <algorithm>

#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// The dimensions of `a` along which `b` (aligned at the end) broadcasts.
std::vector<bool> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<bool> broadcast(a.size(), false);
  const size_t lead = a.size() - b.size();
  for (size_t d = 0; d < a.size(); ++d) broadcast[d] = a[d] != 1 && (d < lead || b[d - lead] == 1);
  return broadcast;
}

// A last dimension it keeps, and past the batch a dimension it broadcasts
// after one it keeps: the forms the JIT kernels do not take.
bool rows_broadcast_under_a_middle_dim(const std::vector<int64_t>& a, const std::vector<bool>& broadcast) {
  const auto kept = [&](size_t d) { return !broadcast[d] && a[d] != 1; };
  if (a.size() < 3 || !kept(a.size() - 1)) return false;
  bool kept_one = false;
  for (size_t d = 1; d < a.size(); ++d) {
    if (broadcast[d] && kept_one) return true;
    kept_one = kept_one || kept(d);
  }
  return false;
}

}  // namespace

bool binary_broadcast_as_a_trailing_block(FormWriter& writer, const fb::OperationT& op) {
  if (op.op.AsBinaryOp() == nullptr || op.inputs.size() != 2 || !writer.reads_and_writes_plain_floats(op) ||
      !std::all_of(op.post_ops.begin(), op.post_ops.end(), [](const auto& post) { return post->op.AsEltwise() != nullptr; })) {
    return false;
  }
  const std::vector<int64_t> a = writer.sizes(op.inputs[0]);
  const std::vector<int64_t>& b = writer.sizes(op.inputs[1]);
  if (b.size() > a.size() || a != writer.sizes(op.outputs[0])) return false;
  const std::vector<bool> broadcast = broadcast_dims(a, b);
  if (!rows_broadcast_under_a_middle_dim(a, broadcast)) return false;

  // The broadcast dimensions first, then the others, each in order; and back.
  std::vector<int64_t> forward, back(a.size());
  for (size_t d = 0; d < a.size(); ++d) {
    if (broadcast[d]) forward.push_back(static_cast<int64_t>(d));
  }
  for (size_t d = 0; d < a.size(); ++d) {
    if (!broadcast[d]) forward.push_back(static_cast<int64_t>(d));
  }
  for (size_t i = 0; i < forward.size(); ++i) back[static_cast<size_t>(forward[i])] = static_cast<int64_t>(i);
  std::vector<int64_t> b_moved;
  const size_t lead = a.size() - b.size();
  for (int64_t d : forward) b_moved.push_back(static_cast<size_t>(d) < lead ? 1 : b[static_cast<size_t>(d) - lead]);

  auto moved = std::make_unique<fb::OperationT>(op);
  moved->inputs = {writer.permute(op, op.inputs[0], forward), writer.reshape(op, op.inputs[1], b_moved)};
  const int32_t result = writer.intermediate(writer.sizes(moved->inputs[0]));
  moved->outputs = {result};
  writer.emit(std::move(moved));
  writer.permute(op, result, back, op.outputs[0]);
  return true;
}

}  // namespace kiln::backends::onednn
