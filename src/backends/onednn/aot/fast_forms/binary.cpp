// oneDNN's JIT binary kernels broadcast the second operand as a number, one
// channel ([C, 1, 1]), or a block of trailing dimensions, alone or per
// batch; a row per channel broadcast over the rows between ([1, C, 1, W] or
// [N, C, 1, W] over [N, C, H, W]) sends it to the reference kernel. The
// operation then runs with the broadcast dimensions moved first, so that the
// second operand is a trailing block (its moved dimensions have size 1: it is
// only reshaped), and its result is permuted back.
//
// Their binary post-ops take less: an operand of the result's sizes, one
// number or one channel; any other broadcast ([1, C, H, W] over a batch,
// [N, 1, H, W], a row) sends the whole operation to the reference kernel
// (Swin V2's attention: the scores times a logit scale per head, plus a
// position bias the windows share: ref:any, 4 ms of a 21 ms model). From
// the first post-op they do not take, the post-ops run as a binary operation
// after it, whose second operand broadcasts as any binary operation's does;
// and so on down the post-ops.
#include <algorithm>
#include <iterator>
#include <memory>

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

bool binary_with_post_ops_it_takes(FormWriter& writer, const fb::OperationT& op) {
  if (op.op.AsBinaryOp() == nullptr || !writer.reads_and_writes_plain_floats(op)) return false;
  const std::vector<int64_t>& sizes = writer.sizes(op.outputs[0]);
  const auto taken = [&](const fb::PostOpT& post) {
    const auto* binary = post.op.AsBinaryPostOp();
    return binary == nullptr || post_op_broadcast_is_taken(writer.sizes(binary->input), sizes);
  };
  const auto first_untaken = [&](const std::vector<std::unique_ptr<fb::PostOpT>>& posts) {
    return static_cast<size_t>(std::find_if(posts.begin(), posts.end(), [&](const auto& p) { return !taken(*p); }) -
                               posts.begin());
  };
  if (first_untaken(op.post_ops) == op.post_ops.size()) return false;
  // Each piece may broadcast its second operand as rows, too.
  const auto emit = [&](std::unique_ptr<fb::OperationT> piece) {
    if (!binary_broadcast_as_a_trailing_block(writer, *piece)) writer.emit(std::move(piece));
  };
  auto current = std::make_unique<fb::OperationT>(op);
  for (size_t split = first_untaken(current->post_ops); split < current->post_ops.size();
       split = first_untaken(current->post_ops)) {
    std::vector<std::unique_ptr<fb::PostOpT>> rest;
    for (size_t p = split; p < current->post_ops.size(); ++p) rest.push_back(std::move(current->post_ops[p]));
    current->post_ops.resize(split);
    const int32_t partial = writer.intermediate(sizes);
    current->outputs = {partial};
    emit(std::move(current));
    const fb::BinaryPostOpT& first = *rest.front()->op.AsBinaryPostOp();
    fb::BinaryOpT binary;
    binary.algorithm = first.algorithm;
    fb::OperationKindUnion kind;
    kind.Set(std::move(binary));
    current = writer.operation_like(op, std::move(kind), {partial, first.input}, op.outputs[0]);
    current->post_ops.assign(std::make_move_iterator(rest.begin() + 1), std::make_move_iterator(rest.end()));
  }
  emit(std::move(current));
  return true;
}

bool post_op_broadcast_is_taken(const std::vector<int64_t>& operand, const std::vector<int64_t>& result) {
  if (operand.size() > result.size()) return false;
  const size_t lead = result.size() - operand.size();
  bool full = true, number = true, channel = true;
  for (size_t d = 0; d < result.size(); ++d) {
    const int64_t size = d < lead ? 1 : operand[d - lead];
    full = full && size == result[d];
    number = number && size == 1;
    channel = channel && (size == 1 || (d == 1 && size == result[d]));
  }
  return full || number || channel;
}

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
