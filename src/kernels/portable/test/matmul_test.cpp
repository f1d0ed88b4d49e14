#include <cmath>
#include <limits>
#include <tuple>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_mm(const TestTensor& a, const TestTensor& b, const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).tensor(out).run("aten::mm.out");
}

KernelRuntimeContext run_addmm(const TestTensor& self, const TestTensor& a, const TestTensor& b, const EValue& beta,
                               const EValue& alpha, const TestTensor& out) {
  return KernelCall().tensor(self).tensor(a).tensor(b).value(beta).value(alpha).tensor(out).run("aten::addmm.out");
}

template <typename T>
std::vector<T> reference_mm(const std::vector<T>& a, const std::vector<T>& b, int n, int m, int p) {
  std::vector<T> c(static_cast<size_t>(n * p), T(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < m; ++k) c[i * p + j] += a[i * m + k] * b[k * p + j];
  return c;
}

template <typename T>
std::vector<T> pattern(size_t count, int seed) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = static_cast<T>((static_cast<int>(i) * 5 + seed) % 11 - 5);
  return v;
}

TEST(Mm, HandComputed) {
  TestTensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor b = make_tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = run_mm(a, b, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{58, 64, 139, 154}));
}

TEST(Mm, ShapesAcrossBlocksMatchDefinition) {
  // n = 7 exercises the 4-row block and its remainder; p = 300 the 256-column
  // block and its remainder.
  for (const auto& [n, m, p] : {std::tuple{7, 5, 300}, std::tuple{1, 1, 1}, std::tuple{4, 9, 3}}) {
    const std::vector<float> av = pattern<float>(n * m, 1), bv = pattern<float>(m * p, 2);
    TestTensor a = make_tensor<float>({n, m}, av);
    TestTensor b = make_tensor<float>({m, p}, bv);
    TestTensor out = zeros<float>({n, p});
    ASSERT_EQ(run_mm(a, b, out).failure_state(), Error::Ok);
    EXPECT_EQ(out.values<float>(), reference_mm(av, bv, n, m, p)) << n << "x" << m << "x" << p;
  }
}

TEST(Mm, IntegerAndDoubleDtypes) {
  const std::vector<int64_t> av = pattern<int64_t>(6, 3), bv = pattern<int64_t>(8, 4);
  TestTensor a = make_tensor<int64_t>({3, 2}, av);
  TestTensor b = make_tensor<int64_t>({2, 4}, bv);
  TestTensor out = zeros<int64_t>({3, 4});
  ASSERT_EQ(run_mm(a, b, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), reference_mm(av, bv, 3, 2, 4));

  TestTensor ad = make_tensor<int32_t>({1, 2}, {3, -4});
  TestTensor bd = make_tensor<int32_t>({2, 1}, {5, 6});
  TestTensor outd = zeros<int32_t>({1, 1});
  ASSERT_EQ(run_mm(ad, bd, outd).failure_state(), Error::Ok);
  EXPECT_EQ(outd.values<int32_t>(), (std::vector<int32_t>{-9}));

  TestTensor x = make_tensor<double>({1, 2}, {0.5, 0.25});
  TestTensor y = make_tensor<double>({2, 1}, {2, 4});
  TestTensor outx = zeros<double>({1, 1});
  ASSERT_EQ(run_mm(x, y, outx).failure_state(), Error::Ok);
  EXPECT_EQ(outx.values<double>(), (std::vector<double>{2.0}));
}

TEST(Mm, EmptyInnerDimGivesZeros) {
  TestTensor a = zeros<float>({2, 0});
  TestTensor b = zeros<float>({0, 3});
  TestTensor out = make_tensor<float>({2, 3}, std::vector<float>(6, 7.0f));
  ASSERT_EQ(run_mm(a, b, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), std::vector<float>(6, 0.0f));
}

TEST(Mm, Errors) {
  const char* op = "aten::mm.out";
  TestTensor a = zeros<float>({2, 3});
  TestTensor b = zeros<float>({4, 2});
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_mm(a, b, out), Error::InvalidArgument, op, "'mat2'"));
  TestTensor b_ok = zeros<float>({3, 2});
  TestTensor wrong_shape = zeros<float>({2, 3});
  EXPECT_TRUE(failed_with(run_mm(a, b_ok, wrong_shape), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_dtype = zeros<int32_t>({2, 2});
  EXPECT_TRUE(failed_with(run_mm(a, b_ok, wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor b_double = zeros<double>({3, 2});
  EXPECT_TRUE(failed_with(run_mm(a, b_double, out), Error::InvalidArgument, op, "'mat2'"));
  TestTensor vec = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_mm(vec, b_ok, out), Error::InvalidArgument, op, "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).scalar(int64_t{2}).tensor(out).run(op), Error::InvalidArgument, op,
                          "'mat2'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).tensor(b_ok).tensor(out).run(op, false), Error::InvalidArgument, op,
                          "'args'"));
  TestTensor transposed(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  EXPECT_TRUE(failed_with(run_mm(transposed, b_ok, out), Error::NotSupported, op, "'self'"));
}

TEST(Addmm, BetaAndAlphaWithBroadcastRow) {
  TestTensor self = make_tensor<float>({2}, {1, -1});
  TestTensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor b = make_tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  TestTensor out = zeros<float>({2, 2});
  const auto ctx = run_addmm(self, a, b, EValue(int64_t{2}), EValue(0.5), out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  // 2 * self + 0.5 * [[58, 64], [139, 154]]
  EXPECT_EQ(out.values<float>(), (std::vector<float>{31, 30, 71.5f, 75}));
}

TEST(Addmm, ColumnAndScalarSelf) {
  TestTensor a = make_tensor<float>({2, 1}, {1, 2});
  TestTensor b = make_tensor<float>({1, 2}, {3, 4});
  TestTensor out = zeros<float>({2, 2});
  TestTensor column = make_tensor<float>({2, 1}, {10, 20});
  ASSERT_EQ(run_addmm(column, a, b, kOne, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{13, 14, 26, 28}));
  TestTensor scalar = make_tensor<float>({}, {100});
  ASSERT_EQ(run_addmm(scalar, a, b, kOne, kOne, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{103, 104, 106, 108}));
}

TEST(Addmm, BetaZeroIgnoresNaNSelf) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor self = make_tensor<float>({2, 2}, {nan, nan, nan, nan});
  TestTensor a = make_tensor<float>({2, 2}, {1, 0, 0, 1});
  TestTensor b = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor out = zeros<float>({2, 2});
  ASSERT_EQ(run_addmm(self, a, b, EValue(0.0), EValue(int64_t{3}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 6, 9, 12}));
}

TEST(Addmm, OutMayBeSelf) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 1, 1, 1});
  TestTensor a = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor id = make_tensor<float>({2, 2}, {1, 0, 0, 1});
  ASSERT_EQ(run_addmm(self, a, id, kOne, kOne, self).failure_state(), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>{2, 3, 4, 5}));
}

TEST(Addmm, Integers) {
  TestTensor self = make_tensor<int64_t>({1, 2}, {5, 6});
  TestTensor a = make_tensor<int64_t>({1, 1}, {2});
  TestTensor b = make_tensor<int64_t>({1, 2}, {3, 4});
  TestTensor out = zeros<int64_t>({1, 2});
  ASSERT_EQ(run_addmm(self, a, b, EValue(int64_t{-1}), EValue(int64_t{10}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{55, 74}));
  EXPECT_TRUE(failed_with(run_addmm(self, a, b, kOne, EValue(0.5), out), Error::InvalidArgument, "aten::addmm.out",
                          "'alpha'"));
}

TEST(Addmm, Errors) {
  const char* op = "aten::addmm.out";
  TestTensor a = zeros<float>({2, 3});
  TestTensor b = zeros<float>({3, 2});
  TestTensor out = zeros<float>({2, 2});
  TestTensor bad_self = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_addmm(bad_self, a, b, kOne, kOne, out), Error::InvalidArgument, op, "'self'"));
  TestTensor self_double = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_addmm(self_double, a, b, kOne, kOne, out), Error::InvalidArgument, op, "'self'"));
  TestTensor self = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_addmm(self, a, a, kOne, kOne, out), Error::InvalidArgument, op, "'mat1'"));
  TestTensor wrong_out = zeros<float>({3, 3});
  EXPECT_TRUE(failed_with(run_addmm(self, a, b, kOne, kOne, wrong_out), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(
      KernelCall().tensor(self).tensor(a).tensor(b).none().value(kOne).tensor(out).run(op), Error::InvalidArgument,
      op, "'beta'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(a).tensor(b).tensor(out).run(op), Error::InvalidArgument,
                          op, "'args'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
