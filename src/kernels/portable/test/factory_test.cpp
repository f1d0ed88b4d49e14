// full, zeros, ones, scalar_tensor, arange.start_out.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_full(const std::vector<int64_t>& size, const EValue& value, const TestTensor& out) {
  return KernelCall().int_list(size).value(value).tensor(out).run("aten::full.out");
}

template <typename T>
std::vector<float> as_floats(const TestTensor& t) {
  std::vector<float> result;
  for (T v : t.values<T>()) result.push_back(static_cast<float>(v));
  return result;
}

// ---- full ----

TEST(Full, ValueConvertsToOutsDtype) {
  TestTensor ints = zeros<int32_t>({2, 2});
  ASSERT_EQ(run_full({2, 2}, EValue(1.5), ints).failure_state(), Error::Ok);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{1, 1, 1, 1}));  // truncated toward zero
  TestTensor bytes = zeros<uint8_t>({2});
  ASSERT_EQ(run_full({2}, EValue(int64_t{-1}), bytes).failure_state(), Error::Ok);
  EXPECT_EQ(bytes.values<uint8_t>(), (std::vector<uint8_t>{255, 255}));  // torch wraps small negatives
  TestTensor flags = zeros<bool>({2});
  ASSERT_EQ(run_full({2}, EValue(2.5), flags).failure_state(), Error::Ok);
  EXPECT_EQ(flags.values<bool>(), (std::vector<bool>{true, true}));
  TestTensor halves = zeros<runtime::Half>({1});
  ASSERT_EQ(run_full({1}, EValue(65504.0), halves).failure_state(), Error::Ok);
  EXPECT_EQ(as_floats<runtime::Half>(halves), (std::vector<float>{65504}));
  TestTensor bf = zeros<runtime::BFloat16>({1});
  ASSERT_EQ(run_full({1}, EValue(int64_t{-70000}), bf).failure_state(), Error::Ok);
  EXPECT_EQ(as_floats<runtime::BFloat16>(bf), (std::vector<float>{-70144}));
  TestTensor floats = zeros<float>({1});
  ASSERT_EQ(run_full({1}, EValue(std::numeric_limits<double>::infinity()), floats).failure_state(), Error::Ok);
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{std::numeric_limits<float>::infinity()}));
  TestTensor from_bool = zeros<double>({1});
  ASSERT_EQ(run_full({1}, EValue(true), from_bool).failure_state(), Error::Ok);
  EXPECT_EQ(from_bool.values<double>(), (std::vector<double>{1}));
}

TEST(Full, RangeLimitsAsPyTorchChecksThem) {
  // A Double into an integer type must lie in [lowest, max + 1).
  TestTensor chars = zeros<int8_t>({1});
  EXPECT_EQ(run_full({1}, EValue(127.9), chars).failure_state(), Error::Ok);
  EXPECT_EQ(chars.values<int8_t>(), (std::vector<int8_t>{127}));
  EXPECT_NE(run_full({1}, EValue(128.0), chars).failure_state(), Error::Ok);
  EXPECT_NE(run_full({1}, EValue(-128.5), chars).failure_state(), Error::Ok);
  TestTensor longs = zeros<int64_t>({1});
  EXPECT_EQ(run_full({1}, EValue(-9223372036854775808.0), longs).failure_state(), Error::Ok);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
  EXPECT_NE(run_full({1}, EValue(9223372036854775808.0), longs).failure_state(), Error::Ok);
  // An Int into a floating type always fits (and may round to infinity).
  TestTensor halves = zeros<runtime::Half>({1});
  ASSERT_EQ(run_full({1}, EValue(int64_t{70000}), halves).failure_state(), Error::Ok);
  EXPECT_EQ(as_floats<runtime::Half>(halves), (std::vector<float>{std::numeric_limits<float>::infinity()}));
}

TEST(Full, ShapesAndDynamicOut) {
  TestTensor scalar = zeros<float>({});
  ASSERT_EQ(run_full({}, EValue(2.5), scalar).failure_state(), Error::Ok);
  EXPECT_EQ(scalar.values<float>(), (std::vector<float>{2.5}));
  TestTensor empty = zeros<float>({2, 0});
  EXPECT_EQ(run_full({2, 0}, EValue(1.0), empty).failure_state(), Error::Ok);
  TestTensor bounded = zeros<int64_t>({3, 2}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_full({2, 3}, EValue(int64_t{7}), bounded).failure_state(), Error::Ok);
  EXPECT_EQ(bounded.sizes(), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(bounded.values<int64_t>(), std::vector<int64_t>(6, 7));
}

TEST(Full, Errors) {
  const char* op = "aten::full.out";
  TestTensor bytes = zeros<uint8_t>({2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(int64_t{300}), bytes), Error::InvalidArgument, op, "'fill_value'"));
  EXPECT_TRUE(failed_with(run_full({2}, EValue(int64_t{-256}), bytes), Error::InvalidArgument, op, "'fill_value'"));
  EXPECT_TRUE(failed_with(run_full({2}, EValue(-0.5), bytes), Error::InvalidArgument, op, "'fill_value'"));
  TestTensor halves = zeros<runtime::Half>({2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(65520.0), halves), Error::InvalidArgument, op, "'fill_value'"));
  TestTensor bf = zeros<runtime::BFloat16>({2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(1e39), bf), Error::InvalidArgument, op, "'fill_value'"));
  TestTensor floats = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(1e300), floats), Error::InvalidArgument, op, "'fill_value'"));
  TestTensor ints = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(std::nan("")), ints), Error::InvalidArgument, op, "'fill_value'"));
  EXPECT_TRUE(failed_with(run_full({2, -1}, EValue(1.0), floats), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_full({3}, EValue(1.0), floats), Error::InvalidArgument, op, "'out'"));
  TestTensor unsigned_out(ScalarType::UInt32, {2});
  EXPECT_TRUE(failed_with(run_full({2}, EValue(1.0), unsigned_out), Error::NotSupported, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().int_list({2}).none().tensor(floats).run(op), Error::InvalidArgument, op,
                          "'fill_value'"));
}

// ---- zeros, ones ----

TEST(ZerosOnes, EveryDtypeGetsItsZeroAndOne) {
  TestTensor flags = make_tensor<bool>({2, 3}, std::vector<bool>(6, true));
  ASSERT_EQ(KernelCall().int_list({2, 3}).tensor(flags).run("aten::zeros.out").failure_state(), Error::Ok);
  EXPECT_EQ(flags.values<bool>(), std::vector<bool>(6, false));
  ASSERT_EQ(KernelCall().int_list({2, 3}).tensor(flags).run("aten::ones.out").failure_state(), Error::Ok);
  EXPECT_EQ(flags.values<bool>(), std::vector<bool>(6, true));
  TestTensor bf = zeros<runtime::BFloat16>({2});
  ASSERT_EQ(KernelCall().int_list({2}).tensor(bf).run("aten::ones.out").failure_state(), Error::Ok);
  EXPECT_EQ(bf.values<runtime::BFloat16>()[1].bits, 0x3f80);  // 1.0
  TestTensor halves = zeros<runtime::Half>({1});
  ASSERT_EQ(KernelCall().int_list({1}).tensor(halves).run("aten::ones.out").failure_state(), Error::Ok);
  EXPECT_EQ(halves.values<runtime::Half>()[0].bits, 0x3c00);
  TestTensor doubles = make_tensor<double>({2}, {5, 6});
  ASSERT_EQ(KernelCall().int_list({2}).tensor(doubles).run("aten::zeros.out").failure_state(), Error::Ok);
  EXPECT_EQ(doubles.values<double>(), (std::vector<double>{0, 0}));
  TestTensor scalar = zeros<int64_t>({});
  ASSERT_EQ(KernelCall().int_list({}).tensor(scalar).run("aten::ones.out").failure_state(), Error::Ok);
  EXPECT_EQ(scalar.values<int64_t>(), (std::vector<int64_t>{1}));
}

TEST(ZerosOnes, Errors) {
  TestTensor out = zeros<float>({2});
  EXPECT_TRUE(failed_with(KernelCall().int_list({3}).tensor(out).run("aten::zeros.out"), Error::InvalidArgument,
                          "aten::zeros.out", "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().int_list({-2}).tensor(out).run("aten::ones.out"), Error::InvalidArgument,
                          "aten::ones.out", "'size'"));
  EXPECT_TRUE(failed_with(KernelCall().scalar(int64_t{2}).tensor(out).run("aten::ones.out"), Error::InvalidArgument,
                          "aten::ones.out", "'size'"));
}

// ---- scalar_tensor ----

TEST(Empty, IsZerosOfTheSizeWhateverTheFormatOrStrides) {
  TestTensor out = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(KernelCall().int_list({2, 3}).none().tensor(out).run("aten::empty.out").failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>(6, 0.0f)));
  TestTensor strided = make_tensor<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(KernelCall().int_list({3, 2}).int_list({1, 3}).tensor(strided).run("aten::empty_strided.out").failure_state(),
            Error::Ok);
  EXPECT_EQ(strided.values<int64_t>(), (std::vector<int64_t>(6, 0)));
  EXPECT_EQ(KernelCall().int_list({3, 2}).int_list({1}).tensor(strided).run("aten::empty_strided.out").failure_state(),
            Error::InvalidArgument);  // a stride per dim
  EXPECT_EQ(KernelCall().int_list({-1}).none().tensor(out).run("aten::empty.out").failure_state(), Error::InvalidArgument);
}

TEST(ScalarTensor, ConvertsAndChecks) {
  const char* op = "aten::scalar_tensor.out";
  TestTensor ints = zeros<int32_t>({});
  ASSERT_EQ(KernelCall().scalar(2.7).tensor(ints).run(op).failure_state(), Error::Ok);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{2}));
  TestTensor floats = zeros<float>({});
  ASSERT_EQ(KernelCall().scalar(true).tensor(floats).run(op).failure_state(), Error::Ok);
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{1}));
  TestTensor chars = zeros<int8_t>({});
  EXPECT_TRUE(failed_with(KernelCall().scalar(int64_t{300}).tensor(chars).run(op), Error::InvalidArgument, op, "'s'"));
  TestTensor vector = zeros<float>({2});
  EXPECT_TRUE(failed_with(KernelCall().scalar(1.0).tensor(vector).run(op), Error::InvalidArgument, op, "'out'"));
}

// ---- arange.start_out ----

KernelRuntimeContext run_arange(const EValue& start, const EValue& end, const EValue& step, const TestTensor& out) {
  return KernelCall().value(start).value(end).value(step).tensor(out).run("aten::arange.start_out");
}

EValue I(int64_t v) { return EValue(v); }
EValue D(double v) { return EValue(v); }

TEST(Arange, IntegerSteps) {
  TestTensor out = zeros<int64_t>({4});
  ASSERT_EQ(run_arange(I(-5), I(5), I(3), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{-5, -2, 1, 4}));
  ASSERT_EQ(run_arange(I(10), I(0), I(-3), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{10, 7, 4, 1}));
  TestTensor ints = zeros<int32_t>({4});
  ASSERT_EQ(run_arange(I(-5), D(5.5), I(3), ints).failure_state(), Error::Ok);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{-5, -2, 1, 4}));
}

TEST(Arange, LengthIsExactInInt64ForIntArguments) {
  // 2^60 + 5 is not a double, so the double formula would give 0 elements.
  const int64_t big = int64_t{1} << 60;
  TestTensor out = zeros<int64_t>({3});
  ASSERT_EQ(run_arange(I(big), I(big + 5), I(2), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{big, big + 2, big + 4}));
  TestTensor two = zeros<int64_t>({2});
  const int64_t huge = int64_t{1} << 62;
  ASSERT_EQ(run_arange(I(huge), I(huge + (huge >> 1)), I(int64_t{1} << 60), two).failure_state(), Error::Ok);
  EXPECT_EQ(two.values<int64_t>(), (std::vector<int64_t>{huge, huge + (int64_t{1} << 60)}));
}

TEST(Arange, FractionalArgumentsWithIntegerOuts) {
  // torch: arange(0.5, 3, 1, out=int32) = [0, 1, 2]: start truncates, the length comes from doubles.
  TestTensor ints = zeros<int32_t>({3});
  ASSERT_EQ(run_arange(D(0.5), I(3), I(1), ints).failure_state(), Error::Ok);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{0, 1, 2}));
  // torch: arange(0, 3.5, 0.5, out=int64) has 7 elements, all 0 (the step truncates to 0).
  TestTensor zeros7 = make_tensor<int64_t>({7}, std::vector<int64_t>(7, 9));
  ASSERT_EQ(run_arange(I(0), D(3.5), D(0.5), zeros7).failure_state(), Error::Ok);
  EXPECT_EQ(zeros7.values<int64_t>(), std::vector<int64_t>(7, 0));
  // Values wrap into a narrow type: arange(0, 300, out=int8) ends 41, 42, 43.
  TestTensor chars = zeros<int8_t>({300});
  ASSERT_EQ(run_arange(I(0), I(300), I(1), chars).failure_state(), Error::Ok);
  EXPECT_EQ(chars.values<int8_t>()[299], 43);
  EXPECT_EQ(chars.values<int8_t>()[128], -128);
  // Bool arguments are numbers but not Ints: arange(True, 3) = [1, 2].
  TestTensor from_bool = zeros<int64_t>({2});
  ASSERT_EQ(run_arange(EValue(true), I(3), I(1), from_bool).failure_state(), Error::Ok);
  EXPECT_EQ(from_bool.values<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(Arange, FloatingOuts) {
  TestTensor quarters = zeros<float>({4});
  ASSERT_EQ(run_arange(I(0), I(1), D(0.25), quarters).failure_state(), Error::Ok);
  EXPECT_EQ(quarters.values<float>(), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  TestTensor down = zeros<double>({3});
  ASSERT_EQ(run_arange(D(1.5), D(-1.5), I(-1), down).failure_state(), Error::Ok);
  EXPECT_EQ(down.values<double>(), (std::vector<double>{1.5, 0.5, -0.5}));
  // torch: arange(0, 1, 0.1, dtype=float16) (values within a half ulp).
  TestTensor tenths = zeros<runtime::Half>({10});
  ASSERT_EQ(run_arange(I(0), I(1), D(0.1), tenths).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(as_floats<runtime::Half>(tenths),
                       {0.0f, 0.1f, 0.2f, 0.3f, 0.3999f, 0.5f, 0.6001f, 0.7002f, 0.7998f, 0.8999f}, 5e-4f));
  TestTensor bf = zeros<runtime::BFloat16>({3});
  ASSERT_EQ(run_arange(I(0), I(3), I(1), bf).failure_state(), Error::Ok);
  EXPECT_EQ(as_floats<runtime::BFloat16>(bf), (std::vector<float>{0, 1, 2}));
  // A length that is not whole rounds up: ceil(3.5 / 1.5) = 3.
  TestTensor three = zeros<double>({3});
  ASSERT_EQ(run_arange(I(0), D(3.5), D(1.5), three).failure_state(), Error::Ok);
  EXPECT_EQ(three.values<double>(), (std::vector<double>{0, 1.5, 3}));
}

TEST(Arange, EmptyAndDynamicOut) {
  TestTensor empty = zeros<float>({0});
  EXPECT_EQ(run_arange(I(1), I(1), I(-1), empty).failure_state(), Error::Ok);
  TestTensor bounded = zeros<float>({8}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_arange(I(0), I(5), I(1), bounded).failure_state(), Error::Ok);
  EXPECT_EQ(bounded.sizes(), (std::vector<SizesType>{5}));
}

TEST(Arange, Errors) {
  const char* op = "aten::arange.start_out";
  TestTensor out = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_arange(I(0), I(1), I(0), out), Error::InvalidArgument, op, "'step'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), I(1), D(0.0), out), Error::InvalidArgument, op, "'step'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), I(1), I(-1), out), Error::InvalidArgument, op, "'step'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), D(std::numeric_limits<double>::infinity()), I(1), out),
                          Error::InvalidArgument, op, "'end'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), D(std::nan("")), I(1), out), Error::InvalidArgument, op, "'end'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), I(5), I(1), out), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(run_arange(I(0), D(1e12), I(1), out), Error::InvalidArgument, op, "'end'"));
  TestTensor longs = zeros<int64_t>({3});
  EXPECT_TRUE(failed_with(run_arange(D(0), D(1e30), D(1e29), longs), Error::InvalidArgument, op, "'start'"));
  TestTensor flags = zeros<bool>({1});
  EXPECT_TRUE(failed_with(run_arange(I(0), I(1), I(1), flags), Error::NotSupported, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().none().value(I(1)).value(I(1)).tensor(out).run(op), Error::InvalidArgument, op,
                          "'start'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
