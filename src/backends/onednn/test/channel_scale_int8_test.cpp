// Kiln's product of a quantized image and a quantized value per channel
// (runtime/channel_scale_int8.h) against PyTorch's computation -- dequantize
// both, multiply in float32, quantize -- on every path this CPU has:
// channel counts that fill the 16-channel steps and do not, int8 and uint8
// on each side, products past the grid both ways, a batch whose images have
// their own gates, and rows split over threads.
#include "backends/onednn/runtime/channel_scale_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kiln::backends::onednn {
namespace {

int32_t byte_value(uint8_t byte, bool is_signed) { return is_signed ? static_cast<int8_t>(byte) : byte; }

// quantize_per_tensor(dequantize(x) * dequantize(gate)): PyTorch's order.
int32_t expected_product(const ChannelScaleInt8& s, uint8_t x, uint8_t gate) {
  const float a = static_cast<float>(byte_value(x, s.src_signed) - s.src_zero_point) * s.src_scale;
  const float b = static_cast<float>(byte_value(gate, s.gate_signed) - s.gate_zero_point) * s.gate_scale;
  const float v = std::nearbyint(a * b * (1.0f / s.dst_scale)) + static_cast<float>(s.dst_zero_point);
  const float lowest = s.dst_signed ? -128 : 0, highest = s.dst_signed ? 127 : 255;
  return static_cast<int32_t>(std::min(std::max(v, lowest), highest));
}

std::vector<ChannelScaleInt8::Path> scale_paths() {
  std::vector<ChannelScaleInt8::Path> all = {ChannelScaleInt8::Path::kScalar};
  if (ChannelScaleInt8::best_path() == ChannelScaleInt8::Path::kAvx512) all.push_back(ChannelScaleInt8::Path::kAvx512);
  return all;
}

// Runs `s` on random bytes in `parts` row ranges and counts the results off
// PyTorch's; none may be more than one step off (a float32 rounding moving
// a tie), and at most 1 in 200 one step.
void expect_scales_match(const ChannelScaleInt8& s, ChannelScaleInt8::Path path, int64_t parts, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> src(static_cast<size_t>(s.batch * s.pixels * s.channels));
  std::vector<uint8_t> gate(static_cast<size_t>(s.batch * s.channels));
  for (auto& v : src) v = static_cast<uint8_t>(byte(random));
  for (auto& v : gate) v = static_cast<uint8_t>(byte(random));
  std::vector<float> factors(gate.size());
  channel_scale_factors(s, gate.data(), factors.data());
  std::vector<uint8_t> out(src.size(), 0xAB);
  const int64_t rows = s.batch * s.pixels;
  for (int64_t part = 0; part < parts; ++part) {
    run_channel_scale_int8(s, factors.data(), src.data(), out.data(), rows * part / parts, rows * (part + 1) / parts,
                           path);
  }
  size_t one_off = 0;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t n = row / s.pixels;
    for (int64_t c = 0; c < s.channels; ++c) {
      const size_t i = static_cast<size_t>(row * s.channels + c);
      const int32_t want = expected_product(s, src[i], gate[static_cast<size_t>(n * s.channels + c)]);
      const int32_t got = byte_value(out[i], s.dst_signed);
      ASSERT_LE(std::abs(got - want), 1) << "row " << row << " channel " << c;
      one_off += got != want;
    }
  }
  EXPECT_LE(one_off * 200, out.size()) << one_off << " of " << out.size() << " one step off";
}

TEST(ChannelScaleInt8Test, MatchesPyTorchsProductOnEveryPath) {
  uint32_t seed = 1;
  for (const ChannelScaleInt8::Path path : scale_paths()) {
    for (int64_t channels : {1, 16, 24, 96, 147}) {
      for (int signs = 0; signs < 8; ++signs) {
        ChannelScaleInt8 s;
        s.batch = 2;
        s.channels = channels;
        s.pixels = 13;
        s.src_signed = signs & 1;
        s.gate_signed = signs & 2;
        s.dst_signed = signs & 4;
        s.src_scale = 0.0149f;
        s.gate_scale = 0.0039f;  // a sigmoid's grid: 0 to 1
        s.dst_scale = 0.0077f;
        s.src_zero_point = s.src_signed ? -28 : 100;
        s.gate_zero_point = s.gate_signed ? -128 : 0;
        s.dst_zero_point = s.dst_signed ? -30 : 98;
        SCOPED_TRACE("path " + std::to_string(static_cast<int>(path)) + ", " + std::to_string(channels) +
                     " channels, signs " + std::to_string(signs));
        expect_scales_match(s, path, 1, seed++);
      }
    }
  }
}

TEST(ChannelScaleInt8Test, SaturatesProductsPastTheGrid) {
  for (const ChannelScaleInt8::Path path : scale_paths()) {
    ChannelScaleInt8 s;
    s.channels = 20;
    s.pixels = 3;
    s.src_scale = 0.5f;
    s.gate_scale = 4.0f;
    s.dst_scale = 0.01f;  // every product but zero's far past the grid
    s.src_zero_point = 128;
    const std::vector<uint8_t> src = [&] {
      std::vector<uint8_t> v(60);
      for (size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? 255 : 128;
      return v;
    }();
    std::vector<uint8_t> gate(20, 200);
    std::vector<float> factors(20);
    channel_scale_factors(s, gate.data(), factors.data());
    std::vector<uint8_t> out(60, 7);
    run_channel_scale_int8(s, factors.data(), src.data(), out.data(), 0, 3, path);
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i], i % 3 == 0 ? 0 : i % 3 == 1 ? 255 : 0) << "byte " << i;
    }
  }
}

TEST(ChannelScaleInt8Test, SplitsRowsAcrossImagesAndThreads) {
  for (const ChannelScaleInt8::Path path : scale_paths()) {
    ChannelScaleInt8 s;
    s.batch = 3;
    s.channels = 40;
    s.pixels = 7;
    s.src_scale = 0.02f;
    s.gate_scale = 0.004f;
    s.dst_scale = 0.01f;
    s.src_zero_point = 120;
    s.dst_zero_point = 128;
    for (int64_t parts : {2, 4, 5}) expect_scales_match(s, path, parts, 100 + static_cast<uint32_t>(parts));
  }
}

}  // namespace
}  // namespace kiln::backends::onednn
