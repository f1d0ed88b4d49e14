// The graph a fast-form rule rewrites (fast_forms.h): the operations written
// so far in their new order, and values added as the rules need them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "backends/onednn/aot/fast_forms.h"
#include "backends/onednn/aot/weights.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

class FormWriter {
 public:
  FormWriter(fb::GraphT& graph, WeightStore& weights) : graph_(graph), weights_(weights) {}

  const fb::ValueT& value(int32_t v) const { return *graph_.values.at(static_cast<size_t>(v)); }
  const std::vector<int64_t>& sizes(int32_t v) const { return value(v).sizes; }
  /// A float32 value of static sizes: one the rules may compute in another form.
  bool is_plain_float(int32_t v) const;
  /// Every input, output and binary post-op input of `op` is a plain float.
  bool reads_and_writes_plain_floats(const fb::OperationT& op) const;
  /// `op` is a float32 convolution of one group, transposed or not as
  /// `transposed` says, whose weights and bias (if any) are constants: one
  /// a rule may rewrite from its weights as stored.
  const fb::ConvolutionT* float_convolution_of_constants(const fb::OperationT& op, bool transposed) const;

  /// A new intermediate value.
  int32_t intermediate(std::vector<int64_t> sizes);
  /// A new constant value holding `tensor` (float32).
  int32_t constant(const aot::HostTensor& tensor);
  /// A new constant value of `sizes` over constant `v`'s bytes (as many elements).
  int32_t constant_as(int32_t v, std::vector<int64_t> sizes);
  /// Constant `v`'s float32 elements.
  std::vector<float> constant_data(int32_t v) const;

  /// Appends `op` to the graph.
  void emit(std::unique_ptr<fb::OperationT> op) { graph_.operations.push_back(std::move(op)); }
  /// Appends `op` in its fast form: the first rule (fast_forms.cpp) that
  /// rewrites it writes it, else it is appended as it is. For the pieces a
  /// rule writes that another may rewrite (the binary operation after a
  /// matmul or a convolution, its post-ops and operand broadcast as any).
  void emit_in_fast_form(std::unique_ptr<fb::OperationT> op);
  /// Appends `op` with its post-ops before `at`, writing a new value, then
  /// a binary operation of that value and post-op `at`'s operand (a binary
  /// post-op), into `op`'s result, with the post-ops after it; each in its
  /// fast form.
  void emit_post_ops_after(std::unique_ptr<fb::OperationT> op, size_t at);
  /// An operation of `kind` reading `inputs` and writing `output`, with the
  /// debug id and name of `origin` (the operation it stands for).
  std::unique_ptr<fb::OperationT> operation_like(const fb::OperationT& origin, fb::OperationKindUnion kind,
                                                 std::vector<int32_t> inputs, int32_t output) const;
  /// `input` permuted (dst dim i = src dim permutation[i]) into `output`
  /// (-1: a new value), which it returns; as `origin`.
  int32_t permute(const fb::OperationT& origin, int32_t input, const std::vector<int64_t>& permutation,
                  int32_t output = -1);
  /// `input` under other sizes, into `output` (-1: a new value, returned).
  int32_t reshape(const fb::OperationT& origin, int32_t input, std::vector<int64_t> sizes, int32_t output = -1);

 private:
  fb::GraphT& graph_;
  WeightStore& weights_;
  std::vector<std::unique_ptr<fb::ValueT>>& values() { return graph_.values; }
};

/// A rule: writes `op` in its fast form and returns true, or returns false
/// (writing nothing) when `op` is not its form.
using FastFormRule = bool (*)(FormWriter& writer, const fb::OperationT& op);

bool reduce_innermost_dims(FormWriter& writer, const fb::OperationT& op);
bool softmax_over_innermost_dim(FormWriter& writer, const fb::OperationT& op);
bool matmul_with_broadcasts_it_takes(FormWriter& writer, const fb::OperationT& op);
bool transposed_convolution_as_matmul(FormWriter& writer, const fb::OperationT& op);
bool pointwise_convolution_of_one_pixel_as_matmul(FormWriter& writer, const fb::OperationT& op);
bool binary_broadcast_as_a_trailing_block(FormWriter& writer, const fb::OperationT& op);
bool binary_with_post_ops_it_takes(FormWriter& writer, const fb::OperationT& op);

/// Folds each zero Pad of an image's spatial dimensions that a float32
/// convolution alone reads into that convolution's padding (fast_forms/
/// padding.cpp): the Pad is dropped, the convolution reads its source.
/// The convolution takes the debug id `merge` gives for both.
void fold_zero_pads_into_convolutions(fb::GraphT& graph, const FormWriter& writer, const MergeDebugIds& merge);

/// Whether the JIT binary kernels take a binary post-op reading `operand`
/// broadcast over a result of `result` sizes: the same sizes, one number,
/// or one channel (dimension 1).
bool post_op_broadcast_is_taken(const std::vector<int64_t>& operand, const std::vector<int64_t>& result);

/// The element count of `sizes`.
int64_t element_count(const std::vector<int64_t>& sizes);

/// Whether every element of `list` is `value`.
bool all_equal(const std::vector<int64_t>& list, int64_t value);

}  // namespace kiln::backends::onednn
