// A transposed convolution whose stride is its kernel, without padding or
// dilation, writes each input pixel's C_out x kernel block on its own: per
// pixel it is a matmul, C_in -> C_out * kernel, then a depth-to-space puts
// each block in its place. oneDNN's transposed convolutions can run such
// shapes far below what their arithmetic allows (issue 37: a U-Net's 2x2
// stride-2, 16 -> 8 channels at 12x20, took 0.68 ms on brgconv_strided for
// 120k multiply-adds); on a Zen 5 core alone it takes 9 us, the form below
// 5 us (brg matmul, two reorders). As operations:
//   x [N, C_in, S...] -> permuted [N, S..., C_in] -> [N * S, C_in]
//   matmul with the weights as they are stored, [C_in, C_out * K] (PyTorch's
//   (C_in, C_out, K...) layout), plus the bias repeated per kernel position
//   -> [N, S..., C_out, K...] -> permuted [N, C_out, S_1, K_1, S_2, K_2, ...]
//   -> the result [N, C_out, S_1 * K_1, ...]
// The eltwise post-ops go to the matmul (they apply per element).
#include <algorithm>

#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// Whether `op` is a transposed convolution of stride = kernel, no overlap.
bool is_depth_to_space(const FormWriter& writer, const fb::OperationT& op) {
  const fb::ConvolutionT* conv = writer.float_convolution_of_constants(op, /*transposed=*/true);
  if (conv == nullptr) return false;
  const std::vector<int64_t>& w = writer.sizes(op.inputs[1]);
  const size_t spatial = writer.sizes(op.inputs[0]).size() - 2;
  if (w.size() != spatial + 2 || conv->strides.size() != spatial) return false;
  for (size_t i = 0; i < spatial; ++i) {
    if (conv->strides[i] != w[2 + i]) return false;
  }
  const bool eltwise_post_ops =
      std::all_of(op.post_ops.begin(), op.post_ops.end(), [](const auto& post) { return post->op.AsEltwise() != nullptr; });
  return eltwise_post_ops && all_equal(conv->padding_l, 0) && all_equal(conv->padding_r, 0) &&
         all_equal(conv->dilations, 1) && all_equal(conv->output_padding, 0);
}

}  // namespace

bool transposed_convolution_as_matmul(FormWriter& writer, const fb::OperationT& op) {
  if (!is_depth_to_space(writer, op)) return false;
  const std::vector<int64_t> x = writer.sizes(op.inputs[0]);
  const std::vector<int64_t> w = writer.sizes(op.inputs[1]);
  const int64_t spatial = static_cast<int64_t>(x.size()) - 2;
  const int64_t in_channels = w[0], out_channels = w[1];
  const int64_t pixels = element_count({x.begin() + 2, x.end()});
  const int64_t kernel = element_count({w.begin() + 2, w.end()});

  // [N, C_in, S...] -> [N * S, C_in]
  std::vector<int64_t> channels_last{0};
  for (int64_t d = 0; d < spatial; ++d) channels_last.push_back(2 + d);
  channels_last.push_back(1);
  const int32_t rows = writer.reshape(op, writer.permute(op, op.inputs[0], channels_last), {x[0] * pixels, in_channels});

  fb::OperationKindUnion kind;
  kind.Set(fb::MatMulT());
  int32_t bias = -1;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
    const std::vector<float> per_channel = writer.constant_data(op.inputs[2]);
    aot::HostTensor repeated = aot::HostTensor::zeros(aot::ScalarType::Float, {out_channels * kernel});
    for (int64_t i = 0; i < out_channels * kernel; ++i) repeated.data<float>()[i] = per_channel.at(static_cast<size_t>(i / kernel));
    bias = writer.constant(repeated);
  }
  const int32_t blocks = writer.intermediate({x[0] * pixels, out_channels * kernel});
  auto matmul = writer.operation_like(
      op, std::move(kind), {rows, writer.constant_as(op.inputs[1], {in_channels, out_channels * kernel}), bias}, blocks);
  for (const auto& post : op.post_ops) matmul->post_ops.push_back(std::make_unique<fb::PostOpT>(*post));
  writer.emit(std::move(matmul));

  // [N, S..., C_out, K...] -> [N, C_out, S_1, K_1, ...] -> the result.
  std::vector<int64_t> unfolded{x[0]};
  unfolded.insert(unfolded.end(), x.begin() + 2, x.end());
  unfolded.push_back(out_channels);
  unfolded.insert(unfolded.end(), w.begin() + 2, w.end());
  std::vector<int64_t> depth_to_space{0, spatial + 1};
  for (int64_t d = 0; d < spatial; ++d) {
    depth_to_space.push_back(1 + d);
    depth_to_space.push_back(spatial + 2 + d);
  }
  const int32_t placed = writer.permute(op, writer.reshape(op, blocks, unfolded), depth_to_space);
  writer.reshape(op, placed, writer.sizes(op.outputs[0]), op.outputs[0]);
  return true;
}

}  // namespace kiln::backends::onednn
