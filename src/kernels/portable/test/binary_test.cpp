// add, sub, mul, div (with rounding modes), pow, minimum and maximum, Tensor
// and Scalar overloads.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/portable/test/elementwise_test_util.h"
#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/util/scalar.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_with_alpha(const char* op, const TestTensor& a, const TestTensor& b, const EValue& alpha,
                                    const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).value(alpha).tensor(out).run(op);
}

KernelRuntimeContext run_plain(const char* op, const TestTensor& a, const TestTensor& b, const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).tensor(out).run(op);
}

// div.out_mode / div.Scalar_mode_out with rounding_mode `mode` (null: None).
KernelRuntimeContext run_mode(const char* op, const TestTensor& a, const EValue& b, const char* mode,
                              const TestTensor& out) {
  const EValue rounding = mode != nullptr ? EValue(mode, std::strlen(mode)) : EValue();
  return KernelCall().tensor(a).value(b).value(rounding).tensor(out).run(op);
}
KernelRuntimeContext run_mode(const TestTensor& a, const TestTensor& b, const char* mode, const TestTensor& out) {
  return run_mode("aten::div.out_mode", a, EValue(b.tensor()), mode, out);
}

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

// ---- dtypes, promotion and out casting shared by the arithmetic ops ----

TEST(Arithmetic, HalfAndBFloat16ComputeInFloatAndRound) {
  TestTensor a = make_16bit<runtime::Half>({3}, {1.5f, -2.5f, 1024});
  TestTensor b = make_16bit<runtime::Half>({3}, {0.25f, 0.5f, 0.5f});
  TestTensor out = zeros<runtime::Half>({3});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", a, b, kOne, out)));
  // 1024.5 is halfway between two halves: it rounds to the even 1024.
  EXPECT_EQ(floats_of<runtime::Half>(out), (std::vector<float>{1.75f, -2, 1024}));
  ASSERT_TRUE(ok(run_plain("aten::mul.out", a, b, out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), (std::vector<float>{0.375f, -1.25f, 512}));

  TestTensor c = make_16bit<runtime::BFloat16>({2}, {1, 256});
  TestTensor d = make_16bit<runtime::BFloat16>({2}, {0.0078125f, 1});
  TestTensor bf_out = zeros<runtime::BFloat16>({2});
  ASSERT_TRUE(ok(run_with_alpha("aten::sub.out", c, d, kOne, bf_out)));
  // 255 needs 8 significant bits: bfloat16 keeps 8, so it is exact.
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf_out), (std::vector<float>{0.9921875f, 255}));
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", c, d, kOne, bf_out)));
  // 257 is halfway between 256 and 258 in bfloat16: even 256.
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf_out), (std::vector<float>{1.0078125f, 256}));

  // Half with BFloat16 promotes to Float.
  TestTensor e = make_16bit<runtime::Half>({2}, {1, 256});
  TestTensor f_out = zeros<float>({2});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", e, d, kOne, f_out)));
  EXPECT_EQ(f_out.values<float>(), (std::vector<float>{1.0078125f, 257}));
}

TEST(Arithmetic, OperandsAreCastToTheCommonDtypeFirst) {
  // As in PyTorch: the int 2049 becomes the half 2048 before the subtraction.
  TestTensor ints = make_tensor<int32_t>({1}, {2049});
  TestTensor halves = make_16bit<runtime::Half>({1}, {2048});
  TestTensor out = zeros<runtime::Half>({1});
  ASSERT_TRUE(ok(run_with_alpha("aten::sub.out", ints, halves, kOne, out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{0});
}

TEST(Arithmetic, HalfMulAndDivReadAScalarOtherAtFloatPrecision) {
  // PyTorch's mul and div take a single-element `other` of a Half computation
  // unrounded: 1536 * 1.0004 = 1536.6 -> 1537 (1.0004 as a half is 1.0).
  TestTensor a = make_16bit<runtime::Half>({1}, {1536});
  TestTensor out = zeros<runtime::Half>({1});
  ASSERT_TRUE(ok(KernelCall().tensor(a).scalar(1.0004).tensor(out).run("aten::mul.Scalar_out")));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1537});
  TestTensor f32_scalar = make_tensor<float>({}, {1.0004f});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", a, f32_scalar, out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1537});
  ASSERT_TRUE(ok(KernelCall().tensor(a).scalar(1.0004).tensor(out).run("aten::div.Scalar_out")));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1535});
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(1.0004), "floor", out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1535});
  // An int32[1] other is read exactly too: 1.5 * 2049 = 3073.5 -> 3074.
  TestTensor halves = make_16bit<runtime::Half>({2}, {1.5f, 1.5f});
  TestTensor int_one = make_tensor<int32_t>({1}, {2049});
  TestTensor two = zeros<runtime::Half>({2});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", halves, int_one, two)));
  EXPECT_EQ(floats_of<runtime::Half>(two), (std::vector<float>{3074, 3074}));
  // ... but not on the left, nor as a full tensor, nor for add: rounded first.
  ASSERT_TRUE(ok(run_plain("aten::mul.out", f32_scalar, a, out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1536});
  TestTensor ints = make_tensor<int32_t>({2}, {2049, 2049});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", halves, ints, two)));
  EXPECT_EQ(floats_of<runtime::Half>(two), (std::vector<float>{3072, 3072}));
  TestTensor k = make_16bit<runtime::Half>({1}, {1024});
  ASSERT_TRUE(ok(KernelCall().tensor(k).scalar(0.50001).scalar(int64_t{1}).tensor(out).run("aten::add.Scalar_out")));
  EXPECT_EQ(floats_of<runtime::Half>(out), std::vector<float>{1024});
}

TEST(Arithmetic, OutMayHaveAnyDtypeTheResultCastsTo) {
  TestTensor a = make_tensor<int32_t>({2}, {INT32_MAX, 3});
  TestTensor as_float = zeros<float>({2});
  // Computed in int32 (wrapping), then cast.
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", a, a, kOne, as_float)));
  EXPECT_EQ(as_float.values<float>(), (std::vector<float>{-2, 6}));
  TestTensor as_long = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", a, a, kOne, as_long)));
  EXPECT_EQ(as_long.values<int64_t>(), (std::vector<int64_t>{-2, 6}));
  TestTensor as_half = zeros<runtime::Half>({2});
  TestTensor two = make_tensor<int64_t>({}, {2});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", a, two, as_half)));
  EXPECT_EQ(floats_of<runtime::Half>(as_half), (std::vector<float>{-2, 6}));
  // The Scalar overloads take no cast, as in PyTorch.
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).scalar(int64_t{2}).tensor(as_half).run("aten::mul.Scalar_out"),
                          Error::InvalidArgument, "aten::mul.Scalar_out", "'out'"));
  TestTensor as_double = zeros<double>({2});
  ASSERT_TRUE(ok(run_plain("aten::div.out", a, a, as_double)));
  EXPECT_EQ(as_double.values<double>(), (std::vector<double>{1, 1}));

  TestTensor as_bool = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", a, a, kOne, as_bool), Error::InvalidArgument,
                          "aten::add.out", "'out'"));
  TestTensor f = make_tensor<float>({2}, {1, 2});
  TestTensor as_int = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_plain("aten::maximum.out", f, f, as_int), Error::InvalidArgument, "aten::maximum.out",
                          "'out'"));
  TestTensor bytes(ScalarType::Byte, {2});
  EXPECT_TRUE(failed_with(run_plain("aten::mul.out", f, f, bytes), Error::InvalidArgument, "aten::mul.out", "'out'"));
  EXPECT_TRUE(failed_with(run_plain("aten::mul.out", bytes, f, f), Error::InvalidArgument, "aten::mul.out", "'self'"));
}

TEST(Arithmetic, ZeroDimOperandsOnlyRaiseTheCategory) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, -1});
  // i32[2] + i64[] stays int32: 2^32 + 1 wraps to 1 in int32.
  TestTensor big = make_tensor<int64_t>({}, {(int64_t{1} << 32) + 1});
  TestTensor int_out = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", ints, big, kOne, int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{2, 0}));
  // i32[2] * f64[] is f64; f32[2] * f64[] stays f32.
  TestTensor half_d = make_tensor<double>({}, {0.5});
  TestTensor double_out = zeros<double>({2});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", ints, half_d, double_out)));
  EXPECT_EQ(double_out.values<double>(), (std::vector<double>{0.5, -0.5}));
  TestTensor floats = make_tensor<float>({2}, {3, 4});
  TestTensor float_out = zeros<float>({2});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", floats, half_d, float_out)));
  EXPECT_EQ(float_out.values<float>(), (std::vector<float>{1.5f, 2}));
  // bool[2] + i32[] is i32; two 0-dim tensors promote as tensors with dims.
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor three = make_tensor<int32_t>({}, {3});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", bools, three, kOne, int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{4, 3}));
  TestTensor f64_zero_dim = zeros<double>({});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", three, half_d, kOne, f64_zero_dim)));
  EXPECT_EQ(f64_zero_dim.values<double>(), std::vector<double>{3.5});
  // A Double Scalar makes an integral tensor Float, not Double.
  ASSERT_TRUE(ok(KernelCall().tensor(ints).scalar(0.5).tensor(float_out).run("aten::mul.Scalar_out")));
  EXPECT_EQ(float_out.values<float>(), (std::vector<float>{0.5f, -0.5f}));
  // ... computed in float even into a Double out.
  ASSERT_TRUE(ok(KernelCall().scalar(0.1).tensor(ints).tensor(double_out).run("aten::pow.Scalar_out")));
  EXPECT_EQ(double_out.values<double>(), (std::vector<double>{0.1f, 10.0f}));
}

TEST(Arithmetic, SizeZeroAndSizeOneDims) {
  TestTensor empty = zeros<float>({0, 3});
  TestTensor row = make_tensor<float>({1, 3}, {1, 2, 3});
  TestTensor out = zeros<float>({4, 4}, TensorShapeDynamism::DynamicBound);
  ASSERT_TRUE(ok(run_plain("aten::mul.out", empty, row, out)));
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{0, 3}));
  TestTensor column = make_tensor<float>({3, 1}, {1, 10, 100});
  TestTensor outer = zeros<float>({3, 3});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", column, row, outer)));
  EXPECT_EQ(outer.values<float>(), (std::vector<float>{1, 2, 3, 10, 20, 30, 100, 200, 300}));
  // A size-0 dim against a size-1 dim broadcasts to 0.
  TestTensor zero_row = zeros<float>({1, 0});
  TestTensor grid = zeros<float>({3, 0});
  ASSERT_TRUE(ok(run_plain("aten::maximum.out", column, zero_row, grid)));
  EXPECT_EQ(grid.sizes(), (std::vector<SizesType>{3, 0}));
}

TEST(Arithmetic, MixedDtypesLongRowsAndTransposedLayouts) {
  // More than one conversion chunk per row, a broadcast operand, and both
  // inputs read through conversions.
  const int n = 1000;
  std::vector<int32_t> av(2 * n);
  std::vector<double> bv(n);
  for (int i = 0; i < 2 * n; ++i) av[i] = i;
  for (int i = 0; i < n; ++i) bv[i] = 0.5 * i;
  TestTensor a = make_tensor<int32_t>({2, n}, av);
  TestTensor b = make_tensor<double>({n}, bv);
  TestTensor out = zeros<double>({2, n});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", a, b, kOne, out)));
  const std::vector<double> v = out.values<double>();
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < n; ++i) ASSERT_EQ(v[r * n + i], r * n + 1.5 * i) << r << " " << i;
  }
  // A [3, 2] half tensor stored column-major, plus a row of floats, into a
  // column-major out.
  TestTensor h(ScalarType::Half, {3, 2}, TensorShapeDynamism::Static, {1, 0});
  h.set<runtime::Half>({runtime::Half(1), runtime::Half(2), runtime::Half(3), runtime::Half(4), runtime::Half(5),
                        runtime::Half(6)});  // logical [[1, 4], [2, 5], [3, 6]]
  TestTensor f = make_tensor<float>({2}, {0.5f, 0.25f});
  TestTensor transposed_out(ScalarType::Float, {3, 2}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_TRUE(ok(run_plain("aten::mul.out", h, f, transposed_out)));
  EXPECT_EQ(transposed_out.logical_values<float>(), (std::vector<float>{0.5f, 1, 1, 1.25f, 1.5f, 1.5f}));
}

TEST(Arithmetic, EveryOpGivesTheSameValuesInAColumnMajorLayout) {
  // Logical [2, 3] self and a [3] other; the row-major results are checked
  // against known values in the tests of each op.
  const std::vector<float> self_values = {1, -2, 3.5f, -4, 5, 0.5f};
  TestTensor row_self = make_tensor<float>({2, 3}, self_values);
  TestTensor col_self = column_major<float>(2, 3, self_values);
  TestTensor other = make_tensor<float>({3}, {2, 3, -1});
  const struct {
    const char* op;
    bool alpha;
    const char* mode;
  } cases[] = {{"aten::add.out", true, nullptr},        {"aten::sub.out", true, nullptr},
               {"aten::mul.out", false, nullptr},       {"aten::div.out", false, nullptr},
               {"aten::div.out_mode", false, "floor"},  {"aten::div.out_mode", false, "trunc"},
               {"aten::pow.Tensor_Tensor_out", false, nullptr}, {"aten::minimum.out", false, nullptr},
               {"aten::maximum.out", false, nullptr}};
  for (const auto& c : cases) {
    TestTensor row_out = zeros<float>({2, 3});
    TestTensor col_out(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
    const auto run_on = [&](const TestTensor& self, const TestTensor& out) {
      KernelCall call;
      call.tensor(self).tensor(other);
      if (c.alpha) call.scalar(int64_t{2});
      if (std::strcmp(c.op, "aten::div.out_mode") == 0) call.value(EValue(c.mode, std::strlen(c.mode)));
      return call.tensor(out).run(c.op);
    };
    ASSERT_TRUE(ok(run_on(row_self, row_out))) << c.op;
    ASSERT_TRUE(ok(run_on(col_self, col_out))) << c.op;
    EXPECT_TRUE(all_near(col_out.logical_values<float>(), row_out.values<float>(), 0)) << c.op;
  }
}

TEST(Arithmetic, NanPropagates) {
  TestTensor a = make_tensor<float>({3}, {kNaN, 1, kInf});
  TestTensor b = make_tensor<float>({3}, {1, kNaN, -kInf});
  TestTensor out = zeros<float>({3});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", a, b, kOne, out)));
  for (float v : out.values<float>()) EXPECT_TRUE(std::isnan(v));
  ASSERT_TRUE(ok(run_plain("aten::mul.out", a, b, out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN, kNaN, -kInf}, 0));
}

TEST(Arithmetic, AlphaMustFitTheResultDtype) {
  TestTensor ints = make_tensor<int32_t>({1}, {0});
  TestTensor int_out = zeros<int32_t>({1});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", ints, ints, EValue(int64_t{1} << 40), int_out),
                          Error::InvalidArgument, "aten::add.out", "'alpha'"));
  TestTensor floats = make_tensor<float>({1}, {0});
  TestTensor float_out = zeros<float>({1});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::sub.out", floats, floats, EValue(1e300), float_out),
                          Error::InvalidArgument, "aten::sub.out", "'alpha'"));
  TestTensor halves = make_16bit<runtime::Half>({1}, {0});
  TestTensor half_out = zeros<runtime::Half>({1});
  EXPECT_TRUE(failed_with(run_with_alpha("aten::add.out", halves, halves, EValue(1e10), half_out),
                          Error::InvalidArgument, "aten::add.out", "'alpha'"));
  // Half rounds alpha to half first: 0 + 0.3 * 3 is 0.30004883 * 3 =
  // 0.90014648, a tie rounded to the even half 0.900390625 (0.9 would give
  // 0.89990234).
  TestTensor zero = make_16bit<runtime::Half>({1}, {0});
  TestTensor three_h = make_16bit<runtime::Half>({1}, {3});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", zero, three_h, EValue(0.3), half_out)));
  EXPECT_EQ(floats_of<runtime::Half>(half_out), std::vector<float>{0.900390625f});
  // 16-bit floats round x + alpha * other once, as PyTorch's vectorized
  // loops: -6.80078125 + 2.5 * 3.611328125 = 2.2275390625 is a tie between
  // halves, to the even 2.2265625 (rounding the product first would give
  // 2.23046875).
  TestTensor hx = make_16bit<runtime::Half>({64}, std::vector<float>(64, -6.80078125f));
  TestTensor hy = make_16bit<runtime::Half>({64}, std::vector<float>(64, 3.611328125f));
  TestTensor h64 = zeros<runtime::Half>({64});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", hx, hy, EValue(2.5), h64)));
  EXPECT_EQ(floats_of<runtime::Half>(h64), std::vector<float>(64, 2.2265625f));
  ASSERT_TRUE(ok(run_with_alpha("aten::sub.out", hx, hy, EValue(-2.5), h64)));
  EXPECT_EQ(floats_of<runtime::Half>(h64), std::vector<float>(64, 2.2265625f));
  // sub adds -alpha * other with alpha negated in int64, where the lowest
  // value negates to itself (as in PyTorch).
  TestTensor three = make_tensor<float>({1}, {3});
  ASSERT_TRUE(ok(run_with_alpha("aten::sub.out", floats, three, EValue(INT64_MIN), float_out)));
  EXPECT_EQ(float_out.values<float>(), std::vector<float>{-0x1.8p+64f});
  TestTensor longs = make_tensor<int64_t>({1}, {5});
  TestTensor long_out = zeros<int64_t>({1});
  ASSERT_TRUE(ok(run_with_alpha("aten::sub.out", longs, longs, EValue(int64_t{3}), long_out)));
  EXPECT_EQ(long_out.values<int64_t>(), std::vector<int64_t>{-10});
  // A Bool alpha with Bool operands scales other: x or (alpha and y).
  TestTensor x = make_tensor<bool>({2}, {false, true});
  TestTensor y = make_tensor<bool>({2}, {true, false});
  TestTensor bool_out = zeros<bool>({2});
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", x, y, EValue(false), bool_out)));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{false, true}));
  ASSERT_TRUE(ok(run_with_alpha("aten::add.out", x, y, EValue(true), bool_out)));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, true}));
}

// ---- Scalar overloads of add, sub, mul, div ----

TEST(ScalarArithmetic, TheNumberRaisesOnlyTheCategory) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor floats = zeros<float>({2});
  auto ctx = KernelCall().tensor(ints).scalar(2.5).tensor(floats).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{2.5f, 5}));
  TestTensor halves = make_tensor<float>({2}, {1.5f, -0.5f});
  ctx = KernelCall().tensor(halves).scalar(int64_t{2}).tensor(floats).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{3, -1}));
  TestTensor same = zeros<int32_t>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).scalar(int64_t{2}).tensor(same).run("aten::add.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{7, 8}));  // int32 kept: the number does not widen it
  // A number beyond int32 wraps when cast to it, as in PyTorch.
  ctx = KernelCall().tensor(ints).scalar((int64_t{1} << 32) + 5).scalar(int64_t{1}).tensor(same)
            .run("aten::add.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{6, 7}));
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor longs = zeros<int64_t>({2});
  ctx = KernelCall().tensor(bools).scalar(int64_t{3}).tensor(longs).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{3, 0}));
  TestTensor bool_out = zeros<bool>({2});
  ctx = KernelCall().tensor(bools).scalar(true).tensor(bool_out).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, false}));
  // A Half tensor stays Half with a Double; 1e300 is inf there.
  TestTensor h = make_16bit<runtime::Half>({2}, {1.5f, -2.5f});
  TestTensor h_out = zeros<runtime::Half>({2});
  ctx = KernelCall().tensor(h).scalar(2.5).tensor(h_out).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{3.75f, -6.25f}));
  ctx = KernelCall().tensor(h).scalar(1e300).tensor(h_out).run("aten::mul.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{kInf, -kInf}));
}

TEST(ScalarArithmetic, SubDivAndAlpha) {
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<float>({2});
  auto ctx = KernelCall().tensor(floats).scalar(0.5).scalar(int64_t{2}).tensor(out).run("aten::sub.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1}));
  TestTensor ints = make_tensor<int32_t>({3}, {1, 3, -1});
  TestTensor quotients = zeros<float>({3});
  ctx = KernelCall().tensor(ints).scalar(int64_t{2}).tensor(quotients).run("aten::div.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(quotients.values<float>(), (std::vector<float>{0.5f, 1.5f, -0.5f}));  // true division
  ctx = KernelCall().tensor(ints).scalar(int64_t{0}).tensor(quotients).run("aten::div.Scalar_out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(quotients.values<float>(), (std::vector<float>{kInf, kInf, -kInf}));
}

TEST(ScalarArithmetic, FloatingAddRoundsOnceAsTorchsFmadd) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 needs one more bit than a float has:
  // rounded first, -1 + it would lose the 2^-24.
  const double a = 1.0 + std::ldexp(1.0, -12);
  TestTensor self = make_tensor<float>({1}, {-1});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(self).scalar(a).scalar(a).tensor(out).run("aten::add.Scalar_out");
  ASSERT_TRUE(ok(ctx));
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
  TestTensor doubles = zeros<double>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).tensor(doubles).run("aten::div.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::div.Scalar_out", "'out'"));  // Float, not Double
  TestTensor longs2 = zeros<int64_t>({2});
  ctx = KernelCall().tensor(ints).scalar(int64_t{3}).value(EValue("floor", 5)).tensor(longs2)
            .run("aten::div.Scalar_mode_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::div.Scalar_mode_out", "'out'"));
  ctx = KernelCall().tensor(ints).none().tensor(same).run("aten::mul.Scalar_out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::mul.Scalar_out", "'other'"));
}

// ---- div with rounding_mode ----

TEST(DivMode, IntegersRoundAsPython) {
  TestTensor a = make_tensor<int64_t>({5}, {7, -7, 7, -7, 0});
  TestTensor b = make_tensor<int64_t>({5}, {2, 2, -2, -2, 3});
  TestTensor out = zeros<int64_t>({5});
  ASSERT_TRUE(ok(run_mode(a, b, "floor", out)));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{3, -4, -4, 3, 0}));
  ASSERT_TRUE(ok(run_mode(a, b, "trunc", out)));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{3, -3, -3, 3, 0}));
  // None is true division: Float for integers.
  TestTensor quotient = zeros<float>({5});
  ASSERT_TRUE(ok(run_mode(a, b, nullptr, quotient)));
  EXPECT_EQ(quotient.values<float>(), (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f, 0}));
  EXPECT_TRUE(failed_with(run_mode(a, b, nullptr, out), Error::InvalidArgument, "aten::div.out_mode", "'out'"));
  // Bool over integers promotes: True // 2 = 0, True // -2 = -1.
  TestTensor trues = make_tensor<bool>({2}, {true, true});
  TestTensor twos = make_tensor<int32_t>({2}, {2, -2});
  TestTensor int_out = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run_mode(trues, twos, "floor", int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{0, -1}));
}

TEST(DivMode, LowestDividedByMinusOneWraps) {
  TestTensor a = make_tensor<int64_t>({2}, {INT64_MIN, INT64_MIN});
  TestTensor b = make_tensor<int64_t>({2}, {-1, 1});
  TestTensor out = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_mode(a, b, "floor", out)));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{INT64_MIN, INT64_MIN}));
  ASSERT_TRUE(ok(run_mode(a, b, "trunc", out)));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{INT64_MIN, INT64_MIN}));
  TestTensor c = make_tensor<int32_t>({1}, {INT32_MIN});
  TestTensor int_out = zeros<int32_t>({1});
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", c, EValue(int64_t{-1}), "trunc", int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), std::vector<int32_t>{INT32_MIN});
}

TEST(DivMode, FloatsFloorAsPythonAndTruncTowardZero) {
  TestTensor a = make_tensor<float>({12}, {7, -7, 7, -7, 0, -0.0f, 1, -1, 5.5f, kInf, 1, kNaN});
  TestTensor b = make_tensor<float>({12}, {2, 2, -2, -2, 3, 3, 0, 0, kInf, 2, -kInf, 1});
  TestTensor out = zeros<float>({12});
  ASSERT_TRUE(ok(run_mode(a, b, "floor", out)));
  // Known PyTorch (and Python //) results: inf // 2 is NaN, 1 // -inf is -1.
  EXPECT_TRUE(all_near(out.values<float>(), {3, -4, -4, 3, 0, -0.0f, kInf, -kInf, 0, kNaN, -1, kNaN}, 0));
  EXPECT_TRUE(std::signbit(out.values<float>()[5]));
  ASSERT_TRUE(ok(run_mode(a, b, "trunc", out)));
  EXPECT_TRUE(all_near(out.values<float>(), {3, -3, -3, 3, 0, -0.0f, kInf, -kInf, 0, kInf, -0.0f, kNaN}, 0));
  EXPECT_TRUE(std::signbit(out.values<float>()[10]));
  // Zero quotients keep the sign of the true quotient.
  TestTensor zeros_in = make_tensor<float>({4}, {0, -0.0f, 1, -1});
  TestTensor divisors = make_tensor<float>({4}, {-3, 3, -5, 5});
  TestTensor signs = zeros<float>({4});
  ASSERT_TRUE(ok(run_mode(zeros_in, divisors, "floor", signs)));
  EXPECT_EQ(signs.values<float>(), (std::vector<float>{0, 0, -1, -1}));
  EXPECT_EQ(sign_bits(signs.values<float>()), (std::vector<bool>{true, true, true, true}));
  // 1 // 0.1 is 9 (0.1 is a little above a tenth).
  TestTensor one = make_tensor<double>({1}, {1});
  TestTensor tenth = make_tensor<double>({1}, {0.1});
  TestTensor nine = zeros<double>({1});
  ASSERT_TRUE(ok(run_mode(one, tenth, "floor", nine)));
  EXPECT_EQ(nine.values<double>(), std::vector<double>{9});
}

TEST(DivMode, ScalarOverloadAndHalf) {
  TestTensor a = make_tensor<int64_t>({2}, {7, -7});
  TestTensor longs = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(int64_t{2}), "floor", longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{3, -4}));
  TestTensor floats = zeros<float>({2});
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(2.5), "floor", floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{2, -3}));
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(0.0), "floor", floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{kInf, -kInf}));
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(true), "trunc", longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{7, -7}));
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", a, EValue(int64_t{2}), nullptr, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{3.5f, -3.5f}));

  TestTensor h = make_16bit<runtime::Half>({3}, {7, -7, 65504});
  TestTensor hd = make_16bit<runtime::Half>({3}, {2, 2, 0.5f});
  TestTensor h_out = zeros<runtime::Half>({3});
  ASSERT_TRUE(ok(run_mode(h, hd, "floor", h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{3, -4, kInf}));
  ASSERT_TRUE(ok(run_mode(h, hd, "trunc", h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{3, -3, kInf}));
  TestTensor bf = make_16bit<runtime::BFloat16>({2}, {7, -7});
  TestTensor bf_out = zeros<runtime::BFloat16>({2});
  ASSERT_TRUE(ok(run_mode("aten::div.Scalar_mode_out", bf, EValue(int64_t{2}), "floor", bf_out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf_out), (std::vector<float>{3, -4}));
}

TEST(DivMode, SixteenBitFloatsRoundEveryStep) {
  // As PyTorch's Half arithmetic: 4 / 0.10009765625 = 39.96 rounds to the
  // bfloat16 40 before trunc; with a single-element other it is computed in
  // float (39.96 -> 39).
  TestTensor x = make_16bit<runtime::BFloat16>({2}, {4, 4});
  TestTensor y = make_16bit<runtime::BFloat16>({2}, {0.10009765625f, 0.10009765625f});
  TestTensor out = zeros<runtime::BFloat16>({2});
  ASSERT_TRUE(ok(run_mode(x, y, "trunc", out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(out), (std::vector<float>{40, 40}));
  TestTensor y1 = make_16bit<runtime::BFloat16>({1}, {0.10009765625f});
  ASSERT_TRUE(ok(run_mode(x, y1, "trunc", out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(out), (std::vector<float>{39, 39}));
  // floor rounds each step of (x - fmod(x, y)) / y: -33.5 // 0.375 is -91
  // in bfloat16 (PyTorch's result), -90 computed in float.
  TestTensor a = make_16bit<runtime::BFloat16>({2}, {-33.5f, -33.5f});
  TestTensor b = make_16bit<runtime::BFloat16>({2}, {0.375f, 0.375f});
  ASSERT_TRUE(ok(run_mode(a, b, "floor", out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(out), (std::vector<float>{-91, -91}));
  TestTensor b1 = make_16bit<runtime::BFloat16>({1}, {0.375f});
  ASSERT_TRUE(ok(run_mode(a, b1, "floor", out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(out), (std::vector<float>{-90, -90}));
}

TEST(DivMode, IntegerDivisionByZeroFails) {
  TestTensor a = make_tensor<int64_t>({3}, {7, -7, 1});
  TestTensor b = make_tensor<int64_t>({3}, {1, 0, 1});
  TestTensor out = zeros<int64_t>({3});
  EXPECT_TRUE(failed_with(run_mode(a, b, "floor", out), Error::InvalidArgument, "aten::div.out_mode", "'other'"));
  EXPECT_TRUE(failed_with(run_mode(a, b, "trunc", out), Error::InvalidArgument, "aten::div.out_mode", "'other'"));
  EXPECT_TRUE(failed_with(run_mode("aten::div.Scalar_mode_out", a, EValue(int64_t{0}), "floor", out),
                          Error::InvalidArgument, "aten::div.Scalar_mode_out", "'other'"));
  // 2^32 is 0 once cast to the int32 result, so PyTorch fails too.
  TestTensor ints = make_tensor<int32_t>({1}, {7});
  TestTensor big = make_tensor<int64_t>({}, {int64_t{1} << 32});
  TestTensor int_out = zeros<int32_t>({1});
  EXPECT_TRUE(failed_with(run_mode(ints, big, "trunc", int_out), Error::InvalidArgument, "aten::div.out_mode",
                          "'other'"));
  TestTensor falses = make_tensor<bool>({1}, {false});
  EXPECT_TRUE(failed_with(run_mode(ints, falses, "floor", int_out), Error::InvalidArgument, "aten::div.out_mode",
                          "'other'"));
  // Nothing is divided for an empty result.
  TestTensor empty = zeros<int64_t>({0});
  TestTensor zero = make_tensor<int64_t>({}, {0});
  TestTensor empty_out = zeros<int64_t>({0});
  EXPECT_TRUE(ok(run_mode(empty, zero, "floor", empty_out)));
}

TEST(DivMode, Errors) {
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor bool_out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_mode(bools, bools, "floor", bool_out), Error::InvalidArgument, "aten::div.out_mode",
                          "'self'"));
  TestTensor a = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_mode(a, a, "round", out), Error::InvalidArgument, "aten::div.out_mode",
                          "'rounding_mode'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).tensor(a).scalar(int64_t{1}).tensor(out).run("aten::div.out_mode"),
                          Error::InvalidArgument, "aten::div.out_mode", "'rounding_mode'"));
  TestTensor three = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_mode(a, three, "floor", out), Error::InvalidArgument, "aten::div.out_mode", "'other'"));
}

// ---- pow ----

KernelRuntimeContext run_pow(const TestTensor& self, const TestTensor& exponent, const TestTensor& out) {
  return KernelCall().tensor(self).tensor(exponent).tensor(out).run("aten::pow.Tensor_Tensor_out");
}
KernelRuntimeContext run_pow(const TestTensor& self, const EValue& exponent, const TestTensor& out) {
  return KernelCall().tensor(self).value(exponent).tensor(out).run("aten::pow.Tensor_Scalar_out");
}
KernelRuntimeContext run_pow(const EValue& self, const TestTensor& exponent, const TestTensor& out) {
  return KernelCall().value(self).tensor(exponent).tensor(out).run("aten::pow.Scalar_out");
}

TEST(Pow, IntegersWrapAndNegativeTensorExponents) {
  TestTensor a = make_tensor<int32_t>({2}, {2, 3});
  TestTensor e = make_tensor<int32_t>({2}, {31, 40});
  TestTensor out = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run_pow(a, e, out)));
  // 3^40 mod 2^32, as a signed int32 (PyTorch's result).
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{INT32_MIN, 689956897}));
  TestTensor bases = make_tensor<int32_t>({5}, {2, -3, 0, 1, -1});
  TestTensor negative = make_tensor<int32_t>({5}, {-2, -2, -1, -3, -3});
  TestTensor five = zeros<int32_t>({5});
  ASSERT_TRUE(ok(run_pow(bases, negative, five)));
  EXPECT_EQ(five.values<int32_t>(), (std::vector<int32_t>{0, 0, 0, 1, -1}));
  TestTensor zero_exponents = make_tensor<int32_t>({5}, {0, 0, 0, 0, 0});
  ASSERT_TRUE(ok(run_pow(bases, zero_exponents, five)));
  EXPECT_EQ(five.values<int32_t>(), (std::vector<int32_t>{1, 1, 1, 1, 1}));  // 0^0 = 1
  TestTensor longs = make_tensor<int64_t>({2}, {2, 3});
  TestTensor long_out = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_pow(longs, EValue(int64_t{63}), long_out)));
  EXPECT_EQ(long_out.values<int64_t>(), (std::vector<int64_t>{INT64_MIN, -3237885987332494933}));
  // An int32 base with an int64 exponent tensor is int64.
  TestTensor cubes = make_tensor<int64_t>({5}, {3, 3, 3, 3, 3});
  TestTensor five_long = zeros<int64_t>({5});
  ASSERT_TRUE(ok(run_pow(bases, cubes, five_long)));
  EXPECT_EQ(five_long.values<int64_t>(), (std::vector<int64_t>{8, -27, 0, 1, -1}));
}

TEST(Pow, FloatSpecialValues) {
  const float r2 = std::sqrt(2.0f);
  TestTensor x = make_tensor<float>({11}, {0, -0.0f, 1, -1, kNaN, kInf, -kInf, -8, 2, 0.5f, -2});
  TestTensor out = zeros<float>({11});
  // Known PyTorch results for each exponent.
  ASSERT_TRUE(ok(run_pow(x, EValue(0.5), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {0, -0.0f, 1, kNaN, kNaN, kInf, kNaN, kNaN, r2, 1 / r2, kNaN}, 1e-7f));
  EXPECT_TRUE(std::signbit(out.values<float>()[1]));
  ASSERT_TRUE(ok(run_pow(x, EValue(-0.5), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, -kInf, 1, kNaN, kNaN, 0, kNaN, kNaN, 1 / r2, r2, kNaN}, 1e-7f));
  ASSERT_TRUE(ok(run_pow(x, EValue(int64_t{3}), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {0, -0.0f, 1, -1, kNaN, kInf, -kInf, -512, 8, 0.125f, -8}, 0));
  ASSERT_TRUE(ok(run_pow(x, EValue(int64_t{-1}), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, -kInf, 1, -1, kNaN, 0, -0.0f, -0.125f, 0.5f, 2, -0.5f}, 0));
  ASSERT_TRUE(ok(run_pow(x, EValue(int64_t{-2}), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, kInf, 1, 1, kNaN, 0, 0, 0.015625f, 0.25f, 4, 0.25f}, 0));
  ASSERT_TRUE(ok(run_pow(x, EValue(1.0 / 3), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {0, 0, 1, kNaN, kNaN, kInf, kInf, kNaN, 1.2599211f, 0.7937005f, kNaN},
                       1e-6f));
  ASSERT_TRUE(ok(run_pow(x, EValue(int64_t{0}), out)));
  EXPECT_EQ(out.values<float>(), std::vector<float>(11, 1));  // NaN^0 = 1 too
  ASSERT_TRUE(ok(run_pow(x, EValue(true), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {0, -0.0f, 1, -1, kNaN, kInf, -kInf, -8, 2, 0.5f, -2}, 0));
  ASSERT_TRUE(ok(run_pow(x, EValue(-std::numeric_limits<double>::infinity()), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kInf, kInf, 1, 1, kNaN, 0, 0, 0, 0, kInf, 0}, 0));
  // Tensor exponents: 0^0 = 1, 1^NaN = 1, -8^(1/3) = NaN.
  TestTensor e = make_tensor<float>({11}, {0, kNaN, kNaN, kInf, 0, -0.0f, 0.5f, 1.0f / 3, -kInf, kInf, -kInf});
  ASSERT_TRUE(ok(run_pow(x, e, out)));
  EXPECT_TRUE(all_near(out.values<float>(), {1, kNaN, 1, 1, 1, 1, kInf, kNaN, 0, 0, 0}, 0));
}

TEST(Pow, AScalarExponentKeepsDoublePrecisionForFloat) {
  // 1e10 ** -1.95 = 10^-19.5; with -1.95 rounded to float it would be off by
  // 1e-6 relative.
  TestTensor x = make_tensor<float>({1}, {1e10f});
  TestTensor out = zeros<float>({1});
  ASSERT_TRUE(ok(run_pow(x, EValue(-1.95), out)));
  EXPECT_NEAR(out.values<float>()[0], 3.1622776601683794e-20, 4e-27);  // within a float ulp
  // A 0-dim double exponent tensor is cast to float like any operand.
  TestTensor e = make_tensor<double>({}, {-1.95});
  ASSERT_TRUE(ok(run_pow(x, e, out)));
  EXPECT_NEAR(out.values<float>()[0], std::pow(1e10, static_cast<double>(-1.95f)), 4e-27);
  EXPECT_GT(std::fabs(out.values<float>()[0] - 3.1622776601683794e-20), 1e-26);
}

TEST(Pow, ScalarExponentsPyTorchComputesAsProducts) {
  // 1.7f^3: x * x * x is 4.913000106811523 in float, while the correctly
  // rounded cube is 4.913000583648682; PyTorch gives the product. Likewise
  // 1.3f^-0.5 is 1 / sqrt(x) there.
  TestTensor x = make_tensor<float>({1}, {1.7f});
  TestTensor out = zeros<float>({1});
  ASSERT_TRUE(ok(run_pow(x, EValue(int64_t{3}), out)));
  EXPECT_EQ(out.values<float>(), std::vector<float>{4.913000106811523f});
  TestTensor y = make_tensor<float>({1}, {1.3f});
  ASSERT_TRUE(ok(run_pow(y, EValue(-0.5), out)));
  EXPECT_EQ(out.values<float>(), std::vector<float>{0.8770579695701599f});
}

TEST(Pow, IntegralTensorWithScalarExponent) {
  TestTensor a = make_tensor<int32_t>({3}, {2, -3, 0});
  TestTensor out = zeros<int32_t>({3});
  ASSERT_TRUE(ok(run_pow(a, EValue(int64_t{3}), out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{8, -27, 0}));
  ASSERT_TRUE(ok(run_pow(a, EValue(true), out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{2, -3, 0}));
  TestTensor floats = zeros<float>({3});
  ASSERT_TRUE(ok(run_pow(a, EValue(-1.0), floats)));  // a Double exponent makes it Float
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{0.5f, -1.0f / 3, kInf}));
  ASSERT_TRUE(ok(run_pow(a, EValue(int64_t{2}), floats)));  // int32 result cast to a Float out
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{4, 9, 0}));
  EXPECT_TRUE(failed_with(run_pow(a, EValue(int64_t{-1}), out), Error::InvalidArgument, "aten::pow.Tensor_Scalar_out",
                          "'exponent'"));
  EXPECT_TRUE(failed_with(run_pow(a, EValue(int64_t{1} << 40), out), Error::InvalidArgument,
                          "aten::pow.Tensor_Scalar_out", "'exponent'"));
  TestTensor empty = zeros<int64_t>({0});
  EXPECT_TRUE(failed_with(run_pow(empty, EValue(int64_t{-1}), empty), Error::InvalidArgument,
                          "aten::pow.Tensor_Scalar_out", "'exponent'"));
}

TEST(Pow, BoolBases) {
  TestTensor b = make_tensor<bool>({2}, {true, false});
  TestTensor bool_out = zeros<bool>({2});
  ASSERT_TRUE(ok(run_pow(b, EValue(true), bool_out)));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, false}));
  ASSERT_TRUE(ok(run_pow(b, EValue(false), bool_out)));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, true}));
  TestTensor longs = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_pow(b, EValue(int64_t{2}), longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(failed_with(run_pow(b, b, bool_out), Error::InvalidArgument, "aten::pow.Tensor_Tensor_out", "'self'"));
  TestTensor zero_dim = make_tensor<bool>({}, {true});
  EXPECT_TRUE(failed_with(run_pow(b, zero_dim, bool_out), Error::InvalidArgument, "aten::pow.Tensor_Tensor_out",
                          "'exponent'"));
}

TEST(Pow, ScalarBase) {
  TestTensor e = make_tensor<int32_t>({5}, {2, -3, 0, 1, -1});
  TestTensor ints = zeros<int32_t>({5});
  ASSERT_TRUE(ok(run_pow(EValue(int64_t{2}), e, ints)));
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{4, 0, 1, 2, 0}));
  TestTensor floats = zeros<float>({5});
  ASSERT_TRUE(ok(run_pow(EValue(2.0), e, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{4, 0.125f, 1, 2, 0.5f}));
  ASSERT_TRUE(ok(run_pow(EValue(int64_t{-1}), e, ints)));
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{1, -1, 1, -1, -1}));
  // The base wraps when cast to int32: 2^40 is 0 there.
  ASSERT_TRUE(ok(run_pow(EValue(int64_t{1} << 40), e, ints)));
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{0, 0, 1, 0, 0}));
  TestTensor b = make_tensor<bool>({2}, {true, false});
  TestTensor longs = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_pow(EValue(int64_t{2}), b, longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{2, 1}));
  TestTensor bools = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_pow(EValue(true), b, bools), Error::InvalidArgument, "aten::pow.Scalar_out", "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().none().tensor(b).tensor(bools).run("aten::pow.Scalar_out"),
                          Error::InvalidArgument, "aten::pow.Scalar_out", "'self'"));
  // PyTorch fills out with 1 for the base 1, whatever out's dtype.
  TestTensor any_out = zeros<bool>({5});
  ASSERT_TRUE(ok(run_pow(EValue(1.0), e, any_out)));
  EXPECT_EQ(any_out.values<bool>(), std::vector<bool>(5, true));
  EXPECT_TRUE(failed_with(run_pow(EValue(2.0), e, ints), Error::InvalidArgument, "aten::pow.Scalar_out", "'out'"));
  // 1^NaN = 1.
  TestTensor nan_exponent = make_tensor<float>({2}, {kNaN, kInf});
  TestTensor two = zeros<float>({2});
  ASSERT_TRUE(ok(run_pow(EValue(1.0), nan_exponent, two)));
  EXPECT_EQ(two.values<float>(), (std::vector<float>{1, 1}));
}

TEST(Pow, HalfUsesPowForEveryExponentAndBFloat16RoundsItsProducts) {
  const float inf = kInf;
  // Half: pow(-inf, 0.5) is inf and pow(-0, 0.5) is 0 (no sqrt).
  TestTensor h = make_16bit<runtime::Half>({3}, {-inf, -0.0f, 4});
  TestTensor h_out = zeros<runtime::Half>({3});
  ASSERT_TRUE(ok(run_pow(h, EValue(0.5), h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{inf, 0, 2}));
  EXPECT_FALSE(std::signbit(floats_of<runtime::Half>(h_out)[1]));
  // BFloat16 takes sqrt (so NaN and -0 here), and rounds x * x before the
  // cube's last product: -8.3125^3 = -574.4 would round to -576, but
  // bfloat16(69.1) * -8.3125 gives -572 (PyTorch's result).
  TestTensor bf = make_16bit<runtime::BFloat16>({3}, {-inf, -0.0f, -8.3125f});
  TestTensor bf_out = zeros<runtime::BFloat16>({3});
  ASSERT_TRUE(ok(run_pow(bf, EValue(0.5), bf_out)));
  EXPECT_TRUE(std::isnan(floats_of<runtime::BFloat16>(bf_out)[0]));
  EXPECT_TRUE(std::signbit(floats_of<runtime::BFloat16>(bf_out)[1]));
  ASSERT_TRUE(ok(run_pow(bf, EValue(int64_t{3}), bf_out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf_out)[2], -572);
}

TEST(Pow, HalfAndBFloat16) {
  TestTensor h = make_16bit<runtime::Half>({2}, {1.1f, 300});
  TestTensor out = zeros<runtime::Half>({2});
  ASSERT_TRUE(ok(run_pow(h, EValue(int64_t{2}), out)));
  // The half 1.099609375 squared, rounded to half; 90000 overflows.
  EXPECT_EQ(floats_of<runtime::Half>(out), (std::vector<float>{1.208984375f, kInf}));
  // The exponent is rounded to half too: 10.0004 -> 10.
  TestTensor two = make_16bit<runtime::Half>({1}, {2});
  TestTensor one = zeros<runtime::Half>({1});
  ASSERT_TRUE(ok(run_pow(two, EValue(10.0004), one)));
  EXPECT_EQ(floats_of<runtime::Half>(one), std::vector<float>{1024});
  // ... with PyTorch's overflow check for Half (and BFloat16), not for float.
  EXPECT_TRUE(failed_with(run_pow(two, EValue(70000.0), one), Error::InvalidArgument, "aten::pow.Tensor_Scalar_out",
                          "'exponent'"));
  TestTensor f = make_tensor<float>({1}, {2});
  TestTensor f_out = zeros<float>({1});
  ASSERT_TRUE(ok(run_pow(f, EValue(1e300), f_out)));
  EXPECT_EQ(f_out.values<float>(), std::vector<float>{kInf});
  TestTensor bf = make_16bit<runtime::BFloat16>({2}, {1.5f, -2.5f});
  TestTensor bf_out = zeros<runtime::BFloat16>({2});
  EXPECT_TRUE(failed_with(run_pow(bf, EValue(1e300), bf_out), Error::InvalidArgument, "aten::pow.Tensor_Scalar_out",
                          "'exponent'"));
  ASSERT_TRUE(ok(run_pow(bf, bf, bf_out)));
  const std::vector<float> v = floats_of<runtime::BFloat16>(bf_out);
  EXPECT_NEAR(v[0], 1.8371173f, 0.01f);  // 1.5^1.5; bfloat16 keeps 8 bits
  EXPECT_TRUE(std::isnan(v[1]));
  ASSERT_TRUE(ok(run_pow(EValue(2.5), bf, bf_out)));
  EXPECT_NEAR(floats_of<runtime::BFloat16>(bf_out)[0], 3.952847f, 0.02f);
}

// ---- minimum, maximum ----

TEST(MinMax, NanPropagatesAndTiesReturnSelf) {
  TestTensor a = make_tensor<float>({5}, {1.5f, -2.5f, kNaN, -0.0f, 0});
  TestTensor b = make_tensor<float>({5}, {kNaN, 0, 1, 0, -0.0f});
  TestTensor out = zeros<float>({5});
  ASSERT_TRUE(ok(run_plain("aten::maximum.out", a, b, out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN, 0, kNaN, 0, 0}, 0));
  EXPECT_EQ(sign_bits(out.values<float>()), (std::vector<bool>{false, false, false, true, false}));
  ASSERT_TRUE(ok(run_plain("aten::minimum.out", a, b, out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN, -2.5f, kNaN, 0, 0}, 0));
  EXPECT_EQ(sign_bits(out.values<float>()), (std::vector<bool>{false, true, false, true, false}));
}

// The kernels promote as the compiler's meta rules do (one result_type in
// runtime/core): a float tensor with a complex 0-dim tensor is complex.
TEST(ResultType, AFloatTensorWithAComplexZeroDimTensorIsComplex) {
  const TestTensor floats(ScalarType::Float, {3});
  const TestTensor complex_scalar(ScalarType::ComplexDouble, {});
  ScalarType result = ScalarType::Bool;
  ASSERT_TRUE(util::result_type(floats.tensor(), complex_scalar.tensor(), &result));
  EXPECT_EQ(result, ScalarType::ComplexFloat);
  const TestTensor ints(ScalarType::Int, {3});
  const EValue number(2.5);
  const util::Operand operands[] = {util::Operand::of("self", ints.tensor()), util::Operand::of("other", number)};
  ASSERT_TRUE(util::result_type(operands, &result));
  EXPECT_EQ(result, ScalarType::Float);
}

TEST(MinMax, IntegersBoolsHalvesAndPromotion) {
  TestTensor a = make_tensor<int32_t>({3}, {5, -3, 0});
  TestTensor big = make_tensor<int64_t>({}, {(int64_t{1} << 32) + 1});  // 1 in int32
  TestTensor out = zeros<int32_t>({3});
  ASSERT_TRUE(ok(run_plain("aten::maximum.out", a, big, out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{5, 1, 1}));
  TestTensor half_scalar = make_tensor<float>({}, {1.5f});
  TestTensor floats = zeros<float>({3});
  ASSERT_TRUE(ok(run_plain("aten::minimum.out", a, half_scalar, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{1.5f, -3, 0}));
  TestTensor t = make_tensor<bool>({4}, {true, true, false, false});
  TestTensor f = make_tensor<bool>({4}, {true, false, true, false});
  TestTensor bools = zeros<bool>({4});
  ASSERT_TRUE(ok(run_plain("aten::maximum.out", t, f, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, true, true, false}));
  ASSERT_TRUE(ok(run_plain("aten::minimum.out", t, f, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, false, false, false}));
  TestTensor h = make_16bit<runtime::Half>({2}, {1.5f, -2.5f});
  TestTensor hb = make_16bit<runtime::Half>({2, 1}, {0, kNaN});
  TestTensor h_out = zeros<runtime::Half>({2, 2});
  ASSERT_TRUE(ok(run_plain("aten::maximum.out", h, hb, h_out)));
  EXPECT_TRUE(all_near(floats_of<runtime::Half>(h_out), {1.5f, 0, kNaN, kNaN}, 0));
  EXPECT_TRUE(failed_with(run_plain("aten::minimum.out", a, a, bools), Error::InvalidArgument, "aten::minimum.out",
                          "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
