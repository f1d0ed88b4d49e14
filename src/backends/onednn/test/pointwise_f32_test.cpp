// Kiln's Pointwise kernel (runtime/pointwise_f32.h) against plain loops:
// its exp over float32's range, and a program over views that cross tiles
// (a transposed source, a broadcast column, a crop).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backends/onednn/runtime/pointwise_f32.h"

namespace kiln::backends::onednn {
namespace {

using Op = PointwiseF32::Op;

TEST(PointwiseF32Test, ExpIsWithinTwoUlpsOverTheNormalRange) {
  for (float x = -87.0f; x <= 88.5f; x += 0.0137f) {
    const float want = std::exp(x);
    const float got = pointwise_exp(x);
    EXPECT_LE(std::fabs(got - want), 2.5f * std::numeric_limits<float>::epsilon() * want) << "x = " << x;
  }
  EXPECT_EQ(pointwise_exp(100.0f), std::numeric_limits<float>::infinity());
  EXPECT_GE(pointwise_exp(-100.0f), 0.0f);
  EXPECT_LE(pointwise_exp(-100.0f), 1.2e-38f);
  EXPECT_EQ(pointwise_exp(0.0f), 1.0f);
}

// y = tanh(a^T + c) * sigmoid(b[crop]) - c, for a (6, 45) read transposed,
// c one value per row (45, 1) broadcast, b (45, 8) cropped to columns 1..6:
// 270 elements, two tiles.
TEST(PointwiseF32Test, RunsAProgramOverTransposedBroadcastAndCroppedViews) {
  const int64_t rows = 45, cols = 6;
  std::vector<float> a(static_cast<size_t>(cols * rows)), b(static_cast<size_t>(rows * 8)), c(static_cast<size_t>(rows));
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i)) * 4.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11f * static_cast<float>(i)) * 9.0f;
  for (size_t i = 0; i < c.size(); ++i) c[i] = 0.1f * static_cast<float>(i) - 2.0f;
  const PointwiseF32::Step steps[] = {
      {Op::kAdd, 0, 2, 0, 0},       // r3 = a^T + c
      {Op::kTanh, 3, 0, 0, 0},      // r4
      {Op::kLogistic, 1, 0, 0, 0},  // r5 = sigmoid(b crop)
      {Op::kMul, 4, 5, 0, 0},       // r6
      {Op::kSub, 6, 2, 0, 0},       // r7 = r6 - c
  };
  const int64_t offsets[] = {0, 1, 0};
  const int64_t strides[] = {1, rows, 8, 1, 1, 0};
  PointwiseF32 p;
  p.num_inputs = 3;
  p.num_steps = 5;
  p.rank = 2;
  p.sizes[0] = rows;
  p.sizes[1] = cols;
  p.numel = rows * cols;
  p.steps = steps;
  p.offsets = offsets;
  p.strides = strides;
  std::vector<float> y(static_cast<size_t>(p.numel)), scratch(pointwise_f32_scratch_floats(p));
  const float* inputs[] = {a.data(), b.data(), c.data()};
  run_pointwise_f32(p, inputs, y.data(), scratch.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) {
      const float cr = c[static_cast<size_t>(r)];
      const float want = std::tanh(a[static_cast<size_t>(k * rows + r)] + cr) /
                             (1.0f + std::exp(-b[static_cast<size_t>(r * 8 + 1 + k)])) -
                         cr;
      EXPECT_NEAR(y[static_cast<size_t>(r * cols + k)], want, 1e-6f * (1.0f + std::fabs(want))) << r << ", " << k;
    }
  }
}

TEST(PointwiseF32Test, TanhAndTheLogisticKeepTheirLimitsAndSmallValues) {
  const float xs[] = {-200.0f, -20.0f, -1e-3f, -1e-6f, 0.0f, 1e-6f, 0.03f, 0.5f, 5.0f, 200.0f};
  const size_t n = sizeof xs / sizeof xs[0];
  const PointwiseF32::Step steps[] = {{Op::kTanh, 0, 0, 0, 0}};
  const PointwiseF32::Step logistic[] = {{Op::kLogistic, 0, 0, 0, 0}};
  const int64_t offsets[] = {0};
  const int64_t strides[] = {1};
  PointwiseF32 p;
  p.num_inputs = 1;
  p.num_steps = 1;
  p.rank = 1;
  p.sizes[0] = static_cast<int64_t>(n);
  p.numel = static_cast<int64_t>(n);
  p.offsets = offsets;
  p.strides = strides;
  std::vector<float> y(n), scratch(pointwise_f32_scratch_floats(p));
  const float* inputs[] = {xs};
  p.steps = steps;
  run_pointwise_f32(p, inputs, y.data(), scratch.data());
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], std::tanh(xs[i]), 2e-7f * (1.0f + 0.0f) + 4e-7f * std::fabs(std::tanh(xs[i]))) << xs[i];
  p.steps = logistic;
  run_pointwise_f32(p, inputs, y.data(), scratch.data());
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], 1.0f / (1.0f + std::exp(-xs[i])), 2e-7f) << xs[i];
}

}  // namespace
}  // namespace kiln::backends::onednn
