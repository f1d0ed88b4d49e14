// Groups the GraphWriter (graph_writer.h) lowers as several operations, and
// the folds and elisions that change what an operation reads.
#include "backends/onednn/aot/graph_writer.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "aot/ir/error.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

void GraphWriter::fold_batch_norm_into(const FusedGroup& group, fb::OperationT& op) {
  const aot::Node& bn = *group.batch_norm;
  const auto tensor = [&](const Node* node) { return node == nullptr ? nullptr : constants_.at(node); };
  const std::vector<aot::Argument>& args = bn.args();
  const auto node_at = [&](size_t i) { return args.at(i).is_node() ? args[i].node() : nullptr; };
  const FoldedConvolution folded =
      fold_batch_norm(*tensor(group.op.inputs[1]), tensor(group.op.inputs[2]), *tensor(node_at(3)), *tensor(node_at(4)),
                      tensor(node_at(1)), tensor(node_at(2)), args.at(6).is_double() ? args[6].to_double() : 1e-5);
  op.inputs[1] = constant_value(folded.weight);
  op.inputs[2] = constant_value(folded.bias);
}

// A reshape to the sizes it already has (expand or view to the same
// shape) that the call does not return: its result is its input's value.
bool GraphWriter::elide_identity_reshape(const FusedGroup& group, const ArgumentRefs& outputs) {
  const auto* reorder = group.op.op.AsReorder();
  if (reorder == nullptr || !reorder->permutation.empty() || !group.post_ops.empty() || group.result == nullptr ||
      outputs.count(group.result) > 0) {
    return false;
  }
  const int32_t input = stored_value_of(group.op.inputs.at(0));
  if (graph_->values[static_cast<size_t>(input)]->sizes != group.op.sizes) return false;
  value_of_[group.result] = input;
  for (const Node* alias : group.aliases) value_of_[alias] = input;
  return true;
}

// A Concat of more tensors than one operation joins (kMaxConcatInputs)
// becomes a tree: each run of kMaxConcatInputs inputs joined into an
// intermediate first, the operation joining those (one more level per
// factor of kMaxConcatInputs). Every operation of the tree keeps `op`'s
// debug id and name, so a profile shows them as the one cat they are.
void GraphWriter::join_in_steps(const fb::ConcatT& concat, fb::OperationT& op) {
  while (op.inputs.size() > kMaxConcatInputs) {
    std::vector<int32_t> joined;
    for (size_t first = 0; first < op.inputs.size(); first += kMaxConcatInputs) {
      const size_t end = std::min(op.inputs.size(), first + kMaxConcatInputs);
      if (end - first == 1) {
        joined.push_back(op.inputs[first]);
        continue;
      }
      const std::vector<int32_t> inputs(op.inputs.begin() + static_cast<std::ptrdiff_t>(first),
                                        op.inputs.begin() + static_cast<std::ptrdiff_t>(end));
      std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(inputs[0])]->sizes;
      const auto axis = static_cast<size_t>(concat.axis < 0 ? concat.axis + static_cast<int32_t>(sizes.size()) : concat.axis);
      sizes.at(axis) = 0;
      for (int32_t input : inputs) sizes[axis] += graph_->values[static_cast<size_t>(input)]->sizes.at(axis);
      const int32_t part = add_step(kind_of(fb::ConcatT(concat)), inputs, std::move(sizes), op.debug_id, op.name);
      if (is_quantized(inputs[0])) {
        // int8 values joined on their grid (emit_on_its_grid): each part on it too.
        const fb::ValueT& first_value = *graph_->values[static_cast<size_t>(inputs[0])];
        set_quantization(part, first_value.dtype, first_value.scale, first_value.zero_point);
      }
      joined.push_back(part);
    }
    op.inputs = std::move(joined);
  }
}

// `node` ([C]) as a value of sizes [C, 1, ...] (rank `rank` - 1), which
// broadcasts per channel against [N, C, ...]: a constant under new sizes,
// else a reshape.
int32_t GraphWriter::per_channel(const Node* node, size_t rank, int32_t debug_id, const std::string& name) {
  std::vector<int64_t> sizes(rank - 1, 1);
  if (auto it = constants_.find(node); it != constants_.end()) {
    sizes[0] = it->second->numel();
    return add_value(std::move(sizes), fb::ValueKind::Constant, 0, weights_.add(*it->second));
  }
  const int32_t value = value_of(node);
  sizes[0] = graph_->values[static_cast<size_t>(value)]->sizes.at(0);
  return reshape(value, std::move(sizes), debug_id, name);
}

int32_t GraphWriter::reshape(int32_t value, std::vector<int64_t> sizes, int32_t debug_id, const std::string& name) {
  return add_step(kind_of(fb::ReorderT()), {value}, std::move(sizes), debug_id, name);
}

// A group norm (NodeOp::group_norm): each group's elements normalized as
// one row of a layer norm, then the per-channel affine with the group's
// post-ops. Every operation keeps the group's debug id and name.
void GraphWriter::emit_group_norm(const FusedGroup& group, const ArgumentRefs& outputs) {
  const int32_t id = debug_id(group);
  const std::string name = group.nodes.front()->name();
  const int32_t x = value_of(group.op.inputs[0]);
  const std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(x)]->sizes;
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  const int64_t rows = sizes[0] * group.op.groups;
  const int32_t flat = reshape(x, {rows, numel / rows}, id, name);
  const int32_t normalized =
      add_step(kind_of(fb::LayerNormT(*group.op.group_norm)), {flat, -1, -1}, {rows, numel / rows}, id, name);
  const int32_t restored = reshape(normalized, sizes, id, name);

  auto op = operation(group, id);
  const Node* weight = group.op.inputs[1];
  const Node* bias = group.op.inputs[2];
  op->inputs = {restored};
  if (weight != nullptr || bias != nullptr) {
    op->inputs.push_back(per_channel(weight != nullptr ? weight : bias, sizes.size(), id, name));
  }
  if (weight != nullptr && bias != nullptr) {
    auto post = std::make_unique<fb::PostOpT>();
    fb::BinaryPostOpT add;
    add.algorithm = fb::BinaryAlgorithm::Add;
    add.input = per_channel(bias, sizes.size(), id, name);
    post->op.Set(std::move(add));
    op->post_ops.push_back(std::move(post));
  }
  add_post_ops(group, *op);
  write_result(group, std::move(op), outputs);
}

// A safe softmax (NodeOp::safe_softmax) over `axis` of x:
//   x' = clip(x, -FLT_MAX, FLT_MAX)        a row of -inf becomes finite
//   y  = softmax(x')                       as softmax(x) on every other row
//   g  = clip(max(x') + FLT_MAX, 0, 1)     0 where the row was all -inf, else 1
//   out = y * g                            with the group's post-ops
void GraphWriter::emit_safe_softmax(const FusedGroup& group, const ArgumentRefs& outputs) {
  const int32_t id = debug_id(group);
  const std::string name = group.nodes.back()->name();
  const int32_t x = value_of(group.op.inputs[0]);
  const std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(x)]->sizes;
  const int32_t axis = group.op.op.AsSoftmax()->axis;
  const double max = std::numeric_limits<float>::max();

  fb::EltwiseOpT bounded;
  bounded.eltwise = std::make_unique<fb::EltwiseT>(make_eltwise(fb::EltwiseAlgorithm::Clip, -max, max));
  const int32_t finite = add_step(kind_of(std::move(bounded)), {x}, sizes, id, name);
  const int32_t y = add_step(kind_of(fb::SoftmaxT(*group.op.op.AsSoftmax())), {finite}, sizes, id, name);
  fb::ReductionT row_max;
  row_max.algorithm = fb::ReductionAlgorithm::Max;
  std::vector<int64_t> row = sizes;
  row.at(static_cast<size_t>(axis)) = 1;
  const int32_t g = add_step(kind_of(std::move(row_max)), {finite}, std::move(row), id, name,
                             {make_eltwise(fb::EltwiseAlgorithm::Linear, 1, max), make_eltwise(fb::EltwiseAlgorithm::Clip, 0, 1)});

  auto op = operation(group, id);
  fb::BinaryOpT product;
  product.algorithm = fb::BinaryAlgorithm::Mul;
  op->op.Set(std::move(product));
  op->name = name;
  op->inputs = {y, g};
  add_post_ops(group, *op);
  if (broadcasts_a_column(*op)) return emit_rows_times_column(group, std::move(op), outputs);
  write_result(group, std::move(op), outputs);
}

// A binary op whose second operand is the first's sizes but for a last
// dim of 1 ([..., n, 1] over [..., n, K]: an RMS norm's scale, a safe
// softmax's gate), whose binary post-ops read one row (is_a_row). oneDNN broadcasts that on its
// reference implementation only (0.085 ms for T5's 16x64 RMS norm);
// [rows, 1] over [rows, K] it broadcasts on its JIT path.
bool GraphWriter::broadcasts_a_column(const fb::OperationT& op) const {
  if (op.op.AsBinaryOp() == nullptr || op.inputs.size() != 2) return false;
  const std::vector<int64_t>& a = graph_->values[static_cast<size_t>(op.inputs[0])]->sizes;
  const std::vector<int64_t>& b = graph_->values[static_cast<size_t>(op.inputs[1])]->sizes;
  if (a.size() < 3 || a.size() != b.size() || a.back() == 1 || b.back() != 1) return false;
  for (const auto& post : op.post_ops) {
    if (const auto* binary = post->op.AsBinaryPostOp(); binary != nullptr && !is_a_row(binary->input, a.back())) return false;
  }
  return std::equal(a.begin(), a.end() - 1, b.begin());
}

// A value that broadcasts the same over [rows, k] as over [..., n, k]: one
// row of k (or 1) elements ([k], [1, 1, k]), as an RMS norm's weight.
bool GraphWriter::is_a_row(int32_t value, int64_t k) const {
  const std::vector<int64_t>& sizes = graph_->values[static_cast<size_t>(value)]->sizes;
  const int64_t numel = std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
  return !sizes.empty() && numel == sizes.back() && (sizes.back() == k || sizes.back() == 1);
}

// That op as [rows, K] (op) [rows, 1], reshaped back.
void GraphWriter::emit_rows_times_column(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
  const std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(op->inputs[0])]->sizes;
  const int64_t rows = std::accumulate(sizes.begin(), sizes.end() - 1, int64_t{1}, std::multiplies<>());
  op->inputs = {reshape(op->inputs[0], {rows, sizes.back()}, op->debug_id, op->name),
                reshape(op->inputs[1], {rows, 1}, op->debug_id, op->name)};
  for (auto& post : op->post_ops) {
    auto* binary = post->op.AsBinaryPostOp();
    if (binary == nullptr || graph_->values[static_cast<size_t>(binary->input)]->sizes.size() <= 2) continue;
    const int64_t k = graph_->values[static_cast<size_t>(binary->input)]->sizes.back();
    binary->input = reshape(binary->input, {1, k}, op->debug_id, op->name);
  }
  const int32_t flat = add_value({rows, sizes.back()}, fb::ValueKind::Intermediate);
  op->outputs = {flat};
  auto back = std::make_unique<fb::OperationT>();
  back->op.Set(fb::ReorderT());
  back->debug_id = op->debug_id;
  back->name = op->name;
  back->inputs = {flat};
  graph_->operations.push_back(std::move(op));
  write_result(group, std::move(back), outputs);
}

// An eltwise op with more eltwise ops after it (an activation pattern
// standing alone: hardswish and its scale) as one operation each: oneDNN
// runs an eltwise primitive with post-ops on its reference implementation.
void GraphWriter::emit_eltwise_chain(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
  std::vector<fb::EltwiseT> chain;
  for (const auto& post : op->post_ops) {
    const auto* eltwise = post->op.AsEltwise();
    if (eltwise == nullptr) throw AotError("OneDnnBackend: '" + op->name + "': an eltwise op with a binary post-op");
    chain.push_back(*eltwise);
  }
  op->post_ops.clear();
  int32_t value = add_value(group.op.sizes, fb::ValueKind::Intermediate);
  op->outputs = {value};
  const int32_t id = op->debug_id;
  const std::string name = op->name;
  graph_->operations.push_back(std::move(op));
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    fb::EltwiseOpT next;
    next.eltwise = std::make_unique<fb::EltwiseT>(chain[i]);
    value = add_step(kind_of(std::move(next)), {value}, group.op.sizes, id, name);
  }
  auto last = std::make_unique<fb::OperationT>();
  fb::EltwiseOpT final_op;
  final_op.eltwise = std::make_unique<fb::EltwiseT>(chain.back());
  last->op.Set(std::move(final_op));
  last->debug_id = id;
  last->name = name;
  last->inputs = {value};
  write_result(group, std::move(last), outputs);
}

}  // namespace kiln::backends::onednn
