// Kiln's own quantization of a float32 image of a few channels (N, C, H, W)
// into the channels-last int8 or uint8 an int8 convolution reads: the first
// step of every int8 CNN, where the delegate's float32 input enters. oneDNN
// 3.2 does it as a conversion and then a byte reorder from planes to
// channels-last, whose JIT moves a 3-channel image's bytes at 4 GB/s (0.036
// of 0.057 ms for 3x224x224 on one Zen 5 core); this converts 16 pixels of
// each plane at a time and interleaves their bytes with byte shuffles, in
// one pass.
//
// q = saturate(round_half_even(x * inverse_scale) + zero_point), as
// GraphBuilder::add_conversion has oneDNN compute it.
#pragma once

#include <cstdint>

namespace kiln::backends::onednn {

struct ChannelsLastQuantize {
  int64_t batch = 1;
  int64_t channels = 0;  ///< 1 to kMaxChannels
  int64_t pixels = 0;    ///< H * W
  float inverse_scale = 1;
  int32_t zero_point = 0;
  bool to_signed = false;  ///< int8 (else uint8)

  static constexpr int64_t kMaxChannels = 4;

  /// The instructions the kernel runs on: the CPU's best by default.
  enum class Path { kScalar, kSse, kAvx512 };
  static Path best_path();
};

/// Whether the kernel takes the image (channels 1 to 4, not empty).
bool channels_last_quantize_takes(const ChannelsLastQuantize& q);

/// Quantizes pixels [first_pixel, last_pixel) of every image of `src`
/// (N x C x pixels float32) into `dst` (N x pixels x C bytes).
void run_channels_last_quantize(const ChannelsLastQuantize& q, const float* src, uint8_t* dst, int64_t first_pixel,
                                int64_t last_pixel,
                                ChannelsLastQuantize::Path path = ChannelsLastQuantize::best_path());

}  // namespace kiln::backends::onednn
