// Reductions over dim lists (sum, prod, mean, var, amax/amin, argmax/argmin,
// max/min.dim, any/all) and cumsum. Expected values are worked out by hand or
// from closed forms; edge cases follow PyTorch 2.15's CPU results.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

using runtime::BFloat16;
using runtime::Half;

constexpr int64_t kIntCode = 3, kLongCode = 4, kHalfCode = 5, kFloatCode = 6, kDoubleCode = 7, kBoolCode = 11;

template <typename H>
std::vector<H> to_16bit(const std::vector<float>& values) {
  std::vector<H> result;
  for (float v : values) result.push_back(H(v));
  return result;
}

template <typename H>
std::vector<float> from_16bit(const std::vector<H>& values) {
  std::vector<float> result;
  for (H v : values) result.push_back(static_cast<float>(v));
  return result;
}

#define EXPECT_OK(ctx) ASSERT_EQ((ctx).failure_state(), Error::Ok) << (ctx).failure_message()

// ---- sum ----

constexpr const char* kSumDims = "aten::sum.IntList_out";
constexpr const char* kSumAll = "aten::sum.out";

// dims nullptr passes None.
KernelRuntimeContext sum_dims_or_none(const TestTensor& self, const std::vector<int64_t>* dims, bool keepdim,
                                      const TestTensor& out, int64_t dtype = -1) {
  KernelCall call;
  call.tensor(self);
  if (dims != nullptr) call.int_list(*dims);
  else call.none();
  call.scalar(keepdim);
  if (dtype >= 0) call.scalar(dtype);
  else call.none();
  return call.tensor(out).run(kSumDims);
}
KernelRuntimeContext sum_dims(const TestTensor& self, std::vector<int64_t> dims, bool keepdim, const TestTensor& out,
                              int64_t dtype = -1) {
  return sum_dims_or_none(self, &dims, keepdim, out, dtype);
}

TEST(SumDims, ReducesAnyDimListWithNegativeDimsInAnyOrder) {
  // x[i][j][k] = 12i + 4j + k: the sum over i and k is 60 + 32j.
  TestTensor self = make_tensor<float>({2, 3, 4}, iota(24));
  TestTensor kept = zeros<float>({1, 3, 1});
  auto ctx = sum_dims(self, {0, -1}, true, kept);
  EXPECT_OK(ctx);
  EXPECT_EQ(kept.values<float>(), (std::vector<float>{60, 92, 124}));
  TestTensor dropped = zeros<float>({3});
  ctx = sum_dims(self, {2, -3}, false, dropped);
  EXPECT_OK(ctx);
  EXPECT_EQ(dropped.values<float>(), (std::vector<float>{60, 92, 124}));
  // Over the middle dim only: 3 * (12i + k) + 12.
  TestTensor middle = zeros<float>({2, 4});
  ctx = sum_dims(self, {1}, false, middle);
  EXPECT_OK(ctx);
  EXPECT_EQ(middle.values<float>(), (std::vector<float>{12, 15, 18, 21, 48, 51, 54, 57}));
}

TEST(SumDims, NoneOrAnEmptyListSumsEverything) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor all = zeros<float>({});
  auto ctx = sum_dims_or_none(self, nullptr, false, all);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<float>(), std::vector<float>{15});
  TestTensor kept = zeros<float>({1, 1});
  ctx = sum_dims(self, {}, true, kept);
  EXPECT_OK(ctx);
  EXPECT_EQ(kept.values<float>(), std::vector<float>{15});
}

TEST(SumDims, DuplicateAndOutOfRangeDimsAreRejected) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({});
  EXPECT_TRUE(failed_with(sum_dims(self, {1, -1}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
  EXPECT_TRUE(failed_with(sum_dims(self, {0, 0}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
  EXPECT_TRUE(failed_with(sum_dims(self, {2}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
  EXPECT_TRUE(failed_with(sum_dims(self, {-3}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
}

TEST(SumDims, ZeroDimSelfTakesDimZeroOrMinusOneOnce) {
  TestTensor self = make_tensor<float>({}, {5});
  TestTensor out = zeros<float>({});
  auto ctx = sum_dims(self, {-1}, true, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), std::vector<float>{5});
  EXPECT_TRUE(failed_with(sum_dims(self, {1}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
  EXPECT_TRUE(failed_with(sum_dims(self, {0, -1}, false, out), Error::InvalidArgument, kSumDims, "'dim'"));
}

TEST(SumDims, EmptyReductionsGiveZeroAndEmptyOutputsAreFine) {
  TestTensor self = zeros<float>({2, 0});
  TestTensor rows = make_tensor<float>({2}, {7, 7});
  auto ctx = sum_dims(self, {1}, false, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{0, 0}));
  TestTensor none = zeros<float>({0});
  ctx = sum_dims(self, {0}, false, none);
  EXPECT_OK(ctx);
  TestTensor everything = make_tensor<float>({}, {7});
  ctx = sum_dims(self, {}, false, everything);
  EXPECT_OK(ctx);
  EXPECT_EQ(everything.values<float>(), std::vector<float>{0});
}

TEST(SumDims, IntegralAndBoolSelfSumToLongOrToOutsDtype) {
  TestTensor ints = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  TestTensor longs = zeros<int64_t>({2});
  auto ctx = sum_dims(ints, {0}, false, longs);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{4, 6}));
  TestTensor bools = make_tensor<bool>({2, 2}, {true, false, true, true});
  ctx = sum_dims(bools, {0}, false, longs);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{2, 1}));
  // Without dtype PyTorch sums in out's dtype: an Int out wraps around.
  TestTensor big = make_tensor<int32_t>({2}, {1 << 30, 1 << 30});
  TestTensor int_out = zeros<int32_t>({});
  ctx = sum_dims(big, {0}, false, int_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(int_out.values<int32_t>(), std::vector<int32_t>{std::numeric_limits<int32_t>::min()});
  // A Float out of an Int self sums in float.
  TestTensor float_out = zeros<float>({2});
  ctx = sum_dims(ints, {1}, false, float_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(float_out.values<float>(), (std::vector<float>{3, 7}));
}

TEST(SumDims, DtypeCastsEachInputFirst) {
  // dtype=Long truncates 0.5, 0.5, 1.5 to 0, 0, 1 before summing.
  TestTensor self = make_tensor<float>({3}, {0.5f, 0.5f, 1.5f});
  TestTensor out = zeros<int64_t>({});
  auto ctx = sum_dims(self, {0}, false, out, kLongCode);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{1});
  // dtype=Bool: the sum of bools is any.
  TestTensor bools = zeros<bool>({});
  ctx = sum_dims(self, {0}, false, bools, kBoolCode);
  EXPECT_OK(ctx);
  EXPECT_EQ(bools.values<bool>(), std::vector<bool>{true});
  // NaN cast to Int is the lowest Int (as x86 and PyTorch give), plus 1.
  TestTensor nan = make_tensor<float>({2}, {kNaN, 1});
  TestTensor ints = zeros<int32_t>({});
  ctx = sum_dims(nan, {0}, false, ints, kIntCode);
  EXPECT_OK(ctx);
  EXPECT_EQ(ints.values<int32_t>(), std::vector<int32_t>{std::numeric_limits<int32_t>::min() + 1});
  // out must have the given dtype.
  TestTensor doubles = zeros<double>({});
  EXPECT_TRUE(failed_with(sum_dims(self, {0}, false, doubles, kFloatCode), Error::InvalidArgument, kSumDims, "'out'"));
  EXPECT_TRUE(failed_with(sum_dims(self, {0}, false, doubles, 99), Error::InvalidArgument, kSumDims, "'dtype'"));
}

TEST(SumDims, Int64WrapsAround) {
  const int64_t big = int64_t{1} << 62;
  TestTensor self = make_tensor<int64_t>({3}, {big, big, big});
  TestTensor out = zeros<int64_t>({});
  const auto ctx = sum_dims(self, {0}, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{-big});  // 3 * 2^62 mod 2^64
}

TEST(SumDims, FloatSumsAccumulateInDouble) {
  // 2^24 + 1 is not a float: a float running sum would lose every 1.
  std::vector<float> values(41, 1.0f);
  values[0] = 16777216.0f;
  TestTensor self = make_tensor<float>({41}, values);
  TestTensor out = zeros<float>({});
  const auto ctx = sum_dims(self, {0}, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), std::vector<float>{16777256.0f});
}

TEST(SumDims, LongContiguousRowsAndTails) {
  // 0 + 1 + ... + (n - 1) = n (n - 1) / 2 for row lengths around the lane width.
  for (int64_t n : {1, 7, 15, 16, 17, 31, 32, 33, 1003}) {
    TestTensor self = make_tensor<int64_t>({2, static_cast<SizesType>(n)}, iota<int64_t>(static_cast<size_t>(2 * n)));
    TestTensor out = zeros<int64_t>({2});
    const auto ctx = sum_dims(self, {1}, false, out);
    EXPECT_OK(ctx);
    EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{n * (n - 1) / 2, n * (3 * n - 1) / 2})) << n;
  }
}

TEST(SumDims, OuterDimsOfWideTensorsInLockstepBlocks) {
  // x[i][j] = 100 i + j over [5, 70]: column sums 1000 + 5 j (70 columns span two blocks).
  TestTensor self = make_tensor<double>({5, 70}, [] {
    std::vector<double> v;
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 70; ++j) v.push_back(100 * i + j);
    }
    return v;
  }());
  TestTensor out = zeros<double>({1, 70});
  auto ctx = sum_dims(self, {0}, true, out);
  EXPECT_OK(ctx);
  std::vector<double> expected;
  for (int j = 0; j < 70; ++j) expected.push_back(1000 + 5 * j);
  EXPECT_EQ(out.values<double>(), expected);
  // [2, 3, 70] over dims 0 and 1: 6 rows of [5, 70]-like sums.
  TestTensor deep = make_tensor<float>({2, 3, 70}, iota(420));
  TestTensor columns = zeros<float>({70});
  ctx = sum_dims(deep, {0, 1}, false, columns);
  EXPECT_OK(ctx);
  std::vector<float> sums;
  for (int j = 0; j < 70; ++j) sums.push_back(6 * j + 70 * 15);  // rows r = 0..5 add 70 r each
  EXPECT_EQ(columns.values<float>(), sums);
}

TEST(SumDims, NonContiguousSelfAndOut) {
  // Logical [[1, 2, 3], [4, 5, 6]] stored column by column.
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor rows = zeros<float>({2});
  auto ctx = sum_dims(self, {1}, false, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{6, 15}));
  TestTensor columns = zeros<float>({3});
  ctx = sum_dims(self, {0}, false, columns);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{5, 7, 9}));
  // A channels-last [1, 2, 2, 3] (NHWC in memory) summed over H and W into a
  // keepdim out that is channels-last too.
  TestTensor image(ScalarType::Float, {1, 3, 2, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  image.set<float>(iota(12));  // memory order h, w, c: value = 3 (2h + w) + c
  TestTensor pooled(ScalarType::Float, {1, 3, 1, 1}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  ctx = sum_dims(image, {2, 3}, true, pooled);
  EXPECT_OK(ctx);
  EXPECT_EQ(pooled.values<float>(), (std::vector<float>{18, 22, 26}));  // 3 * 6 + 4c
}

TEST(SumDims, HalfAndBFloat16AccumulateWide) {
  TestTensor halfs = make_tensor<Half>({3}, to_16bit<Half>({1, 2, 3.5f}));
  TestTensor half_out = zeros<Half>({});
  auto ctx = sum_dims(halfs, {0}, false, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), std::vector<float>{6.5f});
  // 60000 + 60000 overflows Half's range.
  TestTensor large = make_tensor<Half>({2}, to_16bit<Half>({60000, 60000}));
  ctx = sum_dims(large, {0}, false, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), std::vector<float>{kInf});
  // 256 + 1 + 1 in BFloat16 steps of 2 above 256: the ones survive only in a wide sum.
  TestTensor bf = make_tensor<BFloat16>({3}, to_16bit<BFloat16>({256, 1, 1}));
  TestTensor bf_out = zeros<BFloat16>({});
  ctx = sum_dims(bf, {0}, false, bf_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(bf_out.values<BFloat16>()), std::vector<float>{258});
  // dtype=Float from Half.
  TestTensor float_out = zeros<float>({});
  ctx = sum_dims(halfs, {0}, false, float_out, kFloatCode);
  EXPECT_OK(ctx);
  EXPECT_EQ(float_out.values<float>(), std::vector<float>{6.5f});
}

TEST(SumAll, DefaultsToLongForIntegralSelfAndChecksOut) {
  TestTensor ints = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  TestTensor longs = zeros<int64_t>({});
  auto ctx = KernelCall().tensor(ints).none().tensor(longs).run(kSumAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), std::vector<int64_t>{10});
  // Unlike the dim overload, sum.out does not take its dtype from out.
  TestTensor int_out = zeros<int32_t>({});
  ctx = KernelCall().tensor(ints).none().tensor(int_out).run(kSumAll);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kSumAll, "'out'"));
  ctx = KernelCall().tensor(ints).scalar(kIntCode).tensor(int_out).run(kSumAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(int_out.values<int32_t>(), std::vector<int32_t>{10});
  TestTensor floats = make_tensor<float>({2, 2}, {1, 2, 3, 4.5f});
  TestTensor double_out = zeros<double>({});
  ctx = KernelCall().tensor(floats).none().tensor(double_out).run(kSumAll);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kSumAll, "'out'"));
  ctx = KernelCall().tensor(floats).scalar(kDoubleCode).tensor(double_out).run(kSumAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(double_out.values<double>(), std::vector<double>{10.5});
  TestTensor wrong_shape = zeros<double>({1});
  ctx = KernelCall().tensor(floats).scalar(kDoubleCode).tensor(wrong_shape).run(kSumAll);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kSumAll, "'out'"));
}

// ---- prod ----

constexpr const char* kProdDim = "aten::prod.int_out";
constexpr const char* kProdAll = "aten::prod.out";

KernelRuntimeContext prod_dim(const TestTensor& self, int64_t dim, bool keepdim, const TestTensor& out,
                              int64_t dtype = -1) {
  KernelCall call;
  call.tensor(self).scalar(dim).scalar(keepdim);
  if (dtype >= 0) call.scalar(dtype);
  else call.none();
  return call.tensor(out).run(kProdDim);
}

TEST(ProdDim, MultipliesAlongOneDim) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor rows = zeros<float>({2, 1});
  auto ctx = prod_dim(self, -1, true, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{6, 120}));
  TestTensor columns = zeros<float>({3});
  ctx = prod_dim(self, 0, false, columns);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{4, 10, 18}));
  EXPECT_TRUE(failed_with(prod_dim(self, 2, false, columns), Error::InvalidArgument, kProdDim, "'dim'"));
}

TEST(ProdDim, DtypesEmptyAndZeroDim) {
  TestTensor bools = make_tensor<bool>({2, 2}, {true, false, true, true});
  TestTensor longs = zeros<int64_t>({2});
  auto ctx = prod_dim(bools, 0, false, longs);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 0}));
  TestTensor bool_out = zeros<bool>({2});
  ctx = prod_dim(bools, 1, false, bool_out, kBoolCode);  // all
  EXPECT_OK(ctx);
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{false, true}));
  TestTensor ints = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  TestTensor int_out = zeros<int32_t>({2});
  ctx = prod_dim(ints, 0, false, int_out);  // out's dtype, as PyTorch infers it
  EXPECT_OK(ctx);
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{3, 8}));
  TestTensor empty = zeros<float>({2, 0});
  TestTensor ones = zeros<float>({2});
  ctx = prod_dim(empty, 1, false, ones);
  EXPECT_OK(ctx);
  EXPECT_EQ(ones.values<float>(), (std::vector<float>{1, 1}));
  TestTensor scalar = make_tensor<float>({}, {3});
  TestTensor scalar_out = zeros<float>({});
  ctx = prod_dim(scalar, -1, true, scalar_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(scalar_out.values<float>(), std::vector<float>{3});
  TestTensor halfs = make_tensor<Half>({3}, to_16bit<Half>({1.5f, 2.5f, 4}));
  TestTensor half_out = zeros<Half>({});
  ctx = prod_dim(halfs, 0, false, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), std::vector<float>{15});
}

TEST(ProdDim, NonContiguousSelfAndNaN) {
  // Logical [[1, 2, 3], [4, 5, 6]] stored column by column.
  TestTensor self(ScalarType::Double, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<double>({1, 4, 2, 5, 3, 6});
  TestTensor rows = zeros<double>({2});
  auto ctx = prod_dim(self, 1, false, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<double>(), (std::vector<double>{6, 120}));
  TestTensor nan = make_tensor<float>({3}, {2, kNaN, 0});
  TestTensor out = zeros<float>({});
  ctx = prod_dim(nan, 0, false, out);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN}, 0));
}

TEST(ProdAll, OverflowAsInTheResultDtype) {
  // 2^40 * 2^40 wraps to 0 in int64.
  TestTensor longs = make_tensor<int64_t>({2}, {int64_t{1} << 40, int64_t{1} << 40});
  TestTensor out = zeros<int64_t>({});
  auto ctx = KernelCall().tensor(longs).none().tensor(out).run(kProdAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{0});
  // Float products stay in float: 1e30 * 1e30 is already inf.
  TestTensor floats = make_tensor<float>({3}, {1e30f, 1e30f, 1e-30f});
  TestTensor float_out = zeros<float>({});
  ctx = KernelCall().tensor(floats).none().tensor(float_out).run(kProdAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(float_out.values<float>(), std::vector<float>{kInf});
  TestTensor ints = make_tensor<int32_t>({3}, {2, 3, 4});
  TestTensor int_out = zeros<int32_t>({});
  ctx = KernelCall().tensor(ints).none().tensor(int_out).run(kProdAll);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kProdAll, "'out'"));  // Long expected
  ctx = KernelCall().tensor(ints).none().tensor(out).run(kProdAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{24});
}

// ---- mean ----

constexpr const char* kMean = "aten::mean.out";

TEST(MeanDim, ReducesOneDimWithAndWithoutKeepdim) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor rows = zeros<float>({2, 1});
  auto ctx = KernelCall().tensor(self).int_list({-1}).scalar(true).none().tensor(rows).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{2, 5}));
  TestTensor columns = zeros<float>({3});
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(columns).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{2.5f, 3.5f, 4.5f}));
}

TEST(MeanDim, NoneOrAnEmptyListReducesEverything) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor all = zeros<float>({});
  auto ctx = KernelCall().tensor(self).none().scalar(false).none().tensor(all).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<float>(), std::vector<float>{2.5f});
  TestTensor kept = zeros<float>({1, 1});
  ctx = KernelCall().tensor(self).int_list({}).scalar(true).none().tensor(kept).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(kept.values<float>(), std::vector<float>{2.5f});
}

TEST(MeanDim, NonAdjacentDimsOfA3dTensorLikeAGlobalPool) {
  // [2, 3, 2]: the mean over dims 0 and 2 of each of the 3 middle slices.
  TestTensor self = make_tensor<float>({2, 3, 2}, iota(12));
  TestTensor out = zeros<float>({1, 3, 1});
  auto ctx = KernelCall().tensor(self).int_list({2, 0}).scalar(true).none().tensor(out).run(kMean);
  EXPECT_OK(ctx);
  // Slice 0: 0, 1, 6, 7; slice 1: 2, 3, 8, 9; slice 2: 4, 5, 10, 11.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.5f, 5.5f, 7.5f}));
  // NCHW global average pool: mean over [-1, -2] with keepdim.
  TestTensor image = make_tensor<float>({1, 2, 2, 2}, iota(8));
  TestTensor pooled = zeros<float>({1, 2, 1, 1});
  ctx = KernelCall().tensor(image).int_list({-1, -2}).scalar(true).none().tensor(pooled).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(pooled.values<float>(), (std::vector<float>{1.5f, 5.5f}));
}

TEST(MeanDim, NonContiguousSelfAndDtypes) {
  // Logical [[1, 2, 3], [4, 5, 6]] stored column by column.
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor rows = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).int_list({1}).scalar(false).none().tensor(rows).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{2, 5}));
  // dtype=Double: computed and written as Double.
  TestTensor doubles = zeros<double>({2});
  ctx = KernelCall().tensor(self).int_list({1}).scalar(false).scalar(kDoubleCode).tensor(doubles).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(doubles.values<double>(), (std::vector<double>{2, 5}));
  // Without dtype the result takes out's floating dtype, as PyTorch infers it.
  TestTensor column_doubles = zeros<double>({3});
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(column_doubles).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(column_doubles.values<double>(), (std::vector<double>{2.5, 3.5, 4.5}));
  // An integral self needs a floating dtype.
  TestTensor ints = make_tensor<int64_t>({3}, {1, 2, 4});
  TestTensor mean = zeros<float>({});
  ctx = KernelCall().tensor(ints).none().scalar(false).scalar(kFloatCode).tensor(mean).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(mean.values<float>(), {7.0f / 3}, 1e-6f));
  TestTensor half_mean = zeros<Half>({});
  ctx = KernelCall().tensor(ints).none().scalar(false).scalar(kHalfCode).tensor(half_mean).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_mean.values<Half>()), std::vector<float>{2.333984375f});  // 7/3 in Half
}

TEST(MeanDim, HalfSelfSumsWideSoItDoesNotOverflow) {
  TestTensor self = make_tensor<Half>({2}, to_16bit<Half>({60000, 60000}));
  TestTensor out = zeros<Half>({});
  auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(out).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(out.values<Half>()), std::vector<float>{60000});
  TestTensor bf = make_tensor<BFloat16>({2, 2}, to_16bit<BFloat16>({1, 2, 3, 5}));
  TestTensor float_out = zeros<float>({2});
  ctx = KernelCall().tensor(bf).int_list({1}).scalar(false).none().tensor(float_out).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(float_out.values<float>(), (std::vector<float>{1.5f, 4}));
}

TEST(MeanDim, AccumulatesBeyondFloatPrecision) {
  std::vector<float> values(9, 1.0f);
  values[0] = 16777216.0f;
  TestTensor self = make_tensor<float>({9}, values);
  TestTensor out = zeros<float>({});
  const auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(out).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), std::vector<float>{16777224.0f / 9});
}

TEST(MeanDim, EmptyReductionGivesNaNAndEmptyOutputIsFine) {
  TestTensor self = zeros<float>({2, 0});
  TestTensor rows = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).int_list({1}).scalar(false).none().tensor(rows).run(kMean);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(rows.values<float>(), {kNaN, kNaN}, 0));
  TestTensor none = zeros<float>({0});
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).none().tensor(none).run(kMean);
  EXPECT_OK(ctx);
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
  TestTensor long_out = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(run({0}, self, long_out), Error::InvalidArgument, kMean, "'out'"));
  TestTensor wrong = zeros<float>({3});
  EXPECT_TRUE(failed_with(run({0}, self, wrong), Error::InvalidArgument, kMean, "'out'"));
  auto ctx = KernelCall().tensor(self).int_list({0}).scalar(false).scalar(kLongCode).tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'dtype'"));
  ctx = KernelCall().tensor(self).int_list({0}).scalar(false).scalar(kDoubleCode).tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'out'"));  // out must have dtype's type
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(false).none().tensor(out).run(kMean);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kMean, "'dim'"));
}

// ---- var ----

constexpr const char* kVar = "aten::var.correction_out";

KernelRuntimeContext var(const TestTensor& self, const std::vector<int64_t>* dims, const EValue& correction,
                         bool keepdim, const TestTensor& out) {
  KernelCall call;
  call.tensor(self);
  if (dims != nullptr) call.int_list(*dims);
  else call.none();
  return call.value(correction).scalar(keepdim).tensor(out).run(kVar);
}

TEST(VarCorrection, SampleAndPopulationVariance) {
  const std::vector<int64_t> dim0{0};
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor out = zeros<float>({2});
  auto ctx = var(self, &dim0, EValue(), false, out);  // correction None = 1
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 2}));
  ctx = var(self, &dim0, EValue(int64_t{0}), false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 1}));
  ctx = var(self, &dim0, EValue(0.5), false, out);  // 2 / 1.5
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{4.0f / 3, 4.0f / 3}));
  ctx = var(self, &dim0, EValue(int64_t{-1}), false, out);  // 2 / 3
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.0f / 3, 2.0f / 3}));
  ctx = var(self, &dim0, EValue(true), false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 2}));
  // Everything: mean 2.5, squared deviations 5, over 3.
  TestTensor all = zeros<float>({1, 1});
  ctx = var(self, nullptr, EValue(), true, all);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<float>(), std::vector<float>{5.0f / 3});
}

TEST(VarCorrection, CorrectionPastTheCountGivesInfOrNaN) {
  const std::vector<int64_t> dim0{0};
  TestTensor self = make_tensor<float>({2, 2}, {1, 1, 3, 1});
  TestTensor out = zeros<float>({2});
  auto ctx = var(self, &dim0, EValue(int64_t{2}), false, out);  // 2 / 0 and 0 / 0
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, kNaN}, 0));
  ctx = var(self, &dim0, EValue(int64_t{3}), false, out);  // divisor max(2 - 3, 0)
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, kNaN}, 0));
}

TEST(VarCorrection, SingleEmptyNaNAndInf) {
  const std::vector<int64_t> dim0{0}, dim1{1};
  TestTensor one = make_tensor<float>({1}, {7});
  TestTensor out = zeros<float>({});
  auto ctx = var(one, &dim0, EValue(), false, out);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN}, 0));
  TestTensor scalar = make_tensor<float>({}, {7});
  ctx = var(scalar, nullptr, EValue(int64_t{0}), false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), std::vector<float>{0});
  TestTensor empty = zeros<float>({2, 0});
  TestTensor rows = zeros<float>({2});
  ctx = var(empty, &dim1, EValue(int64_t{-1}), false, rows);  // NaN whatever the correction
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(rows.values<float>(), {kNaN, kNaN}, 0));
  TestTensor specials = make_tensor<float>({2, 2}, {1, 1, kNaN, kInf});
  TestTensor columns = zeros<float>({2});
  ctx = var(specials, &dim0, EValue(), false, columns);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(columns.values<float>(), {kNaN, kNaN}, 0));
}

TEST(VarCorrection, LargeMeansKeepTheirPrecision) {
  // 1e6 + {1, 2, 3} are exact floats; the variance is exactly 1.
  TestTensor self = make_tensor<float>({3}, {1000001, 1000002, 1000003});
  TestTensor out = zeros<float>({});
  const auto ctx = var(self, nullptr, EValue(), false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), std::vector<float>{1});
}

TEST(VarCorrection, DtypesAndLayouts) {
  const std::vector<int64_t> dim0{0}, dim1{1};
  TestTensor halfs = make_tensor<Half>({4}, to_16bit<Half>({1, 2, 3, 4}));
  TestTensor half_out = zeros<Half>({});
  auto ctx = var(halfs, &dim0, EValue(), false, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), std::vector<float>{1.6669921875f});  // 5/3 in Half
  // PyTorch writes a float variance into a Double out.
  TestTensor floats = make_tensor<float>({4}, {1, 2, 3, 4});
  TestTensor double_out = zeros<double>({});
  ctx = var(floats, &dim0, EValue(int64_t{0}), false, double_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(double_out.values<double>(), std::vector<double>{1.25});
  // Column by column storage, var over each row of [[1, 2, 3], [2, 4, 6]].
  TestTensor strided(ScalarType::Double, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  strided.set<double>({1, 2, 2, 4, 3, 6});
  TestTensor rows = zeros<double>({2});
  ctx = var(strided, &dim1, EValue(), false, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<double>(), (std::vector<double>{1, 4}));
}

TEST(VarCorrection, NegativeDimsWithKeepdim) {
  // [2, 2, 2] = iota: over dims -1 and -3 the group of j is 2j + {0, 1, 4, 5},
  // squared deviations from its mean 6.25 + 2.25 + 2.25 + 6.25 = 17.
  const std::vector<int64_t> dims{-1, -3};
  TestTensor self = make_tensor<float>({2, 2, 2}, iota(8));
  TestTensor out = zeros<float>({1, 2, 1});
  const auto ctx = var(self, &dims, EValue(int64_t{1}), true, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{17.0f / 3, 17.0f / 3}));
}

TEST(VarCorrection, Errors) {
  const std::vector<int64_t> dim0{0}, twice{0, -1};
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor out = zeros<float>({});
  EXPECT_TRUE(failed_with(var(ints, &dim0, EValue(), false, out), Error::InvalidArgument, kVar, "'self'"));
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor long_out = zeros<int64_t>({});
  EXPECT_TRUE(failed_with(var(floats, &dim0, EValue(), false, long_out), Error::InvalidArgument, kVar, "'out'"));
  EXPECT_TRUE(failed_with(var(floats, &twice, EValue(), false, out), Error::InvalidArgument, kVar, "'dim'"));
  auto ctx = KernelCall().tensor(floats).none().int_list({1}).scalar(false).tensor(out).run(kVar);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kVar, "'correction'"));
}

// ---- amax, amin ----

constexpr const char* kAmax = "aten::amax.out";
constexpr const char* kAmin = "aten::amin.out";

KernelRuntimeContext extreme(const char* op, const TestTensor& self, const std::vector<int64_t>& dims, bool keepdim,
                             const TestTensor& out) {
  return KernelCall().tensor(self).int_list(dims).scalar(keepdim).tensor(out).run(op);
}

TEST(Amax, ReducesDimListsAndPropagatesNaN) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 9, -3, 4, -5, 6});
  TestTensor rows = zeros<float>({2, 1});
  auto ctx = extreme(kAmax, self, {-1}, true, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{9, 6}));
  TestTensor columns = zeros<float>({3});
  ctx = extreme(kAmin, self, {0}, false, columns);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{1, -5, -3}));
  TestTensor all = zeros<float>({});
  ctx = extreme(kAmax, self, {}, false, all);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<float>(), std::vector<float>{9});
  TestTensor nan = make_tensor<float>({3}, {1, kNaN, 3});
  ctx = extreme(kAmax, nan, {0}, false, all);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(all.values<float>(), {kNaN}, 0));
  ctx = extreme(kAmin, nan, {0}, false, all);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(all.values<float>(), {kNaN}, 0));
  TestTensor infinities = make_tensor<float>({2}, {-kInf, -kInf});
  ctx = extreme(kAmax, infinities, {0}, false, all);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<float>(), std::vector<float>{-kInf});
}

TEST(Amax, LongRowsWithNaNAnywhereAndWideColumns) {
  for (size_t nan_at : {size_t{0}, size_t{5}, size_t{40}, size_t{99}}) {
    std::vector<float> values = iota(100, -50.0f);
    values[nan_at] = kNaN;
    TestTensor self = make_tensor<float>({100}, values);
    TestTensor out = zeros<float>({});
    const auto ctx = extreme(kAmax, self, {0}, false, out);
    EXPECT_OK(ctx);
    EXPECT_TRUE(all_near(out.values<float>(), {kNaN}, 0)) << nan_at;
  }
  // [3, 70], x[i][j] = (j % 3 == i ? 1000 : i) + j: amax over dim 0 is 1000 + j, amin min(i) + j.
  std::vector<int32_t> values;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 70; ++j) values.push_back((j % 3 == i ? 1000 : i) + j);
  }
  TestTensor self = make_tensor<int32_t>({3, 70}, values);
  TestTensor maxes = zeros<int32_t>({70}), mins = zeros<int32_t>({70});
  auto ctx = extreme(kAmax, self, {0}, false, maxes);
  EXPECT_OK(ctx);
  ctx = extreme(kAmin, self, {0}, false, mins);
  EXPECT_OK(ctx);
  for (int j = 0; j < 70; ++j) {
    EXPECT_EQ(maxes.values<int32_t>()[j], 1000 + j);
    EXPECT_EQ(mins.values<int32_t>()[j], (j % 3 == 0 ? 1 : 0) + j);
  }
}

TEST(Amax, BoolsHalfsAndNonContiguous) {
  TestTensor bools = make_tensor<bool>({2, 2}, {true, false, false, false});
  TestTensor bool_out = zeros<bool>({2});
  auto ctx = extreme(kAmax, bools, {1}, false, bool_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor halfs = make_tensor<Half>({3}, to_16bit<Half>({-1.5f, 2.5f, 0.5f}));
  TestTensor half_out = zeros<Half>({});
  ctx = extreme(kAmin, halfs, {0}, false, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), std::vector<float>{-1.5f});
  // Logical [[1, 5], [7, 2]] stored column by column.
  TestTensor strided(ScalarType::Float, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  strided.set<float>({1, 7, 5, 2});
  TestTensor columns = zeros<float>({2});
  ctx = extreme(kAmax, strided, {0}, false, columns);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<float>(), (std::vector<float>{7, 5}));
}

TEST(Amax, EmptyReducedDimsAreErrors) {
  TestTensor empty = zeros<float>({0, 3});
  TestTensor out = zeros<float>({3});
  EXPECT_TRUE(failed_with(extreme(kAmax, empty, {0}, false, out), Error::InvalidArgument, kAmax, "'self'"));
  EXPECT_TRUE(failed_with(extreme(kAmin, empty, {}, false, out), Error::InvalidArgument, kAmin, "'self'"));
  // Reducing a non-empty dim of an empty tensor is fine.
  TestTensor none = zeros<float>({0});
  const auto ctx = extreme(kAmax, empty, {1}, false, none);
  EXPECT_OK(ctx);
  TestTensor self = make_tensor<float>({2}, {1, 2});
  TestTensor double_out = zeros<double>({});
  EXPECT_TRUE(failed_with(extreme(kAmax, self, {0}, false, double_out), Error::InvalidArgument, kAmax, "'out'"));
  EXPECT_TRUE(failed_with(extreme(kAmax, self, {0, 0}, false, out), Error::InvalidArgument, kAmax, "'dim'"));
}

// ---- argmax, argmin ----

constexpr const char* kArgmax = "aten::argmax.out";
constexpr const char* kArgmin = "aten::argmin.out";

KernelRuntimeContext arg(const char* op, const TestTensor& self, const int64_t* dim, bool keepdim,
                         const TestTensor& out) {
  KernelCall call;
  call.tensor(self);
  if (dim != nullptr) call.scalar(*dim);
  else call.none();
  return call.scalar(keepdim).tensor(out).run(op);
}

TEST(Argmax, FirstIndexOfTheExtreme) {
  TestTensor self = make_tensor<float>({4}, {1, 3, 3, 2});
  TestTensor out = zeros<int64_t>({});
  auto ctx = arg(kArgmax, self, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{1});
  TestTensor lows = make_tensor<float>({4}, {1, 0, 0, 2});
  ctx = arg(kArgmin, lows, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{1});
  // -0.0 and 0.0 are equal: the first wins.
  TestTensor zeros_ = make_tensor<float>({2}, {-0.0f, 0.0f});
  ctx = arg(kArgmax, zeros_, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{0});
  TestTensor infinities = make_tensor<float>({3}, {-kInf, -kInf, -kInf});
  ctx = arg(kArgmax, infinities, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{0});
}

TEST(Argmax, TheFirstNaNIsTheExtreme) {
  TestTensor self = make_tensor<float>({5}, {1, kInf, kNaN, 3, kNaN});
  TestTensor out = zeros<int64_t>({});
  auto ctx = arg(kArgmax, self, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{2});
  ctx = arg(kArgmin, self, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{2});
}

TEST(Argmax, FlattenedIndexInLogicalOrderAndKeepdim) {
  // Logical [[1, 5], [7, 2]] stored column by column: 7 is flat index 2.
  TestTensor strided(ScalarType::Float, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  strided.set<float>({1, 7, 5, 2});
  TestTensor out = zeros<int64_t>({});
  auto ctx = arg(kArgmax, strided, nullptr, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{2});
  TestTensor kept = zeros<int64_t>({1, 1});
  ctx = arg(kArgmin, strided, nullptr, true, kept);
  EXPECT_OK(ctx);
  EXPECT_EQ(kept.values<int64_t>(), std::vector<int64_t>{0});
  const int64_t last = -1;
  TestTensor rows = zeros<int64_t>({2, 1});
  ctx = arg(kArgmax, strided, &last, true, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<int64_t>(), (std::vector<int64_t>{1, 0}));
  TestTensor scalar = make_tensor<int32_t>({}, {4});
  ctx = arg(kArgmax, scalar, nullptr, true, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{0});
}

TEST(Argmax, ChannelsOfAWideImageInLockstep) {
  // [1, 4, 70] argmax over the channels: channel j % 4 holds the peak of column j,
  // and column 5 has a NaN in channel 3.
  std::vector<float> values;
  for (int c = 0; c < 4; ++c) {
    for (int j = 0; j < 70; ++j) values.push_back(j % 4 == c ? 100.0f : static_cast<float>(c));
  }
  values[3 * 70 + 5] = kNaN;
  TestTensor self = make_tensor<float>({1, 4, 70}, values);
  TestTensor out = zeros<int64_t>({1, 70});
  const int64_t channels = 1;
  const auto ctx = arg(kArgmax, self, &channels, false, out);
  EXPECT_OK(ctx);
  for (int j = 0; j < 70; ++j) EXPECT_EQ(out.values<int64_t>()[j], j == 5 ? 3 : j % 4) << j;
}

TEST(Argmax, Errors) {
  TestTensor empty = zeros<float>({0});
  TestTensor out = zeros<int64_t>({});
  EXPECT_TRUE(failed_with(arg(kArgmax, empty, nullptr, false, out), Error::InvalidArgument, kArgmax, "'self'"));
  TestTensor rows = zeros<float>({2, 0});
  const int64_t one = 1, zero = 0, two = 2;
  TestTensor two_out = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(arg(kArgmax, rows, &one, false, two_out), Error::InvalidArgument, kArgmax, "'self'"));
  TestTensor none = zeros<int64_t>({0});
  const auto ctx = arg(kArgmin, rows, &zero, false, none);  // over the non-empty dim
  EXPECT_OK(ctx);
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  EXPECT_TRUE(failed_with(arg(kArgmax, bools, nullptr, false, out), Error::InvalidArgument, kArgmax, "'self'"));
  TestTensor self = make_tensor<float>({2}, {1, 2});
  TestTensor int_out = zeros<int32_t>({});
  EXPECT_TRUE(failed_with(arg(kArgmin, self, nullptr, false, int_out), Error::InvalidArgument, kArgmin, "'out'"));
  EXPECT_TRUE(failed_with(arg(kArgmin, self, &two, false, out), Error::InvalidArgument, kArgmin, "'dim'"));
}

// ---- max.dim, min.dim ----

constexpr const char* kMaxDim = "aten::max.dim_max";
constexpr const char* kMinDim = "aten::min.dim_min";

KernelRuntimeContext extreme_dim(const char* op, const TestTensor& self, int64_t dim, bool keepdim,
                                 const TestTensor& values, const TestTensor& indices) {
  return KernelCall().tensor(self).scalar(dim).scalar(keepdim).tensor(values).tensor(indices).run(op);
}

TEST(MaxDim, ValuesAndFirstIndices) {
  TestTensor self = make_tensor<float>({2, 3}, {3, 1, 3, kNaN, 2, kNaN});
  TestTensor values = zeros<float>({2, 1});
  TestTensor indices = zeros<int64_t>({2, 1});
  auto ctx = extreme_dim(kMaxDim, self, 1, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {3, kNaN}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 0}));
  TestTensor column_values = zeros<float>({3});
  TestTensor column_indices = zeros<int64_t>({3});
  ctx = extreme_dim(kMinDim, self, -2, false, column_values, column_indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(column_values.values<float>(), {kNaN, 1, kNaN}, 0));
  EXPECT_EQ(column_indices.values<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
}

TEST(MaxDim, BoolsIntsAndZeroDim) {
  TestTensor bools = make_tensor<bool>({2, 2}, {true, false, true, true});
  TestTensor bool_values = zeros<bool>({2});
  TestTensor indices = zeros<int64_t>({2});
  auto ctx = extreme_dim(kMaxDim, bools, 0, false, bool_values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(bool_values.values<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 1}));
  TestTensor ints = make_tensor<int64_t>({2, 2}, {5, 5, 4, 6});
  TestTensor int_values = zeros<int64_t>({2});
  ctx = extreme_dim(kMinDim, ints, 1, false, int_values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(int_values.values<int64_t>(), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 0}));
  TestTensor scalar = make_tensor<float>({}, {3});
  TestTensor scalar_value = zeros<float>({});
  TestTensor scalar_index = make_tensor<int64_t>({}, {9});
  ctx = extreme_dim(kMaxDim, scalar, 0, true, scalar_value, scalar_index);
  EXPECT_OK(ctx);
  EXPECT_EQ(scalar_value.values<float>(), std::vector<float>{3});
  EXPECT_EQ(scalar_index.values<int64_t>(), std::vector<int64_t>{0});
}

TEST(MaxDim, NonContiguousSelfAndOuts) {
  // Logical [[1, 5, 5], [7, 2, 7]] stored column by column; max and min over
  // the rows, written to column-major [2, 1] outs.
  TestTensor self(ScalarType::Int, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<int32_t>({1, 7, 5, 2, 5, 7});
  TestTensor values(ScalarType::Int, {2, 1}, TensorShapeDynamism::Static, {1, 0});
  TestTensor indices(ScalarType::Long, {2, 1}, TensorShapeDynamism::Static, {1, 0});
  auto ctx = extreme_dim(kMaxDim, self, -1, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(values.logical_values<int32_t>(), (std::vector<int32_t>{5, 7}));
  EXPECT_EQ(indices.logical_values<int64_t>(), (std::vector<int64_t>{1, 0}));
  ctx = extreme_dim(kMinDim, self, 1, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(values.logical_values<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(indices.logical_values<int64_t>(), (std::vector<int64_t>{0, 1}));
}

TEST(MaxDim, ErrorsNameTheSchemasOuts) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor values = zeros<float>({2});
  TestTensor indices = zeros<int64_t>({2});
  TestTensor double_values = zeros<double>({2});
  TestTensor int_indices = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(extreme_dim(kMaxDim, self, 0, false, double_values, indices), Error::InvalidArgument,
                          kMaxDim, "'max'"));
  EXPECT_TRUE(failed_with(extreme_dim(kMaxDim, self, 0, false, values, int_indices), Error::InvalidArgument, kMaxDim,
                          "'max_values'"));
  EXPECT_TRUE(failed_with(extreme_dim(kMinDim, self, 0, false, values, int_indices), Error::InvalidArgument, kMinDim,
                          "'min_indices'"));
  EXPECT_TRUE(failed_with(extreme_dim(kMinDim, self, 2, false, values, indices), Error::InvalidArgument, kMinDim,
                          "'dim'"));
  TestTensor empty = zeros<float>({0, 2});
  EXPECT_TRUE(failed_with(extreme_dim(kMaxDim, empty, 0, false, values, indices), Error::InvalidArgument, kMaxDim,
                          "'self'"));
  TestTensor wrong = zeros<int64_t>({3});
  EXPECT_TRUE(failed_with(extreme_dim(kMaxDim, self, 0, false, values, wrong), Error::InvalidArgument, kMaxDim,
                          "'max_values'"));
}

// ---- any, all ----

constexpr const char* kAny = "aten::any.out";
constexpr const char* kAnyDims = "aten::any.dims_out";
constexpr const char* kAnyAll = "aten::any.all_out";
constexpr const char* kAll = "aten::all.out";
constexpr const char* kAllDims = "aten::all.dims_out";
constexpr const char* kAllAll = "aten::all.all_out";

KernelRuntimeContext run_any(const TestTensor& self, int64_t dim, bool keepdim, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(dim).scalar(keepdim).tensor(out).run(kAny);
}

TEST(AnyDim, ReducesOneDimToBool) {
  TestTensor self = make_tensor<float>({2, 3}, {0, 0, 0, 0, -2, 0});
  TestTensor rows = zeros<bool>({2});
  auto ctx = run_any(self, 1, false, rows);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<bool>(), (std::vector<bool>{false, true}));
  TestTensor columns = zeros<bool>({1, 3});
  ctx = run_any(self, -2, true, columns);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<bool>(), (std::vector<bool>{false, true, false}));
}

TEST(AnyDim, IntsBoolsNaNAndNonContiguous) {
  TestTensor ints = make_tensor<int64_t>({3, 1}, {0, 7, 0});
  TestTensor out = zeros<bool>({1});
  auto ctx = run_any(ints, 0, false, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  TestTensor nan = make_tensor<float>({2}, {0, kNaN});
  ctx = run_any(nan, 0, false, out);  // a static [1] out cannot become []
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kAny, "'out'"));
  TestTensor scalar_out = zeros<bool>({});
  ctx = run_any(nan, 0, false, scalar_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(scalar_out.values<bool>(), std::vector<bool>{true});  // NaN is nonzero
  // Logical [[false, false, true], [false, false, false]] stored column by column.
  TestTensor bools(ScalarType::Bool, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  bools.set<bool>({false, false, false, false, true, false});
  TestTensor rows = zeros<bool>({2});
  ctx = run_any(bools, 1, false, rows);
  EXPECT_OK(ctx);
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

TEST(AllAny, EverythingWithNaNAndEmptyIdentities) {
  TestTensor self = make_tensor<float>({2, 2}, {1, kNaN, -1, 3});
  TestTensor out = zeros<bool>({});
  auto ctx = KernelCall().tensor(self).tensor(out).run(kAllAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  TestTensor with_zero = make_tensor<Half>({3}, to_16bit<Half>({1, 0, 2}));
  ctx = KernelCall().tensor(with_zero).tensor(out).run(kAllAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{false});
  ctx = KernelCall().tensor(with_zero).tensor(out).run(kAnyAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  TestTensor empty = zeros<int32_t>({0});
  ctx = KernelCall().tensor(empty).tensor(out).run(kAllAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  ctx = KernelCall().tensor(empty).tensor(out).run(kAnyAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{false});
  TestTensor long_out = zeros<int64_t>({});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(long_out).run(kAnyAll), Error::InvalidArgument, kAnyAll,
                          "'out'"));
}

TEST(AllAny, LongRowsFindTheOneOddElement) {
  for (size_t odd : {size_t{0}, size_t{17}, size_t{99}}) {
    std::vector<int32_t> zeros_(100, 0), ones(100, 5);
    zeros_[odd] = 3;
    ones[odd] = 0;
    TestTensor sparse = make_tensor<int32_t>({100}, zeros_);
    TestTensor dense = make_tensor<int32_t>({100}, ones);
    TestTensor out = zeros<bool>({});
    auto ctx = KernelCall().tensor(sparse).tensor(out).run(kAnyAll);
    EXPECT_OK(ctx);
    EXPECT_EQ(out.values<bool>(), std::vector<bool>{true}) << odd;
    ctx = KernelCall().tensor(dense).tensor(out).run(kAllAll);
    EXPECT_OK(ctx);
    EXPECT_EQ(out.values<bool>(), std::vector<bool>{false}) << odd;
  }
}

TEST(AllAny, DimsOverloadsNoneIsAllAndEmptyIsNone) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, kNaN, 2});
  TestTensor all = zeros<bool>({1, 1});
  auto ctx = KernelCall().tensor(self).none().scalar(true).tensor(all).run(kAllDims);
  EXPECT_OK(ctx);
  EXPECT_EQ(all.values<bool>(), std::vector<bool>{false});
  // [] reduces nothing: each element as a bool.
  TestTensor same = zeros<bool>({2, 2});
  ctx = KernelCall().tensor(self).int_list({}).scalar(false).tensor(same).run(kAllDims);
  EXPECT_OK(ctx);
  EXPECT_EQ(same.values<bool>(), (std::vector<bool>{false, true, true, true}));
  TestTensor rows = zeros<bool>({2});
  ctx = KernelCall().tensor(self).int_list({-1}).scalar(false).tensor(rows).run(kAnyDims);
  EXPECT_OK(ctx);
  EXPECT_EQ(rows.values<bool>(), (std::vector<bool>{true, true}));
  TestTensor both = zeros<bool>({});
  ctx = KernelCall().tensor(self).int_list({1, 0}).scalar(false).tensor(both).run(kAnyDims);
  EXPECT_OK(ctx);
  EXPECT_EQ(both.values<bool>(), std::vector<bool>{true});
  ctx = KernelCall().tensor(self).int_list({0, -2}).scalar(false).tensor(both).run(kAnyDims);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kAnyDims, "'dim'"));
  TestTensor columns = zeros<bool>({2});
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(false).tensor(columns).run(kAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<bool>(), (std::vector<bool>{false, true}));
  TestTensor empty = zeros<float>({2, 0});
  ctx = KernelCall().tensor(empty).scalar(int64_t{1}).scalar(false).tensor(columns).run(kAll);
  EXPECT_OK(ctx);
  EXPECT_EQ(columns.values<bool>(), (std::vector<bool>{true, true}));
  TestTensor float_out = zeros<float>({2});
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(false).tensor(float_out).run(kAll);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kAll, "'out'"));
}

// ---- cumsum ----

constexpr const char* kCumsum = "aten::cumsum.out";

KernelRuntimeContext cumsum(const TestTensor& self, int64_t dim, const TestTensor& out, int64_t dtype = -1) {
  KernelCall call;
  call.tensor(self).scalar(dim);
  if (dtype >= 0) call.scalar(dtype);
  else call.none();
  return call.tensor(out).run(kCumsum);
}

TEST(Cumsum, AlongEitherDimAndNegativeDims) {
  TestTensor self = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<int64_t>({2, 3});
  auto ctx = cumsum(self, -1, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  ctx = cumsum(self, 0, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_TRUE(failed_with(cumsum(self, 2, out), Error::InvalidArgument, kCumsum, "'dim'"));
}

TEST(Cumsum, DtypesFollowDtypeOrOut) {
  TestTensor ints = make_tensor<int32_t>({3}, {1, 2, 3});
  TestTensor longs = zeros<int64_t>({3});
  auto ctx = cumsum(ints, 0, longs);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 3, 6}));
  TestTensor same = zeros<int32_t>({3});
  ctx = cumsum(ints, 0, same);
  EXPECT_OK(ctx);
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{1, 3, 6}));
  TestTensor bools = make_tensor<bool>({3}, {true, false, true});
  ctx = cumsum(bools, 0, longs);
  EXPECT_OK(ctx);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 1, 2}));
  TestTensor halves = make_tensor<float>({2}, {0.5f, 0.5f});
  TestTensor truncated = zeros<int64_t>({2});
  ctx = cumsum(halves, 0, truncated, kLongCode);  // cast first: 0 + 0
  EXPECT_OK(ctx);
  EXPECT_EQ(truncated.values<int64_t>(), (std::vector<int64_t>{0, 0}));
  TestTensor floats = zeros<float>({3});
  EXPECT_TRUE(failed_with(cumsum(ints, 0, floats, kLongCode), Error::InvalidArgument, kCumsum, "'out'"));
  TestTensor bool_out = zeros<bool>({3});
  EXPECT_TRUE(failed_with(cumsum(bools, 0, bool_out), Error::InvalidArgument, kCumsum, "'out'"));
  EXPECT_TRUE(failed_with(cumsum(bools, 0, bool_out, kBoolCode), Error::InvalidArgument, kCumsum, "'dtype'"));
}

TEST(Cumsum, AccumulatesWideAndPropagatesNaN) {
  // A float running sum would stay at 2^24; PyTorch's (double) reaches 2^24 + 2.
  TestTensor self = make_tensor<float>({3}, {16777216, 1, 1});
  TestTensor out = zeros<float>({3});
  auto ctx = cumsum(self, 0, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{16777216, 16777216, 16777218}));
  TestTensor halfs = make_tensor<Half>({3}, to_16bit<Half>({2048, 1, 1}));
  TestTensor half_out = zeros<Half>({3});
  ctx = cumsum(halfs, 0, half_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(from_16bit(half_out.values<Half>()), (std::vector<float>{2048, 2048, 2050}));
  TestTensor nan = make_tensor<float>({3}, {1, kNaN, 2});
  ctx = cumsum(nan, 0, out);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(out.values<float>(), {1, kNaN, kNaN}, 0));
}

TEST(Cumsum, ZeroDimEmptyAndNonContiguous) {
  TestTensor scalar = make_tensor<int32_t>({}, {3});
  TestTensor scalar_out = zeros<int64_t>({});
  auto ctx = cumsum(scalar, -1, scalar_out);
  EXPECT_OK(ctx);
  EXPECT_EQ(scalar_out.values<int64_t>(), std::vector<int64_t>{3});
  TestTensor empty = zeros<float>({2, 0});
  TestTensor empty_out = zeros<float>({2, 0});
  ctx = cumsum(empty, 1, empty_out);
  EXPECT_OK(ctx);
  // Logical [[1, 2, 3], [4, 5, 6]] stored column by column, into a contiguous out.
  TestTensor strided(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  strided.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor out = zeros<float>({2, 3});
  ctx = cumsum(strided, 1, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  ctx = cumsum(strided, 0, out);
  EXPECT_OK(ctx);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 5, 7, 9}));
}

TEST(Cumsum, ManyNeighbouringLinesInLockstep) {
  // [3, 70] along dim 0: x[i][j] = i + j, so out[i][j] = (i + 1) j + i (i + 1) / 2.
  std::vector<double> values;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 70; ++j) values.push_back(i + j);
  }
  TestTensor self = make_tensor<double>({3, 70}, values);
  TestTensor out = zeros<double>({3, 70});
  const auto ctx = cumsum(self, 0, out);
  EXPECT_OK(ctx);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 70; ++j) EXPECT_EQ(out.values<double>()[i * 70 + j], (i + 1) * j + i * (i + 1) / 2);
  }
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
