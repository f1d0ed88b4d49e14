// Kiln's quantization of a few-channel image into channels-last bytes
// (runtime/channels_last_quantize.h) against a plain loop over PyTorch's
// formula, on every path this CPU has: 1 to 4 channels, pixel counts that
// fill the 16-pixel blocks and do not, int8 and uint8, values past the
// grid both ways, ties, and a batch.
#include "backends/onednn/runtime/channels_last_quantize.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kiln::backends::onednn {
namespace {

using Path = ChannelsLastQuantize::Path;

// torch.ops.quantized_decomposed.quantize_per_tensor: round (half to even)
// x * inverse_scale, then add the zero point, then clamp.
uint8_t expected_byte(const ChannelsLastQuantize& q, float x) {
  const float lowest = q.to_signed ? -128 : 0, highest = q.to_signed ? 127 : 255;
  const float v = std::nearbyint(x * q.inverse_scale) + static_cast<float>(q.zero_point);
  return static_cast<uint8_t>(static_cast<int32_t>(std::min(std::max(v, lowest), highest)));
}

std::vector<Path> paths() {
  std::vector<Path> all = {Path::kScalar};
  if (ChannelsLastQuantize::best_path() != Path::kScalar) all.push_back(Path::kSse);
  if (ChannelsLastQuantize::best_path() == Path::kAvx512) all.push_back(Path::kAvx512);
  return all;
}

TEST(ChannelsLastQuantizeTest, MatchesPyTorchsFormulaOnEveryPath) {
  std::mt19937 random(7);
  std::normal_distribution<float> value(0.0f, 2.0f);
  for (int64_t channels = 1; channels <= 4; ++channels) {
    for (int64_t pixels : {1, 16, 37, 224}) {
      for (bool to_signed : {false, true}) {
        ChannelsLastQuantize q;
        q.batch = 2;
        q.channels = channels;
        q.pixels = pixels;
        q.inverse_scale = 1.0f / 0.0186f;
        q.zero_point = to_signed ? -3 : 114;
        q.to_signed = to_signed;
        ASSERT_TRUE(channels_last_quantize_takes(q));
        std::vector<float> src(static_cast<size_t>(q.batch * channels * pixels));
        for (float& x : src) x = value(random);
        src[0] = 1e12f;  // past the grid and past int32
        if (src.size() > 1) src[1] = -1e12f;
        if (src.size() > 2) src[2] = 33.5f / q.inverse_scale;  // near a tie
        std::vector<uint8_t> want(src.size());
        for (int64_t n = 0; n < q.batch; ++n) {
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t c = 0; c < channels; ++c) {
              want[static_cast<size_t>((n * pixels + p) * channels + c)] =
                  expected_byte(q, src[static_cast<size_t>((n * channels + c) * pixels + p)]);
            }
          }
        }
        for (Path path : paths()) {
          SCOPED_TRACE(std::to_string(channels) + " channels, " + std::to_string(pixels) + " pixels, " +
                       (to_signed ? "int8" : "uint8") + ", path " + std::to_string(static_cast<int>(path)));
          std::vector<uint8_t> got(src.size(), 0xEE);
          // In two pixel ranges, as two threads would.
          const int64_t middle = pixels / 2 / 16 * 16;
          run_channels_last_quantize(q, src.data(), got.data(), 0, middle, path);
          run_channels_last_quantize(q, src.data(), got.data(), middle, pixels, path);
          EXPECT_EQ(got, want);
        }
      }
    }
  }
}

TEST(ChannelsLastQuantizeTest, TakesOneToFourChannels) {
  ChannelsLastQuantize q;
  q.pixels = 10;
  q.channels = 4;
  EXPECT_TRUE(channels_last_quantize_takes(q));
  q.channels = 5;
  EXPECT_FALSE(channels_last_quantize_takes(q));
  q.channels = 0;
  EXPECT_FALSE(channels_last_quantize_takes(q));
}

}  // namespace
}  // namespace kiln::backends::onednn
