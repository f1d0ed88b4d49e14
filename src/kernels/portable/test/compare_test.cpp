// Comparisons (eq, ne, lt, le, gt, ge), logical and/or/xor/not, bitwise
// not/and/or.
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/portable/test/elementwise_test_util.h"
#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run(const char* op, const TestTensor& a, const TestTensor& b, const TestTensor& out) {
  return KernelCall().tensor(a).tensor(b).tensor(out).run(op);
}
KernelRuntimeContext run(const char* op, const TestTensor& a, const EValue& b, const TestTensor& out) {
  return KernelCall().tensor(a).value(b).tensor(out).run(op);
}

// ---- comparisons ----

TEST(Compare, AllSixWithNanAndSignedZero) {
  TestTensor x = make_tensor<float>({4}, {1, kNaN, -0.0f, 2});
  TestTensor y = make_tensor<float>({4}, {1, kNaN, 0, kNaN});
  TestTensor out = zeros<bool>({4});
  const struct {
    const char* op;
    std::vector<bool> expected;
  } cases[] = {
      {"aten::eq.Tensor_out", {true, false, true, false}}, {"aten::ne.Tensor_out", {false, true, false, true}},
      {"aten::lt.Tensor_out", {false, false, false, false}}, {"aten::le.Tensor_out", {true, false, true, false}},
      {"aten::gt.Tensor_out", {false, false, false, false}}, {"aten::ge.Tensor_out", {true, false, true, false}},
  };
  for (const auto& c : cases) {
    ASSERT_TRUE(ok(run(c.op, x, y, out))) << c.op;
    EXPECT_EQ(out.values<bool>(), c.expected) << c.op;
  }
  TestTensor a = make_tensor<int32_t>({3}, {1, 2, 3});
  TestTensor b = make_tensor<int32_t>({3}, {2, 2, 2});
  TestTensor three = zeros<bool>({3});
  const struct {
    const char* op;
    std::vector<bool> expected;
  } int_cases[] = {
      {"aten::eq.Tensor_out", {false, true, false}}, {"aten::ne.Tensor_out", {true, false, true}},
      {"aten::lt.Tensor_out", {true, false, false}}, {"aten::le.Tensor_out", {true, true, false}},
      {"aten::gt.Tensor_out", {false, false, true}}, {"aten::ge.Tensor_out", {false, true, true}},
  };
  for (const auto& c : int_cases) {
    ASSERT_TRUE(ok(run(c.op, a, b, three))) << c.op;
    EXPECT_EQ(three.values<bool>(), c.expected) << c.op;
  }
}

TEST(Compare, ScalarOverloadsCompareInThePromotedDtype) {
  TestTensor ints = make_tensor<int32_t>({3}, {1, 2, 3});
  TestTensor out = zeros<bool>({3});
  const struct {
    const char* op;
    std::vector<bool> expected;
  } cases[] = {
      {"aten::eq.Scalar_out", {false, true, false}}, {"aten::ne.Scalar_out", {true, false, true}},
      {"aten::lt.Scalar_out", {true, false, false}}, {"aten::le.Scalar_out", {true, true, false}},
      {"aten::gt.Scalar_out", {false, false, true}}, {"aten::ge.Scalar_out", {false, true, true}},
  };
  for (const auto& c : cases) {
    ASSERT_TRUE(ok(run(c.op, ints, EValue(int64_t{2}), out))) << c.op;
    EXPECT_EQ(out.values<bool>(), c.expected) << c.op;
  }
  // int32 < 2.5 compares in float; NaN is unequal to everything.
  ASSERT_TRUE(ok(run("aten::lt.Scalar_out", ints, EValue(2.5), out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, true, false}));
  ASSERT_TRUE(ok(run("aten::ne.Scalar_out", ints, EValue(std::nan("")), out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, true, true}));
  // Bool with an Int compares as Long (true < 2), with a Bool as Bool.
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor two = zeros<bool>({2});
  ASSERT_TRUE(ok(run("aten::lt.Scalar_out", bools, EValue(int64_t{2}), two)));
  EXPECT_EQ(two.values<bool>(), (std::vector<bool>{true, true}));
  ASSERT_TRUE(ok(run("aten::lt.Scalar_out", bools, EValue(true), two)));
  EXPECT_EQ(two.values<bool>(), (std::vector<bool>{false, true}));
  // An Int number is cast to the tensor's int32 (wrapping); a Double one
  // makes the comparison Float, where 2^53 + 1 is 2^53.
  TestTensor zero = make_tensor<int32_t>({1}, {0});
  TestTensor one = zeros<bool>({1});
  ASSERT_TRUE(ok(run("aten::eq.Scalar_out", zero, EValue(int64_t{1} << 40), one)));
  EXPECT_EQ(one.values<bool>(), std::vector<bool>{true});
  TestTensor big = make_tensor<int64_t>({1}, {(int64_t{1} << 53) + 1});
  ASSERT_TRUE(ok(run("aten::gt.Scalar_out", big, EValue(int64_t{1} << 53), one)));
  EXPECT_EQ(one.values<bool>(), std::vector<bool>{true});
  ASSERT_TRUE(ok(run("aten::gt.Scalar_out", big, EValue(std::ldexp(1.0, 53)), one)));
  EXPECT_EQ(one.values<bool>(), std::vector<bool>{false});
  // 0.1 becomes the float 0.1f, as the number is cast to the tensor's dtype.
  TestTensor floats = make_tensor<float>({3}, {0.1f, 0.2f, 2});
  ASSERT_TRUE(ok(run("aten::eq.Scalar_out", floats, EValue(0.1), out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false, false}));
}

TEST(Compare, ZeroDimTensorsOnlyRaiseTheCategory) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 3});
  TestTensor big = make_tensor<int64_t>({}, {(int64_t{1} << 32) + 1});  // 1 in int32
  TestTensor out = zeros<bool>({2});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", ints, big, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor tenth = make_tensor<float>({1}, {0.1f});
  TestTensor tenth_d0 = make_tensor<double>({}, {0.1});
  TestTensor tenth_d1 = make_tensor<double>({1}, {0.1});
  TestTensor one = zeros<bool>({1});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", tenth, tenth_d0, one)));  // compared as float
  EXPECT_EQ(one.values<bool>(), std::vector<bool>{true});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", tenth, tenth_d1, one)));  // compared as double
  EXPECT_EQ(one.values<bool>(), std::vector<bool>{false});
}

TEST(Compare, HalfAndBFloat16) {
  TestTensor h = make_16bit<runtime::Half>({1}, {0.1f});
  TestTensor bf = make_16bit<runtime::BFloat16>({1}, {0.1f});
  TestTensor f = make_tensor<float>({1}, {0.1f});
  TestTensor out = zeros<bool>({1});
  ASSERT_TRUE(ok(run("aten::eq.Scalar_out", h, EValue(0.1), out)));  // 0.1 rounded to half first
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{true});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", h, bf, out)));  // compared as float
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{false});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", h, f, out)));
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{false});
  TestTensor k = make_16bit<runtime::Half>({1}, {1024});
  ASSERT_TRUE(ok(run("aten::lt.Scalar_out", k, EValue(1024.3), out)));  // 1024.3 is the half 1024
  EXPECT_EQ(out.values<bool>(), std::vector<bool>{false});
  TestTensor bf_row = make_16bit<runtime::BFloat16>({3}, {-1, 0, 1});
  TestTensor three = zeros<bool>({3});
  ASSERT_TRUE(ok(run("aten::ge.Scalar_out", bf_row, EValue(int64_t{0}), three)));
  EXPECT_EQ(three.values<bool>(), (std::vector<bool>{false, true, true}));
}

TEST(Compare, AnyOutDtypeGetsZeroOrOne) {
  TestTensor a = make_tensor<float>({2}, {1, 2});
  TestTensor b = make_tensor<float>({2}, {1, 3});
  TestTensor floats = zeros<float>({2});
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", a, b, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{1, 0}));
  TestTensor ints = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run("aten::lt.Tensor_out", a, b, ints)));
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{0, 1}));
  TestTensor halves = zeros<runtime::Half>({2});
  ASSERT_TRUE(ok(run("aten::lt.Scalar_out", a, EValue(int64_t{2}), halves)));
  EXPECT_EQ(floats_of<runtime::Half>(halves), (std::vector<float>{1, 0}));
  TestTensor longs = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run("aten::eq.Scalar_out", a, EValue(int64_t{2}), longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{0, 1}));
}

TEST(Compare, BroadcastsSizeZeroAndNonContiguous) {
  TestTensor column = make_tensor<int64_t>({2, 1}, {1, 2});
  TestTensor row = make_tensor<int64_t>({3}, {0, 1, 2});
  TestTensor out = zeros<bool>({3, 3}, TensorShapeDynamism::DynamicBound);
  ASSERT_TRUE(ok(run("aten::eq.Tensor_out", column, row, out)));
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, false, false, false, true}));
  TestTensor empty = zeros<int64_t>({2, 0});
  TestTensor empty_out = zeros<bool>({2, 0});
  ASSERT_TRUE(ok(run("aten::gt.Tensor_out", column, empty, empty_out)));
  // Column-major self and out: logical [[1, 2, 3], [4, 5, 6]] > 2.5.
  TestTensor t(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  t.set<float>({1, 4, 2, 5, 3, 6});
  TestTensor t_out(ScalarType::Bool, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_TRUE(ok(run("aten::gt.Scalar_out", t, EValue(2.5), t_out)));
  EXPECT_EQ(t_out.logical_values<bool>(), (std::vector<bool>{false, false, true, true, true, true}));
}

TEST(Compare, EveryOpGivesTheSameValuesInAColumnMajorLayout) {
  // Logical [2, 3] self and a [3] other; the row-major results are checked
  // against known values in the tests of each op.
  const std::vector<int32_t> self_values = {1, 0, 3, -4, 5, 6};
  TestTensor row_self = make_tensor<int32_t>({2, 3}, self_values);
  TestTensor col_self = column_major<int32_t>(2, 3, self_values);
  TestTensor other = make_tensor<int32_t>({3}, {1, 5, 6});
  const char* ops[] = {"aten::eq.Tensor_out",    "aten::ne.Tensor_out",   "aten::lt.Tensor_out",
                       "aten::le.Tensor_out",    "aten::gt.Tensor_out",   "aten::ge.Tensor_out",
                       "aten::logical_and.out",  "aten::logical_or.out",  "aten::logical_xor.out",
                       "aten::bitwise_and.Tensor_out", "aten::bitwise_or.Tensor_out"};
  for (const char* op : ops) {
    TestTensor row_out = zeros<int32_t>({2, 3});
    TestTensor col_out(ScalarType::Int, {2, 3}, TensorShapeDynamism::Static, {1, 0});
    ASSERT_TRUE(ok(run(op, row_self, other, row_out))) << op;
    ASSERT_TRUE(ok(run(op, col_self, other, col_out))) << op;
    EXPECT_EQ(col_out.logical_values<int32_t>(), row_out.values<int32_t>()) << op;
  }
}

TEST(Compare, Errors) {
  TestTensor a = make_tensor<int64_t>({2}, {1, 2});
  TestTensor b = make_tensor<int64_t>({3}, {1, 2, 3});
  TestTensor out = zeros<bool>({2});
  auto ctx = run("aten::eq.Tensor_out", a, b, out);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::eq.Tensor_out", "'self'"));
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::eq.Tensor_out", "'other'"));
  TestTensor bytes(ScalarType::Byte, {2});
  EXPECT_TRUE(failed_with(run("aten::lt.Tensor_out", bytes, a, out), Error::InvalidArgument, "aten::lt.Tensor_out",
                          "'self'"));
  EXPECT_TRUE(failed_with(run("aten::lt.Tensor_out", a, a, bytes), Error::InvalidArgument, "aten::lt.Tensor_out",
                          "'out'"));
  TestTensor small = zeros<bool>({1});
  EXPECT_TRUE(failed_with(run("aten::ge.Scalar_out", a, EValue(int64_t{1}), small), Error::InvalidArgument,
                          "aten::ge.Scalar_out", "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).none().tensor(out).run("aten::ne.Scalar_out"), Error::InvalidArgument,
                          "aten::ne.Scalar_out", "'other'"));
  EXPECT_TRUE(failed_with(run("aten::le.Tensor_out", a, EValue(int64_t{1}), out), Error::InvalidArgument,
                          "aten::le.Tensor_out", "'other'"));
}

// ---- logical ----

TEST(Logical, TruthValuesOfAnyDtypes) {
  TestTensor floats = make_tensor<float>({4}, {0, kNaN, 2, -0.0f});
  TestTensor longs = make_tensor<int64_t>({4}, {1, 1, 0, 1});
  TestTensor out = zeros<bool>({4});
  ASSERT_TRUE(ok(run("aten::logical_and.out", floats, longs, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, false, false}));
  TestTensor ints = make_tensor<int32_t>({4}, {0, 0, 0, 1});
  TestTensor zeros_f = make_tensor<float>({4}, {0, kNaN, 0, -0.0f});
  ASSERT_TRUE(ok(run("aten::logical_or.out", zeros_f, ints, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, false, true}));
  TestTensor bools = make_tensor<bool>({4}, {true, true, false, false});
  ASSERT_TRUE(ok(run("aten::logical_xor.out", floats, bools, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false, true, false}));
  TestTensor h = make_16bit<runtime::Half>({2}, {0, 1});
  TestTensor bf = make_16bit<runtime::BFloat16>({2}, {0.5f, 0.5f});
  TestTensor two = zeros<bool>({2});
  ASSERT_TRUE(ok(run("aten::logical_and.out", h, bf, two)));
  EXPECT_EQ(two.values<bool>(), (std::vector<bool>{false, true}));
}

TEST(Logical, OperandsAreCastToThePromotedDtypeFirst) {
  // 2^40 is 0 as an int32, and 1e-50 is 0 as a float (PyTorch's results).
  TestTensor ints = make_tensor<int32_t>({2}, {1, 0});
  TestTensor big = make_tensor<int64_t>({}, {int64_t{1} << 40});
  TestTensor out = zeros<bool>({2});
  ASSERT_TRUE(ok(run("aten::logical_and.out", ints, big, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, false}));
  ASSERT_TRUE(ok(run("aten::logical_xor.out", ints, big, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor floats = make_tensor<float>({2}, {1, 0});
  TestTensor tiny = make_tensor<double>({}, {1e-50});
  ASSERT_TRUE(ok(run("aten::logical_or.out", floats, tiny, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor tiny_1d = make_tensor<double>({1}, {1e-50});  // with dims: compared as double
  ASSERT_TRUE(ok(run("aten::logical_or.out", floats, tiny_1d, out)));
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, true}));
}

TEST(Logical, OutDtypesAndBroadcasting) {
  TestTensor column = make_tensor<float>({2, 1}, {0, 1});
  TestTensor row = make_tensor<int64_t>({3}, {1, 0, 1});
  TestTensor floats = zeros<float>({2, 3});
  ASSERT_TRUE(ok(run("aten::logical_and.out", column, row, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{0, 0, 0, 1, 0, 1}));
  TestTensor halves = zeros<runtime::Half>({2, 3});
  ASSERT_TRUE(ok(run("aten::logical_or.out", column, row, halves)));
  EXPECT_EQ(floats_of<runtime::Half>(halves), (std::vector<float>{1, 0, 1, 1, 1, 1}));
  TestTensor longs = zeros<int64_t>({2, 3});
  ASSERT_TRUE(ok(run("aten::logical_xor.out", column, row, longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 0, 1, 0, 1, 0}));
  TestTensor empty = zeros<float>({0, 3});
  TestTensor empty_out = zeros<bool>({0, 3});
  EXPECT_TRUE(ok(run("aten::logical_and.out", empty, row, empty_out)));
}

TEST(Logical, Errors) {
  TestTensor a = zeros<float>({2});
  TestTensor b = zeros<float>({3});
  TestTensor out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run("aten::logical_and.out", a, b, out), Error::InvalidArgument, "aten::logical_and.out",
                          "'other'"));
  TestTensor bytes(ScalarType::Byte, {2});
  EXPECT_TRUE(failed_with(run("aten::logical_or.out", a, a, bytes), Error::InvalidArgument, "aten::logical_or.out",
                          "'out'"));
  EXPECT_TRUE(failed_with(run("aten::logical_xor.out", a, EValue(true), out), Error::InvalidArgument,
                          "aten::logical_xor.out", "'other'"));
}

TEST(LogicalNot, WritesZeroOrOneInOutsDtype) {
  TestTensor self = make_tensor<float>({4}, {0, -0.0f, 2, kNaN});
  TestTensor flags = zeros<bool>({4});
  auto ctx = KernelCall().tensor(self).tensor(flags).run("aten::logical_not.out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, true, false, false}));
  TestTensor ints = make_tensor<int64_t>({3}, {0, 5, -1});
  TestTensor as_float = zeros<float>({3});
  ctx = KernelCall().tensor(ints).tensor(as_float).run("aten::logical_not.out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(as_float.values<float>(), (std::vector<float>{1, 0, 0}));
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor as_int = zeros<int32_t>({2});
  ctx = KernelCall().tensor(bools).tensor(as_int).run("aten::logical_not.out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(as_int.values<int32_t>(), (std::vector<int32_t>{0, 1}));
  TestTensor h = make_16bit<runtime::Half>({2}, {0, 1});
  TestTensor as_half = zeros<runtime::Half>({2});
  ctx = KernelCall().tensor(h).tensor(as_half).run("aten::logical_not.out");
  ASSERT_TRUE(ok(ctx));
  EXPECT_EQ(floats_of<runtime::Half>(as_half), (std::vector<float>{1, 0}));
  TestTensor wrong = zeros<bool>({3});
  ctx = KernelCall().tensor(bools).tensor(wrong).run("aten::logical_not.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::logical_not.out", "'out'"));
}

// ---- bitwise ----

TEST(Bitwise, NotFlipsBitsAndNegatesBools) {
  TestTensor ints = make_tensor<int32_t>({3}, {0, -1, 5});
  TestTensor out = zeros<int32_t>({3});
  ASSERT_TRUE(ok(KernelCall().tensor(ints).tensor(out).run("aten::bitwise_not.out")));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{-1, 0, -6}));
  TestTensor longs = make_tensor<int64_t>({1}, {INT64_MAX});
  TestTensor long_out = zeros<int64_t>({1});
  ASSERT_TRUE(ok(KernelCall().tensor(longs).tensor(long_out).run("aten::bitwise_not.out")));
  EXPECT_EQ(long_out.values<int64_t>(), std::vector<int64_t>{INT64_MIN});
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor bool_out = zeros<bool>({2});
  ASSERT_TRUE(ok(KernelCall().tensor(bools).tensor(bool_out).run("aten::bitwise_not.out")));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{false, true}));
  // Out must have self's dtype; floating self is rejected.
  TestTensor wide = zeros<int64_t>({3});
  EXPECT_TRUE(failed_with(KernelCall().tensor(ints).tensor(wide).run("aten::bitwise_not.out"), Error::InvalidArgument,
                          "aten::bitwise_not.out", "'out'"));
  TestTensor floats = zeros<float>({3});
  EXPECT_TRUE(failed_with(KernelCall().tensor(floats).tensor(floats).run("aten::bitwise_not.out"),
                          Error::InvalidArgument, "aten::bitwise_not.out", "'self'"));
}

TEST(Bitwise, AndOrPromote) {
  TestTensor a = make_tensor<int32_t>({2}, {12, -1});
  TestTensor b = make_tensor<int32_t>({2}, {10, 7});
  TestTensor out = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run("aten::bitwise_and.Tensor_out", a, b, out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{8, 7}));
  TestTensor c = make_tensor<int32_t>({2}, {12, -8});
  TestTensor d = make_tensor<int32_t>({2}, {3, 7});
  ASSERT_TRUE(ok(run("aten::bitwise_or.Tensor_out", c, d, out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{15, -1}));
  // int32 with an int64 0-dim stays int32: 2^32 + 7 is 7 there.
  TestTensor big = make_tensor<int64_t>({}, {(int64_t{1} << 32) + 7});
  ASSERT_TRUE(ok(run("aten::bitwise_and.Tensor_out", a, big, out)));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{4, 7}));
  TestTensor t = make_tensor<bool>({2}, {true, false});
  TestTensor f = make_tensor<bool>({2}, {false, false});
  TestTensor bools = zeros<bool>({2});
  ASSERT_TRUE(ok(run("aten::bitwise_or.Tensor_out", t, f, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, false}));
  ASSERT_TRUE(ok(run("aten::bitwise_and.Tensor_out", t, t, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor fours = make_tensor<int64_t>({2, 1}, {4, 4});
  TestTensor longs = zeros<int64_t>({2, 2});
  ASSERT_TRUE(ok(run("aten::bitwise_or.Tensor_out", t, fours, longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{5, 4, 5, 4}));
  // Out may take any dtype the result casts to.
  TestTensor floats = zeros<float>({2});
  ASSERT_TRUE(ok(run("aten::bitwise_and.Tensor_out", a, b, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{8, 7}));
}

TEST(Bitwise, Errors) {
  TestTensor ints = make_tensor<int32_t>({1}, {1});
  TestTensor floats = make_tensor<float>({1}, {1});
  TestTensor out = zeros<int32_t>({1});
  EXPECT_TRUE(failed_with(run("aten::bitwise_or.Tensor_out", ints, floats, out), Error::InvalidArgument,
                          "aten::bitwise_or.Tensor_out", "'other'"));
  TestTensor halves = make_16bit<runtime::Half>({1}, {1});
  EXPECT_TRUE(failed_with(run("aten::bitwise_and.Tensor_out", halves, ints, out), Error::InvalidArgument,
                          "aten::bitwise_and.Tensor_out", "'self'"));
  TestTensor bools = zeros<bool>({1});
  EXPECT_TRUE(failed_with(run("aten::bitwise_and.Tensor_out", ints, ints, bools), Error::InvalidArgument,
                          "aten::bitwise_and.Tensor_out", "'out'"));
  TestTensor three = zeros<int32_t>({3});
  EXPECT_TRUE(failed_with(run("aten::bitwise_and.Tensor_out", three, zeros<int32_t>({2}), out), Error::InvalidArgument,
                          "aten::bitwise_and.Tensor_out", "'other'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
