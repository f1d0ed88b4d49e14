// The GraphWriter behind lower_partition (lowering.h): one partition
// written as a oneDNN graph. Private to the AOT half; its members are
// defined by concern:
//   lowering.cpp               the driver: values, operations, emit, outputs
//   lowering_int8.cpp          int8 values, int8 weights, (dynamic) quantization
//   lowering_composites.cpp    groups lowered as several operations, folds
//   lowering_runtime_dims.cpp  the values that take a run-time size
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/debug_handle.h"
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/fusion.h"
#include "backends/onednn/aot/lowering.h"
#include "backends/onednn/aot/weights.h"

namespace kiln::backends::onednn {

class GraphWriter {
 public:
  GraphWriter(const aot::ExportedProgram& partition, const std::map<std::string, int32_t>& runtime_dims)
      : partition_(partition),
        runtime_dims_(runtime_dims),
        constants_(constant_tensors(partition)),
        graph_(std::make_unique<fb::GraphT>()) {}

  /// The partition as a graph (lowering.h): throws AotError where it cannot be.
  LoweredPartition lower();

 private:
  using Node = aot::Node;
  using ArgumentRefs = std::map<const Node*, uint32_t>;

  // An int8 weight: the values and one float32 scale per output channel of
  // a dequantize_per_channel node over constants, symmetric on axis 0.
  struct Int8Weight {
    const aot::HostTensor* values = nullptr;
    aot::HostTensor scales;
  };

  // ---- the driver (lowering.cpp)
  void check_no_mutations() const;
  int32_t add_value(std::vector<int64_t> sizes, fb::ValueKind kind, uint32_t index = 0, std::string key = "");
  void add_user_inputs();
  ArgumentRefs output_positions() const;
  int32_t constant_value(const aot::HostTensor& tensor);
  int32_t stored_value_of(const Node* node);
  bool is_quantized(int32_t value) const;
  int32_t value_of(const Node* node);
  int32_t result_value(const Node* node, const std::vector<int64_t>& sizes, const ArgumentRefs& outputs);
  int32_t add_step(fb::OperationKindUnion kind, std::vector<int32_t> inputs, std::vector<int64_t> sizes, int32_t debug_id,
                   const std::string& name, const std::vector<fb::EltwiseT>& post_ops = {});
  void write_result(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs);
  std::unique_ptr<fb::OperationT> operation(const FusedGroup& group, int32_t debug_id);
  void add_post_ops(const FusedGroup& group, fb::OperationT& op);
  int32_t debug_id(const FusedGroup& group);
  /// A new debug id mapping to the handles of debug ids `a` and `b` (-1: none).
  int32_t merged_debug_id(int32_t a, int32_t b);
  void emit(const FusedGroup& group, const ArgumentRefs& outputs);
  void bind_outputs();

  template <typename T>
  static fb::OperationKindUnion kind_of(T params) {
    fb::OperationKindUnion kind;
    kind.Set(std::move(params));
    return kind;
  }

  // ---- int8 (lowering_int8.cpp)
  int32_t add_quantized_value(std::vector<int64_t> sizes, const aot::TensorQParams& params);
  void set_quantization(int32_t value, fb::DataType dtype, float scale, int32_t zero_point);
  std::optional<aot::TensorQParams> requantization(const FusedGroup& group) const;
  std::optional<Int8Weight> int8_weight(const Node* node) const;
  std::optional<Int8Weight> int8_weights_of(const FusedGroup& group) const;
  void emit_dynamic_quantize(const FusedGroup& group);
  bool emit_on_its_grid(const FusedGroup& group);
  void emit_quantize(const FusedGroup& group, const aot::TensorQParams& params);
  bool emit_norm_between_grids(const FusedGroup& group, const aot::TensorQParams& params);
  bool emit_channel_product(const FusedGroup& group, const aot::TensorQParams& params);

  // ---- several operations per group (lowering_composites.cpp)
  void fold_batch_norm_into(const FusedGroup& group, fb::OperationT& op);
  bool elide_identity_reshape(const FusedGroup& group, const ArgumentRefs& outputs);
  void join_in_steps(const fb::ConcatT& concat, fb::OperationT& op);
  int32_t per_channel(const Node* node, size_t rank, int32_t debug_id, const std::string& name);
  int32_t reshape(int32_t value, std::vector<int64_t> sizes, int32_t debug_id, const std::string& name);
  void emit_group_norm(const FusedGroup& group, const ArgumentRefs& outputs);
  void emit_safe_softmax(const FusedGroup& group, const ArgumentRefs& outputs);
  bool broadcasts_a_column(const fb::OperationT& op) const;
  bool is_a_row(int32_t value, int64_t k) const;
  void emit_rows_times_column(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs);
  void emit_eltwise_chain(const FusedGroup& group, std::unique_ptr<fb::OperationT> op, const ArgumentRefs& outputs);

  // ---- run-time sizes (lowering_runtime_dims.cpp)
  void mark_runtime_dim(const Node* node, int32_t value);

  const aot::ExportedProgram& partition_;
  const std::map<std::string, int32_t>& runtime_dims_;
  ConstantTensors constants_;
  std::unique_ptr<fb::GraphT> graph_;
  std::map<const Node*, int32_t> value_of_;
  std::map<int32_t, int32_t> dequantized_;  // a quantized value -> its float32 value
  WeightStore weights_;
  aot::DelegateMappingBuilder mapping_{/*generated_identifiers=*/true};
};

}  // namespace kiln::backends::onednn
