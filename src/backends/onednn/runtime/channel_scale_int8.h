// Kiln's own product of a quantized image and one quantized value per image
// and channel, into a third grid: a squeeze-excitation's gate times its
// input as PT2E quantizes it (EfficientNet, MobileNetV3, RegNetY). oneDNN
// 3.2's binary takes no zero points, so the image was dequantized into
// float32, multiplied and quantized again: three passes over it, about a
// sixth of EfficientNet-B0's int8 time. Here each channel's factor comes
// from the gate once a call and the image's bytes are scaled in one pass:
//
//   q = saturate(round_half_even((x - x_zero_point) * f[n, c]) + zero_point)
//   f[n, c] = x_scale * gate_scale * (gate[n, c] - gate_zero_point) / scale
//
// PyTorch rounds the float32 product of the dequantized operands times the
// inverse scale: the same number but for float32 rounding (a result on a
// tie between two grid steps may round to the other).
//
// Layouts: the image and the result channels-last (N, pixels, C), the gate
// (N, C); bytes int8 or uint8 each.
#pragma once

#include <cstdint>

namespace kiln::backends::onednn {

struct ChannelScaleInt8 {
  int64_t batch = 1;
  int64_t channels = 0;
  int64_t pixels = 0;  ///< of one image (H * W, or D * H * W)
  bool src_signed = false, gate_signed = false, dst_signed = false;
  float src_scale = 1, gate_scale = 1, dst_scale = 1;
  int32_t src_zero_point = 0, gate_zero_point = 0, dst_zero_point = 0;

  /// The instructions the kernel runs on: the CPU's best by default.
  enum class Path { kScalar, kAvx512 };
  static Path best_path();
};

/// The factors f (batch x channels float32) of a call's gate.
void channel_scale_factors(const ChannelScaleInt8& s, const void* gate, float* factors);

/// Scales rows [first, last) of the batch's batch * pixels rows of channels
/// of `src` into `dst`, by `factors` (channel_scale_factors).
void run_channel_scale_int8(const ChannelScaleInt8& s, const float* factors, const void* src, void* dst, int64_t first,
                            int64_t last, ChannelScaleInt8::Path path = ChannelScaleInt8::best_path());

}  // namespace kiln::backends::onednn
