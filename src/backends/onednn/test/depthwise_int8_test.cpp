// Kiln's int8 depthwise kernel (runtime/depthwise_int8.h) against a plain
// loop over the same arithmetic, on hand-made shapes: channel counts that
// fill and do not fill the 64-channel blocks, kernels 3 to 7 wide and tall,
// strides, uneven padding, int8 and uint8 on both sides, the clamps, a
// batch, and the items split over several threads.
#include "backends/onednn/runtime/depthwise_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kiln::backends::onednn {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool has_vnni() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

DepthwiseInt8 shape(int64_t channels, int64_t h, int64_t w, int64_t k, int64_t stride, int64_t pad) {
  DepthwiseInt8 c;
  c.channels = channels;
  c.in_h = h;
  c.in_w = w;
  c.kernel_h = c.kernel_w = k;
  c.stride_h = c.stride_w = stride;
  c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = pad;
  c.out_h = (h + 2 * pad - k) / stride + 1;
  c.out_w = (w + 2 * pad - k) / stride + 1;
  c.src_scale = 0.05f;
  c.dst_scale = 0.04f;
  c.src_zero_point = 3;
  c.dst_zero_point = 7;
  c.low = -kInf;
  c.high = kInf;
  return c;
}

// `c` with PT2E's grid between the convolution and its activation: steps
// of `scale`, from `low` to `high` steps.
DepthwiseInt8 with_grid_between(DepthwiseInt8 c, float scale, float low, float high) {
  c.grid_between = true;
  c.grid_multiplier = 1 / scale;
  c.grid_low = low;
  c.grid_high = high;
  c.grid_scale = scale;
  return c;
}

// The result, computed one output at a time as the header states it.
std::vector<uint8_t> reference(const DepthwiseInt8& c, const std::vector<uint8_t>& src, const std::vector<int8_t>& w,
                               const std::vector<float>& scales, const std::vector<float>& bias) {
  std::vector<uint8_t> out(static_cast<size_t>(c.batch * c.out_h * c.out_w * c.channels));
  const int32_t lowest = c.dst_signed ? -128 : 0, highest = c.dst_signed ? 127 : 255;
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t y = 0; y < c.out_h; ++y) {
      for (int64_t x = 0; x < c.out_w; ++x) {
        for (int64_t ch = 0; ch < c.channels; ++ch) {
          int32_t acc = 0;
          for (int64_t r = 0; r < c.kernel_h; ++r) {
            for (int64_t t = 0; t < c.kernel_w; ++t) {
              const int64_t iy = y * c.stride_h - c.pad_top + r, ix = x * c.stride_w - c.pad_left + t;
              if (iy < 0 || iy >= c.in_h || ix < 0 || ix >= c.in_w) continue;
              const uint8_t byte = src[static_cast<size_t>(((n * c.in_h + iy) * c.in_w + ix) * c.channels + ch)];
              const int32_t q = c.src_signed ? static_cast<int8_t>(byte) : byte;
              acc += w[static_cast<size_t>((ch * c.kernel_h + r) * c.kernel_w + t)] * (q - c.src_zero_point);
            }
          }
          float v = 0;
          if (c.hard_swish || c.grid_between) {
            float f = std::fma(static_cast<float>(acc), c.src_scale * scales[static_cast<size_t>(ch)],
                               bias[static_cast<size_t>(ch)]);
            if (c.grid_between) {
              f = std::min(std::max(std::nearbyint(f * c.grid_multiplier), c.grid_low), c.grid_high) * c.grid_scale;
            }
            if (c.swish) {
              f = f / (1.0f + std::exp(-c.swish_alpha * f));
            } else if (c.hard_swish) {
              f *= std::min(std::max(std::fma(f, c.hard_swish_alpha, c.hard_swish_beta), 0.0f), 1.0f);
            } else {
              f = std::min(std::max(f, c.low), c.high);
            }
            v = std::fma(f, 1.0f / c.dst_scale, static_cast<float>(c.dst_zero_point));
          } else {
            const float multiplier = c.src_scale * scales[static_cast<size_t>(ch)] / c.dst_scale;
            const float offset = bias[static_cast<size_t>(ch)] / c.dst_scale + static_cast<float>(c.dst_zero_point);
            v = std::fma(static_cast<float>(acc), multiplier, offset);
          }
          const float low = c.low / c.dst_scale + static_cast<float>(c.dst_zero_point);
          const float high = c.high / c.dst_scale + static_cast<float>(c.dst_zero_point);
          const float clamped = std::min(std::max(v, low), high);
          const int32_t q = std::clamp(static_cast<int32_t>(std::nearbyint(clamped)), lowest, highest);
          out[static_cast<size_t>(((n * c.out_h + y) * c.out_w + x) * c.channels + ch)] = static_cast<uint8_t>(q);
        }
      }
    }
  }
  return out;
}

struct Aligned {
  explicit Aligned(size_t bytes) : data(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))) {}
  ~Aligned() { std::free(data); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  uint8_t* data;
};

// Kiln's kernel on `parts` threads' items (run one after another), against
// the reference, with random bytes. `near`: a result may be one step off
// the reference's on at most 1 in 1000 bytes (a swish's polynomial
// exponential moves a tie between two steps now and then).
void expect_matches(const DepthwiseInt8& c, int64_t parts, uint32_t seed, bool near = false) {
  ASSERT_EQ(depthwise_int8_refusal(c, true), nullptr);
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> byte(0, 255), weight(-127, 127);
  std::uniform_real_distribution<float> scale(0.002f, 0.03f), bias_value(-2.0f, 2.0f);
  std::vector<uint8_t> src(static_cast<size_t>(c.batch * c.in_h * c.in_w * c.channels));
  for (auto& v : src) v = static_cast<uint8_t>(byte(random));
  std::vector<int8_t> w(static_cast<size_t>(c.channels * c.kernel_h * c.kernel_w));
  for (auto& v : w) v = static_cast<int8_t>(weight(random));
  std::vector<float> scales(static_cast<size_t>(c.channels)), bias(static_cast<size_t>(c.channels));
  for (auto& v : scales) v = scale(random);
  for (auto& v : bias) v = bias_value(random);

  Aligned packed(depthwise_int8_packed_bytes(c));
  pack_depthwise_int8(c, w.data(), scales.data(), bias.data(), packed.data);
  std::vector<uint8_t> out(static_cast<size_t>(c.batch * c.out_h * c.out_w * c.channels), 0xAB);
  for (int64_t part = 0; part < parts; ++part) {
    Aligned scratch(depthwise_int8_scratch_bytes(c));
    run_depthwise_int8(c, packed.data, src.data(), out.data(), depthwise_int8_first_item(c, parts, part),
                       depthwise_int8_first_item(c, parts, part + 1), scratch.data);
  }
  const std::vector<uint8_t> expected = reference(c, src, w, scales, bias);
  size_t wrong = 0, first = 0, one_off = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const int step = c.dst_signed ? static_cast<int8_t>(out[i]) - static_cast<int8_t>(expected[i])
                                  : int(out[i]) - int(expected[i]);
    if (near && (step == 1 || step == -1)) {
      ++one_off;
      continue;
    }
    if (out[i] != expected[i] && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << wrong << " of " << out.size() << " bytes differ; first at " << first << ": "
                       << int(out[first]) << " against " << int(expected[first]);
  EXPECT_LE(one_off * 1000, out.size()) << one_off << " of " << out.size() << " bytes one step off";
}

class DepthwiseInt8Test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_vnni()) GTEST_SKIP() << "the CPU has no AVX-512 VNNI";
  }
};

TEST_F(DepthwiseInt8Test, ThreeByThreeOverWholeAndPartBlocks) {
  uint32_t seed = 1;
  for (int64_t channels : {1, 16, 24, 64, 72, 144}) {
    for (int64_t stride : {1, 2}) {
      SCOPED_TRACE("channels " + std::to_string(channels) + ", stride " + std::to_string(stride));
      expect_matches(shape(channels, 11, 13, 3, stride, 1), 1, seed++);
    }
  }
}

TEST_F(DepthwiseInt8Test, WiderKernelsAndUnevenPadding) {
  uint32_t seed = 100;
  for (int64_t k : {5, 7}) {
    for (int64_t stride : {1, 2}) {
      SCOPED_TRACE("kernel " + std::to_string(k) + ", stride " + std::to_string(stride));
      expect_matches(shape(40, 15, 17, k, stride, k / 2), 1, seed++);
    }
  }
  DepthwiseInt8 c = shape(32, 9, 10, 3, 2, 0);
  c.pad_bottom = c.pad_right = 1;  // TensorFlow's "same" at stride 2
  c.out_h = (9 + 1 - 3) / 2 + 1;
  c.out_w = (10 + 1 - 3) / 2 + 1;
  expect_matches(c, 1, seed++);
  DepthwiseInt8 tall = shape(20, 8, 8, 3, 1, 1);
  tall.kernel_w = 1;  // a 3x1 kernel
  tall.pad_left = tall.pad_right = 0;
  tall.out_w = 8;
  expect_matches(tall, 1, seed++);
}

// A 1x1 kernel: a per-channel scale and shift (a batch norm between two
// grids), with a relu, over whole and part blocks and packed pixels; a 1x3.
TEST_F(DepthwiseInt8Test, OneByOneKernels) {
  uint32_t seed = 700;
  for (int64_t channels : {16, 32, 40, 64, 96, 144, 256}) {
    for (int clamp = 0; clamp < 2; ++clamp) {
      DepthwiseInt8 c = shape(channels, 6, 7, 1, 1, 0);
      if (clamp == 1) c.low = 0;
      SCOPED_TRACE("channels " + std::to_string(channels) + (clamp == 1 ? ", relu" : ""));
      expect_matches(c, 2, seed++);
    }
  }
  DepthwiseInt8 wide = shape(24, 5, 9, 1, 1, 0);
  wide.kernel_w = 3;  // a 1x3 kernel
  wide.pad_left = wide.pad_right = 1;
  expect_matches(wide, 1, seed++);
}

// 16 or 32 channels at stride 1: 4 or 2 pixels to a block, the row's ends
// inside a block.
TEST_F(DepthwiseInt8Test, NarrowImagesPackNeighbouringPixels) {
  uint32_t seed = 500;
  for (int64_t channels : {16, 32}) {
    for (int64_t k : {3, 5, 7}) {
      for (int64_t w : {1, 2, 3, 5, 6, 9}) {
        SCOPED_TRACE("channels " + std::to_string(channels) + ", kernel " + std::to_string(k) + ", width " +
                     std::to_string(w));
        expect_matches(shape(channels, 6, w, k, 1, k / 2), 1, seed++);
      }
      DepthwiseInt8 uneven = shape(channels, 7, 10, k, 1, 0);
      uneven.pad_left = k - 1;  // all the padding on one side
      uneven.out_w = (10 + k - 1 - k) + 1;
      SCOPED_TRACE("channels " + std::to_string(channels) + ", kernel " + std::to_string(k) + ", left padding");
      expect_matches(uneven, 2, seed++);
    }
  }
}

TEST_F(DepthwiseInt8Test, SignsAndClamps) {
  uint32_t seed = 200;
  for (bool src_signed : {false, true}) {
    for (bool dst_signed : {false, true}) {
      for (int clamp = 0; clamp < 3; ++clamp) {
        DepthwiseInt8 c = shape(48, 7, 9, 3, 1, 1);
        c.src_signed = src_signed;
        c.dst_signed = dst_signed;
        c.src_zero_point = src_signed ? -5 : 130;
        c.dst_zero_point = dst_signed ? -20 : 10;
        if (clamp == 1) c.low = 0;  // relu
        if (clamp == 2) c.low = 0, c.high = 2.0f;  // a relu6 whose bound is inside the grid
        SCOPED_TRACE(std::string(src_signed ? "s8" : "u8") + " -> " + (dst_signed ? "s8" : "u8") + ", clamp " +
                     std::to_string(clamp));
        expect_matches(c, 1, seed++);
      }
    }
  }
}

TEST_F(DepthwiseInt8Test, HardSwish) {
  uint32_t seed = 600;
  for (bool dst_signed : {false, true}) {
    for (int64_t channels : {32, 40, 96}) {  // packed pixels, a part block, two blocks
      DepthwiseInt8 c = shape(channels, 9, 9, 5, 1, 2);
      c.hard_swish = true;
      c.dst_signed = dst_signed;
      c.dst_zero_point = dst_signed ? -100 : 20;  // hardswish is at least -3/8: the grid starts just below 0
      SCOPED_TRACE(std::to_string(channels) + " channels, " + (dst_signed ? "s8" : "u8"));
      expect_matches(c, 1, seed++);
    }
  }
  // PT2E's grid before the hardswish (and a clamp after one).
  for (bool hard_swish : {true, false}) {
    DepthwiseInt8 c = with_grid_between(shape(72, 8, 8, 3, 2, 1), 0.03f, -110, 145);
    c.hard_swish = hard_swish;
    if (!hard_swish) c.low = 0, c.high = 6;
    SCOPED_TRACE(std::string("grid between, then ") + (hard_swish ? "hardswish" : "relu6"));
    expect_matches(c, 1, seed++);
  }
  // EfficientNet's: the grid, then a swish (silu).
  for (int64_t channels : {32, 96, 144}) {
    DepthwiseInt8 c = with_grid_between(shape(channels, 10, 10, 5, channels == 96 ? 2 : 1, 2), 0.02f, -120, 135);
    c.swish = true;
    SCOPED_TRACE(std::to_string(channels) + " channels, grid between, then swish");
    expect_matches(c, 1, seed++, /*near=*/true);
  }
  DepthwiseInt8 both = shape(32, 8, 8, 3, 1, 1);
  both.hard_swish = true;
  both.low = 0;
  EXPECT_NE(depthwise_int8_refusal(both, true), nullptr);  // a clamp and a hardswish: not one activation
}

TEST_F(DepthwiseInt8Test, ABatchAndItemsSplitOverThreads) {
  DepthwiseInt8 c = shape(144, 14, 14, 3, 1, 1);
  c.batch = 2;
  for (int64_t parts : {1, 2, 3, 5}) {
    SCOPED_TRACE("parts " + std::to_string(parts));
    expect_matches(c, parts, 300 + static_cast<uint32_t>(parts));
  }
  DepthwiseInt8 one_block = shape(32, 20, 6, 5, 2, 2);  // one block: whole rows
  for (int64_t parts : {2, 4}) expect_matches(one_block, parts, 400 + static_cast<uint32_t>(parts));
  DepthwiseInt8 uneven = shape(96, 9, 7, 3, 1, 1);  // blocks of 64 and 32: shares end inside rows
  for (int64_t parts : {2, 3, 7}) expect_matches(uneven, parts, 500 + static_cast<uint32_t>(parts));
}

TEST(DepthwiseInt8Split, GivesEachThreadRowsOfEveryBlock) {
  // 144 channels are blocks of 64, 64 and 16; items are ordered by row,
  // then block: 14 rows of 3. Half of the 2016 channel-rows is 7 rows.
  const DepthwiseInt8 c = shape(144, 14, 14, 3, 1, 1);
  EXPECT_EQ(depthwise_int8_items(c), 3 * 14);
  EXPECT_EQ(depthwise_int8_first_item(c, 2, 0), 0);
  EXPECT_EQ(depthwise_int8_first_item(c, 2, 1), 7 * 3);
  EXPECT_EQ(depthwise_int8_first_item(c, 2, 2), 3 * 14);
  // A third is 672: 4 rows (576) and 96 more, which end inside the second
  // block of row 4; the share ends at that block's start.
  EXPECT_EQ(depthwise_int8_first_item(c, 3, 1), 4 * 3 + 1);
  // A batch: the second image starts the second half.
  DepthwiseInt8 two = shape(96, 14, 14, 3, 1, 1);
  two.batch = 2;
  EXPECT_EQ(depthwise_int8_first_item(two, 2, 1), 2 * 14);
  for (int64_t parts = 1; parts <= 7; ++parts) {
    for (int64_t part = 0; part < parts; ++part) {
      EXPECT_LE(depthwise_int8_first_item(c, parts, part), depthwise_int8_first_item(c, parts, part + 1));
    }
  }
}

TEST(DepthwiseInt8Refusal, NamesWhatItDoesNotTake) {
  const DepthwiseInt8 good = shape(32, 8, 8, 3, 1, 1);
#if defined(__x86_64__)
  EXPECT_EQ(depthwise_int8_refusal(good, true), nullptr);
#endif
  EXPECT_NE(depthwise_int8_refusal(good, false), nullptr);
  DepthwiseInt8 c = good;
  c.kernel_h = c.kernel_w = 9;
  c.out_h = c.out_w = 2;
  EXPECT_NE(depthwise_int8_refusal(c, true), nullptr);
  c = good;
  c.out_w = 9;  // not what the sizes give
  EXPECT_NE(depthwise_int8_refusal(c, true), nullptr);
  c = good;
  c.low = 1, c.high = 0;
  EXPECT_NE(depthwise_int8_refusal(c, true), nullptr);
  c = shape(64, 4, 4000, 3, 1, 1);  // rows past its scratch
  EXPECT_NE(depthwise_int8_refusal(c, true), nullptr);
}

}  // namespace
}  // namespace kiln::backends::onednn
