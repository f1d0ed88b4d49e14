// The copy variants of view ops: expand_copy, select_copy.int,
// squeeze_copy.dims, unsqueeze_copy, transpose_copy.int, slice_copy.Tensor,
// flip, diagonal_copy; alias_copy and _to_copy.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

// [[0, 1, 2], [3, 4, 5]]
TestTensor grid() { return make_tensor<float>({2, 3}, {0, 1, 2, 3, 4, 5}); }

TEST(ExpandCopy, MinusOneKeepsASizeAndNewLeadingDimsRepeat) {
  TestTensor column = make_tensor<float>({2, 1}, {1, 2});
  TestTensor out = zeros<float>({2, 2, 3});
  const auto ctx =
      KernelCall().tensor(column).int_list({2, -1, 3}).scalar(false).tensor(out).run("aten::expand_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

TEST(ExpandCopy, ScalarToMatrixAndNonContiguousSelf) {
  TestTensor scalar = make_tensor<int64_t>({}, {9});
  TestTensor out = zeros<int64_t>({2, 2});
  auto ctx = KernelCall().tensor(scalar).int_list({2, 2}).scalar(false).tensor(out).run("aten::expand_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{9, 9, 9, 9}));
  // Logical [[1, 2]] stored with dim order (1, 0); expanded to 2 rows.
  TestTensor row(ScalarType::Float, {1, 2}, TensorShapeDynamism::Static, {1, 0});
  row.set<float>({1, 2});
  TestTensor rows = zeros<float>({2, 2});
  ctx = KernelCall().tensor(row).int_list({2, -1}).scalar(true).tensor(rows).run("aten::expand_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{1, 2, 1, 2}));
}

TEST(ExpandCopy, Errors) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 3});
  auto run = [&](const std::vector<int64_t>& size) {
    return KernelCall().tensor(self).int_list(size).scalar(false).tensor(out).run("aten::expand_copy.out");
  };
  EXPECT_TRUE(failed_with(run({2, 4}), Error::InvalidArgument, "aten::expand_copy.out", "'size'"));
  EXPECT_TRUE(failed_with(run({3}), Error::InvalidArgument, "aten::expand_copy.out", "'size'"));
  EXPECT_TRUE(failed_with(run({-1, 2, 3}), Error::InvalidArgument, "aten::expand_copy.out", "'size'"));
  EXPECT_TRUE(failed_with(run({2, -2}), Error::InvalidArgument, "aten::expand_copy.out", "'size'"));
  TestTensor ints = zeros<int32_t>({2, 3});
  const auto ctx = KernelCall().tensor(self).int_list({2, 3}).scalar(false).tensor(ints).run("aten::expand_copy.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::expand_copy.out", "'out'"));
}

TEST(SelectCopy, PositiveAndNegativeIndexAndDim) {
  TestTensor self = grid();
  TestTensor column = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).scalar(int64_t{1}).scalar(int64_t{-1}).tensor(column).run("aten::select_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(column.values<float>(), (std::vector<float>{2, 5}));
  TestTensor row = zeros<float>({3});
  ctx = KernelCall().tensor(self).scalar(int64_t{-2}).scalar(int64_t{1}).tensor(row).run("aten::select_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(row.values<float>(), (std::vector<float>{3, 4, 5}));
  TestTensor vector = make_tensor<int32_t>({3}, {7, 8, 9});
  TestTensor scalar = zeros<int32_t>({});
  ctx = KernelCall().tensor(vector).scalar(int64_t{0}).scalar(int64_t{-3}).tensor(scalar).run("aten::select_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(scalar.values<int32_t>(), std::vector<int32_t>{7});
}

TEST(SelectCopy, Errors) {
  TestTensor self = grid();
  TestTensor column = zeros<float>({2});
  auto run = [&](int64_t dim, int64_t index, const TestTensor& s) {
    return KernelCall().tensor(s).scalar(dim).scalar(index).tensor(column).run("aten::select_copy.int_out");
  };
  EXPECT_TRUE(failed_with(run(1, 3, self), Error::InvalidArgument, "aten::select_copy.int_out", "'index'"));
  EXPECT_TRUE(failed_with(run(1, -4, self), Error::InvalidArgument, "aten::select_copy.int_out", "'index'"));
  EXPECT_TRUE(failed_with(run(2, 0, self), Error::InvalidArgument, "aten::select_copy.int_out", "'dim'"));
  TestTensor scalar = make_tensor<float>({}, {1});
  EXPECT_TRUE(failed_with(run(0, 0, scalar), Error::InvalidArgument, "aten::select_copy.int_out", "'self'"));
}

TEST(AsStridedCopy, ReadsOnlyInsideSelf) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 2});
  auto run = [&](std::vector<int64_t> size, std::vector<int64_t> stride, int64_t offset) {
    return KernelCall().tensor(self).int_list(size).int_list(stride).scalar(offset).tensor(out).run(
        "aten::as_strided_copy.out");
  };
  EXPECT_TRUE(failed_with(run({2, 2}, {3, 1}, 5), Error::InvalidArgument, "aten::as_strided_copy.out",
                          "reads element 9 of 'self', which has 6"));
  EXPECT_TRUE(failed_with(run({2, 2}, {3, -1}, 1), Error::InvalidArgument, "aten::as_strided_copy.out", "stride -1"));
  EXPECT_TRUE(failed_with(run({2, 2}, {3}, 0), Error::InvalidArgument, "aten::as_strided_copy.out", "'size'"));
  EXPECT_TRUE(failed_with(run({2, 2}, {3, 1}, -1), Error::InvalidArgument, "aten::as_strided_copy.out",
                          "'storage_offset'"));
  EXPECT_EQ(run({2, 2}, {1, 3}, 1).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 4, 2, 5}));
}

TEST(SliceScatter, ReplacesTheSliceAndRefusesASrcOfAnotherShape) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 3});
  TestTensor src = make_tensor<float>({2, 1}, {-1, -2});
  auto run = [&](const TestTensor& s, int64_t start, int64_t end) {
    return KernelCall().tensor(self).tensor(s).scalar(int64_t{1}).scalar(start).scalar(end).scalar(int64_t{1}).tensor(out).run(
        "aten::slice_scatter.out");
  };
  EXPECT_EQ(run(src, 1, 2).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, -1, 2, 3, -2, 5}));
  EXPECT_TRUE(failed_with(run(src, 0, 2), Error::InvalidArgument, "aten::slice_scatter.out", "'src'"));
}

TEST(Flip, ReversesTheNamedDimsReadingThroughSelfsStridesAndRefusesARepeatedDim) {
  // Logical [[0, 1, 2], [3, 4, 5]] stored column by column (dim order (1, 0)).
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});
  TestTensor out = zeros<float>({2, 3});
  auto run = [&](const std::vector<int64_t>& dims) {
    return KernelCall().tensor(self).int_list(dims).tensor(out).run("aten::flip.out");
  };
  auto ctx = run({-1});
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  ctx = run({0, 1});
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 4, 3, 2, 1, 0}));
  EXPECT_TRUE(failed_with(run({1, -1}), Error::InvalidArgument, "aten::flip.out", "'dims'"));
  EXPECT_TRUE(failed_with(run({2}), Error::InvalidArgument, "aten::flip.out", "'dims'"));
}

TEST(DiagonalCopy, OffsetsAboveAndBelowAndPastTheEdgeAndRefusesOneDimTwice) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({3}, TensorShapeDynamism::DynamicBound);
  auto run = [&](int64_t offset, int64_t dim1, int64_t dim2) {
    return KernelCall().tensor(self).scalar(offset).scalar(dim1).scalar(dim2).tensor(out).run("aten::diagonal_copy.out");
  };
  auto ctx = run(1, 0, 1);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 5}));
  ctx = run(-1, 1, 0);  // below the main diagonal of the transpose: [1, 5] again
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 5}));
  ctx = run(-1, 0, 1);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3}));
  ctx = run(3, 0, 1);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{0}));
  EXPECT_TRUE(failed_with(run(0, 1, -1), Error::InvalidArgument, "aten::diagonal_copy.out", "'dim1'"));
  EXPECT_TRUE(failed_with(run(0, 0, 2), Error::InvalidArgument, "aten::diagonal_copy.out", "'dim2'"));
}

TEST(SqueezeCopy, RemovesOnlyTheGivenSizeOneDims) {
  TestTensor self = make_tensor<float>({1, 3, 1, 1}, {1, 2, 3});
  TestTensor out = zeros<float>({3, 1}, TensorShapeDynamism::DynamicBound);
  // Dim 1 (size 3) is named but stays; dim -1 is not named and stays.
  auto ctx = KernelCall().tensor(self).int_list({0, 1, -2}).tensor(out).run("aten::squeeze_copy.dims_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{3, 1}));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3}));
  TestTensor same = zeros<float>({1, 3, 1, 1});
  ctx = KernelCall().tensor(self).int_list({}).tensor(same).run("aten::squeeze_copy.dims_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();  // no dims: nothing removed
  ctx = KernelCall().tensor(self).int_list({0, -4}).tensor(out).run("aten::squeeze_copy.dims_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::squeeze_copy.dims_out", "'dim'"));
  ctx = KernelCall().tensor(self).int_list({4}).tensor(out).run("aten::squeeze_copy.dims_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::squeeze_copy.dims_out", "'dim'"));
}

TEST(UnsqueezeCopy, InsertsASizeOneDim) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 3, 1});
  auto ctx = KernelCall().tensor(self).scalar(int64_t{-1}).tensor(out).run("aten::unsqueeze_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  TestTensor front = zeros<float>({1, 2, 3});
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).tensor(front).run("aten::unsqueeze_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  ctx = KernelCall().tensor(self).scalar(int64_t{2}).tensor(out).run("aten::unsqueeze_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();  // dims -3 .. 2 for a 2-D self
  ctx = KernelCall().tensor(self).scalar(int64_t{-3}).tensor(front).run("aten::unsqueeze_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  ctx = KernelCall().tensor(self).scalar(int64_t{3}).tensor(out).run("aten::unsqueeze_copy.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::unsqueeze_copy.out", "'dim'"));
  ctx = KernelCall().tensor(self).scalar(int64_t{-1}).tensor(front).run("aten::unsqueeze_copy.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::unsqueeze_copy.out", "'out'"));
}

TEST(TransposeCopy, SwapsTwoDims) {
  TestTensor self = make_tensor<float>({2, 1, 3}, {0, 1, 2, 3, 4, 5});
  TestTensor out = zeros<float>({3, 1, 2});
  auto ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(int64_t{-1}).tensor(out).run("aten::transpose_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  TestTensor same = zeros<float>({2, 1, 3});
  ctx = KernelCall().tensor(self).scalar(int64_t{1}).scalar(int64_t{1}).tensor(same).run("aten::transpose_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(same.values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  ctx = KernelCall().tensor(self).scalar(int64_t{0}).scalar(int64_t{3}).tensor(out).run("aten::transpose_copy.int_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::transpose_copy.int_out", "'dim1'"));
}

KernelRuntimeContext run_slice(const TestTensor& self, int64_t dim, std::optional<int64_t> start,
                               std::optional<int64_t> end, int64_t step, const TestTensor& out) {
  KernelCall call;
  call.tensor(self).scalar(dim);
  if (start) call.scalar(*start); else call.none();
  if (end) call.scalar(*end); else call.none();
  return call.scalar(step).tensor(out).run("aten::slice_copy.Tensor_out");
}

TEST(SliceCopy, NegativeAndOutOfRangeBoundsClampAsPyTorch) {
  TestTensor self = make_tensor<float>({6}, {0, 1, 2, 3, 4, 5});
  TestTensor out = zeros<float>({6}, TensorShapeDynamism::DynamicBound);
  auto check = [&](std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                   const std::vector<float>& expected) {
    const auto ctx = run_slice(self, 0, start, end, step, out);
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_EQ(out.sizes(), std::vector<SizesType>{static_cast<SizesType>(expected.size())});
    std::vector<float> values = out.values<float>();
    values.resize(expected.size());
    EXPECT_EQ(values, expected);
  };
  check(-4, 100, 2, {2, 4});
  check(std::nullopt, std::nullopt, 1, {0, 1, 2, 3, 4, 5});
  check(1, std::numeric_limits<int64_t>::max(), 1, {1, 2, 3, 4, 5});  // torch.export's "to the end"
  check(-100, -2, 1, {0, 1, 2, 3});
  check(4, 2, 1, {});  // end before start: empty
  check(7, 9, 1, {});
  check(1, std::nullopt, std::numeric_limits<int64_t>::max(), {1});
  check(0, 6, 4, {0, 4});
}

TEST(SliceCopy, AlongAnInnerDim) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = run_slice(self, -1, 1, std::nullopt, 1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 4, 5}));
}

TEST(SliceCopy, Errors) {
  TestTensor self = grid();
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_slice(self, 1, 0, 2, 0, out), Error::InvalidArgument, "aten::slice_copy.Tensor_out",
                          "'step'"));
  EXPECT_TRUE(failed_with(run_slice(self, 1, 0, 2, -1, out), Error::InvalidArgument, "aten::slice_copy.Tensor_out",
                          "'step'"));
  EXPECT_TRUE(failed_with(run_slice(self, 2, 0, 2, 1, out), Error::InvalidArgument, "aten::slice_copy.Tensor_out",
                          "'dim'"));
  EXPECT_TRUE(failed_with(run_slice(self, 1, 0, 3, 1, out), Error::InvalidArgument, "aten::slice_copy.Tensor_out",
                          "'out'"));
  TestTensor scalar = make_tensor<float>({}, {1});
  EXPECT_TRUE(failed_with(run_slice(scalar, 0, 0, 1, 1, out), Error::InvalidArgument, "aten::slice_copy.Tensor_out",
                          "'self'"));
  const auto ctx = KernelCall().tensor(self).scalar(int64_t{1}).scalar(0.5).none().scalar(int64_t{1}).tensor(out)
                       .run("aten::slice_copy.Tensor_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::slice_copy.Tensor_out", "'start'"));
}

// ---- alias_copy ----

TEST(AliasCopy, CopiesAnyLayoutAndDtype) {
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = KernelCall().tensor(self).tensor(out).run("aten::alias_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  TestTensor bytes = make_tensor<int8_t>({3}, {-1, 0, 1});
  TestTensor bytes_out = zeros<int8_t>({3});
  ASSERT_EQ(KernelCall().tensor(bytes).tensor(bytes_out).run("aten::alias_copy.out").failure_state(), Error::Ok);
  EXPECT_EQ(bytes_out.values<int8_t>(), (std::vector<int8_t>{-1, 0, 1}));
  TestTensor empty = zeros<float>({0, 3});
  TestTensor empty_out = zeros<float>({0, 3});
  EXPECT_EQ(KernelCall().tensor(empty).tensor(empty_out).run("aten::alias_copy.out").failure_state(), Error::Ok);
}

TEST(AliasCopy, Errors) {
  const char* op = "aten::alias_copy.out";
  TestTensor self = zeros<float>({2});
  TestTensor wrong_shape = zeros<float>({3});
  TestTensor wrong_dtype = zeros<double>({2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(wrong_shape).run(op), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(wrong_dtype).run(op), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().scalar(1.0).tensor(self).run(op), Error::InvalidArgument, op, "'self'"));
}

// ---- _to_copy ----

KernelRuntimeContext run_to_copy(const TestTensor& self, const TestTensor& out, const EValue& format = EValue()) {
  return KernelCall().tensor(self).scalar(false).value(format).tensor(out).run("aten::_to_copy.out");
}

TEST(ToCopy, FloatToIntegersTruncatesTowardZero) {
  TestTensor self = make_tensor<float>({5}, {2.9f, -2.9f, 300.5f, -0.5f, 1e9f});
  TestTensor ints = zeros<int32_t>({5});
  ASSERT_EQ(run_to_copy(self, ints).failure_state(), Error::Ok);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{2, -2, 300, 0, 1000000000}));
  TestTensor longs = zeros<int64_t>({5});
  ASSERT_EQ(run_to_copy(self, longs).failure_state(), Error::Ok);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{2, -2, 300, 0, 1000000000}));
  TestTensor small = make_tensor<double>({3}, {127.9, -128.9, 255.5});
  TestTensor shorts = zeros<int16_t>({3});
  ASSERT_EQ(run_to_copy(small, shorts).failure_state(), Error::Ok);
  EXPECT_EQ(shorts.values<int16_t>(), (std::vector<int16_t>{127, -128, 255}));
  TestTensor bytes = zeros<uint8_t>({3});
  TestTensor in_range = make_tensor<double>({3}, {0.5, 200.7, 255.9});
  ASSERT_EQ(run_to_copy(in_range, bytes).failure_state(), Error::Ok);
  EXPECT_EQ(bytes.values<uint8_t>(), (std::vector<uint8_t>{0, 200, 255}));
}

TEST(ToCopy, ToBoolIsNonZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor self = make_tensor<float>({5}, {0.0f, -0.0f, 0.25f, nan, -3.0f});
  TestTensor out = zeros<bool>({5});
  ASSERT_EQ(run_to_copy(self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, false, true, true, true}));
  TestTensor ints = make_tensor<int64_t>({3}, {0, 256, -1});
  TestTensor flags = zeros<bool>({3});
  ASSERT_EQ(run_to_copy(ints, flags).failure_state(), Error::Ok);
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{false, true, true}));
  TestTensor halves = make_tensor<runtime::Half>({2}, {runtime::Half(0.0f), runtime::Half(-0.001f)});
  TestTensor half_flags = zeros<bool>({2});
  ASSERT_EQ(run_to_copy(halves, half_flags).failure_state(), Error::Ok);
  EXPECT_EQ(half_flags.values<bool>(), (std::vector<bool>{false, true}));
}

TEST(ToCopy, FromBoolAndBetweenIntegersWraps) {
  TestTensor flags = make_tensor<bool>({2}, {true, false});
  TestTensor halves = zeros<runtime::Half>({2});
  ASSERT_EQ(run_to_copy(flags, halves).failure_state(), Error::Ok);
  EXPECT_EQ(halves.values<runtime::Half>()[0].bits, 0x3c00);  // 1.0
  EXPECT_EQ(halves.values<runtime::Half>()[1].bits, 0x0000);
  // torch: tensor([263, -1], int32).to(uint8) = [7, 255]; int64 -> int8 keeps the low byte.
  TestTensor ints = make_tensor<int32_t>({2}, {263, -1});
  TestTensor bytes = zeros<uint8_t>({2});
  ASSERT_EQ(run_to_copy(ints, bytes).failure_state(), Error::Ok);
  EXPECT_EQ(bytes.values<uint8_t>(), (std::vector<uint8_t>{7, 255}));
  TestTensor longs = make_tensor<int64_t>({2}, {263, (int64_t{1} << 40) - 1});
  TestTensor chars = zeros<int8_t>({2});
  ASSERT_EQ(run_to_copy(longs, chars).failure_state(), Error::Ok);
  EXPECT_EQ(chars.values<int8_t>(), (std::vector<int8_t>{7, -1}));
}

TEST(ToCopy, SixteenBitFloatsRound) {
  // torch: tensor([70000, 2049, 1 << 40]).to(half) = [inf, 2048, inf]; bfloat16 keeps 8 bits of mantissa.
  TestTensor longs = make_tensor<int64_t>({3}, {70000, 2049, int64_t{1} << 40});
  TestTensor halves = zeros<runtime::Half>({3});
  ASSERT_EQ(run_to_copy(longs, halves).failure_state(), Error::Ok);
  const auto h = halves.values<runtime::Half>();
  EXPECT_EQ(static_cast<float>(h[0]), std::numeric_limits<float>::infinity());
  EXPECT_EQ(static_cast<float>(h[1]), 2048.0f);
  EXPECT_EQ(static_cast<float>(h[2]), std::numeric_limits<float>::infinity());
  TestTensor bf = zeros<runtime::BFloat16>({3});
  ASSERT_EQ(run_to_copy(longs, bf).failure_state(), Error::Ok);
  EXPECT_EQ(static_cast<float>(bf.values<runtime::BFloat16>()[0]), 70144.0f);
  EXPECT_EQ(static_cast<float>(bf.values<runtime::BFloat16>()[2]), 1099511627776.0f);
  // double 0.1 -> half is 0.0999755859375 (through float, as torch).
  TestTensor tenth = make_tensor<double>({1}, {0.1});
  TestTensor tenth_half = zeros<runtime::Half>({1});
  ASSERT_EQ(run_to_copy(tenth, tenth_half).failure_state(), Error::Ok);
  EXPECT_EQ(static_cast<double>(static_cast<float>(tenth_half.values<runtime::Half>()[0])), 0.0999755859375);
  // half -> int32 truncates, half -> bfloat16 through float.
  TestTensor h2 = make_tensor<runtime::Half>({2}, {runtime::Half(2.5f), runtime::Half(-7.75f)});
  TestTensor h2_ints = zeros<int32_t>({2});
  ASSERT_EQ(run_to_copy(h2, h2_ints).failure_state(), Error::Ok);
  EXPECT_EQ(h2_ints.values<int32_t>(), (std::vector<int32_t>{2, -7}));
  TestTensor h2_bf = zeros<runtime::BFloat16>({2});
  ASSERT_EQ(run_to_copy(h2, h2_bf).failure_state(), Error::Ok);
  EXPECT_EQ(static_cast<float>(h2_bf.values<runtime::BFloat16>()[1]), -7.75f);
}

TEST(ToCopy, DoubleBeyondFloatOverflowsToInfinityAsIeee) {
  const double max = std::numeric_limits<float>::max();
  const double half_ulp = std::ldexp(1.0, 103);
  TestTensor self = make_tensor<double>({4}, {1e300, -1e300, max + half_ulp / 2, 1e-50});
  TestTensor out = zeros<float>({4});
  ASSERT_EQ(run_to_copy(self, out).failure_state(), Error::Ok);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{inf, -inf, std::numeric_limits<float>::max(), 0.0f}));
}

TEST(ToCopy, NonFiniteToIntegersDoesNotCrash) {
  // PyTorch leaves these results unspecified; only the absence of a crash
  // (and of undefined behaviour under UBSan) is checked.
  const float inf = std::numeric_limits<float>::infinity();
  TestTensor self = make_tensor<float>({5}, {std::nanf(""), inf, -inf, 1e30f, -1e30f});
  TestTensor chars = zeros<int8_t>({5});
  TestTensor ints = zeros<int32_t>({5});
  TestTensor longs = zeros<int64_t>({5});
  TestTensor bytes = zeros<uint8_t>({5});
  EXPECT_EQ(run_to_copy(self, chars).failure_state(), Error::Ok);
  EXPECT_EQ(run_to_copy(self, ints).failure_state(), Error::Ok);
  EXPECT_EQ(run_to_copy(self, longs).failure_state(), Error::Ok);
  EXPECT_EQ(run_to_copy(self, bytes).failure_state(), Error::Ok);
}

TEST(ToCopy, LayoutsMemoryFormatsAndSizeZero) {
  TestTensor self(ScalarType::Int, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<int32_t>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  for (const EValue& format : {EValue(), EValue(int64_t{0}), EValue(int64_t{1})}) {
    TestTensor out = zeros<double>({2, 3});
    const auto ctx = run_to_copy(self, out, format);
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_EQ(out.values<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  }
  TestTensor same_dtype = zeros<int32_t>({2, 3});
  ASSERT_EQ(run_to_copy(self, same_dtype).failure_state(), Error::Ok);
  EXPECT_EQ(same_dtype.values<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  TestTensor permuted_out(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_EQ(run_to_copy(self, permuted_out).failure_state(), Error::Ok);
  EXPECT_EQ(permuted_out.logical_values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  TestTensor empty = zeros<float>({0, 2});
  TestTensor empty_out = zeros<int64_t>({0, 2});
  EXPECT_EQ(run_to_copy(empty, empty_out).failure_state(), Error::Ok);
  // Same dtype copies any dtype, even one without conversions.
  TestTensor u(ScalarType::UInt64, {1});
  u.set<uint64_t>({~uint64_t{0}});
  TestTensor u_out(ScalarType::UInt64, {1});
  ASSERT_EQ(run_to_copy(u, u_out).failure_state(), Error::Ok);
  EXPECT_EQ(u_out.values<uint64_t>(), (std::vector<uint64_t>{~uint64_t{0}}));
}

TEST(ToCopy, Errors) {
  const char* op = "aten::_to_copy.out";
  TestTensor self = zeros<float>({2});
  TestTensor out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_to_copy(self, out, EValue(int64_t{2})), Error::NotSupported, op, "'memory_format'"));
  EXPECT_TRUE(failed_with(run_to_copy(self, out, EValue(1.0)), Error::InvalidArgument, op, "'memory_format'"));
  TestTensor wrong_shape = zeros<int32_t>({3});
  EXPECT_TRUE(failed_with(run_to_copy(self, wrong_shape), Error::InvalidArgument, op, "'out'"));
  TestTensor u(ScalarType::UInt16, {2});
  EXPECT_TRUE(failed_with(run_to_copy(u, out), Error::NotSupported, op, "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(int64_t{0}).none().tensor(out).run(op),
                          Error::InvalidArgument, op, "'non_blocking'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
