// mean.out (mean.dim's out variant) and any.out (any.dim's).
#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kMean = "aten::mean.out";
constexpr const char* kAny = "aten::any.out";
constexpr int64_t kFloatCode = 6, kDoubleCode = 7, kLongCode = 4;  // ScalarType numbers

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(MeanDim, ReducesOneDimWithAndWithoutKeepdim) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor rows = zeros<float>({2, 1});
  auto ctx = KernelCall().tensor(self).int_list({-1}).scalar(true).none().tensor(rows).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{2, 5}));
  TestTensor columns = zeros<float>({3});
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(columns).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{2.5f, 3.5f, 4.5f}));
}

TEST(MeanDim, NoneOrAnEmptyListReducesEverything) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor all = zeros<float>({});
  auto ctx = KernelCall().tensor(self).none().scalar(false).none().tensor(all).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(all.values<float>(), std::vector<float>{2.5f});
  TestTensor kept = zeros<float>({1, 1});
  ctx = KernelCall().tensor(self).int_list({}).scalar(true).none().tensor(kept).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(kept.values<float>(), std::vector<float>{2.5f});
}

TEST(MeanDim, NonAdjacentDimsOfA3dTensorLikeAGlobalPool) {
  // [2, 3, 2]: the mean over dims 0 and 2 of each of the 3 middle slices.
  TestTensor self = make_tensor<float>({2, 3, 2}, iota(12));
  TestTensor out = zeros<float>({1, 3, 1});
  auto ctx = KernelCall().tensor(self).int_list({2, 0}).scalar(true).none().tensor(out).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // Slice 0: 0, 1, 6, 7; slice 1: 2, 3, 8, 9; slice 2: 4, 5, 10, 11.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.5f, 5.5f, 7.5f}));
  // NCHW global average pool: mean over [-1, -2] with keepdim.
  TestTensor image = make_tensor<float>({1, 2, 2, 2}, iota(8));
  TestTensor pooled = zeros<float>({1, 2, 1, 1});
  ctx = KernelCall().tensor(image).int_list({-1, -2}).scalar(true).none().tensor(pooled).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(pooled.values<float>(), (std::vector<float>{1.5f, 5.5f}));
}

TEST(MeanDim, NonContiguousSelfAndDtypes) {
  // Logical [[1, 2, 3], [4, 5, 6]] stored column by column.
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor rows = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).int_list({1}).scalar(false).none().tensor(rows).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{2, 5}));
  // dtype=Double: computed and written as Double.
  TestTensor doubles = zeros<double>({2});
  ctx = KernelCall().tensor(self).int_list({1}).scalar(false).scalar(kDoubleCode).tensor(doubles).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(doubles.values<double>(), (std::vector<double>{2, 5}));
  // An integral self needs a floating dtype.
  TestTensor ints = make_tensor<int64_t>({3}, {1, 2, 4});
  TestTensor mean = zeros<float>({});
  ctx = KernelCall().tensor(ints).none().scalar(false).scalar(kFloatCode).tensor(mean).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(mean.values<float>(), {7.0f / 3}, 1e-6f));
}

TEST(MeanDim, AccumulatesBeyondFloatPrecision) {
  // 2^24 + 1 is not a float, but the sum is kept in double: the mean of
  // [2^24, 1, 1, ...] is exact where a float running sum would lose the ones.
  std::vector<float> values(9, 1.0f);
  values[0] = 16777216.0f;
  TestTensor self = make_tensor<float>({9}, values);
  TestTensor out = zeros<float>({});
  const auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(out).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), std::vector<float>{16777224.0f / 9});
}

TEST(MeanDim, EmptyReductionGivesNaNAndEmptyOutputIsFine) {
  TestTensor self = zeros<float>({2, 0});
  TestTensor rows = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).int_list({1}).scalar(false).none().tensor(rows).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(all_near(rows.values<float>(), {nan, nan}, 0));
  TestTensor none = zeros<float>({0});
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(none).run(kMean);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
}

TEST(MeanDim, Errors) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor out = zeros<float>({2});
  auto run = [&](const std::vector<int64_t>& dims, const TestTensor& s, const TestTensor& o) {
    return KernelCall().tensor(s).int_list(dims).scalar(false).none().tensor(o).run(kMean);
  };
  EXPECT_TRUE(failed_with(run({0, -2}, self, out), Error::InvalidArgument, kMean, "'dim'"));  // twice
  EXPECT_TRUE(failed_with(run({2}, self, out), Error::InvalidArgument, kMean, "'dim'"));
  TestTensor ints = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(failed_with(run({0}, ints, out), Error::InvalidArgument, kMean, "'self'"));
  TestTensor double_out = zeros<double>({2});
  EXPECT_TRUE(failed_with(run({0}, self, double_out), Error::InvalidArgument, kMean, "'out'"));
  TestTensor wrong = zeros<float>({3});
  EXPECT_TRUE(failed_with(run({0}, self, wrong), Error::InvalidArgument, kMean, "'out'"));
  auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).scalar(kLongCode).tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'dtype'"));
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).scalar(kDoubleCode).tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'out'"));  // out must have dtype's type
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(false).none().tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'dim'"));
}

KernelRuntimeContext run_any(const TestTensor& self, int64_t dim, bool keepdim, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(dim).scalar(keepdim).tensor(out).run(kAny);
}

TEST(AnyDim, ReducesOneDimToBool) {
  TestTensor self = make_tensor<float>({2, 3}, {0, 0, 0, 0, -2, 0});
  TestTensor rows = zeros<bool>({2});
  auto ctx = run_any(self, 1, false, rows);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<bool>(), (std::vector<bool>{false, true}));
  TestTensor columns = zeros<bool>({1, 3});
  ctx = run_any(self, -2, true, columns);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(columns.values<bool>(), (std::vector<bool>{false, true, false}));
}

TEST(AnyDim, IntsBoolsNaNAndNonContiguous) {
  TestTensor ints = make_tensor<int64_t>({3, 1}, {0, 7, 0});
  TestTensor out = zeros<bool>({1});
  auto ctx = run_any(ints, 0, false, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  TestTensor nan = make_tensor<float>({2}, {0, std::numeric_limits<float>::quiet_NaN()});
  ctx = run_any(nan, 0, false, out);  // a static [1] out cannot become []
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kAny, "'out'"));
  TestTensor scalar_out = zeros<bool>({});
  ctx = run_any(nan, 0, false, scalar_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(scalar_out.values<bool>(), std::vector<bool>{true});  // NaN is nonzero
  // Logical [[false, false, true], [false, false, false]] stored column by column.
  TestTensor bools(ScalarType::Bool, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  bools.set<bool>({false, false, false, false, true, false});
  TestTensor rows = zeros<bool>({2});
  ctx = run_any(bools, 1, false, rows);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<bool>(), (std::vector<bool>{true, false}));
}

TEST(AnyDim, Errors) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 0, 0});
  TestTensor out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_any(self, 2, false, out), Error::InvalidArgument, kAny, "'dim'"));
  TestTensor float_out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_any(self, 0, false, float_out), Error::InvalidArgument, kAny, "'out'"));
  const auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).tensor(out).run(kAny);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kAny, "'dim'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
