// The copy variants of view ops: expand_copy, select_copy.int,
// squeeze_copy.dims, unsqueeze_copy, transpose_copy.int, slice_copy.Tensor.
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

}  // namespace
}  // namespace kiln::kernels::portable::testing
