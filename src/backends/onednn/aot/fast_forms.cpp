#include "backends/onednn/aot/fast_forms.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <numeric>

#include "aot/ir/error.h"
#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// In the order tried; at most one rewrites an operation.
constexpr FastFormRule kRules[] = {
    reduce_innermost_dims,
    softmax_over_innermost_dim,
    matmul_with_broadcasts_it_takes,
    transposed_convolution_as_matmul,
    pointwise_convolution_of_one_pixel_as_matmul,
    binary_broadcast_as_a_trailing_block,
    binary_with_post_ops_it_takes,
};

// Drops the constants no operation reads any more (a rule that reads a
// constant under other sizes leaves the old value), renumbering the rest.
void drop_unread_constants(fb::GraphT& graph) {
  std::vector<bool> read(graph.values.size(), false);
  for (const auto& op : graph.operations) {
    for (int32_t v : op->inputs) {
      if (v >= 0) read[static_cast<size_t>(v)] = true;
    }
    for (const auto& post : op->post_ops) {
      if (const auto* binary = post->op.AsBinaryPostOp()) read[static_cast<size_t>(binary->input)] = true;
    }
  }
  std::vector<int32_t> renumbered(graph.values.size(), -1);
  std::vector<std::unique_ptr<fb::ValueT>> kept;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v]->kind == fb::ValueKind::Constant && !read[v]) continue;
    renumbered[v] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(graph.values[v]));
  }
  if (kept.size() == graph.values.size()) {
    graph.values = std::move(kept);
    return;
  }
  graph.values = std::move(kept);
  const auto renumber = [&](int32_t& v) {
    if (v >= 0) v = renumbered[static_cast<size_t>(v)];
  };
  for (auto& op : graph.operations) {
    for (int32_t& v : op->inputs) renumber(v);
    for (int32_t& v : op->outputs) renumber(v);
    for (auto& post : op->post_ops) {
      if (auto* binary = post->op.AsBinaryPostOp()) renumber(binary->input);
    }
  }
}

}  // namespace

void use_fast_forms(fb::GraphT& graph, WeightStore& weights, const MergeDebugIds& merge) {
  FormWriter writer(graph, weights);
  fold_zero_pads_into_convolutions(graph, writer, merge);
  std::vector<std::unique_ptr<fb::OperationT>> operations = std::move(graph.operations);
  graph.operations.clear();
  for (std::unique_ptr<fb::OperationT>& op : operations) writer.emit_in_fast_form(std::move(op));
  drop_unread_constants(graph);
}

// ---------------------------------------------------------------- FormWriter

void FormWriter::emit_in_fast_form(std::unique_ptr<fb::OperationT> op) {
  for (FastFormRule rule : kRules) {
    if (rule(*this, *op)) return;
  }
  emit(std::move(op));
}

void FormWriter::emit_post_ops_after(std::unique_ptr<fb::OperationT> op, size_t at) {
  std::vector<std::unique_ptr<fb::PostOpT>> rest;
  for (size_t p = at; p < op->post_ops.size(); ++p) rest.push_back(std::move(op->post_ops[p]));
  op->post_ops.resize(at);
  const int32_t result = op->outputs.at(0);
  const int32_t partial = intermediate(sizes(result));
  op->outputs = {partial};
  const fb::BinaryPostOpT& first = *rest.front()->op.AsBinaryPostOp();
  fb::BinaryOpT binary;
  binary.algorithm = first.algorithm;
  fb::OperationKindUnion kind;
  kind.Set(std::move(binary));
  auto after = operation_like(*op, std::move(kind), {partial, first.input}, result);
  after->post_ops.assign(std::make_move_iterator(rest.begin() + 1), std::make_move_iterator(rest.end()));
  emit_in_fast_form(std::move(op));
  emit_in_fast_form(std::move(after));
}

int64_t element_count(const std::vector<int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

bool all_equal(const std::vector<int64_t>& list, int64_t value) {
  return std::all_of(list.begin(), list.end(), [value](int64_t v) { return v == value; });
}

const fb::ConvolutionT* FormWriter::float_convolution_of_constants(const fb::OperationT& op, bool transposed) const {
  const fb::ConvolutionT* conv = op.op.AsConvolution();
  if (conv == nullptr || conv->transposed != transposed || conv->groups != 1 || op.inputs.size() < 2 ||
      (op.inputs.size() > 3 && op.inputs[3] >= 0) || !reads_and_writes_plain_floats(op)) {
    return nullptr;
  }
  const int32_t weights = op.inputs[1], bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  if (value(weights).kind != fb::ValueKind::Constant || (bias >= 0 && value(bias).kind != fb::ValueKind::Constant)) {
    return nullptr;
  }
  return conv;
}

bool FormWriter::is_plain_float(int32_t v) const {
  return v >= 0 && value(v).dtype == fb::DataType::Float32 && value(v).runtime_dim < 0;
}

bool FormWriter::reads_and_writes_plain_floats(const fb::OperationT& op) const {
  for (int32_t v : op.inputs) {
    if (v >= 0 && !is_plain_float(v)) return false;
  }
  for (int32_t v : op.outputs) {
    if (!is_plain_float(v)) return false;
  }
  for (const auto& post : op.post_ops) {
    if (const auto* binary = post->op.AsBinaryPostOp(); binary != nullptr && !is_plain_float(binary->input)) return false;
  }
  return true;
}

int32_t FormWriter::intermediate(std::vector<int64_t> sizes) {
  auto v = std::make_unique<fb::ValueT>();
  v->sizes = std::move(sizes);
  v->kind = fb::ValueKind::Intermediate;
  values().push_back(std::move(v));
  return static_cast<int32_t>(values().size() - 1);
}

int32_t FormWriter::constant(const aot::HostTensor& tensor) {
  auto v = std::make_unique<fb::ValueT>();
  v->sizes = tensor.sizes();
  v->kind = fb::ValueKind::Constant;
  v->constant_key = weights_.add(tensor);
  values().push_back(std::move(v));
  return static_cast<int32_t>(values().size() - 1);
}

int32_t FormWriter::constant_as(int32_t source, std::vector<int64_t> sizes) {
  if (element_count(sizes) != element_count(this->sizes(source))) {
    throw aot::AotError("OneDnnBackend: a constant seen with another element count");
  }
  auto v = std::make_unique<fb::ValueT>(value(source));
  v->sizes = std::move(sizes);
  values().push_back(std::move(v));
  return static_cast<int32_t>(values().size() - 1);
}

std::vector<float> FormWriter::constant_data(int32_t v) const {
  const std::vector<uint8_t>& bytes = weights_.output().get(value(v).constant_key);
  std::vector<float> data(bytes.size() / sizeof(float));
  std::memcpy(data.data(), bytes.data(), data.size() * sizeof(float));
  return data;
}

std::unique_ptr<fb::OperationT> FormWriter::operation_like(const fb::OperationT& origin, fb::OperationKindUnion kind,
                                                           std::vector<int32_t> inputs, int32_t output) const {
  auto op = std::make_unique<fb::OperationT>();
  op->op = std::move(kind);
  op->inputs = std::move(inputs);
  op->outputs = {output};
  op->debug_id = origin.debug_id;
  op->name = origin.name;
  return op;
}

int32_t FormWriter::permute(const fb::OperationT& origin, int32_t input, const std::vector<int64_t>& permutation,
                            int32_t output) {
  if (output < 0) {
    std::vector<int64_t> permuted;
    for (int64_t p : permutation) permuted.push_back(sizes(input).at(static_cast<size_t>(p)));
    output = intermediate(std::move(permuted));
  }
  fb::OperationKindUnion kind;
  fb::ReorderT reorder;
  reorder.permutation = permutation;
  kind.Set(std::move(reorder));
  emit(operation_like(origin, std::move(kind), {input}, output));
  return output;
}

int32_t FormWriter::reshape(const fb::OperationT& origin, int32_t input, std::vector<int64_t> sizes, int32_t output) {
  if (output < 0) output = intermediate(std::move(sizes));
  fb::OperationKindUnion kind;
  kind.Set(fb::ReorderT());
  emit(operation_like(origin, std::move(kind), {input}, output));
  return output;
}

}  // namespace kiln::backends::onednn
