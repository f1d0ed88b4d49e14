// logical_not, eq.Scalar, where.self, full_like and the Scalar overloads of
// add, sub, mul and div.
#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

TEST(LogicalNot, WritesZeroOrOneInOutsDtype) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor self = make_tensor<float>({4}, {0, -0.0f, 2, nan});
  TestTensor flags = zeros<bool>({4});
  auto ctx = KernelCall().tensor(self).tensor(flags).run("aten::logical_not.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, true, false, false}));
  TestTensor ints = make_tensor<int64_t>({3}, {0, 5, -1});
  TestTensor as_float = zeros<float>({3});
  ctx = KernelCall().tensor(ints).tensor(as_float).run("aten::logical_not.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(as_float.values<float>(), (std::vector<float>{1, 0, 0}));
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor as_int = zeros<int32_t>({2});
  ctx = KernelCall().tensor(bools).tensor(as_int).run("aten::logical_not.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(as_int.values<int32_t>(), (std::vector<int32_t>{0, 1}));
  TestTensor wrong = zeros<bool>({3});
  ctx = KernelCall().tensor(bools).tensor(wrong).run("aten::logical_not.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::logical_not.out", "'out'"));
}

TEST(EqScalar, ComparesInThePromotedDtype) {
  TestTensor floats = make_tensor<float>({3}, {0.1f, 0.2f, 2});
  TestTensor flags = zeros<bool>({3});
  // 0.1 becomes the float 0.1f, as the number is cast to the tensor's dtype.
  auto ctx = KernelCall().tensor(floats).scalar(0.1).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, false, false}));
  ctx = KernelCall().tensor(floats).scalar(int64_t{2}).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{false, false, true}));
  TestTensor ints = make_tensor<int32_t>({3}, {2, 3, 2});
  ctx = KernelCall().tensor(ints).scalar(2.5).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{false, false, false}));
  ctx = KernelCall().tensor(ints).scalar(int64_t{2}).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, false, true}));
  TestTensor bools = make_tensor<bool>({3}, {true, false, true});
  ctx = KernelCall().tensor(bools).scalar(int64_t{1}).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, false, true}));
  ctx = KernelCall().tensor(bools).scalar(int64_t{2}).tensor(flags).run("aten::eq.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{false, false, false}));  // compared as Long
  TestTensor float_out = zeros<float>({3});
  ctx = KernelCall().tensor(ints).scalar(int64_t{2}).tensor(float_out).run("aten::eq.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::eq.Scalar_out", "'out'"));
  ctx = KernelCall().tensor(ints).none().tensor(flags).run("aten::eq.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::eq.Scalar_out", "'other'"));
}

KernelRuntimeContext run_where(const TestTensor& c, const TestTensor& x, const TestTensor& y, const TestTensor& out) {
  return KernelCall().tensor(c).tensor(x).tensor(y).tensor(out).run("aten::where.self_out");
}

TEST(WhereSelf, BroadcastsAllThree) {
  TestTensor condition = make_tensor<bool>({1, 3}, {true, false, true});
  TestTensor self = make_tensor<float>({2, 1}, {1, 2});
  TestTensor other = make_tensor<float>({}, {-1});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_where(condition, self, other, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, -1, 1, 2, -1, 2}));
}

TEST(WhereSelf, PromotesSelfAndOtherAsResultType) {
  TestTensor condition = make_tensor<bool>({2}, {true, false});
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor floats = make_tensor<float>({2}, {0.5f, 1.5f});
  TestTensor out = zeros<float>({2});
  auto ctx = run_where(condition, ints, floats, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 1.5f}));
  // A 0-dim operand takes part only when it raises the category: f32[2] with
  // f64[] stays f32 and i32[2] with i64[] stays i32, but i32[2] with f64[] is f64.
  TestTensor double_scalar = make_tensor<double>({}, {7});
  ctx = run_where(condition, floats, double_scalar, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.5f, 7}));
  TestTensor long_scalar = make_tensor<int64_t>({}, {9});
  TestTensor int_out = zeros<int32_t>({2});
  ctx = run_where(condition, ints, long_scalar, int_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{1, 9}));
  TestTensor double_out = zeros<double>({2});
  ctx = run_where(condition, ints, double_scalar, double_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(double_out.values<double>(), (std::vector<double>{1, 7}));
}

TEST(WhereSelf, Errors) {
  TestTensor condition = make_tensor<bool>({2}, {true, false});
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_where(floats, floats, floats, out), Error::InvalidArgument, "aten::where.self_out",
                          "'condition'"));
  TestTensor three = make_tensor<float>({3}, {1, 2, 3});
  EXPECT_TRUE(failed_with(run_where(condition, floats, three, out), Error::InvalidArgument, "aten::where.self_out",
                          "'other'"));
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  EXPECT_TRUE(failed_with(run_where(condition, ints, ints, out), Error::InvalidArgument, "aten::where.self_out", "'out'"));
}

TEST(FullLike, FillsTheShapeOfSelfWithTheValueInOutsDtype) {
  TestTensor self = make_tensor<float>({2, 2}, {0, 1, 2, 3});
  TestTensor longs = zeros<int64_t>({4, 1}, TensorShapeDynamism::DynamicBound);
  auto ctx = KernelCall().tensor(self).scalar(int64_t{7}).none().tensor(longs).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(longs.sizes(), (std::vector<SizesType>{2, 2}));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{7, 7, 7, 7}));
  TestTensor ints = zeros<int32_t>({2, 2});
  ctx = KernelCall().tensor(self).scalar(-2.75).scalar(int64_t{0}).tensor(ints).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{-2, -2, -2, -2}));  // truncated, as a C++ cast
  TestTensor bools = zeros<bool>({2, 2});
  ctx = KernelCall().tensor(self).scalar(int64_t{2}).none().tensor(bools).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, true, true, true}));
  TestTensor floats = zeros<float>({2, 2});
  ctx = KernelCall().tensor(self).scalar(-std::numeric_limits<double>::infinity()).none().tensor(floats)
            .run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats.values<float>()[3], -std::numeric_limits<float>::infinity());
}

TEST(FullLike, Errors) {
  TestTensor self = make_tensor<float>({2}, {0, 1});
  TestTensor ints = zeros<int32_t>({2});
  auto ctx = KernelCall().tensor(self).scalar(1e10).none().tensor(ints).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  ctx = KernelCall().tensor(self).scalar(int64_t{1} << 31).none().tensor(ints).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  ctx = KernelCall().tensor(self).scalar(std::nan("")).none().tensor(ints).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  TestTensor floats = zeros<float>({2});
  ctx = KernelCall().tensor(self).scalar(1e40).none().tensor(floats).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  ctx = KernelCall().tensor(self).scalar(1.0).scalar(true).tensor(floats).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'memory_format'"));
  TestTensor wrong = zeros<float>({3});
  ctx = KernelCall().tensor(self).scalar(1.0).none().tensor(wrong).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'out'"));
}

TEST(ScalarArithmetic, TheNumberRaisesOnlyTheCategory) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor floats = zeros<float>({2});
  auto ctx = KernelCall().tensor(ints).scalar(2.5).tensor(floats).run("aten::mul.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{2.5f, 5}));
  TestTensor halves = make_tensor<float>({2}, {1.5f, -0.5f});
  ctx = KernelCall().tensor(halves).scalar(int64_t{2}).tensor(floats).run("aten::mul.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{3, -1}));
  TestTensor same = zeros<int32_t>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).scalar(int64_t{2}).tensor(same).run("aten::add.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{7, 8}));  // int32 kept: the number does not widen it
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor longs = zeros<int64_t>({2});
  ctx = KernelCall().tensor(bools).scalar(int64_t{3}).tensor(longs).run("aten::mul.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{3, 0}));
  TestTensor bool_out = zeros<bool>({2});
  ctx = KernelCall().tensor(bools).scalar(true).tensor(bool_out).run("aten::mul.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, false}));
}

TEST(ScalarArithmetic, SubDivAndAlpha) {
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<float>({2});
  auto ctx = KernelCall().tensor(floats).scalar(0.5).scalar(int64_t{2}).tensor(out).run("aten::sub.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1}));
  TestTensor ints = make_tensor<int32_t>({3}, {1, 3, -1});
  TestTensor quotients = zeros<float>({3});
  ctx = KernelCall().tensor(ints).scalar(int64_t{2}).tensor(quotients).run("aten::div.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(quotients.values<float>(), (std::vector<float>{0.5f, 1.5f, -0.5f}));  // true division
  ctx = KernelCall().tensor(ints).scalar(int64_t{0}).tensor(quotients).run("aten::div.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quotients.values<float>(), (std::vector<float>{inf, inf, -inf}));
}

TEST(ScalarArithmetic, FloatingAddRoundsOnceAsTorchsFmadd) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 needs one more bit than a float has:
  // rounded first, -1 + it would lose the 2^-24.
  const double a = 1.0 + std::ldexp(1.0, -12);
  TestTensor self = make_tensor<float>({1}, {-1});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(self).scalar(a).scalar(a).tensor(out).run("aten::add.Scalar_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), std::vector<float>{static_cast<float>(std::ldexp(1.0, -11) + std::ldexp(1.0, -24))});
}

TEST(ScalarArithmetic, Errors) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor same = zeros<int32_t>({2});
  auto ctx = KernelCall().tensor(ints).scalar(int64_t{3}).tensor(same).run("aten::div.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::div.Scalar_out", "'out'"));
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).scalar(1.5).tensor(same).run("aten::add.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::add.Scalar_out", "'alpha'"));
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).scalar(true).tensor(same).run("aten::sub.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::sub.Scalar_out", "'alpha'"));
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor longs = zeros<int64_t>({2});
  ctx = KernelCall().tensor(bools).scalar(int64_t{1}).scalar(int64_t{1}).tensor(longs).run("aten::sub.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::sub.Scalar_out", "'self'"));
  ctx = KernelCall().tensor(ints).scalar(true).scalar(int64_t{1}).tensor(same).run("aten::sub.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::sub.Scalar_out", "'other'"));
  TestTensor floats = zeros<float>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).tensor(floats).run("aten::mul.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mul.Scalar_out", "'out'"));  // i32 * 3 stays i32
  ctx = KernelCall().tensor(ints).none().tensor(same).run("aten::mul.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mul.Scalar_out", "'other'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
