// oneDNN's JIT binary kernels broadcast the second operand as a number, one
// channel ([C, 1, 1]), or a block of trailing dimensions, alone or per
// batch. Any other broadcast sends the operation to the reference kernel:
// one number per batch ([N, 1, 1, 1]), a column ([1, 1, H, 1]: a mask over
// a sequence's positions), a row per channel broadcast over the rows ([1, C,
// 1, W]). The operation then runs in a form they take:
//   - where the result's dimensions, neighbours of one kind (each kept, or
//     each broadcast) merged, are at most three, on views of other sizes
//     ([N, 1, 1, 1] over [N, C, H, W] is one channel [1, N, 1] over [1, N,
//     C*H*W]): no data moves;
//   - otherwise with the broadcast dimensions moved first, so that the second
//     operand is a trailing block (its moved dimensions have size 1: it is
//     only reshaped), and its result permuted back.
//
// Binary post-ops take less, on a binary operation and on a convolution
// alike: an operand of the result's sizes, one number or one channel; any
// other broadcast ([1, C, H, W] over a batch, [N, 1, H, W], a row) sends the
// whole operation to the reference kernel (Swin V2's attention: the scores
// times a logit scale per head, plus a position bias the windows share:
// ref:any, 4 ms of a 21 ms model; a U-Net's last convolution times a mask
// [1, 1, H, W]: ref:any, 2.1 ms against 0.03). From the first post-op they do
// not take, the post-ops run as a binary operation after it, whose second
// operand broadcasts as any binary operation's does; and so on down the
// post-ops.
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

// Whether the JIT kernels take the second operand broadcast along
// `broadcast` over `a`: nowhere, everywhere (one number), along all but the
// channel (dimension 1), along leading dimensions only, the batch
// (dimension 0) possibly kept, or one number per row of a matrix ([N, 1]
// over [N, K]). Dimensions of size 1 count as either.
bool jit_kernels_take(const std::vector<int64_t>& a, const std::vector<bool>& broadcast) {
  const auto kept = [&](size_t d) { return !broadcast[d] && a[d] != 1; };
  std::vector<size_t> kept_past_batch;
  for (size_t d = 1; d < a.size(); ++d) {
    if (kept(d)) kept_past_batch.push_back(d);
  }
  if (kept_past_batch.empty()) {  // one number, or one per batch: the latter of rows ([N, 1]) only
    return a.size() <= 2 || !kept(0) || std::find(broadcast.begin(), broadcast.end(), true) == broadcast.end();
  }
  if (kept_past_batch == std::vector<size_t>{1}) return true;
  for (size_t d = kept_past_batch.front(); d < a.size(); ++d) {
    if (broadcast[d]) return false;
  }
  return true;
}

// The result's dimensions of size other than 1, neighbours of one kind
// merged: {size, broadcast} from the first.
std::vector<std::pair<int64_t, bool>> merged_runs(const std::vector<int64_t>& a, const std::vector<bool>& broadcast) {
  std::vector<std::pair<int64_t, bool>> runs;
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] == 1) continue;
    if (!runs.empty() && runs.back().second == broadcast[d]) {
      runs.back().first *= a[d];
    } else {
      runs.emplace_back(a[d], broadcast[d]);
    }
  }
  return runs;
}

// The binary operation on views of `a_sizes` and `b_sizes`, its result viewed back.
void binary_on_views(FormWriter& writer, const fb::OperationT& op, std::vector<int64_t> a_sizes,
                     std::vector<int64_t> b_sizes) {
  auto viewed = std::make_unique<fb::OperationT>(op);
  viewed->inputs = {writer.reshape(op, op.inputs[0], a_sizes), writer.reshape(op, op.inputs[1], std::move(b_sizes))};
  const int32_t result = writer.intermediate(std::move(a_sizes));
  viewed->outputs = {result};
  writer.emit(std::move(viewed));
  writer.reshape(op, result, {}, op.outputs[0]);
}

// The binary operation with the broadcast dimensions moved first, its result permuted back.
void binary_with_broadcast_dims_first(FormWriter& writer, const fb::OperationT& op, const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b, const std::vector<bool>& broadcast) {
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
}

}  // namespace

bool binary_with_post_ops_it_takes(FormWriter& writer, const fb::OperationT& op) {
  if ((op.op.AsBinaryOp() == nullptr && op.op.AsConvolution() == nullptr) || !writer.reads_and_writes_plain_floats(op)) {
    return false;
  }
  const std::vector<int64_t>& sizes = writer.sizes(op.outputs[0]);
  const auto taken = [&](const fb::PostOpT& post) {
    const auto* binary = post.op.AsBinaryPostOp();
    return binary == nullptr || post_op_broadcast_is_taken(writer.sizes(binary->input), sizes);
  };
  const auto first_untaken = [&](const std::vector<std::unique_ptr<fb::PostOpT>>& posts) {
    return static_cast<size_t>(std::find_if(posts.begin(), posts.end(), [&](const auto& p) { return !taken(*p); }) -
                               posts.begin());
  };
  size_t split = first_untaken(op.post_ops);
  // A binary operation whose own broadcast the kernels do not take runs in
  // another form (binary_broadcast_as_a_trailing_block), which takes eltwise
  // post-ops only: its binary ones run after it (GPT-J's rotary embedding,
  // q * cos over the heads plus the rotated q * sin: ref:any).
  if (op.op.AsBinaryOp() != nullptr && op.inputs.size() == 2) {
    const std::vector<int64_t>& a = writer.sizes(op.inputs[0]);
    const std::vector<int64_t>& b = writer.sizes(op.inputs[1]);
    if (b.size() <= a.size() && a == sizes && !jit_kernels_take(a, broadcast_dims(a, b))) {
      const auto binary_post = std::find_if(op.post_ops.begin(), op.post_ops.end(),
                                            [](const auto& p) { return p->op.AsBinaryPostOp() != nullptr; });
      split = std::min(split, static_cast<size_t>(binary_post - op.post_ops.begin()));
    }
  }
  if (split == op.post_ops.size()) return false;
  // The rest split again if need be.
  writer.emit_post_ops_after(std::make_unique<fb::OperationT>(op), split);
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
  if (std::find(a.begin(), a.end(), 0) != a.end()) return false;
  const std::vector<bool> broadcast = broadcast_dims(a, b);
  if (jit_kernels_take(a, broadcast)) return false;
  const std::vector<std::pair<int64_t, bool>> runs = merged_runs(a, broadcast);
  // Not taken, so two or more runs, neither a trailing block of kept ones.
  if (runs.size() == 2) {  // kept, broadcast: one channel of a [1, kept, broadcast] view
    binary_on_views(writer, op, {1, runs[0].first, runs[1].first}, {1, runs[0].first, 1});
  } else if (runs.size() == 3 && runs[0].second) {  // broadcast, kept, broadcast: one channel
    binary_on_views(writer, op, {runs[0].first, runs[1].first, runs[2].first}, {1, runs[1].first, 1});
  } else if (runs.size() == 3) {  // kept, broadcast, kept: a trailing block per batch
    binary_on_views(writer, op, {runs[0].first, runs[1].first, runs[2].first}, {runs[0].first, 1, runs[2].first});
  } else {
    binary_with_broadcast_dims_first(writer, op, a, b, broadcast);
  }
  return true;
}

}  // namespace kiln::backends::onednn
