// lower_partition (lowering.h) and the GraphWriter's driver (graph_writer.h):
// values, operations, each fused group emitted, the outputs bound.
#include "backends/onednn/aot/graph_writer.h"

#include "aot/ir/error.h"
#include "backends/onednn/aot/fast_forms.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

namespace {

std::vector<int64_t> result_sizes(const Node* node) {
  const aot::ValueMeta& val = node->meta.val;
  if (const auto* meta = std::get_if<aot::TensorMeta>(&val)) return meta->static_sizes();
  throw AotError("OneDnnBackend: '" + node->name() + "' is not a tensor");
}

}  // namespace

LoweredPartition GraphWriter::lower() {
  check_no_mutations();
  add_user_inputs();
  const ArgumentRefs outputs = output_positions();
  for (const FusedGroup& group : plan_fusion(partition_, constants_)) emit(group, outputs);
  bind_outputs();
  use_fast_forms(*graph_, weights_, [this](int32_t a, int32_t b) { return merged_debug_id(a, b); });
  check_operation_rules(*graph_);
  aot::NamedDataStoreOutput named_data = named_data_read_by(*graph_, weights_.output());
  return {std::move(graph_), std::move(named_data), mapping_.get_delegate_mapping()};
}

void GraphWriter::check_no_mutations() const {
  for (const aot::OutputSpec& spec : partition_.graph_signature().output_specs) {
    if (spec.kind == aot::OutputKind::BufferMutation) {
      throw AotError("OneDnnBackend keeps no state, but the partition mutates buffer '" + spec.target + "'");
    }
  }
}

int32_t GraphWriter::add_value(std::vector<int64_t> sizes, fb::ValueKind kind, uint32_t index, std::string key) {
  auto value = std::make_unique<fb::ValueT>();
  value->sizes = std::move(sizes);
  value->kind = kind;
  value->index = index;
  value->constant_key = std::move(key);
  graph_->values.push_back(std::move(value));
  return static_cast<int32_t>(graph_->values.size() - 1);
}

void GraphWriter::add_user_inputs() {
  const auto placeholders = partition_.graph().placeholders();
  const auto& specs = partition_.graph_signature().input_specs;
  uint32_t index = 0;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    if (i < specs.size() && specs[i].kind != aot::InputKind::UserInput) continue;
    const auto* meta = std::get_if<aot::TensorMeta>(&placeholders[i]->meta.val);
    if (meta == nullptr || !meta->is_static()) {
      throw AotError("OneDnnBackend: input '" + placeholders[i]->name() + "' is not a tensor of static sizes");
    }
    value_of_[placeholders[i]] = add_value(meta->static_sizes(), fb::ValueKind::Input, index++);
    mark_runtime_dim(placeholders[i], value_of_[placeholders[i]]);
  }
}

// Each node the output list names first -> its position there.
GraphWriter::ArgumentRefs GraphWriter::output_positions() const {
  ArgumentRefs positions;
  const aot::ArgumentList& results = partition_.graph().output_node()->args().at(0).list();
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].is_node()) throw AotError("OneDnnBackend: the partition returns " + aot::to_string(results[i]) + ", not a tensor");
    positions.emplace(results[i].node(), static_cast<uint32_t>(i));
  }
  return positions;
}

int32_t GraphWriter::constant_value(const aot::HostTensor& tensor) {
  return add_value(tensor.sizes(), fb::ValueKind::Constant, 0, weights_.add(tensor));
}

// The value `node` names, as stored (quantized, for a quantize op's
// result and the dequantize ops that name it); -1 for none. Constants get
// a value when first read.
int32_t GraphWriter::stored_value_of(const Node* node) {
  if (node == nullptr) return -1;
  if (auto it = value_of_.find(node); it != value_of_.end()) return it->second;
  if (auto it = constants_.find(node); it != constants_.end()) return value_of_[node] = constant_value(*it->second);
  throw AotError("OneDnnBackend: '" + node->name() + "' is read before it is computed");
}

bool GraphWriter::is_quantized(int32_t value) const {
  return value >= 0 && graph_->values[static_cast<size_t>(value)]->dtype != fb::DataType::Float32;
}

// The value `node` names as float32: a quantized one is dequantized once,
// where a float op first reads it.
int32_t GraphWriter::value_of(const Node* node) {
  const int32_t stored = stored_value_of(node);
  if (!is_quantized(stored)) return stored;
  if (auto it = dequantized_.find(stored); it != dequantized_.end()) return it->second;
  const std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(stored)]->sizes;
  return dequantized_[stored] = add_step(kind_of(fb::ReorderT()), {stored}, sizes, -1, node->name() + ".dequantized");
}

int32_t GraphWriter::result_value(const Node* node, const std::vector<int64_t>& sizes, const ArgumentRefs& outputs) {
  auto output = node == nullptr ? outputs.end() : outputs.find(node);
  const int32_t value = output == outputs.end() ? add_value(sizes, fb::ValueKind::Intermediate)
                                                : add_value(sizes, fb::ValueKind::Output, output->second);
  if (node != nullptr) value_of_[node] = value;
  mark_runtime_dim(node, value);
  return value;
}

// An operation of a lowering's own (a step of a tree of concats, of a
// group norm or a safe softmax) writing a new intermediate value of
// `sizes`, which it returns; eltwise post-ops from `post_ops`.
int32_t GraphWriter::add_step(fb::OperationKindUnion kind, std::vector<int32_t> inputs, std::vector<int64_t> sizes, int32_t debug_id,
                 const std::string& name, const std::vector<fb::EltwiseT>& post_ops) {
  auto op = std::make_unique<fb::OperationT>();
  op->op = std::move(kind);
  op->debug_id = debug_id;
  op->name = name;
  op->inputs = std::move(inputs);
  for (const fb::EltwiseT& e : post_ops) {
    auto post = std::make_unique<fb::PostOpT>();
    post->op.Set(fb::EltwiseT(e));
    op->post_ops.push_back(std::move(post));
  }
  const int32_t result = add_value(std::move(sizes), fb::ValueKind::Intermediate);
  op->outputs = {result};
  graph_->operations.push_back(std::move(op));
  return result;
}

// `op`, the group's last operation, writes the group's result.
void GraphWriter::write_result(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
  op->outputs = {result_value(group.result, group.op.sizes, outputs)};
  for (const Node* alias : group.aliases) value_of_[alias] = op->outputs[0];
  graph_->operations.push_back(std::move(op));
}

std::unique_ptr<fb::OperationT> GraphWriter::operation(const FusedGroup& group, int32_t debug_id) {
  auto op = std::make_unique<fb::OperationT>();
  op->op = group.op.op;
  op->debug_id = debug_id;
  op->name = group.nodes.front()->name();
  return op;
}

namespace {

void append_eltwise(fb::OperationT& op, fb::EltwiseAlgorithm algorithm, float alpha, float beta) {
  fb::EltwiseT eltwise;
  eltwise.algorithm = algorithm;
  eltwise.alpha = alpha;
  eltwise.beta = beta;
  auto post = std::make_unique<fb::PostOpT>();
  post->op.Set(std::move(eltwise));
  op.post_ops.push_back(std::move(post));
}

// alpha * x + beta after the post-ops so far, composed with a Linear last
// among them.
void append_linear(fb::OperationT& op, float alpha, float beta) {
  if (!op.post_ops.empty()) {
    fb::EltwiseT* last = op.post_ops.back()->op.AsEltwise();
    if (last != nullptr && last->algorithm == fb::EltwiseAlgorithm::Linear) {
      last->beta = alpha * last->beta + beta;
      last->alpha *= alpha;
      return;
    }
  }
  append_eltwise(op, fb::EltwiseAlgorithm::Linear, alpha, beta);
}

}  // namespace

// A binary post-op reading an int8 value y = s * (q - z) reads its integers
// q where the algebra allows it: d + y = s * (d / s - z + q), d - y =
// s * (d / s + z - q), max(d, y) = s * (max(d / s + z, q) - z) (min
// alike). The Linear post-ops around it move d onto y's grid and back,
// and no float32 copy of y is made (an int8 residual add).
void GraphWriter::add_post_ops(const FusedGroup& group, fb::OperationT& op) {
  for (size_t i = 0; i < group.post_ops.size(); ++i) {
    const PlannedPostOp& planned = group.post_ops[i];
    if (planned.eltwise) {
      auto post = std::make_unique<fb::PostOpT>();
      post->op.Set(fb::EltwiseT(*planned.eltwise));
      op.post_ops.push_back(std::move(post));
      continue;
    }
    fb::BinaryPostOpT binary;
    binary.algorithm = planned.binary;
    const int32_t stored = stored_value_of(planned.other);
    const bool shifts = planned.binary == fb::BinaryAlgorithm::Add || planned.binary == fb::BinaryAlgorithm::Sub ||
                        planned.binary == fb::BinaryAlgorithm::Max || planned.binary == fb::BinaryAlgorithm::Min;
    const fb::ValueT& other = *graph_->values[static_cast<size_t>(stored)];
    if (is_quantized(stored) && !other.dynamic && shifts && post_ops_read_integers(op.op.type) &&
        op.post_ops.size() + 3 + (group.post_ops.size() - i - 1) <= kMaxPostOps) {
      const float scale = other.scale;
      const auto zero_point = static_cast<float>(other.zero_point);
      append_linear(op, 1.0f / scale, planned.binary == fb::BinaryAlgorithm::Add ? -zero_point : zero_point);
      binary.input = stored;
      auto post = std::make_unique<fb::PostOpT>();
      post->op.Set(std::move(binary));
      op.post_ops.push_back(std::move(post));
      const bool extreme = planned.binary == fb::BinaryAlgorithm::Max || planned.binary == fb::BinaryAlgorithm::Min;
      append_eltwise(op, fb::EltwiseAlgorithm::Linear, scale, extreme ? -scale * zero_point : 0.0f);
      continue;
    }
    binary.input = value_of(planned.other);
    auto post = std::make_unique<fb::PostOpT>();
    post->op.Set(std::move(binary));
    op.post_ops.push_back(std::move(post));
  }
}

int32_t GraphWriter::merged_debug_id(int32_t a, int32_t b) {
  if (a < 0 || b < 0) return a < 0 ? b : a;
  const aot::DebugHandleMap& map = mapping_.get_delegate_mapping();
  std::vector<int64_t> handles = map.at(aot::DelegateDebugId{int64_t{a}});
  const std::vector<int64_t>& more = map.at(aot::DelegateDebugId{int64_t{b}});
  handles.insert(handles.end(), more.begin(), more.end());
  return static_cast<int32_t>(std::get<int64_t>(mapping_.insert_delegate_mapping_entry(handles)));
}

int32_t GraphWriter::debug_id(const FusedGroup& group) {
  for (const Node* node : group.nodes) {
    if (node->meta.debug_handle) {
      return static_cast<int32_t>(std::get<int64_t>(mapping_.insert_delegate_mapping_entry(group.nodes)));
    }
  }
  return -1;
}

void GraphWriter::emit(const FusedGroup& group, const ArgumentRefs& outputs) {
  if (group.op.safe_softmax) return emit_safe_softmax(group, outputs);
  if (group.op.group_norm) return emit_group_norm(group, outputs);
  if (elide_identity_reshape(group, outputs)) return;
  if (group.op.op.AsDynamicQuantize() != nullptr) return emit_dynamic_quantize(group);
  if (group.result != nullptr && group.result != group.base &&
      aot::quant_op_kind(group.result->target()) == aot::QuantOpKind::QuantizePerTensor && group.post_ops.empty() &&
      emit_on_its_grid(group)) {
    return;
  }
  // An op that only moves int8 values, nothing quantizing after it in its
  // group (ShuffleNet's reshape and crops before their own grids): its
  // result stays on the grid too, and a quantize op reading it requantizes
  // the bytes (emit_quantize).
  if (group.result != nullptr && aot::quant_op_kind(group.result->target()) != aot::QuantOpKind::QuantizePerTensor &&
      group.post_ops.empty() && outputs.find(group.result) == outputs.end() && emit_on_its_grid(group)) {
    return;
  }
  const std::optional<aot::TensorQParams> requantized = requantization(group);
  if (requantized && group.base == group.result) return emit_quantize(group, *requantized);
  if (requantized && group.op.op.AsBatchNorm() != nullptr && emit_norm_between_grids(group, *requantized)) return;
  if (requantized && emit_channel_product(group, *requantized)) return;
  const std::optional<Int8Weight> int8_weights = int8_weights_of(group);
  const bool int8 = int8_weights && is_quantized(stored_value_of(group.op.inputs[0]));
  auto op = operation(group, debug_id(group));
  for (size_t i = 0; i < group.op.inputs.size(); ++i) {
    const bool folded = group.batch_norm != nullptr && (i == 1 || i == 2);  // replaced below
    if (int8 && i == 0) {
      op->inputs.push_back(stored_value_of(group.op.inputs[0]));
    } else if (int8_weights && i == 1) {
      const int32_t weight =
          add_value(int8_weights->values->sizes(), fb::ValueKind::Constant, 0, weights_.add(*int8_weights->values));
      graph_->values[static_cast<size_t>(weight)]->dtype = fb::DataType::Int8;
      op->inputs.push_back(weight);
    } else {
      op->inputs.push_back(folded ? -1 : value_of(group.op.inputs[i]));
    }
  }
  if (int8_weights) {
    op->inputs.resize(3, -1);
    op->inputs.push_back(constant_value(int8_weights->scales));
  }
  if (group.batch_norm != nullptr) fold_batch_norm_into(group, *op);
  if (const auto* concat = group.op.op.AsConcat()) join_in_steps(*concat, *op);
  add_post_ops(group, *op);
  if (requantized) {
    // The grid's eltwise ops become the int8 result's rounding and saturation.
    op->post_ops.resize(op->post_ops.size() - 4);
    const int32_t value = add_quantized_value(group.op.sizes, *requantized);
    if (int8) {
      op->outputs = {value};
    } else {
      const int32_t computed = add_value(group.op.sizes, fb::ValueKind::Intermediate);
      op->outputs = {computed};
      const int32_t id = op->debug_id;
      const std::string name = op->name;
      graph_->operations.push_back(std::move(op));
      op = std::make_unique<fb::OperationT>();
      op->op.Set(fb::ReorderT());
      op->inputs = {computed};
      op->outputs = {value};
      op->debug_id = id;
      op->name = name;
    }
    graph_->operations.push_back(std::move(op));
    value_of_[group.result] = value;
    return;
  }
  if (op->op.type == fb::OperationKind::EltwiseOp && !op->post_ops.empty()) return emit_eltwise_chain(group, std::move(op), outputs);
  if (broadcasts_a_column(*op) && !group.op.keepdim_sizes) return emit_rows_times_column(group, std::move(op), outputs);
  if (group.op.keepdim_sizes) {
    // The reduction (or select) keeps its dimensions; a reshape drops them.
    const int32_t kept = add_value(*group.op.keepdim_sizes, fb::ValueKind::Intermediate);
    op->outputs = {kept};
    graph_->operations.push_back(std::move(op));
    auto reshape = operation(group, debug_id(group));
    reshape->op.Set(fb::ReorderT());
    reshape->inputs = {kept};
    write_result(group, std::move(reshape), outputs);
    return;
  }
  write_result(group, std::move(op), outputs);
}

// An output the graph has not written as that output (an input, a
// constant, a value returned twice) is copied there by a Reorder.
void GraphWriter::bind_outputs() {
  const aot::ArgumentList& results = partition_.graph().output_node()->args().at(0).list();
  for (size_t i = 0; i < results.size(); ++i) {
    const int32_t value = value_of(results[i].node());
    const fb::ValueT& written = *graph_->values[static_cast<size_t>(value)];
    if (written.kind == fb::ValueKind::Output && written.index == i) continue;
    auto copy = std::make_unique<fb::OperationT>();
    copy->op.Set(fb::ReorderT());
    copy->inputs = {value};
    copy->outputs = {add_value(result_sizes(results[i].node()), fb::ValueKind::Output, static_cast<uint32_t>(i))};
    mark_runtime_dim(results[i].node(), copy->outputs[0]);
    copy->debug_id = -1;
    copy->name = results[i].node()->name();
    graph_->operations.push_back(std::move(copy));
  }
}

LoweredPartition lower_partition(const aot::ExportedProgram& partition) { return GraphWriter(partition, {}).lower(); }

LoweredPartition lower_partition(const aot::ExportedProgram& partition, const std::map<std::string, int32_t>& runtime_dims) {
  return GraphWriter(partition, runtime_dims).lower();
}

// Read from the graph packed as the runtime will read it, by the runtime's
// own facts_of.
void check_operation_rules(const fb::GraphT& graph) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::Graph::Pack(builder, &graph));
  const fb::Graph& packed = *fb::GetGraph(builder.GetBufferPointer());
  if (packed.operations() == nullptr) return;
  for (const fb::Operation* op : *packed.operations()) {
    if (const Verdict verdict = verdict_of(facts_of(packed, *op)); !verdict) {
      throw AotError("OneDnnBackend: '" + std::string(op->name() != nullptr ? op->name()->c_str() : "") + "' (" +
                     fb::EnumNameOperationKind(op->op_type()) + ") breaks its kind's rules: " + verdict.reason);
    }
  }
}

}  // namespace kiln::backends::onednn
