#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_with_alpha(const char* op, const TestTensor& a, const TestTensor& b, const EValue& alpha,
                                    const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).value(alpha).tensor(out).run(op);
}

KernelRuntimeContext run_plain(const char* op, const TestTensor& a, const TestTensor& b, const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).tensor(out).run(op);
}

const EValue kOne(int64_t{1});

TEST(Add, SameShapeFloat) {
  TestTensor a = make_tensor<float>({2, 2}, {1.5f, 2, 3, 4});
  TestTensor b = make_tensor<float>({2, 2}, {10, 20, 30, -40});
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = run_with_alpha("aten::add.out", a, b, kOne, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{11.5f, 22, 33, -36}));
}

TEST(Add, BroadcastsAcrossRanks) {
  // [2, 1, 3] + [4, 1] -> [2, 4, 3]
  std::vector<float> av(6), bv(4);
  for (int i = 0; i < 6; ++i) av[i] = static_cast<float>(i);
  for (int i = 0; i < 4; ++i) bv[i] = 100.0f * static_cast<float>(i);
  TestTensor a = make_tensor<float>({2, 1, 3}, av);
  TestTensor b = make_tensor<float>({4, 1}, bv);
  TestTensor out = zeros<float>({2, 4, 3});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, kOne, out).failure_state(), Error::Ok);
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) expected.push_back(av[i * 3 + k] + bv[j]);
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(Add, AlphaScalesOther) {
  TestTensor a = make_tensor<float>({3}, {1, 2, 3});
  TestTensor b = make_tensor<float>({3}, {4, 5, 6});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, EValue(int64_t{2}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{9, 12, 15}));
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, EValue(0.5), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 4.5f, 6}));
}

TEST(Sub, AlphaScalesOther) {
  TestTensor a = make_tensor<int64_t>({3}, {10, 20, 30});
  TestTensor b = make_tensor<int64_t>({1}, {3});
  TestTensor out = zeros<int64_t>({3});
  ASSERT_EQ(run_with_alpha("aten::sub.out", a, b, EValue(int64_t{3}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 11, 21}));
}

TEST(Add, PromotesIntAndFloat) {
  TestTensor a = make_tensor<int32_t>({2}, {1, 2});
  TestTensor b = make_tensor<float>({2}, {0.5f, 0.25f});
  TestTensor out = zeros<float>({2});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5f, 2.25f}));

  TestTensor c = make_tensor<int64_t>({2}, {int64_t{1} << 40, 5});
  TestTensor wide = zeros<int64_t>({2});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, c, kOne, wide).failure_state(), Error::Ok);
  EXPECT_EQ(wide.values<int64_t>(), (std::vector<int64_t>{(int64_t{1} << 40) + 1, 7}));
}

TEST(Add, PromotedOutDtypeIsRequired) {
  TestTensor a = make_tensor<int32_t>({2}, {1, 2});
  TestTensor b = make_tensor<float>({2}, {0.5f, 0.25f});
  TestTensor out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", a, b, kOne, out), Error::InvalidArgument, "aten::add.out",
                          "'out'"));
}

TEST(Add, FloatingAlphaWithIntegersFails) {
  TestTensor a = make_tensor<int32_t>({2}, {1, 2});
  TestTensor out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", a, a, EValue(1.5), out), Error::InvalidArgument,
                          "aten::add.out", "'alpha'"));
}

TEST(Add, IntegerOverflowWraps) {
  TestTensor a = make_tensor<int32_t>({1}, {INT32_MAX});
  TestTensor b = make_tensor<int32_t>({1}, {1});
  TestTensor out = zeros<int32_t>({1});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>()[0], INT32_MIN);
}

TEST(AddMul, BoolIsLogical) {
  TestTensor a = make_tensor<bool>({4}, {false, false, true, true});
  TestTensor b = make_tensor<bool>({4}, {false, true, false, true});
  TestTensor out = zeros<bool>({4});
  ASSERT_EQ(run_with_alpha("aten::add.out", a, b, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, true, true}));
  ASSERT_EQ(run_plain("aten::mul.out", a, b, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, false, false, true}));
}

TEST(Sub, BoolFails) {
  TestTensor a = make_tensor<bool>({1}, {true});
  TestTensor out = zeros<bool>({1});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::sub.out", a, a, kOne, out), Error::InvalidArgument, "aten::sub.out",
                          "'self'"));
}

TEST(Mul, BroadcastsScalarTensor) {
  TestTensor a = make_tensor<double>({2, 2}, {1, 2, 3, 4});
  TestTensor s = make_tensor<double>({}, {-2});
  TestTensor out = zeros<double>({2, 2});
  ASSERT_EQ(run_plain("aten::mul.out", s, a, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{-2, -4, -6, -8}));
}

TEST(Div, IntegersGiveFloat) {
  TestTensor a = make_tensor<int64_t>({4}, {7, -7, 1, 0});
  TestTensor b = make_tensor<int32_t>({4}, {2, 2, 0, 0});
  TestTensor out = zeros<float>({4});
  ASSERT_EQ(run_plain("aten::div.out", a, b, out).failure_state(), Error::Ok);
  const std::vector<float> v = out.values<float>();
  EXPECT_EQ(v[0], 3.5f);
  EXPECT_EQ(v[1], -3.5f);
  EXPECT_EQ(v[2], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[3]));
}

TEST(Div, IntegerOutFails) {
  TestTensor a = make_tensor<int32_t>({1}, {4});
  TestTensor out = zeros<int32_t>({1});
  EXPECT_TRUE(failed_with(run_plain("aten::div.out", a, a, out), Error::InvalidArgument, "aten::div.out", "'out'"));
}

TEST(Div, FloatByInt) {
  TestTensor a = make_tensor<double>({2}, {1, 3});
  TestTensor b = make_tensor<int64_t>({2, 1}, {2, 4});
  TestTensor out = zeros<double>({2, 2});
  ASSERT_EQ(run_plain("aten::div.out", a, b, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0.5, 1.5, 0.25, 0.75}));
}

TEST(Binary, LongRowsMatchElementwiseLoop) {
  // Long enough for vector loops and their tails, with one broadcast operand.
  std::vector<float> av(3 * 1001), bv(1001);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i % 17) - 8.0f;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 5) + 1.0f;
  TestTensor a = make_tensor<float>({3, 1001}, av);
  TestTensor b = make_tensor<float>({1001}, bv);
  TestTensor out = zeros<float>({3, 1001});
  ASSERT_EQ(run_plain("aten::div.out", a, b, out).failure_state(), Error::Ok);
  const std::vector<float> v = out.values<float>();
  for (size_t i = 0; i < av.size(); ++i) ASSERT_EQ(v[i], av[i] / bv[i % 1001]) << i;
}

TEST(Binary, NonContiguousOperands) {
  // a is logical [[1, 2, 3], [4, 5, 6]] stored column-major; out is too.
  TestTensor a(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  a.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor b = make_tensor<float>({3}, {10, 20, 30});
  TestTensor out(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_EQ(run_with_alpha("aten::sub.out", a, b, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.logical_values<float>(), (std::vector<float>{-9, -18, -27, -6, -15, -24}));
}

TEST(Binary, MismatchedShapesFail) {
  TestTensor a = zeros<float>({2, 3});
  TestTensor b = zeros<float>({4});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_plain("aten::mul.out", a, b, out);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mul.out", "'other'"));
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mul.out", "'self'"));
}

TEST(Binary, WrongOutShapeFails) {
  TestTensor a = zeros<float>({2, 3});
  TestTensor b = zeros<float>({3});
  TestTensor out = zeros<float>({3, 2});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", a, b, kOne, out), Error::InvalidArgument, "aten::add.out",
                          "'out'"));
}

TEST(Binary, WrongArgCountFails) {
  TestTensor a = zeros<float>({2});
  TestTensor out = zeros<float>({2});
  // add.out without alpha: one argument short.
  EXPECT_TRUE(failed_with(run_plain("aten::add.out", a, a, out), Error::InvalidArgument, "aten::add.out", "'args'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).tensor(a).tensor(out).run("aten::div.out", false),
                          Error::InvalidArgument, "aten::div.out", "'args'"));
}

TEST(Binary, NonTensorOperandFails) {
  TestTensor a = zeros<float>({2});
  TestTensor out = zeros<float>({2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).scalar(2.0).tensor(out).run("aten::mul.out"),
                          Error::InvalidArgument, "aten::mul.out", "'other'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).tensor(a).none().tensor(out).run("aten::sub.out"),
                          Error::InvalidArgument, "aten::sub.out", "'alpha'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).tensor(a).scalar(int64_t{1}).int_list({2}).run("aten::add.out"),
                          Error::InvalidArgument, "aten::add.out", "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
