// The kernels that real exported models (the golden fixtures) need beyond the
// first slice: norms, pooling, reductions, pointwise ops and view copies.
#include <cmath>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

TEST(BatchNormNoTraining, NormalizesPerChannelWithRunningStatistics) {
  TestTensor input = make_tensor<float>({1, 2, 1, 2}, {1, 3, 2, 6});
  TestTensor weight = make_tensor<float>({2}, {1, 2});
  TestTensor bias = make_tensor<float>({2}, {0, 1});
  TestTensor mean = make_tensor<float>({2}, {2, 4});
  TestTensor var = make_tensor<float>({2}, {1, 4});
  TestTensor out0 = zeros<float>({1, 2, 1, 2}), out1 = zeros<float>({0}), out2 = zeros<float>({0});
  // Multi-output ops get a None return slot after their out tensors.
  const auto with_slot = KernelCall().tensor(input).tensor(weight).tensor(bias).tensor(mean).tensor(var).scalar(0.1)
                             .scalar(0.0).tensor(out0).tensor(out1).tensor(out2).none()
                             .run("aten::_native_batch_norm_legit_no_training.out", false);
  ASSERT_EQ(with_slot.failure_state(), Error::Ok) << with_slot.failure_message();
  // channel 0: (x - 2) / 1; channel 1: (x - 4) / 2 * 2 + 1.
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{-1, 1, -1, 3}));
  TestTensor narrow = make_tensor<float>({3}, {1, 1, 1});
  const auto bad = KernelCall().tensor(input).tensor(narrow).tensor(bias).tensor(mean).tensor(var).scalar(0.1)
                       .scalar(0.0).tensor(out0).tensor(out1).tensor(out2).none()
                       .run("aten::_native_batch_norm_legit_no_training.out", false);
  EXPECT_TRUE(failed_with(bad, Error::InvalidArgument, "aten::_native_batch_norm_legit_no_training.out", "'weight'"));
}

TEST(LayerNorm, NormalizesTheTrailingDimsAndReportsMeanAndRstd) {
  TestTensor input = make_tensor<float>({2, 2}, {1, 3, 10, 14});
  TestTensor out0 = zeros<float>({2, 2}), out1 = zeros<float>({2, 1}), out2 = zeros<float>({2, 1});
  const auto ctx = KernelCall().tensor(input).int_list({2}).none().none().scalar(0.0).tensor(out0).tensor(out1)
                       .tensor(out2).none().run("aten::native_layer_norm.out", false);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out0.values<float>(), {-1, 1, -1, 1}, 1e-6f));
  EXPECT_EQ(out1.values<float>(), (std::vector<float>{2, 12}));
  EXPECT_TRUE(all_near(out2.values<float>(), {1.0f, 0.5f}, 1e-6f));
  const auto bad = KernelCall().tensor(input).int_list({3}).none().none().scalar(0.0).tensor(out0).tensor(out1)
                       .tensor(out2).none().run("aten::native_layer_norm.out", false);
  EXPECT_TRUE(failed_with(bad, Error::InvalidArgument, "aten::native_layer_norm.out", "'normalized_shape'"));
}

TEST(Softmax, RowsSumToOneAndFollowTheExponentials) {
  TestTensor self = make_tensor<float>({1, 3}, {0, std::log(2.0f), std::log(3.0f)});
  TestTensor out = zeros<float>({1, 3});
  const auto ctx = KernelCall().tensor(self).scalar(int64_t{-1}).scalar(false).tensor(out).run("aten::_softmax.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {1.0f / 6, 1.0f / 3, 0.5f}, 1e-6f));
  const auto bad = KernelCall().tensor(self).scalar(int64_t{2}).scalar(false).tensor(out).run("aten::_softmax.out");
  EXPECT_TRUE(failed_with(bad, Error::InvalidArgument, "aten::_softmax.out", "'dim'"));
}

TEST(MaxPool2d, TakesWindowMaximaWithFlatIndices) {
  TestTensor self = make_tensor<float>({1, 1, 4, 4}, iota(16));
  TestTensor out = zeros<float>({1, 1, 2, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 2, 2});
  const auto ctx = KernelCall().tensor(self).int_list({2, 2}).int_list({}).int_list({0}).int_list({1}).scalar(false)
                       .tensor(out).tensor(indices).none().run("aten::max_pool2d_with_indices.out", false);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{5, 7, 13, 15}));
}

TEST(MaxPool2d, CeilModeKeepsAPartialWindow) {
  TestTensor self = make_tensor<float>({1, 3, 3}, iota(9));
  TestTensor out = zeros<float>({1, 2, 2});
  TestTensor indices = zeros<int64_t>({1, 2, 2});
  const auto ctx = KernelCall().tensor(self).int_list({2}).int_list({2}).int_list({0}).int_list({1}).scalar(true)
                       .tensor(out).tensor(indices).none().run("aten::max_pool2d_with_indices.out", false);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{4, 5, 7, 8}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{4, 5, 7, 8}));
}

TEST(Mean, ReducesGivenDimsOrAll) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor rows = zeros<float>({2, 1});
  auto ctx = KernelCall().tensor(self).int_list({-1}).scalar(true).none().tensor(rows).run("aten::mean.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{1.5f, 3.5f}));
  TestTensor all = zeros<float>({});
  ctx = KernelCall().tensor(self).none().scalar(false).none().tensor(all).run("aten::mean.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(all.values<float>(), std::vector<float>{2.5f});
  ctx = KernelCall().tensor(self).int_list({0, 0}).scalar(false).none().tensor(all).run("aten::mean.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mean.out", "'dim'"));
}

TEST(Any, ReducesOneDimToBool) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 0, 0});
  TestTensor out = zeros<bool>({2});
  const auto ctx = KernelCall().tensor(self).scalar(int64_t{1}).scalar(false).tensor(out).run("aten::any.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false}));
}

TEST(Bmm, MultipliesEachBatch) {
  TestTensor a = make_tensor<float>({2, 1, 2}, {1, 2, 3, 4});
  TestTensor b = make_tensor<float>({2, 2, 1}, {5, 6, 7, 8});
  TestTensor out = zeros<float>({2, 1, 1});
  auto ctx = KernelCall().tensor(a).tensor(b).tensor(out).run("aten::bmm.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{17, 53}));
  ctx = KernelCall().tensor(a).tensor(a).tensor(out).run("aten::bmm.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::bmm.out", "'mat2'"));
}

TEST(Gelu, ErfAndTanhForms) {
  TestTensor self = make_tensor<float>({2}, {1, -1});
  TestTensor out = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).value(EValue("none", 4)).tensor(out).run("aten::gelu.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.8413447f, -0.1586553f}, 1e-6f));
  ctx = KernelCall().tensor(self).value(EValue("tanh", 4)).tensor(out).run("aten::gelu.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.8411920f, -0.1588080f}, 1e-6f));
  ctx = KernelCall().tensor(self).value(EValue("fast", 4)).tensor(out).run("aten::gelu.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
}

TEST(Pointwise, WhereBroadcastsAllThree) {
  TestTensor condition = make_tensor<bool>({2}, {true, false});
  TestTensor self = make_tensor<float>({2, 1}, {1, 2});
  TestTensor other = make_tensor<float>({}, {0});
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = KernelCall().tensor(condition).tensor(self).tensor(other).tensor(out).run("aten::where.self_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 0, 2, 0}));
}

TEST(Pointwise, EqScalarLogicalNotAndFullLike) {
  TestTensor self = make_tensor<float>({3}, {0, 2, 2.5f});
  TestTensor flags = zeros<bool>({3});
  auto ctx = KernelCall().tensor(self).scalar(int64_t{2}).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{false, true, false}));
  TestTensor negated = zeros<bool>({3});
  ctx = KernelCall().tensor(self).tensor(negated).run("aten::logical_not.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(negated.values<bool>(), (std::vector<bool>{true, false, false}));
  TestTensor filled = zeros<int64_t>({3});
  ctx = KernelCall().tensor(self).scalar(int64_t{7}).none().tensor(filled).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(filled.values<int64_t>(), (std::vector<int64_t>{7, 7, 7}));
}

TEST(Pointwise, ScalarArithmeticPromotesAsPyTorch) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor floats = zeros<float>({2});
  auto ctx = KernelCall().tensor(ints).scalar(2.5).tensor(floats).run("aten::mul.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{2.5f, 5.0f}));
  TestTensor same = zeros<int32_t>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).scalar(int64_t{2}).tensor(same).run("aten::add.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{7, 8}));  // int32 kept: the number does not widen it
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).tensor(same).run("aten::div.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::div.Scalar_out", "'out'"));
}

TEST(ViewCopies, ExpandSelectSliceSqueezeUnsqueezeTranspose) {
  TestTensor row = make_tensor<float>({1, 3}, {1, 2, 3});
  TestTensor expanded = zeros<float>({2, 2, 3});
  TestTensor kept = zeros<float>({2, 1, 3});
  auto ctx = KernelCall().tensor(row).int_list({2, -1, 3}).scalar(false).tensor(kept).run("aten::expand_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();  // -1 keeps the size
  EXPECT_EQ(kept.values<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  ctx = KernelCall().tensor(row).int_list({2, 2, 3}).scalar(false).tensor(expanded).run("aten::expand_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(expanded.values<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));

  TestTensor grid = make_tensor<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  TestTensor column = zeros<float>({2});
  ctx = KernelCall().tensor(grid).scalar(int64_t{1}).scalar(int64_t{-1}).tensor(column).run("aten::select_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(column.values<float>(), (std::vector<float>{2, 5}));

  TestTensor sliced = zeros<float>({2, 2});
  ctx = KernelCall().tensor(grid).scalar(int64_t{1}).scalar(int64_t{-3}).scalar(int64_t{100}).scalar(int64_t{2})
            .tensor(sliced).run("aten::slice_copy.Tensor_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(sliced.values<float>(), (std::vector<float>{0, 2, 3, 5}));

  TestTensor transposed = zeros<float>({3, 2});
  ctx = KernelCall().tensor(grid).scalar(int64_t{0}).scalar(int64_t{-1}).tensor(transposed).run("aten::transpose_copy.int_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(transposed.values<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));

  TestTensor squeezed = zeros<float>({3});
  ctx = KernelCall().tensor(row).int_list({0, 1}).tensor(squeezed).run("aten::squeeze_copy.dims_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();  // dim 1 (size 3) stays
  TestTensor unsqueezed = zeros<float>({2, 1, 3});
  ctx = KernelCall().tensor(grid).scalar(int64_t{-2}).tensor(unsqueezed).run("aten::unsqueeze_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(unsqueezed.values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  ctx = KernelCall().tensor(grid).scalar(int64_t{1}).scalar(int64_t{3}).tensor(column).run("aten::select_copy.int_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::select_copy.int_out", "'index'"));
  ctx = KernelCall().tensor(row).int_list({2, 4}).scalar(false).tensor(expanded).run("aten::expand_copy.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::expand_copy.out", "'size'"));
}

TEST(BinaryResultType, AZeroDimTensorDoesNotWidenATensorWithDims) {
  TestTensor x = make_tensor<float>({2}, {1.5f, 2.0f});
  TestTensor scale = make_tensor<double>({}, {0.5});
  TestTensor out = zeros<float>({2});
  auto ctx = KernelCall().tensor(x).tensor(scale).tensor(out).run("aten::mul.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.75f, 1.0f}));
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor wide = make_tensor<int64_t>({}, {5});
  TestTensor sum = zeros<int32_t>({2});
  ctx = KernelCall().tensor(ints).tensor(wide).scalar(int64_t{1}).tensor(sum).run("aten::add.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(sum.values<int32_t>(), (std::vector<int32_t>{6, 7}));
  TestTensor promoted = zeros<float>({2});
  TestTensor half = make_tensor<float>({}, {0.5f});
  ctx = KernelCall().tensor(ints).tensor(half).scalar(int64_t{1}).tensor(promoted).run("aten::add.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();  // a float 0-dim raises int to float
  EXPECT_EQ(promoted.values<float>(), (std::vector<float>{1.5f, 2.5f}));
}

TEST(BinaryAlpha, AddWithAlphaRoundsOnceAsPyTorch) {
  const float x = 0.1f, y = 0.7f, alpha = 2.5f;
  TestTensor a = make_tensor<float>({1}, {x});
  TestTensor b = make_tensor<float>({1}, {y});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(a).tensor(b).scalar(2.5).tensor(out).run("aten::add.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>()[0], std::fma(alpha, y, x));
}

TEST(KernelArgs, AListWithANonIntElementFailsInsteadOfAborting) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({6});
  EValue items[2] = {EValue(int64_t{6}), EValue()};
  EValue* wrapped[2] = {&items[0], &items[1]};
  int64_t unwrapped[2] = {};
  runtime::BoxedEvalueList<int64_t> list(wrapped, unwrapped, 2);
  const auto ctx = KernelCall().tensor(self).value(EValue(&list)).tensor(out).run("aten::view_copy.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::view_copy.out", "'size'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
