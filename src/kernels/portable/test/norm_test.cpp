// _native_batch_norm_legit_no_training, native_layer_norm, _softmax and _log_softmax.
#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kBatchNorm = "aten::_native_batch_norm_legit_no_training.out";
constexpr const char* kLayerNorm = "aten::native_layer_norm.out";
constexpr const char* kSoftmax = "aten::_softmax.out";
constexpr const char* kLogSoftmax = "aten::_log_softmax.out";

// Tensors of a batch norm call; weight/bias null means None.
KernelRuntimeContext run_batch_norm(const TestTensor& input, const TestTensor* weight, const TestTensor* bias,
                                    const TestTensor& mean, const TestTensor& var, double eps, const TestTensor& out0,
                                    const TestTensor& out1, const TestTensor& out2) {
  KernelCall call;
  call.tensor(input);
  if (weight != nullptr) call.tensor(*weight); else call.none();
  if (bias != nullptr) call.tensor(*bias); else call.none();
  return call.tensor(mean).tensor(var).scalar(0.1).scalar(eps).tensor(out0).tensor(out1).tensor(out2).none()
      .run(kBatchNorm, false);
}

TEST(NativeBatchNorm, UsesTheRunningStatisticsPerChannelOfA3dInput) {
  // (N=2, C=2, L=2); channel 0: mean 3, var 4 (invstd 0.5); channel 1: mean 5, var 1.
  TestTensor input = make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  TestTensor mean = make_tensor<float>({2}, {3, 5});
  TestTensor var = make_tensor<float>({2}, {4, 1});
  TestTensor out0 = zeros<float>({2, 2, 2}), out1 = zeros<float>({0}), out2 = zeros<float>({0});
  const auto ctx = run_batch_norm(input, nullptr, nullptr, mean, var, 0.0, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{-1, -0.5f, -2, -1, 1, 1.5f, 2, 3}));
  EXPECT_EQ(out1.sizes(), std::vector<SizesType>{0});  // left empty, as torch's CPU eval path
  EXPECT_EQ(out2.sizes(), std::vector<SizesType>{0});
}

TEST(NativeBatchNorm, WeightBiasEpsAndFilledStatistics) {
  TestTensor input = make_tensor<float>({1, 2, 1, 2}, {1, 3, 2, 6});
  TestTensor weight = make_tensor<float>({2}, {1, 2});
  TestTensor bias = make_tensor<float>({2}, {0, 1});
  TestTensor mean = make_tensor<float>({2}, {2, 4});
  TestTensor var = make_tensor<float>({2}, {0, 3});
  TestTensor out0 = zeros<float>({1, 2, 1, 2}), out1 = zeros<float>({2}), out2 = zeros<float>({2});
  // eps 1: channel 0 (x - 2) / 1; channel 1 (x - 4) / 2 * 2 + 1.
  const auto ctx = run_batch_norm(input, &weight, &bias, mean, var, 1.0, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{-1, 1, -1, 3}));
  // Given [C] statistics outputs, they get the running mean and invstd (as CUDA).
  EXPECT_EQ(out1.values<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{1, 0.5f}));
}

TEST(NativeBatchNorm, Errors) {
  TestTensor input = make_tensor<float>({1, 2, 2}, {1, 2, 3, 4});
  TestTensor two = make_tensor<float>({2}, {1, 1});
  TestTensor three = make_tensor<float>({3}, {1, 1, 1});
  TestTensor out0 = zeros<float>({1, 2, 2}), empty = zeros<float>({0});
  EXPECT_TRUE(failed_with(run_batch_norm(input, &three, nullptr, two, two, 0, out0, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'weight'"));
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, &three, two, two, 0, out0, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'bias'"));
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, nullptr, three, two, 0, out0, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'running_mean'"));
  TestTensor doubles = make_tensor<double>({2}, {1, 1});
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, nullptr, two, doubles, 0, out0, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'running_var'"));
  TestTensor vector = make_tensor<float>({2}, {1, 2});
  EXPECT_TRUE(failed_with(run_batch_norm(vector, nullptr, nullptr, two, two, 0, vector, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'input'"));
  TestTensor ints = make_tensor<int32_t>({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(failed_with(run_batch_norm(ints, nullptr, nullptr, two, two, 0, out0, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'input'"));
  TestTensor wrong_out = zeros<float>({1, 2, 3});
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, nullptr, two, two, 0, wrong_out, empty, empty),
                          Error::InvalidArgument, kBatchNorm, "'out0'"));
  TestTensor three_stats = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, nullptr, two, two, 0, out0, three_stats, empty),
                          Error::InvalidArgument, kBatchNorm, "'out1'"));
  TestTensor double_stats = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_batch_norm(input, nullptr, nullptr, two, two, 0, out0, empty, double_stats),
                          Error::InvalidArgument, kBatchNorm, "'out2'"));
  const auto bad_eps = KernelCall().tensor(input).none().none().tensor(two).tensor(two).scalar(0.1).scalar(true)
                           .tensor(out0).tensor(empty).tensor(empty).none().run(kBatchNorm, false);
  EXPECT_TRUE(failed_with(bad_eps, Error::InvalidArgument, kBatchNorm, "'eps'"));
  const auto bad_momentum = KernelCall().tensor(input).none().none().tensor(two).tensor(two).none().scalar(0.0)
                                .tensor(out0).tensor(empty).tensor(empty).none().run(kBatchNorm, false);
  EXPECT_TRUE(failed_with(bad_momentum, Error::InvalidArgument, kBatchNorm, "'momentum'"));
}

KernelRuntimeContext run_layer_norm(const TestTensor& input, const std::vector<int64_t>& shape,
                                    const TestTensor* weight, const TestTensor* bias, double eps,
                                    const TestTensor& out0, const TestTensor& out1, const TestTensor& out2) {
  KernelCall call;
  call.tensor(input).int_list(shape);
  if (weight != nullptr) call.tensor(*weight); else call.none();
  if (bias != nullptr) call.tensor(*bias); else call.none();
  return call.scalar(eps).tensor(out0).tensor(out1).tensor(out2).none().run(kLayerNorm, false);
}

TEST(NativeLayerNorm, NormalizesTheLastTwoDimsWithWeightAndBias) {
  // Row 0: [1, 2, 3, 4], mean 2.5, biased variance 1.25; row 1 is constant.
  TestTensor input = make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 2, 2, 2, 2});
  TestTensor weight = make_tensor<float>({2, 2}, {1, 1, 2, 2});
  TestTensor bias = make_tensor<float>({2, 2}, {0, 1, 0, 1});
  TestTensor out0 = zeros<float>({2, 2, 2}), out1 = zeros<float>({2, 1, 1}), out2 = zeros<float>({2, 1, 1});
  const auto ctx = run_layer_norm(input, {2, 2}, &weight, &bias, 1e-5, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // rstd = 1 / sqrt(1.25 + 1e-5) = 0.8944236; the constant row normalizes to 0 (so gives the bias).
  EXPECT_TRUE(all_near(out0.values<float>(), {-1.3416354f, 0.5527882f, 0.8944236f, 3.6832708f, 0, 1, 0, 1}, 2e-6f));
  EXPECT_EQ(out1.values<float>(), (std::vector<float>{2.5f, 2}));
  EXPECT_TRUE(all_near(out2.values<float>(), {0.8944236f, 316.22777f}, 1e-4f));
}

TEST(NativeLayerNorm, ResizesTheStatisticsToOnesInTheNormalizedDims) {
  TestTensor input = make_tensor<float>({3, 2}, {1, 3, 10, 14, -1, -1});
  TestTensor out0 = zeros<float>({3, 2});
  TestTensor out1 = zeros<float>({3, 2}, TensorShapeDynamism::DynamicBound);
  TestTensor out2 = zeros<float>({3, 2}, TensorShapeDynamism::DynamicBound);
  const auto ctx = run_layer_norm(input, {2}, nullptr, nullptr, 0.0, out0, out1, out2);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out1.sizes(), (std::vector<SizesType>{3, 1}));
  EXPECT_EQ(out2.sizes(), (std::vector<SizesType>{3, 1}));
  EXPECT_EQ(out1.values<float>(), (std::vector<float>{2, 12, -1}));
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{1, 0.5f, inf}));  // eps 0, variance 0: rstd inf
  EXPECT_TRUE(all_near(out0.values<float>(), {-1, 1, -1, 1, nan, nan}, 0));
}

TEST(NativeLayerNorm, Errors) {
  TestTensor input = make_tensor<float>({2, 2}, {1, 3, 10, 14});
  TestTensor out0 = zeros<float>({2, 2}), out1 = zeros<float>({2, 1}), out2 = zeros<float>({2, 1});
  EXPECT_TRUE(failed_with(run_layer_norm(input, {3}, nullptr, nullptr, 0, out0, out1, out2), Error::InvalidArgument,
                          kLayerNorm, "'normalized_shape'"));
  EXPECT_TRUE(failed_with(run_layer_norm(input, {}, nullptr, nullptr, 0, out0, out1, out2), Error::InvalidArgument,
                          kLayerNorm, "'normalized_shape'"));
  EXPECT_TRUE(failed_with(run_layer_norm(input, {1, 2, 2}, nullptr, nullptr, 0, out0, out1, out2),
                          Error::InvalidArgument, kLayerNorm, "'normalized_shape'"));
  TestTensor three = make_tensor<float>({3}, {1, 1, 1});
  EXPECT_TRUE(failed_with(run_layer_norm(input, {2}, &three, nullptr, 0, out0, out1, out2), Error::InvalidArgument,
                          kLayerNorm, "'weight'"));
  EXPECT_TRUE(failed_with(run_layer_norm(input, {2}, nullptr, &three, 0, out0, out1, out2), Error::InvalidArgument,
                          kLayerNorm, "'bias'"));
  TestTensor wrong_stats = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_layer_norm(input, {2}, nullptr, nullptr, 0, out0, wrong_stats, out2),
                          Error::InvalidArgument, kLayerNorm, "'out1'"));
  TestTensor double_stats = zeros<double>({2, 1});
  EXPECT_TRUE(failed_with(run_layer_norm(input, {2}, nullptr, nullptr, 0, out0, out1, double_stats),
                          Error::InvalidArgument, kLayerNorm, "'out2'"));
  TestTensor ints = make_tensor<int64_t>({2, 2}, {1, 3, 10, 14});
  EXPECT_TRUE(failed_with(run_layer_norm(ints, {2}, nullptr, nullptr, 0, out0, out1, out2), Error::InvalidArgument,
                          kLayerNorm, "'input'"));
  const auto bad_eps = KernelCall().tensor(input).int_list({2}).none().none().none().tensor(out0).tensor(out1)
                           .tensor(out2).none().run(kLayerNorm, false);
  EXPECT_TRUE(failed_with(bad_eps, Error::InvalidArgument, kLayerNorm, "'eps'"));
}

KernelRuntimeContext run_softmax(const TestTensor& self, int64_t dim, const TestTensor& out, bool half_to_float = false) {
  return KernelCall().tensor(self).scalar(dim).scalar(half_to_float).tensor(out).run(kSoftmax);
}

TEST(SoftmaxKernel, RowsSumToOneAndAreStableForLargeValues) {
  TestTensor self = make_tensor<float>({2, 3}, {0, std::log(2.0f), std::log(3.0f), 1000, 1000, 1000});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_softmax(self, -1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {1.0f / 6, 1.0f / 3, 0.5f, 1.0f / 3, 1.0f / 3, 1.0f / 3}, 1e-6f));
}

TEST(SoftmaxKernel, AlongTheFirstDimOfAMatrix) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 0, 0});
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = run_softmax(self, 0, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // Column 1: e / (e + 1) and 1 / (e + 1).
  EXPECT_TRUE(all_near(out.values<float>(), {0.5f, 0.7310586f, 0.5f, 0.2689414f}, 1e-6f));
}

TEST(SoftmaxKernel, InfinitiesNaNsDoublesAndZeroDim) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor self = make_tensor<float>({2, 2}, {0, -inf, 1, nan});
  TestTensor out = zeros<float>({2, 2});
  auto ctx = run_softmax(self, 1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {1, 0, nan, nan}, 0));  // a NaN poisons its row only
  TestTensor doubles = make_tensor<double>({2}, {1, 1});
  TestTensor double_out = zeros<double>({2});
  ctx = run_softmax(doubles, 0, double_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(double_out.values<double>(), (std::vector<double>{0.5, 0.5}));
  TestTensor scalar = make_tensor<float>({}, {-7});
  TestTensor scalar_out = zeros<float>({});
  ctx = run_softmax(scalar, -1, scalar_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(scalar_out.values<float>(), std::vector<float>{1});
}

TEST(SoftmaxKernel, HalfToFloatIsANoOpForFloatAndNotSupportedOtherwise) {
  TestTensor self = make_tensor<float>({2}, {0, 0});
  TestTensor out = zeros<float>({2});
  auto ctx = run_softmax(self, 0, out, true);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.5f, 0.5f}));
  TestTensor doubles = make_tensor<double>({2}, {0, 0});
  TestTensor double_out = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_softmax(doubles, 0, double_out, true), Error::NotSupported, kSoftmax, "'half_to_float'"));
}

TEST(SoftmaxKernel, Errors) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 2, 3});
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_softmax(self, 2, out), Error::InvalidArgument, kSoftmax, "'dim'"));
  EXPECT_TRUE(failed_with(run_softmax(self, -3, out), Error::InvalidArgument, kSoftmax, "'dim'"));
  TestTensor ints = make_tensor<int32_t>({2, 2}, {0, 1, 2, 3});
  EXPECT_TRUE(failed_with(run_softmax(ints, 0, out), Error::InvalidArgument, kSoftmax, "'self'"));
  TestTensor double_out = zeros<double>({2, 2});
  EXPECT_TRUE(failed_with(run_softmax(self, 0, double_out), Error::InvalidArgument, kSoftmax, "'out'"));
  TestTensor small = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_softmax(self, 0, small), Error::InvalidArgument, kSoftmax, "'out'"));
}

KernelRuntimeContext run_log_softmax(const TestTensor& self, int64_t dim, const TestTensor& out,
                                     bool half_to_float = false) {
  return KernelCall().tensor(self).scalar(dim).scalar(half_to_float).tensor(out).run(kLogSoftmax);
}

template <typename H>
std::vector<float> from_16bit(const std::vector<H>& values) {
  std::vector<float> result;
  for (H v : values) result.push_back(static_cast<float>(v));
  return result;
}

TEST(SoftmaxKernel, HalfAndBFloat16ComputeInFloat) {
  using runtime::BFloat16;
  using runtime::Half;
  TestTensor self = make_tensor<Half>({3}, {Half(1), Half(2), Half(3)});
  TestTensor out = zeros<Half>({3});
  auto ctx = run_softmax(self, 0, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // e^(x - 3) / (1 + e^-1 + e^-2) = 0.0900306, 0.2447285, 0.6652410, rounded to Half.
  EXPECT_EQ(from_16bit(out.values<Half>()), (std::vector<float>{0.09002685546875f, 0.2447509765625f, 0.6650390625f}));
  // half_to_float: the same softmax, kept in float.
  TestTensor wide = zeros<float>({3});
  ctx = run_softmax(self, 0, wide, true);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(wide.values<float>(), {0.0900306f, 0.2447285f, 0.6652410f}, 1e-6f));
  EXPECT_TRUE(failed_with(run_softmax(self, 0, out, true), Error::InvalidArgument, kSoftmax, "'out'"));
  // log_softmax([1, 2]) = -1.3132617, -0.3132617, in BFloat16's 8 bits.
  TestTensor bf = make_tensor<BFloat16>({2}, {BFloat16(1), BFloat16(2)});
  TestTensor bf_out = zeros<BFloat16>({2});
  ctx = run_log_softmax(bf, 0, bf_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(from_16bit(bf_out.values<BFloat16>()), (std::vector<float>{-1.3125f, -0.3125f}));
}

TEST(LogSoftmaxKernel, ShiftedByTheLogOfTheSum) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 1000, 0, 1000});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_log_softmax(self, 1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // Row 0: x - 3 - log(1 + e^-1 + e^-2); row 1: two equal maxima, log(1/2), and e^-1000 vanishes.
  const float lse = std::log(1 + std::exp(-1.0f) + std::exp(-2.0f));
  const float half = -std::log(2.0f);
  EXPECT_TRUE(all_near(out.values<float>(), {-2 - lse, -1 - lse, -lse, half, -1000 + half, half}, 1e-5f));
}

TEST(LogSoftmaxKernel, InfinitiesNaNZeroDimAndEmpty) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor self = make_tensor<float>({4, 2}, {0, -inf, -inf, -inf, inf, 1, 1, nan});
  TestTensor out = zeros<float>({4, 2});
  auto ctx = run_log_softmax(self, -1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // All -inf: -inf - -inf is NaN; an inf max makes inf - inf NaN; NaN poisons its row.
  EXPECT_TRUE(all_near(out.values<float>(), {0, -inf, nan, nan, nan, nan, nan, nan}, 0));
  TestTensor scalar = make_tensor<double>({}, {-7});
  TestTensor scalar_out = zeros<double>({});
  ctx = run_log_softmax(scalar, 0, scalar_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(scalar_out.values<double>(), std::vector<double>{0});
  TestTensor empty = zeros<float>({2, 0});
  TestTensor empty_out = zeros<float>({2, 0});
  ctx = run_log_softmax(empty, 0, empty_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
}

TEST(SoftmaxKernel, OuterDimOfManyColumnsInLockstep) {
  // [2, 70] along dim 0: column j is [0, j / 10], so its second entry is
  // sigmoid(j / 10) and its first 1 - that.
  std::vector<float> values(140, 0.0f);
  for (int j = 0; j < 70; ++j) values[70 + j] = static_cast<float>(j) / 10;
  TestTensor self = make_tensor<float>({2, 70}, values);
  TestTensor out = zeros<float>({2, 70});
  TestTensor log_out = zeros<float>({2, 70});
  auto ctx = run_softmax(self, 0, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  ctx = run_log_softmax(self, -2, log_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  std::vector<float> expected(140), expected_log(140);
  for (int j = 0; j < 70; ++j) {
    const double p = 1 / (1 + std::exp(-j / 10.0));
    expected[j] = static_cast<float>(1 - p);
    expected[70 + j] = static_cast<float>(p);
    expected_log[j] = static_cast<float>(std::log(1 - p));
    expected_log[70 + j] = static_cast<float>(std::log(p));
  }
  EXPECT_TRUE(all_near(out.values<float>(), expected, 1e-6f));
  EXPECT_TRUE(all_near(log_out.values<float>(), expected_log, 1e-5f));
}

TEST(SoftmaxKernel, NonContiguousSelfAndOut) {
  // Logical [[0, ln 2], [ln 3, 0]] stored column by column: rows give
  // [1/3, 2/3] and [3/4, 1/4].
  TestTensor self(ScalarType::Float, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, std::log(3.0f), std::log(2.0f), 0});
  TestTensor out = zeros<float>({2, 2});
  auto ctx = run_softmax(self, 1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {1.0f / 3, 2.0f / 3, 0.75f, 0.25f}, 1e-6f));
  TestTensor strided_out(ScalarType::Float, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  ctx = run_log_softmax(self, 1, strided_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(strided_out.logical_values<float>(),
                       {std::log(1.0f / 3), std::log(2.0f / 3), std::log(0.75f), std::log(0.25f)}, 1e-6f));
}

TEST(LogSoftmaxKernel, Errors) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 2, 3});
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_log_softmax(self, 2, out), Error::InvalidArgument, kLogSoftmax, "'dim'"));
  TestTensor ints = make_tensor<int64_t>({2, 2}, {0, 1, 2, 3});
  EXPECT_TRUE(failed_with(run_log_softmax(ints, 0, out), Error::InvalidArgument, kLogSoftmax, "'self'"));
  TestTensor double_out = zeros<double>({2, 2});
  EXPECT_TRUE(failed_with(run_log_softmax(self, 0, double_out), Error::InvalidArgument, kLogSoftmax, "'out'"));
  TestTensor doubles = make_tensor<double>({2}, {0, 0});
  TestTensor doubles_out = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_log_softmax(doubles, 0, doubles_out, true), Error::NotSupported, kLogSoftmax,
                          "'half_to_float'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
