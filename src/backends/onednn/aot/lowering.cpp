#include "backends/onednn/aot/lowering.h"

#include <algorithm>
#include <limits>
#include <functional>
#include <map>
#include <numeric>

#include "aot/delegate/debug_handle.h"
#include "aot/ir/error.h"
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/fast_forms.h"
#include "backends/onednn/aot/fusion.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/aot/weights.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

namespace {

std::vector<int64_t> sizes_of(const Node* node) {
  const aot::ValueMeta& val = node->meta.val;
  if (const auto* meta = std::get_if<aot::TensorMeta>(&val)) return meta->static_sizes();
  throw AotError("OneDnnBackend: '" + node->name() + "' is not a tensor");
}

class GraphWriter {
 public:
  GraphWriter(const aot::ExportedProgram& partition, const std::map<std::string, int32_t>& runtime_dims)
      : partition_(partition),
        runtime_dims_(runtime_dims),
        constants_(constant_tensors(partition)),
        graph_(std::make_unique<fb::GraphT>()) {}

  LoweredPartition lower() {
    check_no_mutations();
    add_user_inputs();
    const ArgumentRefs outputs = output_positions();
    for (const FusedGroup& group : plan_fusion(partition_, constants_)) emit(group, outputs);
    bind_outputs();
    use_fast_forms(*graph_, weights_);
    check_runtime_dims();
    return {std::move(graph_), weights_.output(), mapping_.get_delegate_mapping()};
  }

 private:
  using ArgumentRefs = std::map<const Node*, uint32_t>;

  void check_no_mutations() const {
    for (const aot::OutputSpec& spec : partition_.graph_signature().output_specs) {
      if (spec.kind == aot::OutputKind::BufferMutation) {
        throw AotError("OneDnnBackend keeps no state, but the partition mutates buffer '" + spec.target + "'");
      }
    }
  }

  int32_t add_value(std::vector<int64_t> sizes, fb::ValueKind kind, uint32_t index = 0, std::string key = "") {
    auto value = std::make_unique<fb::ValueT>();
    value->sizes = std::move(sizes);
    value->kind = kind;
    value->index = index;
    value->constant_key = std::move(key);
    graph_->values.push_back(std::move(value));
    return static_cast<int32_t>(graph_->values.size() - 1);
  }

  void add_user_inputs() {
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
  ArgumentRefs output_positions() const {
    ArgumentRefs positions;
    const aot::ArgumentList& results = partition_.graph().output_node()->args().at(0).list();
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].is_node()) throw AotError("OneDnnBackend: the partition returns " + aot::to_string(results[i]) + ", not a tensor");
      positions.emplace(results[i].node(), static_cast<uint32_t>(i));
    }
    return positions;
  }

  int32_t constant_value(const aot::HostTensor& tensor) {
    return add_value(tensor.sizes(), fb::ValueKind::Constant, 0, weights_.add(tensor));
  }

  // The value `node` names, as stored (quantized, for a quantize op's
  // result and the dequantize ops that name it); -1 for none. Constants get
  // a value when first read.
  int32_t stored_value_of(const Node* node) {
    if (node == nullptr) return -1;
    if (auto it = value_of_.find(node); it != value_of_.end()) return it->second;
    if (auto it = constants_.find(node); it != constants_.end()) return value_of_[node] = constant_value(*it->second);
    throw AotError("OneDnnBackend: '" + node->name() + "' is read before it is computed");
  }

  bool is_quantized(int32_t value) const {
    return value >= 0 && graph_->values[static_cast<size_t>(value)]->dtype != fb::DataType::Float32;
  }

  // The value `node` names as float32: a quantized one is dequantized once,
  // where a float op first reads it.
  int32_t value_of(const Node* node) {
    const int32_t stored = stored_value_of(node);
    if (!is_quantized(stored)) return stored;
    if (auto it = dequantized_.find(stored); it != dequantized_.end()) return it->second;
    const std::vector<int64_t> sizes = graph_->values[static_cast<size_t>(stored)]->sizes;
    return dequantized_[stored] = add_step(kind_of(fb::ReorderT()), {stored}, sizes, -1, node->name() + ".dequantized");
  }

  // A quantized value, always held as uint8: an int8 one (its whole range,
  // requantization() checks) shifted by 128, q + 128 with zero point + 128,
  // the same numbers. The CPU's int8 dot products multiply unsigned by
  // signed bytes; a signed source costs oneDNN a compensation pass.
  int32_t add_quantized_value(std::vector<int64_t> sizes, const aot::TensorQParams& params) {
    const int32_t value = add_value(std::move(sizes), fb::ValueKind::Intermediate);
    set_quantization(value, fb::DataType::UInt8, static_cast<float>(params.scale),
                     static_cast<int32_t>(params.zero_point + (params.dtype == aot::ScalarType::Char ? 128 : 0)));
    return value;
  }

  void set_quantization(int32_t value, fb::DataType dtype, float scale, int32_t zero_point) {
    fb::ValueT& v = *graph_->values[static_cast<size_t>(value)];
    v.dtype = dtype;
    v.scale = scale;
    v.zero_point = zero_point;
  }

  // ---- int8 (onednn_graph.fbs): a quantize op whose grid a group ends with
  // becomes an int8 value, which int8 convolutions and matmuls read as it is.

  // The parameters of the quantize op `group` ends with, when its result
  // can be an int8 value: the op's whole range is its dtype's, so that
  // oneDNN's saturation is its clamp; and the group's last eltwise ops are
  // exactly its grid (a Linear composed with one before it is not).
  std::optional<aot::TensorQParams> requantization(const FusedGroup& group) const {
    const Node* q = group.result;
    if (q == nullptr || aot::quant_op_kind(q->target()) != aot::QuantOpKind::QuantizePerTensor) return std::nullopt;
    const std::optional<aot::TensorQParams> params = aot::constant_tensor_qparams(*q);
    if (!params) return std::nullopt;
    const auto range = aot::quant_range_of(params->dtype);
    if ((params->dtype != aot::ScalarType::Char && params->dtype != aot::ScalarType::Byte) || !range ||
        params->quant_min != range->first || params->quant_max != range->second) {
      return std::nullopt;
    }
    if (group.op.safe_softmax || group.op.group_norm || group.op.keepdim_sizes) return std::nullopt;
    const std::vector<fb::EltwiseT> grid = quantized_grid(*q).eltwises();
    std::vector<fb::EltwiseT> tail;
    if (group.base == q) {
      const auto* eltwise = group.op.op.AsEltwiseOp();
      if (eltwise == nullptr) return std::nullopt;
      tail.push_back(*eltwise->eltwise);
    }
    const size_t wanted = grid.size() - tail.size();
    if (group.post_ops.size() < wanted) return std::nullopt;
    for (size_t i = group.post_ops.size() - wanted; i < group.post_ops.size(); ++i) {
      if (!group.post_ops[i].eltwise) return std::nullopt;
      tail.push_back(*group.post_ops[i].eltwise);
    }
    for (size_t i = 0; i < grid.size(); ++i) {
      if (tail[i].algorithm != grid[i].algorithm || tail[i].alpha != grid[i].alpha || tail[i].beta != grid[i].beta) {
        return std::nullopt;
      }
    }
    return params;
  }

  // An int8 weight: the values and one float32 scale per output channel of
  // a dequantize_per_channel node over constants, symmetric on axis 0.
  struct Int8Weight {
    const aot::HostTensor* values = nullptr;
    aot::HostTensor scales;
  };

  std::optional<Int8Weight> int8_weight(const Node* node) const {
    if (node == nullptr || aot::quant_op_kind(node->target()) != aot::QuantOpKind::DequantizePerChannel) return std::nullopt;
    const aot::ArgumentList& args = node->args();
    const auto constant = [&](size_t i) -> const aot::HostTensor* {
      if (i >= args.size() || !args[i].is_node()) return nullptr;
      auto it = constants_.find(args[i].node());
      return it == constants_.end() ? nullptr : it->second;
    };
    const aot::HostTensor* values = constant(0);
    const aot::HostTensor* scales = constant(1);
    if (values == nullptr || scales == nullptr || values->dtype() != aot::ScalarType::Char || values->rank() < 2 ||
        args.size() < 4 || !args[3].is_int() || args[3].to_int() != 0 || scales->numel() != values->sizes()[0]) {
      return std::nullopt;
    }
    if (const aot::HostTensor* zero_points = constant(2)) {
      for (double z : zero_points->to_doubles()) {
        if (z != 0) return std::nullopt;
      }
    } else if (!args[2].is_none()) {
      return std::nullopt;
    }
    Int8Weight weight{values, aot::HostTensor::zeros(aot::ScalarType::Float, {scales->numel()})};
    const std::vector<double> s = scales->to_doubles();
    for (size_t i = 0; i < s.size(); ++i) weight.scales.data<float>()[i] = static_cast<float>(s[i]);
    return weight;
  }

  // The group is a convolution or matmul on int8 weights (a linear's: [N,
  // K], transposed), stored as they are; with a source stored quantized it
  // runs in int8, else in float32 on the weights dequantized at load.
  std::optional<Int8Weight> int8_weights_of(const FusedGroup& group) const {
    const fb::OperationKind kind = group.op.kind();
    if (group.batch_norm != nullptr || group.op.inputs.size() < 2) return std::nullopt;
    if (kind == fb::OperationKind::Convolution) {
      if (group.op.op.AsConvolution()->transposed) return std::nullopt;
    } else if (kind != fb::OperationKind::MatMul || !group.op.op.AsMatMul()->transpose_b) {
      return std::nullopt;
    }
    std::optional<Int8Weight> weight = int8_weight(group.op.inputs[1]);
    if (!weight || (kind == fb::OperationKind::MatMul && weight->values->rank() != 2)) return std::nullopt;
    return weight;
  }

  // A dynamic quantization: float32 to a uint8 value whose scale and zero
  // point the runtime computes, read as it is by an int8 matmul.
  void emit_dynamic_quantize(const FusedGroup& group) {
    auto op = operation(group, debug_id(group));
    op->inputs = {value_of(group.op.inputs.at(0))};
    const int32_t value = add_value(group.op.sizes, fb::ValueKind::Intermediate);
    fb::ValueT& v = *graph_->values[static_cast<size_t>(value)];
    v.dtype = fb::DataType::UInt8;
    v.dynamic = true;
    op->outputs = {value};
    graph_->operations.push_back(std::move(op));
    value_of_[group.result] = value;
  }

  // A max pool, layout op or concat whose quantize op after it is the
  // identity (fusion/quantize.cpp), on the int8 values when every input is
  // held so with the same parameters; false to lower it as a float op (its
  // result, on the grid already, then names the quantize op's value).
  bool emit_on_its_grid(const FusedGroup& group) {
    const fb::OperationKind kind = group.op.kind();
    if (kind != fb::OperationKind::Pooling && kind != fb::OperationKind::Reorder && kind != fb::OperationKind::Concat) {
      return false;
    }
    std::vector<int32_t> inputs;
    for (const Node* input : group.op.inputs) inputs.push_back(stored_value_of(input));
    const fb::ValueT& first = *graph_->values[static_cast<size_t>(inputs[0])];
    bool int8 = is_quantized(inputs[0]) && !first.dynamic && inputs.size() <= kMaxConcatInputs;
    for (int32_t input : inputs) {
      const fb::ValueT& v = *graph_->values[static_cast<size_t>(input)];
      int8 = int8 && v.dtype == first.dtype && !v.dynamic && v.scale == first.scale && v.zero_point == first.zero_point;
    }
    if (!int8) return false;
    auto op = operation(group, debug_id(group));
    op->inputs = inputs;
    const int32_t value = add_value(group.op.sizes, fb::ValueKind::Intermediate);
    set_quantization(value, first.dtype, first.scale, first.zero_point);
    op->outputs = {value};
    graph_->operations.push_back(std::move(op));
    value_of_[group.result] = value;
    return true;
  }

  // A quantize op on its own: float32 to its int8 value, one reorder.
  void emit_quantize(const FusedGroup& group, const aot::TensorQParams& params) {
    auto op = operation(group, debug_id(group));
    op->op.Set(fb::ReorderT());
    op->inputs = {value_of(group.op.inputs.at(0))};
    const int32_t value = add_quantized_value(group.op.sizes, params);
    op->outputs = {value};
    graph_->operations.push_back(std::move(op));
    value_of_[group.result] = value;
  }

  int32_t result_value(const Node* node, const std::vector<int64_t>& sizes, const ArgumentRefs& outputs) {
    auto output = node == nullptr ? outputs.end() : outputs.find(node);
    const int32_t value = output == outputs.end() ? add_value(sizes, fb::ValueKind::Intermediate)
                                                  : add_value(sizes, fb::ValueKind::Output, output->second);
    if (node != nullptr) value_of_[node] = value;
    mark_runtime_dim(node, value);
    return value;
  }

  // The value `node` names has its run-time size where the node's has.
  void mark_runtime_dim(const Node* node, int32_t value) {
    if (node == nullptr) return;
    if (auto it = runtime_dims_.find(node->name()); it != runtime_dims_.end()) {
      graph_->values[static_cast<size_t>(value)]->runtime_dim = it->second;
    }
  }

  // Only a MatMul takes run-time sizes (runtime_sizes.h); the partitioner
  // took nothing else with one, so anything else is a lowering bug.
  void check_runtime_dims() const {
    for (const auto& op : graph_->operations) {
      bool dynamic = false;
      for (int32_t v : op->inputs) dynamic = dynamic || (v >= 0 && graph_->values[static_cast<size_t>(v)]->runtime_dim >= 0);
      for (int32_t v : op->outputs) dynamic = dynamic || graph_->values[static_cast<size_t>(v)]->runtime_dim >= 0;
      bool binary = false;
      for (const auto& post : op->post_ops) binary = binary || post->op.AsBinaryPostOp() != nullptr;
      if (dynamic && (op->op.type != fb::OperationKind::MatMul || binary)) {
        throw AotError("OneDnnBackend: '" + op->name + "' would be a " + fb::EnumNameOperationKind(op->op.type) +
                       " on a run-time size; OneDnnBackend runs only matmuls so");
      }
    }
  }

  // An operation of a lowering's own (a step of a tree of concats, of a
  // group norm or a safe softmax) writing a new intermediate value of
  // `sizes`, which it returns; eltwise post-ops from `post_ops`.
  int32_t add_step(fb::OperationKindUnion kind, std::vector<int32_t> inputs, std::vector<int64_t> sizes, int32_t debug_id,
                   const std::string& name, const std::vector<fb::EltwiseT>& post_ops = {}) {
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

  template <typename T>
  static fb::OperationKindUnion kind_of(T params) {
    fb::OperationKindUnion kind;
    kind.Set(std::move(params));
    return kind;
  }

  // `op`, the group's last operation, writes the group's result.
  void write_result(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
    op->outputs = {result_value(group.result, group.op.sizes, outputs)};
    for (const Node* alias : group.aliases) value_of_[alias] = op->outputs[0];
    graph_->operations.push_back(std::move(op));
  }

  std::unique_ptr<fb::OperationT> operation(const FusedGroup& group, int32_t debug_id) {
    auto op = std::make_unique<fb::OperationT>();
    op->op = group.op.op;
    op->debug_id = debug_id;
    op->name = group.nodes.front()->name();
    return op;
  }

  void fold_batch_norm_into(const FusedGroup& group, fb::OperationT& op) {
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

  void add_post_ops(const FusedGroup& group, fb::OperationT& op) {
    for (const PlannedPostOp& planned : group.post_ops) {
      auto post = std::make_unique<fb::PostOpT>();
      if (planned.eltwise) {
        post->op.Set(fb::EltwiseT(*planned.eltwise));
      } else {
        fb::BinaryPostOpT binary;
        binary.algorithm = planned.binary;
        binary.input = value_of(planned.other);
        post->op.Set(std::move(binary));
      }
      op.post_ops.push_back(std::move(post));
    }
  }

  int32_t debug_id(const FusedGroup& group) {
    for (const Node* node : group.nodes) {
      if (node->meta.debug_handle) {
        return static_cast<int32_t>(std::get<int64_t>(mapping_.insert_delegate_mapping_entry(group.nodes)));
      }
    }
    return -1;
  }

  // A reshape to the sizes it already has (expand or view to the same
  // shape) that the call does not return: its result is its input's value.
  bool elide_identity_reshape(const FusedGroup& group, const ArgumentRefs& outputs) {
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
  void join_in_steps(const fb::ConcatT& concat, fb::OperationT& op) {
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
        joined.push_back(add_step(kind_of(fb::ConcatT(concat)), inputs, std::move(sizes), op.debug_id, op.name));
      }
      op.inputs = std::move(joined);
    }
  }

  // `node` ([C]) as a value of sizes [C, 1, ...] (rank `rank` - 1), which
  // broadcasts per channel against [N, C, ...]: a constant under new sizes,
  // else a reshape.
  int32_t per_channel(const Node* node, size_t rank, int32_t debug_id, const std::string& name) {
    std::vector<int64_t> sizes(rank - 1, 1);
    if (auto it = constants_.find(node); it != constants_.end()) {
      sizes[0] = it->second->numel();
      return add_value(std::move(sizes), fb::ValueKind::Constant, 0, weights_.add(*it->second));
    }
    const int32_t value = value_of(node);
    sizes[0] = graph_->values[static_cast<size_t>(value)]->sizes.at(0);
    return reshape(value, std::move(sizes), debug_id, name);
  }

  int32_t reshape(int32_t value, std::vector<int64_t> sizes, int32_t debug_id, const std::string& name) {
    return add_step(kind_of(fb::ReorderT()), {value}, std::move(sizes), debug_id, name);
  }

  // A group norm (NodeOp::group_norm): each group's elements normalized as
  // one row of a layer norm, then the per-channel affine with the group's
  // post-ops. Every operation keeps the group's debug id and name.
  void emit_group_norm(const FusedGroup& group, const ArgumentRefs& outputs) {
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
  void emit_safe_softmax(const FusedGroup& group, const ArgumentRefs& outputs) {
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
  bool broadcasts_a_column(const fb::OperationT& op) const {
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
  bool is_a_row(int32_t value, int64_t k) const {
    const std::vector<int64_t>& sizes = graph_->values[static_cast<size_t>(value)]->sizes;
    const int64_t numel = std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
    return !sizes.empty() && numel == sizes.back() && (sizes.back() == k || sizes.back() == 1);
  }

  // That op as [rows, K] (op) [rows, 1], reshaped back.
  void emit_rows_times_column(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
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
  void emit_eltwise_chain(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs) {
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

  void emit(const FusedGroup& group, const ArgumentRefs& outputs) {
    if (group.op.safe_softmax) return emit_safe_softmax(group, outputs);
    if (group.op.group_norm) return emit_group_norm(group, outputs);
    if (elide_identity_reshape(group, outputs)) return;
    if (group.op.op.AsDynamicQuantize() != nullptr) return emit_dynamic_quantize(group);
    if (group.result != nullptr && group.result != group.base &&
        aot::quant_op_kind(group.result->target()) == aot::QuantOpKind::QuantizePerTensor && group.post_ops.empty() &&
        emit_on_its_grid(group)) {
      return;
    }
    const std::optional<aot::TensorQParams> requantized = requantization(group);
    if (requantized && group.base == group.result) return emit_quantize(group, *requantized);
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
  void bind_outputs() {
    const aot::ArgumentList& results = partition_.graph().output_node()->args().at(0).list();
    for (size_t i = 0; i < results.size(); ++i) {
      const int32_t value = value_of(results[i].node());
      const fb::ValueT& written = *graph_->values[static_cast<size_t>(value)];
      if (written.kind == fb::ValueKind::Output && written.index == i) continue;
      auto copy = std::make_unique<fb::OperationT>();
      copy->op.Set(fb::ReorderT());
      copy->inputs = {value};
      copy->outputs = {add_value(sizes_of(results[i].node()), fb::ValueKind::Output, static_cast<uint32_t>(i))};
      mark_runtime_dim(results[i].node(), copy->outputs[0]);
      copy->debug_id = -1;
      copy->name = results[i].node()->name();
      graph_->operations.push_back(std::move(copy));
    }
  }

  const aot::ExportedProgram& partition_;
  const std::map<std::string, int32_t>& runtime_dims_;
  ConstantTensors constants_;
  std::unique_ptr<fb::GraphT> graph_;
  std::map<const Node*, int32_t> value_of_;
  std::map<int32_t, int32_t> dequantized_;  // a quantized value -> its float32 value
  WeightStore weights_;
  aot::DelegateMappingBuilder mapping_{/*generated_identifiers=*/true};
};

}  // namespace

LoweredPartition lower_partition(const aot::ExportedProgram& partition) { return GraphWriter(partition, {}).lower(); }

LoweredPartition lower_partition(const aot::ExportedProgram& partition, const std::map<std::string, int32_t>& runtime_dims) {
  return GraphWriter(partition, runtime_dims).lower();
}

}  // namespace kiln::backends::onednn
