// A convolution over images of one pixel (every spatial size 1) with a 1x1
// kernel, no padding and no groups, with a binary post-op, is a matmul:
// [N, C_in] times the weights as they are stored, (C_out, C_in), read
// transposed. A squeeze-excitation block on a one-pixel image computes its
// gate so and multiplies its input by it, a binary post-op of the second
// convolution. oneDNN takes that convolution onto x64:gemm:jit (brgconv_1x1
// does not take the post-op's operand plain beside its channels-last
// result): 16 blocks of 1152 -> 48 -> 1152 channels took 0.82 ms, with
// their second convolutions as matmuls (brg) 0.10 ms, one Zen 5 core.
// Without a binary post-op the convolution stays one: on brgconv_1x1 it
// measured as fast as a matmul or faster (EfficientNet-B0's gates at 64x64,
// 2.8 against 4.5 us a call). As operations:
//   x [N, C_in, 1...] -> [N, C_in] -> matmul (+ bias) -> [N, C_out]
//   -> the result [N, C_out, 1...]
// The post-ops go to the matmul: eltwise ones as they are, a binary one
// (whose operand has the result's sizes or one per channel) seen as
// [N, C_out] or [1, C_out].
#include <algorithm>

#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// The operand of a binary post-op over the result [N, C_out, 1...] as the
// matmul's [N, C_out] sees it; empty when it broadcasts otherwise.
std::vector<int64_t> operand_as_rows(const std::vector<int64_t>& operand, const std::vector<int64_t>& result) {
  if (operand.size() != result.size() || !all_equal({operand.begin() + 2, operand.end()}, 1)) return {};
  if (operand[1] != result[1] || (operand[0] != result[0] && operand[0] != 1)) return {};
  return {operand[0], operand[1]};
}

bool is_pointwise_on_one_pixel(const FormWriter& writer, const fb::OperationT& op) {
  const fb::ConvolutionT* conv = writer.float_convolution_of_constants(op, /*transposed=*/false);
  if (conv == nullptr) return false;
  const std::vector<int64_t>& x = writer.sizes(op.inputs[0]);
  const std::vector<int64_t>& w = writer.sizes(op.inputs[1]);
  if (x.size() < 3 || w.size() != x.size() || !all_equal({x.begin() + 2, x.end()}, 1) ||
      !all_equal({w.begin() + 2, w.end()}, 1) || !all_equal(conv->padding_l, 0) || !all_equal(conv->padding_r, 0)) {
    return false;
  }
  const std::vector<int64_t>& result = writer.sizes(op.outputs[0]);
  bool binary_post_op = false;
  for (const auto& post : op.post_ops) {
    const fb::BinaryPostOpT* binary = post->op.AsBinaryPostOp();
    if (binary == nullptr) continue;
    if (operand_as_rows(writer.sizes(binary->input), result).empty()) return false;
    binary_post_op = true;
  }
  return binary_post_op;
}

}  // namespace

bool pointwise_convolution_of_one_pixel_as_matmul(FormWriter& writer, const fb::OperationT& op) {
  if (!is_pointwise_on_one_pixel(writer, op)) return false;
  const std::vector<int64_t> x = writer.sizes(op.inputs[0]);
  const std::vector<int64_t> result = writer.sizes(op.outputs[0]);
  const int64_t out_channels = writer.sizes(op.inputs[1])[0];

  const int32_t rows = writer.reshape(op, op.inputs[0], {x[0], x[1]});
  std::vector<std::unique_ptr<fb::PostOpT>> post_ops;
  for (const auto& post : op.post_ops) {
    auto copy = std::make_unique<fb::PostOpT>(*post);
    if (fb::BinaryPostOpT* binary = copy->op.AsBinaryPostOp()) {
      std::vector<int64_t> seen = operand_as_rows(writer.sizes(binary->input), result);
      binary->input = writer.value(binary->input).kind == fb::ValueKind::Constant
                          ? writer.constant_as(binary->input, std::move(seen))
                          : writer.reshape(op, binary->input, std::move(seen));
    }
    post_ops.push_back(std::move(copy));
  }
  fb::OperationKindUnion kind;
  fb::MatMulT matmul_kind;
  matmul_kind.transpose_b = true;
  kind.Set(std::move(matmul_kind));
  const int32_t bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  const int32_t product = writer.intermediate({x[0], out_channels});
  auto matmul = writer.operation_like(
      op, std::move(kind), {rows, writer.constant_as(op.inputs[1], {out_channels, x[1]}), bias}, product);
  matmul->post_ops = std::move(post_ops);
  writer.emit(std::move(matmul));
  writer.reshape(op, product, result, op.outputs[0]);
  return true;
}

}  // namespace kiln::backends::onednn
