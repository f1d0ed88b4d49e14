// native_group_norm: hand-computed statistics, the layout PyTorch reads from
// N, C and HxW, a reference on random inputs, and argument errors.
#include <cmath>
#include <random>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kGroupNormOp = "aten::native_group_norm.out";

struct GroupNormArgs {
  int64_t n, c, hxw, group;
  double eps = 1e-5;
};

KernelRuntimeContext run_group_norm(const TestTensor& input, const TestTensor* weight, const TestTensor* bias,
                                    const GroupNormArgs& p, const TestTensor& out0, const TestTensor& out1,
                                    const TestTensor& out2) {
  KernelCall call;
  call.tensor(input);
  if (weight != nullptr) call.tensor(*weight);
  else call.none();
  if (bias != nullptr) call.tensor(*bias);
  else call.none();
  // Multi-output ops get one (None) return slot after their out tensors.
  return call.scalar(p.n)
      .scalar(p.c)
      .scalar(p.hxw)
      .scalar(p.group)
      .scalar(p.eps)
      .tensor(out0)
      .tensor(out1)
      .tensor(out2)
      .none()
      .run(kGroupNormOp, false);
}

TEST(GroupNorm, HandComputed) {
  // One sample, 4 channels of 2 in 2 groups:
  //   group 0 = {1, 2, 3, 4}:     mean 2.5, biased variance 1.25
  //   group 1 = {10, 10, 10, 14}: mean 11,  biased variance 3
  TestTensor input = make_tensor<float>({1, 4, 2}, {1, 2, 3, 4, 10, 10, 10, 14});
  TestTensor weight = make_tensor<float>({4}, {1, 2, 3, 4});
  TestTensor bias = make_tensor<float>({4}, {0, 0, 1, -1});
  TestTensor out0 = zeros<float>({1, 4, 2});
  TestTensor out1 = zeros<float>({1, 2});
  TestTensor out2 = zeros<float>({1, 2});
  const auto ctx = run_group_norm(input, &weight, &bias, {1, 4, 2, 2, 0.0}, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const float r0 = 1 / std::sqrt(1.25f), r1 = 1 / std::sqrt(3.0f);
  EXPECT_TRUE(all_near(out1.values<float>(), {2.5f, 11}, 0));
  EXPECT_TRUE(all_near(out2.values<float>(), {r0, r1}, 1e-6f));
  EXPECT_TRUE(all_near(out0.values<float>(),
                       {-1.5f * r0, -0.5f * r0, 2 * 0.5f * r0, 2 * 1.5f * r0,  // channels 0, 1
                        -3 * r1 + 1, -3 * r1 + 1, -4 * r1 - 1, 12 * r1 - 1},  // channels 2, 3
                       1e-5f));
}

TEST(GroupNorm, ConstantGroupGivesRstdOfEpsAndTheBias) {
  TestTensor input = make_tensor<float>({1, 2, 2}, {3, 3, 3, 3});
  TestTensor bias = make_tensor<float>({2}, {0.5f, -2});
  TestTensor out0 = zeros<float>({1, 2, 2});
  TestTensor out1 = zeros<float>({1, 1});
  TestTensor out2 = zeros<float>({1, 1});
  ASSERT_EQ(run_group_norm(input, nullptr, &bias, {1, 2, 2, 1, 0.25}, out0, out1, out2).failure_state(), Error::Ok);
  EXPECT_EQ(out1.values<float>(), std::vector<float>{3});
  EXPECT_EQ(out2.values<float>(), std::vector<float>{2});  // 1 / sqrt(0 + 0.25)
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{0.5f, 0.5f, -2, -2}));
}

// Mean, rstd and output of each (n, group) block, straight from the definition.
template <typename T>
void reference(const std::vector<T>& x, const std::vector<T>& w, const std::vector<T>& b, const GroupNormArgs& p,
               std::vector<double>* y, std::vector<double>* mean, std::vector<double>* rstd) {
  const int64_t per_group = p.c / p.group, block = per_group * p.hxw;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t g = 0; g < p.group; ++g) {
      const size_t base = static_cast<size_t>((n * p.group + g) * block);
      double m = 0, v = 0;
      for (int64_t i = 0; i < block; ++i) m += x[base + i];
      m /= static_cast<double>(block);
      for (int64_t i = 0; i < block; ++i) v += (x[base + i] - m) * (x[base + i] - m);
      const double r = 1 / std::sqrt(v / static_cast<double>(block) + p.eps);
      mean->push_back(m);
      rstd->push_back(r);
      for (int64_t i = 0; i < block; ++i) {
        const int64_t c = g * per_group + i / p.hxw;
        (*y)[base + i] = (x[base + i] - m) * r * (w.empty() ? 1.0 : w[c]) + (b.empty() ? 0.0 : b[c]);
      }
    }
  }
}

template <typename T>
std::vector<float> as_float(const std::vector<T>& v) {
  return std::vector<float>(v.begin(), v.end());
}

template <typename T>
void expect_matches_reference(std::vector<SizesType> shape, const GroupNormArgs& p, bool affine, float tolerance) {
  std::mt19937 rng(7);
  std::normal_distribution<double> dist(0.5, 2.0);
  size_t numel = 1;
  for (SizesType s : shape) numel *= s;
  std::vector<T> x(numel), w, b;
  for (T& v : x) v = static_cast<T>(dist(rng));
  if (affine) {
    for (int64_t c = 0; c < p.c; ++c) w.push_back(static_cast<T>(dist(rng)));
    for (int64_t c = 0; c < p.c; ++c) b.push_back(static_cast<T>(dist(rng)));
  }
  TestTensor input = make_tensor<T>(shape, x);
  TestTensor weight = make_tensor<T>({static_cast<SizesType>(p.c)}, affine ? w : std::vector<T>(p.c));
  TestTensor bias = make_tensor<T>({static_cast<SizesType>(p.c)}, affine ? b : std::vector<T>(p.c));
  TestTensor out0 = zeros<T>(shape);
  const SizesType n = static_cast<SizesType>(p.n), group = static_cast<SizesType>(p.group);
  TestTensor out1 = zeros<T>({n, group});
  // A bounded dynamic out shrinks to [N, group].
  TestTensor out2 = zeros<T>({n + 1, group + 2}, TensorShapeDynamism::DynamicBound);
  const auto ctx = run_group_norm(input, affine ? &weight : nullptr, affine ? &bias : nullptr, p, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  std::vector<double> y(numel), mean, rstd;
  reference(x, w, b, p, &y, &mean, &rstd);
  ASSERT_EQ(out2.sizes(), (std::vector<SizesType>{n, group}));
  EXPECT_TRUE(all_near(as_float(out0.values<T>()), as_float(y), tolerance));
  EXPECT_TRUE(all_near(as_float(out1.values<T>()), as_float(mean), tolerance));
  EXPECT_TRUE(all_near(as_float(out2.values<T>()), as_float(rstd), tolerance));
}

TEST(GroupNorm, MatchesReference) {
  expect_matches_reference<float>({2, 6, 3, 4}, {2, 6, 12, 3}, true, 2e-5f);
  expect_matches_reference<float>({3, 8, 5}, {3, 8, 5, 8}, false, 2e-5f);         // one channel per group
  expect_matches_reference<float>({2, 4, 2, 3, 2}, {2, 4, 12, 1}, true, 2e-5f);   // 5-D, one group
  expect_matches_reference<double>({2, 6, 7, 3}, {2, 6, 21, 2}, true, 1e-6f);
}

TEST(GroupNorm, ReadsTheLayoutFromTheArguments) {
  // PyTorch checks only the element count: [2, 6, 3] read as N=1, C=6, HxW=6.
  expect_matches_reference<float>({2, 6, 3}, {1, 6, 6, 3}, true, 2e-5f);
  // An (N, C) input is HxW = 1.
  expect_matches_reference<float>({4, 6}, {4, 6, 1, 2}, true, 2e-5f);
}

TEST(GroupNorm, EmptyBatch) {
  TestTensor input = zeros<float>({0, 6, 3});
  TestTensor out0 = zeros<float>({0, 6, 3});
  TestTensor out1 = zeros<float>({0, 3});
  TestTensor out2 = zeros<float>({0, 3});
  ASSERT_EQ(run_group_norm(input, nullptr, nullptr, {0, 6, 3, 3}, out0, out1, out2).failure_state(), Error::Ok);
}

class GroupNormErrors : public ::testing::Test {
 protected:
  TestTensor input = zeros<float>({2, 6, 3});
  TestTensor out0 = zeros<float>({2, 6, 3});
  TestTensor out1 = zeros<float>({2, 3});
  TestTensor out2 = zeros<float>({2, 3});
};

TEST_F(GroupNormErrors, GroupMustDivideChannels) {
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 3, 4}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'group'"));
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 3, 0}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'group'"));
}

TEST_F(GroupNormErrors, SizesMustMatchTheInput) {
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 2, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'input'"));
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {-2, 6, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'N'"));
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 0, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'C'"));
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 0, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'HxW'"));
}

TEST_F(GroupNormErrors, WeightAndBias) {
  TestTensor five = zeros<float>({5});
  EXPECT_TRUE(failed_with(run_group_norm(input, &five, nullptr, {2, 6, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'weight'"));
  TestTensor matrix = zeros<float>({2, 3});  // six elements, but not a vector
  EXPECT_TRUE(failed_with(run_group_norm(input, &matrix, nullptr, {2, 6, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'weight'"));
  TestTensor doubles = zeros<double>({6});
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, &doubles, {2, 6, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'bias'"));
}

TEST_F(GroupNormErrors, DtypesAndOuts) {
  TestTensor ints = zeros<int32_t>({2, 6, 3});
  EXPECT_TRUE(failed_with(run_group_norm(ints, nullptr, nullptr, {2, 6, 3, 3}, out0, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'input'"));
  TestTensor double_mean = zeros<double>({2, 3});
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 3, 3}, out0, double_mean, out2),
                          Error::InvalidArgument, kGroupNormOp, "'out1'"));
  TestTensor wrong_rstd = zeros<float>({3, 2});
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 3, 3}, out0, out1, wrong_rstd),
                          Error::InvalidArgument, kGroupNormOp, "'out2'"));
  TestTensor wrong_out = zeros<float>({2, 18});
  EXPECT_TRUE(failed_with(run_group_norm(input, nullptr, nullptr, {2, 6, 3, 3}, wrong_out, out1, out2),
                          Error::InvalidArgument, kGroupNormOp, "'out0'"));
}

TEST_F(GroupNormErrors, ArgumentTags) {
  KernelCall call;
  call.tensor(input).none().none().scalar(int64_t{2}).scalar(int64_t{6}).scalar(int64_t{3}).scalar(int64_t{3});
  call.scalar(true).tensor(out0).tensor(out1).tensor(out2).none();
  EXPECT_TRUE(failed_with(call.run(kGroupNormOp, false), Error::InvalidArgument, kGroupNormOp, "'eps'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
