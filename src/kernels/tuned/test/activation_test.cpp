// The int8 activations prepare_linear makes: torchao's own per-token values
// (golden rows from make_torchao_golden.py) and the block-of-32 scheme.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/tuned/test/tuned_test_util.h"

namespace kiln::kernels::tuned {
namespace {

#include "kernels/tuned/test/torchao_golden.inc"

TEST(TunedActivations, PerTokenQuantizationIsTorchaos) {
  // A q4 layer of k = 40 (padded to 64 inside): only the activations matter.
  const testing::Layer layer = testing::make_layer(WeightFormat::kQ4, 16, kGoldenK, 0, false, false, 1);
  std::vector<float> x;
  for (const GoldenRow& row : kGoldenRows) x.insert(x.end(), row.x, row.x + kGoldenK);
  const int64_t m = static_cast<int64_t>(std::size(kGoldenRows));
  const testing::Quantized q = testing::quantize(layer, ActivationMode::kInt8PerToken, x, m);
  const int64_t kpad = 64;
  for (int64_t r = 0; r < m; ++r) {
    SCOPED_TRACE("golden row " + std::to_string(r));
    EXPECT_EQ(q.scale[r], kGoldenRows[r].scale);
    EXPECT_EQ(q.zero[r], kGoldenRows[r].zero);
    for (int64_t i = 0; i < kGoldenK; ++i) EXPECT_EQ(q.q[r * kpad + i], kGoldenRows[r].q[i]) << "k " << i;
    for (int64_t i = kGoldenK; i < kpad; ++i) EXPECT_EQ(q.q[r * kpad + i], 0) << "padding at k " << i;
  }
}

TEST(TunedActivations, PerTokenScaleIsAtLeastEps) {
  const testing::Layer layer = testing::make_layer(WeightFormat::kQ8, 16, 32, 0, false, false, 1);
  const std::vector<float> x(32, 0.0f);
  EXPECT_EQ(testing::quantize(layer, ActivationMode::kInt8PerToken, x, 1, kFloat32Eps).scale[0], kFloat32Eps);
  EXPECT_EQ(testing::quantize(layer, ActivationMode::kInt8PerToken, x, 1).scale[0], kTorchaoActivationEps);
}

TEST(TunedActivations, Block32IsSymmetricPerBlock) {
  const testing::Layer layer = testing::make_layer(WeightFormat::kQ4, 16, 70, 0, false, false, 1);
  std::vector<float> x = testing::random_activations(1, 70, 5);
  for (int i = 32; i < 64; ++i) x[i] = 0.0f;  // an all-zero block: scale 0, values 0
  x[3] = -4.0f;                               // the first block's largest magnitude
  const testing::Quantized q = testing::quantize(layer, ActivationMode::kInt8Block32, x, 1);
  ASSERT_EQ(q.scale.size(), 3u);
  EXPECT_EQ(q.scale[0], 4.0f / 127.0f);
  EXPECT_EQ(q.q[3], -127);
  EXPECT_EQ(q.scale[1], 0.0f);
  for (int i = 32; i < 64; ++i) EXPECT_EQ(q.q[i], 0);
  for (int i = 0; i < 70; ++i) {
    const float d = q.scale[i / 32];
    if (d > 0) {
      EXPECT_LE(std::fabs(q.q[i] * d - x[i]), 0.5f * d * 1.0001f) << "k " << i;
    }
  }
  for (int i = 70; i < 96; ++i) EXPECT_EQ(q.q[i], 0);
}

}  // namespace
}  // namespace kiln::kernels::tuned
