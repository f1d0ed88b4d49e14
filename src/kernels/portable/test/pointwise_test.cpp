// where.self, clamp, masked_fill.Scalar and full_like.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/portable/test/elementwise_test_util.h"
#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

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

TEST(WhereSelf, HalfAndBFloat16) {
  TestTensor condition = make_tensor<bool>({2}, {true, false});
  TestTensor h = make_16bit<runtime::Half>({1}, {1});
  TestTensor d = make_tensor<double>({}, {2.5});
  TestTensor h_out = zeros<runtime::Half>({2});
  auto ctx = run_where(condition, h, d, h_out);  // a 0-dim double does not widen Half
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{1, 2.5f}));
  TestTensor bf = make_16bit<runtime::BFloat16>({2}, {3, 4});
  TestTensor f_out = zeros<float>({2});
  ctx = run_where(condition, h, bf, f_out);  // Half with BFloat16 is Float
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(f_out.values<float>(), (std::vector<float>{1, 4}));
}

TEST(FullLike, HalfAndBFloat16) {
  TestTensor self = zeros<float>({2});
  TestTensor h = zeros<runtime::Half>({2});
  auto ctx = KernelCall().tensor(self).scalar(3.3).none().tensor(h).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats_of<runtime::Half>(h), (std::vector<float>{3.30078125f, 3.30078125f}));
  TestTensor bf = zeros<runtime::BFloat16>({2});
  ctx = KernelCall().tensor(self).scalar(1e5).none().tensor(bf).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf), (std::vector<float>{99840, 99840}));
  // The value must fit, as PyTorch checks...
  ctx = KernelCall().tensor(self).scalar(1e5).none().tensor(h).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  ctx = KernelCall().tensor(self).scalar(1e40).none().tensor(bf).run("aten::full_like.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::full_like.out", "'fill_value'"));
  // ... except for a single 16-bit element, which it rounds to infinity.
  TestTensor one = zeros<float>({1});
  TestTensor h1 = zeros<runtime::Half>({1});
  ctx = KernelCall().tensor(one).scalar(1e5).none().tensor(h1).run("aten::full_like.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floats_of<runtime::Half>(h1), std::vector<float>{std::numeric_limits<float>::infinity()});
}

// ---- clamp ----

// clamp.out with Scalar bounds (an EValue() bound is None).
KernelRuntimeContext run_clamp(const TestTensor& self, const EValue& min, const EValue& max, const TestTensor& out) {
  return KernelCall().tensor(self).value(min).value(max).tensor(out).run("aten::clamp.out");
}

TEST(Clamp, ScalarBounds) {
  TestTensor ints = make_tensor<int32_t>({3}, {5, -3, 0});
  TestTensor int_out = zeros<int32_t>({3});
  ASSERT_TRUE(ok(run_clamp(ints, EValue(int64_t{-1}), EValue(int64_t{2}), int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{2, -1, 0}));
  // min > max: max wins.
  ASSERT_TRUE(ok(run_clamp(ints, EValue(int64_t{3}), EValue(int64_t{1}), int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{1, 1, 1}));
  ASSERT_TRUE(ok(run_clamp(ints, EValue(), EValue(true), int_out)));  // a Bool bound keeps int32
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{1, -3, 0}));
  // A Double bound makes the result Float.
  TestTensor floats = zeros<float>({3});
  ASSERT_TRUE(ok(run_clamp(ints, EValue(1.5), EValue(), floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{5, 1.5f, 1.5f}));
  // Bounds below an integral dtype's range saturate instead of wrapping.
  ASSERT_TRUE(ok(run_clamp(ints, EValue(-(int64_t{1} << 40)), EValue(int64_t{1} << 40), int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{5, -3, 0}));
  // Bool self with an Int bound is Long.
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor longs = zeros<int64_t>({2});
  ASSERT_TRUE(ok(run_clamp(bools, EValue(true), EValue(int64_t{1}), longs)));
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{1, 1}));
}

TEST(Clamp, NanInSelfOrABoundPropagates) {
  TestTensor x = make_tensor<float>({3}, {1.5f, -2.5f, kNaN});
  TestTensor out = zeros<float>({3});
  ASSERT_TRUE(ok(run_clamp(x, EValue(0.0), EValue(1.0), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {1, 0, kNaN}, 0));
  ASSERT_TRUE(ok(run_clamp(x, EValue(std::nan("")), EValue(1.0), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN, kNaN, kNaN}, 0));
  ASSERT_TRUE(ok(run_clamp(x, EValue(), EValue(std::nan("")), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {kNaN, kNaN, kNaN}, 0));
  const double inf = std::numeric_limits<double>::infinity();
  ASSERT_TRUE(ok(run_clamp(x, EValue(-inf), EValue(inf), out)));
  EXPECT_TRUE(all_near(out.values<float>(), {1.5f, -2.5f, kNaN}, 0));
  TestTensor ints = make_tensor<int32_t>({1}, {1});
  TestTensor one = zeros<float>({1});
  ASSERT_TRUE(ok(run_clamp(ints, EValue(std::nan("")), EValue(), one)));
  EXPECT_TRUE(std::isnan(one.values<float>()[0]));
}

TEST(Clamp, HalfRoundsTheBounds) {
  TestTensor h = make_16bit<runtime::Half>({2}, {1024, 2000});
  TestTensor out = zeros<runtime::Half>({2});
  // 1024.3 is the half 1024; 1024.6 is 1025.
  ASSERT_TRUE(ok(run_clamp(h, EValue(1024.3), EValue(), out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), (std::vector<float>{1024, 2000}));
  ASSERT_TRUE(ok(run_clamp(h, EValue(1024.6), EValue(int64_t{1500}), out)));
  EXPECT_EQ(floats_of<runtime::Half>(out), (std::vector<float>{1025, 1500}));
  TestTensor bf = make_16bit<runtime::BFloat16>({2}, {-3, 3});
  TestTensor bf_out = zeros<runtime::BFloat16>({2});
  ASSERT_TRUE(ok(run_clamp(bf, EValue(-1.0), EValue(1.0), bf_out)));
  EXPECT_EQ(floats_of<runtime::BFloat16>(bf_out), (std::vector<float>{-1, 1}));
}

TEST(Clamp, ScalarErrors) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor int_out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_clamp(ints, EValue(), EValue(), int_out), Error::InvalidArgument, "aten::clamp.out",
                          "'min'"));
  // A min above int32's range or a max below it has no int32 result.
  EXPECT_TRUE(failed_with(run_clamp(ints, EValue(int64_t{1} << 40), EValue(), int_out), Error::InvalidArgument,
                          "aten::clamp.out", "'min'"));
  EXPECT_TRUE(failed_with(run_clamp(ints, EValue(), EValue(-(int64_t{1} << 40)), int_out), Error::InvalidArgument,
                          "aten::clamp.out", "'max'"));
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor float_out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_clamp(floats, EValue(-1e300), EValue(), float_out), Error::InvalidArgument,
                          "aten::clamp.out", "'min'"));
  TestTensor h = make_16bit<runtime::Half>({2}, {1, 2});
  TestTensor h_out = zeros<runtime::Half>({2});
  EXPECT_TRUE(failed_with(run_clamp(h, EValue(), EValue(int64_t{70000}), h_out), Error::InvalidArgument,
                          "aten::clamp.out", "'max'"));
  TestTensor bools = make_tensor<bool>({2}, {true, false});
  TestTensor bool_out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_clamp(bools, EValue(false), EValue(true), bool_out), Error::InvalidArgument,
                          "aten::clamp.out", "'self'"));
  // clamp.out takes no cast: out must have the result dtype.
  TestTensor long_out = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(run_clamp(ints, EValue(int64_t{0}), EValue(), long_out), Error::InvalidArgument,
                          "aten::clamp.out", "'out'"));
  EXPECT_TRUE(failed_with(run_clamp(ints, EValue(1.5), EValue(), int_out), Error::InvalidArgument, "aten::clamp.out",
                          "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(ints).tensor(ints).none().tensor(int_out).run("aten::clamp.out"),
                          Error::InvalidArgument, "aten::clamp.out", "'min'"));
}

KernelRuntimeContext run_clamp_tensor(const TestTensor& self, const TestTensor* min, const TestTensor* max,
                                      const TestTensor& out) {
  KernelCall call;
  call.tensor(self);
  if (min != nullptr) call.tensor(*min); else call.none();
  if (max != nullptr) call.tensor(*max); else call.none();
  return call.tensor(out).run("aten::clamp.Tensor_out");
}

TEST(ClampTensor, BroadcastsTheBounds) {
  TestTensor x = make_tensor<float>({3}, {1, 2, 3});
  TestTensor lo = make_tensor<float>({2, 1}, {0, 2.5f});
  TestTensor out = zeros<float>({3, 3}, TensorShapeDynamism::DynamicBound);
  ASSERT_TRUE(ok(run_clamp_tensor(x, &lo, nullptr, out)));
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 2.5f, 2.5f, 3}));
  TestTensor hi = make_tensor<float>({}, {1.5f});
  TestTensor three = zeros<float>({3});
  ASSERT_TRUE(ok(run_clamp_tensor(x, nullptr, &hi, three)));
  EXPECT_EQ(three.values<float>(), (std::vector<float>{1, 1.5f, 1.5f}));
  // Per element: NaN bounds propagate, min > max gives max.
  TestTensor mins = make_tensor<float>({3}, {kNaN, 0, 5});
  TestTensor maxs = make_tensor<float>({3}, {5, kNaN, 1});
  ASSERT_TRUE(ok(run_clamp_tensor(x, &mins, &maxs, three)));
  EXPECT_TRUE(all_near(three.values<float>(), {kNaN, kNaN, 1}, 0));
  TestTensor empty = zeros<float>({0});
  TestTensor empty_out = zeros<float>({0});
  EXPECT_TRUE(ok(run_clamp_tensor(empty, &hi, &hi, empty_out)));
}

TEST(ClampTensor, PromotionAndOutCasting) {
  TestTensor ints = make_tensor<int32_t>({3}, {5, -3, 0});
  TestTensor f0 = make_tensor<float>({}, {1.5f});
  TestTensor floats = zeros<float>({3});
  ASSERT_TRUE(ok(run_clamp_tensor(ints, &f0, nullptr, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{5, 1.5f, 1.5f}));
  TestTensor big = make_tensor<int64_t>({}, {(int64_t{1} << 32) + 1});  // 1 in int32
  TestTensor int_out = zeros<int32_t>({3});
  ASSERT_TRUE(ok(run_clamp_tensor(ints, &big, nullptr, int_out)));
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{5, 1, 1}));
  TestTensor ones = make_tensor<int64_t>({3}, {1, 1, 1});
  TestTensor long_out = zeros<int64_t>({3});
  ASSERT_TRUE(ok(run_clamp_tensor(ints, nullptr, &ones, long_out)));
  EXPECT_EQ(long_out.values<int64_t>(), (std::vector<int64_t>{1, -3, 0}));
  TestTensor h = make_16bit<runtime::Half>({2}, {1.5f, -2.5f});
  TestTensor h_lo = make_16bit<runtime::Half>({2}, {2, -3});
  TestTensor h_out = zeros<runtime::Half>({2});
  ASSERT_TRUE(ok(run_clamp_tensor(h, &h_lo, nullptr, h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{2, -2.5f}));
  // Bool takes a single bound (clamp_min is or, clamp_max is and).
  TestTensor b = make_tensor<bool>({2}, {true, false});
  TestTensor c = make_tensor<bool>({2}, {false, true});
  TestTensor bools = zeros<bool>({2});
  ASSERT_TRUE(ok(run_clamp_tensor(b, &c, nullptr, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{true, true}));
  ASSERT_TRUE(ok(run_clamp_tensor(b, nullptr, &c, bools)));
  EXPECT_EQ(bools.values<bool>(), (std::vector<bool>{false, false}));
  // Unlike clamp.out, the Tensor overload casts to a wider out.
  TestTensor int_lo = make_tensor<int32_t>({1}, {2});
  ASSERT_TRUE(ok(run_clamp_tensor(ints, &int_lo, nullptr, floats)));
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{5, 2, 2}));
}

TEST(ClampTensor, ColumnMajorSelfAndOut) {
  // Logical [[1, 2, 3], [4, 5, 6]] clamped to [2, 5], with where picking self
  // or -1 by a column mask.
  TestTensor self = column_major<float>(2, 3, {1, 2, 3, 4, 5, 6});
  TestTensor lo = make_tensor<float>({}, {2});
  TestTensor hi = make_tensor<float>({1}, {5});
  TestTensor out(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_TRUE(ok(run_clamp_tensor(self, &lo, &hi, out)));
  EXPECT_EQ(out.logical_values<float>(), (std::vector<float>{2, 2, 3, 4, 5, 5}));
  TestTensor mask = make_tensor<bool>({3}, {true, false, true});
  TestTensor minus_one = make_tensor<float>({}, {-1});
  ASSERT_EQ(run_where(mask, self, minus_one, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.logical_values<float>(), (std::vector<float>{1, -1, 3, 4, -1, 6}));
}

TEST(ClampTensor, Errors) {
  TestTensor x = make_tensor<float>({3}, {1, 2, 3});
  TestTensor out = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_clamp_tensor(x, nullptr, nullptr, out), Error::InvalidArgument, "aten::clamp.Tensor_out",
                          "'min'"));
  TestTensor two = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_clamp_tensor(x, &x, &two, out), Error::InvalidArgument, "aten::clamp.Tensor_out",
                          "'max'"));
  TestTensor bools = make_tensor<bool>({3}, {true, false, true});
  TestTensor bool_out = zeros<bool>({3});
  EXPECT_TRUE(failed_with(run_clamp_tensor(bools, &bools, &bools, bool_out), Error::InvalidArgument,
                          "aten::clamp.Tensor_out", "'self'"));
  TestTensor int_out = zeros<int32_t>({3});
  EXPECT_TRUE(failed_with(run_clamp_tensor(x, &x, nullptr, int_out), Error::InvalidArgument, "aten::clamp.Tensor_out",
                          "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(x).scalar(1.0).none().tensor(out).run("aten::clamp.Tensor_out"),
                          Error::InvalidArgument, "aten::clamp.Tensor_out", "'min'"));
}

// ---- masked_fill ----

KernelRuntimeContext run_masked_fill(const TestTensor& self, const TestTensor& mask, const EValue& value,
                                     const TestTensor& out) {
  return KernelCall().tensor(self).tensor(mask).value(value).tensor(out).run("aten::masked_fill.Scalar_out");
}

TEST(MaskedFill, FillsWhereTheMaskIsTrue) {
  TestTensor x = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor row_mask = make_tensor<bool>({2}, {true, false});
  TestTensor out = zeros<float>({2, 2});
  ASSERT_TRUE(ok(run_masked_fill(x, row_mask, EValue(5.0), out)));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 2, 5, 4}));
  TestTensor all = make_tensor<bool>({}, {true});
  ASSERT_TRUE(ok(run_masked_fill(x, all, EValue(-std::numeric_limits<double>::infinity()), out)));
  EXPECT_EQ(out.values<float>(), std::vector<float>(4, -std::numeric_limits<float>::infinity()));
  // A larger mask broadcasts self, as PyTorch's out-of-place masked_fill.
  TestTensor v = make_tensor<float>({2}, {1, 2});
  TestTensor eye = make_tensor<bool>({2, 2}, {true, false, false, true});
  TestTensor grown = zeros<float>({3, 3}, TensorShapeDynamism::DynamicBound);
  ASSERT_TRUE(ok(run_masked_fill(v, eye, EValue(int64_t{5}), grown)));
  EXPECT_EQ(grown.sizes(), (std::vector<SizesType>{2, 2}));
  EXPECT_EQ(grown.values<float>(), (std::vector<float>{5, 2, 1, 5}));
  TestTensor empty = zeros<float>({0, 2});
  TestTensor empty_out = zeros<float>({0, 2});
  EXPECT_TRUE(ok(run_masked_fill(empty, row_mask, EValue(1.0), empty_out)));
}

TEST(MaskedFill, TheValueTakesSelfsDtype) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor mask = make_tensor<bool>({2}, {true, false});
  TestTensor int_out = zeros<int32_t>({2});
  ASSERT_TRUE(ok(run_masked_fill(ints, mask, EValue(-1.5), int_out)));  // truncated
  EXPECT_EQ(int_out.values<int32_t>(), (std::vector<int32_t>{-1, 2}));
  TestTensor bools = make_tensor<bool>({2}, {false, false});
  TestTensor bool_out = zeros<bool>({2});
  ASSERT_TRUE(ok(run_masked_fill(bools, mask, EValue(0.5), bool_out)));
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor h = make_16bit<runtime::Half>({2}, {1.5f, -2.5f});
  TestTensor h_out = zeros<runtime::Half>({2});
  ASSERT_TRUE(ok(run_masked_fill(h, mask, EValue(1024.3), h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{1024, -2.5f}));
  ASSERT_TRUE(ok(run_masked_fill(h, mask, EValue(int64_t{65504}), h_out)));
  EXPECT_EQ(floats_of<runtime::Half>(h_out), (std::vector<float>{65504, -2.5f}));
  // Column-major self and out.
  TestTensor t(ScalarType::Long, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  t.set<int64_t>({1, 3, 2, 4});  // logical [[1, 2], [3, 4]]
  TestTensor t_out(ScalarType::Long, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_TRUE(ok(run_masked_fill(t, mask, EValue(int64_t{0}), t_out)));
  EXPECT_EQ(t_out.logical_values<int64_t>(), (std::vector<int64_t>{0, 2, 0, 4}));
}

TEST(MaskedFill, Errors) {
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor mask = make_tensor<bool>({2}, {true, false});
  TestTensor int_out = zeros<int32_t>({2});
  const char* op = "aten::masked_fill.Scalar_out";
  EXPECT_TRUE(failed_with(run_masked_fill(ints, mask, EValue(int64_t{1} << 40), int_out), Error::InvalidArgument, op,
                          "'value'"));
  EXPECT_TRUE(failed_with(run_masked_fill(ints, mask, EValue(std::nan("")), int_out), Error::InvalidArgument, op,
                          "'value'"));
  TestTensor h = make_16bit<runtime::Half>({2}, {1, 2});
  TestTensor h_out = zeros<runtime::Half>({2});
  EXPECT_TRUE(failed_with(run_masked_fill(h, mask, EValue(int64_t{65505}), h_out), Error::InvalidArgument, op,
                          "'value'"));
  TestTensor floats = make_tensor<float>({2}, {1, 2});
  TestTensor float_out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_masked_fill(floats, mask, EValue(1e300), float_out), Error::InvalidArgument, op,
                          "'value'"));
  TestTensor int_mask = make_tensor<int32_t>({2}, {1, 0});
  EXPECT_TRUE(failed_with(run_masked_fill(floats, int_mask, EValue(1.0), float_out), Error::InvalidArgument, op,
                          "'mask'"));
  TestTensor double_out = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_masked_fill(floats, mask, EValue(1.0), double_out), Error::InvalidArgument, op, "'out'"));
  TestTensor three = make_tensor<bool>({3}, {true, false, true});
  EXPECT_TRUE(failed_with(run_masked_fill(floats, three, EValue(1.0), float_out), Error::InvalidArgument, op,
                          "'mask'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
