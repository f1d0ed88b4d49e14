// Unary math kernels: neg, abs, sign, floor, ceil, round, relu (same dtype)
// and exp, log, log1p, sqrt, rsqrt, reciprocal, erf, sigmoid, tanh, sin, cos,
// tan (floating). Expected values are closed forms or what PyTorch 2.15
// returns for the same inputs.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/test/unary_test_util.h"
#include "runtime/core/scalar_type.h"

namespace kiln::kernels::portable::testing {
namespace {

using runtime::BFloat16;
using runtime::Half;

KernelRuntimeContext run_unary(const char* op, const TestTensor& self, const TestTensor& out) {
  return KernelCall().tensor(self).tensor(out).run(op);
}

// Runs `op` on float `values` and returns out's values.
std::vector<float> run_float(const char* op, const std::vector<float>& values) {
  TestTensor self = make_tensor<float>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<float>({static_cast<SizesType>(values.size())});
  const auto ctx = run_unary(op, self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
  return out.values<float>();
}

std::vector<double> run_double(const char* op, const std::vector<double>& values) {
  TestTensor self = make_tensor<double>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<double>({static_cast<SizesType>(values.size())});
  const auto ctx = run_unary(op, self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
  return out.values<double>();
}

template <typename T>
std::vector<T> run_same(const char* op, const std::vector<T>& values) {
  TestTensor self = make_tensor<T>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<T>({static_cast<SizesType>(values.size())});
  const auto ctx = run_unary(op, self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
  return out.values<T>();
}

// Runs `op` on a Half or BFloat16 tensor holding `values`; out's values as floats.
template <typename H>
std::vector<float> run_16bit(const char* op, const std::vector<float>& values) {
  TestTensor self = make_16bit<H>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<H>({static_cast<SizesType>(values.size())});
  const auto ctx = run_unary(op, self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
  return floats_of<H>(out);
}

constexpr int32_t kMinInt = std::numeric_limits<int32_t>::min();
constexpr int32_t kMaxInt = std::numeric_limits<int32_t>::max();
constexpr int64_t kMinLong = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxLong = std::numeric_limits<int64_t>::max();

// ---------------------------------------------------------------------------
// Same-dtype ops

TEST(Neg, FloatFlipsTheSignOfEverything) {
  EXPECT_TRUE(same_values(run_float("aten::neg.out", {1.5f, -2.0f, 0.0f, -0.0f, kInf, -kInf, kNaN}),
                          {-1.5f, 2.0f, -0.0f, 0.0f, -kInf, kInf, kNaN}));
  EXPECT_TRUE(same_values(run_double("aten::neg.out", {0.1, -1e300}), {-0.1, 1e300}));
}

TEST(Neg, IntegersWrapAtTheMinimum) {
  EXPECT_EQ(run_same<int32_t>("aten::neg.out", {kMinInt, -5, 0, 7, kMaxInt}),
            (std::vector<int32_t>{kMinInt, 5, 0, -7, -kMaxInt}));
  EXPECT_EQ(run_same<int64_t>("aten::neg.out", {kMinLong, -5, 0, kMaxLong}),
            (std::vector<int64_t>{kMinLong, 5, 0, -kMaxLong}));
}

TEST(Neg, BoolIsRejected) {
  TestTensor self = make_tensor<bool>({2}, {true, false});
  TestTensor out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::neg.out", self, out), Error::InvalidArgument, "aten::neg.out", "'self'"));
}

TEST(Abs, FloatClearsTheSign) {
  EXPECT_TRUE(same_values(run_float("aten::abs.out", {-1.5f, 2.0f, -0.0f, -kInf, kNaN}), {1.5f, 2.0f, 0.0f, kInf, kNaN}));
  EXPECT_TRUE(same_values(run_double("aten::abs.out", {-0.25, 3.0}), {0.25, 3.0}));
}

TEST(Abs, IntegersKeepTheMinimum) {
  // PyTorch: abs of the most negative integer wraps to itself.
  EXPECT_EQ(run_same<int32_t>("aten::abs.out", {kMinInt, -5, 0, 7}), (std::vector<int32_t>{kMinInt, 5, 0, 7}));
  EXPECT_EQ(run_same<int64_t>("aten::abs.out", {kMinLong, -kMaxLong, 3}), (std::vector<int64_t>{kMinLong, kMaxLong, 3}));
}

TEST(Abs, BoolIsRejected) {
  TestTensor self = make_tensor<bool>({1}, {true});
  TestTensor out = zeros<bool>({1});
  EXPECT_TRUE(failed_with(run_unary("aten::abs.out", self, out), Error::InvalidArgument, "aten::abs.out", "'self'"));
}

TEST(Sign, FloatGivesZeroForNanAndSignedZeros) {
  // PyTorch: sign(NaN) = 0 and sign(-0) = +0.
  EXPECT_TRUE(same_values(run_float("aten::sign.out", {2.5f, -0.1f, 0.0f, -0.0f, kInf, -kInf, kNaN, 1e-40f}),
                          {1.0f, -1.0f, 0.0f, 0.0f, 1.0f, -1.0f, 0.0f, 1.0f}));
  EXPECT_TRUE(same_values(run_double("aten::sign.out", {-1e-300, 7.0, std::nan("")}), {-1.0, 1.0, 0.0}));
}

TEST(Sign, IntegersAndBool) {
  EXPECT_EQ(run_same<int32_t>("aten::sign.out", {kMinInt, -5, 0, 7, kMaxInt}), (std::vector<int32_t>{-1, -1, 0, 1, 1}));
  EXPECT_EQ(run_same<int64_t>("aten::sign.out", {kMinLong, 0, 9}), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_EQ(run_same<bool>("aten::sign.out", {true, false}), (std::vector<bool>{true, false}));
}

TEST(Floor, FloatAndDouble) {
  EXPECT_TRUE(same_values(run_float("aten::floor.out", {1.5f, -1.5f, -0.5f, 2.0f, -0.0f, kInf, -kInf, kNaN, 8388609.0f}),
                          {1.0f, -2.0f, -1.0f, 2.0f, -0.0f, kInf, -kInf, kNaN, 8388609.0f}));
  EXPECT_TRUE(same_values(run_double("aten::floor.out", {-2.5, 4503599627370497.0}), {-3.0, 4503599627370497.0}));
}

TEST(Ceil, FloatAndDouble) {
  EXPECT_TRUE(same_values(run_float("aten::ceil.out", {1.5f, -1.5f, -0.5f, 2.0f, 0.25f, kInf, kNaN}),
                          {2.0f, -1.0f, -0.0f, 2.0f, 1.0f, kInf, kNaN}));
  EXPECT_TRUE(same_values(run_double("aten::ceil.out", {-2.5, 0.1}), {-2.0, 1.0}));
}

TEST(Round, HalfwayCasesGoToEven) {
  EXPECT_TRUE(same_values(run_float("aten::round.out", {0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 3.49f, -3.51f, 0.49999997f,
                                                        4194304.5f, kInf, -kInf, kNaN}),
                          {0.0f, 2.0f, 2.0f, -2.0f, -0.0f, 3.0f, -4.0f, 0.0f, 4194304.0f, kInf, -kInf, kNaN}));
  EXPECT_TRUE(same_values(run_double("aten::round.out", {2.5, 3.5, -1.5, 0.5000000000000001}), {2.0, 4.0, -2.0, 1.0}));
}

TEST(FloorCeilRound, MatchTheCLibraryOnSampledFloats) {
  // Every 4099th float bit pattern: all exponents, both signs, inf and NaN.
  std::vector<float> inputs;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float value;
    std::memcpy(&value, &b, sizeof value);
    inputs.push_back(value);
  }
  float (*const references[])(float) = {[](float x) { return std::floor(x); }, [](float x) { return std::ceil(x); },
                                        [](float x) { return std::nearbyint(x); }};
  const char* ops[] = {"aten::floor.out", "aten::ceil.out", "aten::round.out"};
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(ops[k]);
    std::vector<float> expected;
    for (float x : inputs) expected.push_back(references[k](x));
    EXPECT_TRUE(same_values(run_float(ops[k], inputs), expected));
  }
}

TEST(FloorCeilRound, MatchTheCLibraryOnDoublesNearIntegers) {
  std::vector<double> inputs;
  for (double base : {0.0, 1.0, 2.0, 3.0, 1e6, 4503599627370495.0, 4503599627370496.0, 9007199254740993.0}) {
    for (double offset : {-0.75, -0.5, -0.25, -1e-9, 0.0, 1e-9, 0.25, 0.5, 0.75}) {
      inputs.push_back(base + offset);
      inputs.push_back(-(base + offset));
    }
  }
  double (*const references[])(double) = {[](double x) { return std::floor(x); },
                                          [](double x) { return std::ceil(x); },
                                          [](double x) { return std::nearbyint(x); }};
  const char* ops[] = {"aten::floor.out", "aten::ceil.out", "aten::round.out"};
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(ops[k]);
    std::vector<double> expected;
    for (double x : inputs) expected.push_back(references[k](x));
    EXPECT_TRUE(same_values(run_double(ops[k], inputs), expected));
  }
}

TEST(FloorCeilRound, IntegersAreUnchanged) {
  for (const char* op : {"aten::floor.out", "aten::ceil.out", "aten::round.out"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(run_same<int32_t>(op, {kMinInt, -7, 0, 5, kMaxInt}), (std::vector<int32_t>{kMinInt, -7, 0, 5, kMaxInt}));
    EXPECT_EQ(run_same<int64_t>(op, {kMinLong, 3, kMaxLong}), (std::vector<int64_t>{kMinLong, 3, kMaxLong}));
    TestTensor flags = make_tensor<bool>({1}, {true});
    TestTensor out = zeros<bool>({1});
    EXPECT_TRUE(failed_with(run_unary(op, flags, out), Error::InvalidArgument, op, "'self'"));
  }
}

TEST(Relu, ClampsNegativesAndKeepsNaN) {
  TestTensor self = make_tensor<float>({2, 3}, {-1.5f, 0.0f, 2.0f, kNaN, -kInf, kInf});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_unary("aten::relu.out", self, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.0f, 0.0f, 2.0f, kNaN, 0.0f, kInf}, 0.0f));
}

TEST(Relu, Integers) {
  EXPECT_EQ(run_same<int64_t>("aten::relu.out", {-7, 0, 3, kMinLong}), (std::vector<int64_t>{0, 0, 3, 0}));
  EXPECT_EQ(run_same<int32_t>("aten::relu.out", {-1, 5, -9}), (std::vector<int32_t>{0, 5, 0}));
}

TEST(Relu, RejectsBool) {
  TestTensor self = make_tensor<bool>({2}, {true, false});
  TestTensor out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::relu.out", self, out), Error::InvalidArgument, "aten::relu.out", "'self'"));
}

TEST(SameDtypeOps, HalfAndBFloat16AreExact) {
  // Every result here is representable in both formats.
  const std::vector<float> in = {-2.5f, -1.5f, -0.5f, -0.0f, 0.5f, 1.5f, 2.5f, kInf, kNaN};
  const std::pair<const char*, std::vector<float>> cases[] = {
      {"aten::neg.out", {2.5f, 1.5f, 0.5f, 0.0f, -0.5f, -1.5f, -2.5f, -kInf, kNaN}},
      {"aten::abs.out", {2.5f, 1.5f, 0.5f, 0.0f, 0.5f, 1.5f, 2.5f, kInf, kNaN}},
      {"aten::sign.out", {-1.0f, -1.0f, -1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f, 0.0f}},
      {"aten::floor.out", {-3.0f, -2.0f, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f, kInf, kNaN}},
      {"aten::ceil.out", {-2.0f, -1.0f, -0.0f, -0.0f, 1.0f, 2.0f, 3.0f, kInf, kNaN}},
      {"aten::round.out", {-2.0f, -2.0f, -0.0f, -0.0f, 0.0f, 2.0f, 2.0f, kInf, kNaN}},
      {"aten::relu.out", {0.0f, 0.0f, 0.0f, -0.0f, 0.5f, 1.5f, 2.5f, kInf, kNaN}},
  };
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(same_values(run_16bit<Half>(op, in), expected));
    EXPECT_TRUE(same_values(run_16bit<BFloat16>(op, in), expected));
  }
  // Halves beyond 2^10 are all integers: round leaves them; 1000.5 goes to even.
  EXPECT_TRUE(same_values(run_16bit<Half>("aten::round.out", {1000.5f, 1001.5f, 2049.0f}), {1000.0f, 1002.0f, 2048.0f}));
}

// ---------------------------------------------------------------------------
// Floating ops: float and double

TEST(Exp, FloatAndDouble) {
  EXPECT_TRUE(close_values(run_float("aten::exp.out", {0.0f, 1.0f, -1.0f, std::log(2.0f), -kInf, kInf, kNaN}),
                           {1.0f, 2.7182817f, 0.36787945f, 2.0f, 0.0f, kInf, kNaN}, 2e-7));
  // Float math: e^89 overflows float, not double.
  EXPECT_EQ(run_float("aten::exp.out", {89.0f})[0], kInf);
  EXPECT_TRUE(close_values(run_double("aten::exp.out", {1.0, 700.0, -750.0}),
                           {2.718281828459045, 1.0142320547350045e304, 0.0}, 1e-15));
}

TEST(Log, EdgesAreIeee) {
  EXPECT_TRUE(close_values(run_float("aten::log.out", {1.0f, 2.7182817f, 0.5f, 0.0f, -0.0f, -1.0f, kInf, kNaN}),
                           {0.0f, 1.0f, -0.6931472f, -kInf, -kInf, kNaN, kInf, kNaN}, 2e-7));
  EXPECT_TRUE(close_values(run_double("aten::log.out", {10.0, 1e-300}), {2.302585092994046, -690.7755278982137}, 1e-15));
}

TEST(Log1p, KeepsPrecisionNearZero) {
  // log(1 + 1e-10) would be 0 in float.
  EXPECT_TRUE(close_values(run_float("aten::log1p.out", {1e-10f, -1e-10f, 0.0f, -1.0f, -2.0f, 1.7182817f, kInf, kNaN}),
                           {1e-10f, -1e-10f, 0.0f, -kInf, kNaN, 1.0f, kInf, kNaN}, 2e-7));
  EXPECT_TRUE(same_values(run_float("aten::log1p.out", {-0.0f}), {-0.0f}));
  EXPECT_TRUE(close_values(run_double("aten::log1p.out", {1e-20, 1.0}), {1e-20, 0.6931471805599453}, 1e-15));
}

TEST(Sqrt, EdgesAreIeee) {
  EXPECT_TRUE(same_values(run_float("aten::sqrt.out", {4.0f, 0.25f, 0.0f, -0.0f, -1.0f, kInf, -kInf, kNaN}),
                          {2.0f, 0.5f, 0.0f, -0.0f, kNaN, kInf, kNaN, kNaN}));
  EXPECT_TRUE(close_values(run_double("aten::sqrt.out", {2.0}), {1.4142135623730951}, 1e-16));
}

TEST(Rsqrt, EdgesAreIeee) {
  EXPECT_TRUE(same_values(run_float("aten::rsqrt.out", {4.0f, 0.25f, 0.0f, -0.0f, -1.0f, kInf, kNaN}),
                          {0.5f, 2.0f, kInf, -kInf, kNaN, 0.0f, kNaN}));
  EXPECT_TRUE(close_values(run_float("aten::rsqrt.out", {2.0f}), {0.70710677f}, 1.2e-7));
  EXPECT_TRUE(close_values(run_double("aten::rsqrt.out", {2.0, 1e-300}), {0.7071067811865475, 1e150}, 2e-16));
}

TEST(Reciprocal, EdgesAreIeee) {
  EXPECT_TRUE(same_values(run_float("aten::reciprocal.out", {4.0f, -0.5f, 0.0f, -0.0f, kInf, -kInf, kNaN}),
                          {0.25f, -2.0f, kInf, -kInf, 0.0f, -0.0f, kNaN}));
  EXPECT_TRUE(close_values(run_double("aten::reciprocal.out", {3.0}), {0.3333333333333333}, 1e-16));
}

TEST(Erf, KnownValues) {
  EXPECT_TRUE(close_values(run_float("aten::erf.out", {0.0f, 1.0f, -0.5f, 3.0f, kInf, -kInf, kNaN}),
                           {0.0f, 0.84270079f, -0.52049988f, 0.99997791f, 1.0f, -1.0f, kNaN}, 2e-7));
  EXPECT_TRUE(same_values(run_float("aten::erf.out", {-0.0f}), {-0.0f}));
  EXPECT_TRUE(close_values(run_double("aten::erf.out", {1.0, 2.0}), {0.8427007929497149, 0.9953222650189527}, 1e-15));
}

// erfc keeps its tail (1 - erf(5) would be 0 in float) and runs from 2 to 0.
TEST(Erfc, KnownValuesAndTail) {
  EXPECT_TRUE(close_values(run_float("aten::erfc.out", {0.0f, 1.0f, -1.0f, kInf, -kInf, kNaN}),
                           {1.0f, 0.15729921f, 1.8427008f, 0.0f, 2.0f, kNaN}, 2e-7));
  const std::vector<float> tail = run_float("aten::erfc.out", {5.0f});
  EXPECT_NEAR(tail.at(0) / 1.5374597944280349e-12, 1.0, 1e-6);
  EXPECT_TRUE(close_values(run_double("aten::erfc.out", {1.0, 10.0}), {0.15729920705028513, 2.088487583762545e-45}, 1e-15));
}

// lgamma: log |gamma(x)|, also of negative non-integers; poles give inf.
TEST(Lgamma, KnownValuesAndPoles) {
  EXPECT_TRUE(close_values(run_float("aten::lgamma.out", {1.0f, 0.5f, -0.5f, 10.0f, kNaN}),
                           {0.0f, 0.57236493f, 1.2655121f, 12.801827f, kNaN}, 2e-7));
  EXPECT_TRUE(same_values(run_float("aten::lgamma.out", {0.0f, -2.0f, kInf, -kInf}), {kInf, kInf, kInf, kInf}));
  EXPECT_TRUE(close_values(run_double("aten::lgamma.out", {0.5, 10.0}), {0.5723649429247001, 12.801827480081469}, 1e-15));
}

TEST(Sigmoid, KnownValuesAndTails) {
  const float log3 = std::log(3.0f);
  EXPECT_TRUE(close_values(run_float("aten::sigmoid.out", {0.0f, log3, -log3, kInf, -kInf, kNaN, 100.0f}),
                           {0.5f, 0.75f, 0.25f, 1.0f, 0.0f, kNaN, 1.0f}, 2e-7));
  // Far in the tail: e^80 still fits a float, e^100 does not (so 1 / inf = 0).
  EXPECT_TRUE(close_values(run_float("aten::sigmoid.out", {-80.0f, -100.0f}), {1.8048513e-35f, 0.0f}, 1e-6));
  EXPECT_TRUE(close_values(run_double("aten::sigmoid.out", {1.0, -700.0}),
                           {0.7310585786300049, 9.85967654375977e-305}, 1e-14));
}

TEST(Tanh, KnownValues) {
  EXPECT_TRUE(close_values(run_float("aten::tanh.out", {0.0f, 0.54930615f, -0.54930615f, 20.0f, kInf, -kInf, kNaN}),
                           {0.0f, 0.5f, -0.5f, 1.0f, 1.0f, -1.0f, kNaN}, 2e-7));
  EXPECT_TRUE(close_values(run_double("aten::tanh.out", {1.0}), {0.7615941559557649}, 1e-15));
}

TEST(Trig, FloatMatchesClosedForms) {
  const float half_pi = static_cast<float>(M_PI / 2);
  const float quarter_pi = static_cast<float>(M_PI / 4);
  TestTensor self = make_tensor<float>({3}, {0.0f, half_pi, quarter_pi});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_unary("aten::sin.out", self, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {0.0f, 1.0f, std::sqrt(0.5f)}, 1e-7f));
  ASSERT_EQ(run_unary("aten::cos.out", self, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {1.0f, 0.0f, std::sqrt(0.5f)}, 1e-7f));
  ASSERT_EQ(run_unary("aten::tan.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>()[0], 0.0f);
  EXPECT_NEAR(out.values<float>()[2], 1.0f, 2.5e-7f);
}

TEST(Trig, FloatIsComputedInFloat) {
  std::vector<float> inputs;
  for (int i = -50; i < 50; ++i) inputs.push_back(0.37f * static_cast<float>(i));
  const std::vector<float> values = run_float("aten::sin.out", inputs);
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(values[i], std::sin(inputs[i])) << inputs[i];
}

TEST(Trig, DoubleAndInfinities) {
  EXPECT_EQ(run_double("aten::cos.out", {0.5, -2.0}), (std::vector<double>{std::cos(0.5), std::cos(-2.0)}));
  for (const char* op : {"aten::sin.out", "aten::cos.out", "aten::tan.out"}) {
    EXPECT_TRUE(same_values(run_float(op, {kInf, -kInf, kNaN}), {kNaN, kNaN, kNaN})) << op;
  }
}

// ---------------------------------------------------------------------------
// Floating ops: integral and bool inputs give Float

TEST(FloatingOps, IntegralInputsAreConvertedToFloat) {
  TestTensor ints = make_tensor<int32_t>({3}, {0, 1, 2});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_unary("aten::exp.out", ints, out).failure_state(), Error::Ok);
  EXPECT_TRUE(close_values(out.values<float>(), {1.0f, 2.7182817f, 7.3890562f}, 2e-7));

  // 16777217 becomes 16777216 in float before the square root, as in PyTorch.
  TestTensor longs = make_tensor<int64_t>({4}, {4, 16777217, -1, 0});
  TestTensor long_out = zeros<float>({4});
  ASSERT_EQ(run_unary("aten::sqrt.out", longs, long_out).failure_state(), Error::Ok);
  EXPECT_TRUE(same_values(long_out.values<float>(), {2.0f, 4096.0f, kNaN, 0.0f}));

  // sin(16777217) would be 0.1058; PyTorch gives sin(16777216). e^89 overflows float.
  TestTensor big = make_tensor<int64_t>({2}, {16777217, 89});
  TestTensor big_out = zeros<float>({2});
  ASSERT_EQ(run_unary("aten::sin.out", big, big_out).failure_state(), Error::Ok);
  EXPECT_TRUE(close_values(big_out.values<float>(), {-0.7795636653900146f, 0.8600693941116333f}, 1e-6));
  ASSERT_EQ(run_unary("aten::exp.out", big, big_out).failure_state(), Error::Ok);
  EXPECT_EQ(big_out.values<float>()[1], kInf);

  TestTensor divisors = make_tensor<int32_t>({3}, {0, 2, -4});
  ASSERT_EQ(run_unary("aten::reciprocal.out", divisors, out).failure_state(), Error::Ok);
  EXPECT_TRUE(same_values(out.values<float>(), {kInf, 0.5f, -0.25f}));
  ASSERT_EQ(run_unary("aten::rsqrt.out", divisors, out).failure_state(), Error::Ok);
  EXPECT_TRUE(same_values(out.values<float>(), {kInf, 0.70710677f, kNaN}));
}

TEST(FloatingOps, BoolInputsAreZeroAndOne) {
  TestTensor flags = make_tensor<bool>({2}, {false, true});
  TestTensor out = zeros<float>({2});
  ASSERT_EQ(run_unary("aten::log.out", flags, out).failure_state(), Error::Ok);
  EXPECT_TRUE(same_values(out.values<float>(), {-kInf, 0.0f}));
  ASSERT_EQ(run_unary("aten::sigmoid.out", flags, out).failure_state(), Error::Ok);
  EXPECT_TRUE(close_values(out.values<float>(), {0.5f, 0.7310586f}, 2e-7));
  ASSERT_EQ(run_unary("aten::cos.out", flags, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.0f, std::cos(1.0f)}));
}

TEST(FloatingOps, OutMustHaveTheResultDtype) {
  TestTensor longs = make_tensor<int64_t>({2}, {1, 2});
  TestTensor long_out = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::tan.out", longs, long_out), Error::InvalidArgument, "aten::tan.out", "'out'"));
  TestTensor double_out = zeros<double>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::exp.out", longs, double_out), Error::InvalidArgument, "aten::exp.out", "'out'"));
  TestTensor halves = make_16bit<Half>({2}, {1, 2});
  TestTensor float_out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::log.out", halves, float_out), Error::InvalidArgument, "aten::log.out", "'out'"));
}

// ---------------------------------------------------------------------------
// Floating ops: Half and BFloat16 against PyTorch's results

struct SixteenBitCase {
  const char* op;
  std::vector<float> in;
  std::vector<float> half_out;
  std::vector<float> bfloat16_out;
};

TEST(FloatingOps, HalfAndBFloat16MatchPyTorch) {
  const std::vector<float> in = {-2.5f, -1.0f, -0.3f, 0.0f, 0.7f, 1.5f, 3.25f, 10.0f};
  const std::vector<float> positive = {0.1f, 0.5f, 2.0f, 3.0f, 3.25f, 10.0f, 100.0f, 1000.0f};
  const SixteenBitCase cases[] = {
      {"aten::exp.out", in,
       {0.08209228515625f, 0.367919921875f, 0.74072265625f, 1.0f, 2.013671875f, 4.48046875f, 25.796875f, 22032.0f},
       {0.08203125f, 0.3671875f, 0.7421875f, 1.0f, 2.015625f, 4.46875f, 25.75f, 22016.0f}},
      {"aten::log.out", {0.1f, 0.5f, 1.0f, 1.5f, 3.25f, 10.0f, 100.0f, 1000.0f},
       {-2.302734375f, -0.693359375f, 0.0f, 0.405517578125f, 1.1787109375f, 2.302734375f, 4.60546875f, 6.90625f},
       {-2.296875f, -0.69140625f, 0.0f, 0.40625f, 1.1796875f, 2.296875f, 4.59375f, 6.90625f}},
      {"aten::log1p.out", {-0.5f, -0.001f, 0.0f, 0.001f, 0.7f, 1.5f, 3.25f, 10.0f},
       {-0.693359375f, -0.0010013580322265625f, 0.0f, 0.00099945068359375f, 0.53076171875f, 0.91650390625f,
        1.447265625f, 2.3984375f},
       {-0.69140625f, -0.00099945068359375f, 0.0f, 0.00099945068359375f, 0.53125f, 0.91796875f, 1.4453125f,
        2.390625f}},
      {"aten::sqrt.out", positive,
       {0.316162109375f, 0.70703125f, 1.4140625f, 1.732421875f, 1.802734375f, 3.162109375f, 10.0f, 31.625f},
       {0.31640625f, 0.70703125f, 1.4140625f, 1.734375f, 1.8046875f, 3.15625f, 10.0f, 31.625f}},
      {"aten::rsqrt.out", positive,
       {3.162109375f, 1.4140625f, 0.70703125f, 0.5771484375f, 0.5546875f, 0.316162109375f, 0.0999755859375f,
        0.0316162109375f},
       {3.15625f, 1.4140625f, 0.70703125f, 0.578125f, 0.5546875f, 0.31640625f, 0.10009765625f, 0.03173828125f}},
      {"aten::reciprocal.out", {-2.5f, -1.0f, -0.3f, 0.1f, 0.7f, 1.5f, 3.25f, 10.0f},
       {-0.39990234375f, -1.0f, -3.33203125f, 10.0f, 1.427734375f, 0.66650390625f, 0.3076171875f, 0.0999755859375f},
       {-0.400390625f, -1.0f, -3.328125f, 10.0f, 1.4296875f, 0.66796875f, 0.30859375f, 0.10009765625f}},
      {"aten::erf.out", in,
       {-0.99951171875f, -0.8427734375f, -0.32861328125f, 0.0f, 0.677734375f, 0.96630859375f, 1.0f, 1.0f},
       {-1.0f, -0.84375f, -0.330078125f, 0.0f, 0.67578125f, 0.96484375f, 1.0f, 1.0f}},
      {"aten::sigmoid.out", in,
       {0.07586669921875f, 0.26904296875f, 0.425537109375f, 0.5f, 0.66845703125f, 0.8173828125f, 0.962890625f, 1.0f},
       {0.07568359375f, 0.26953125f, 0.42578125f, 0.5f, 0.66796875f, 0.81640625f, 0.9609375f, 1.0f}},
      {"aten::tanh.out", in,
       {-0.98681640625f, -0.76171875f, -0.291259765625f, 0.0f, 0.6044921875f, 0.9052734375f, 0.9970703125f, 1.0f},
       {-0.98828125f, -0.76171875f, -0.29296875f, 0.0f, 0.60546875f, 0.90625f, 0.99609375f, 1.0f}},
      {"aten::sin.out", in,
       {-0.5986328125f, -0.84130859375f, -0.295654296875f, 0.0f, 0.64453125f, 0.99755859375f, -0.10821533203125f,
        -0.5439453125f},
       {-0.59765625f, -0.83984375f, -0.296875f, 0.0f, 0.64453125f, 0.99609375f, -0.1083984375f, -0.54296875f}},
      {"aten::cos.out", in,
       {-0.80126953125f, 0.54052734375f, 0.955078125f, 1.0f, 0.7646484375f, 0.07073974609375f, -0.994140625f,
        -0.8388671875f},
       {-0.80078125f, 0.5390625f, 0.95703125f, 1.0f, 0.765625f, 0.07080078125f, -0.9921875f, -0.83984375f}},
      {"aten::tan.out", in,
       {0.7470703125f, -1.5576171875f, -0.309326171875f, 0.0f, 0.8427734375f, 14.1015625f, 0.10882568359375f,
        0.6484375f},
       {0.74609375f, -1.5546875f, -0.310546875f, 0.0f, 0.83984375f, 14.125f, 0.10888671875f, 0.6484375f}},
  };
  for (const SixteenBitCase& c : cases) {
    SCOPED_TRACE(c.op);
    EXPECT_TRUE(same_values(run_16bit<Half>(c.op, c.in), c.half_out));
    EXPECT_TRUE(same_values(run_16bit<BFloat16>(c.op, c.in), c.bfloat16_out));
  }
}

TEST(FloatingOps, HalfEdgesAndOverflow) {
  EXPECT_TRUE(same_values(run_16bit<Half>("aten::log.out", {0.0f, -1.0f, kInf}), {-kInf, kNaN, kInf}));
  // e^12 = 162755 is past the largest half (65504): inf, as in PyTorch; bfloat16 has float's range.
  EXPECT_EQ(run_16bit<Half>("aten::exp.out", {12.0f})[0], kInf);
  EXPECT_EQ(run_16bit<BFloat16>("aten::exp.out", {12.0f})[0], 162816.0f);
  EXPECT_TRUE(same_values(run_16bit<BFloat16>("aten::reciprocal.out", {0.0f, -0.0f}), {kInf, -kInf}));
}

// ---------------------------------------------------------------------------
// The shared paths: layouts, sizes, arguments

TEST(Unary, NonContiguousInputIsReadInLogicalOrder) {
  // Logical [[1, -2, 3], [-4, 5, -6]] stored column-major.
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({1, -4, -2, 5, 3, -6});
  TestTensor out = zeros<float>({2, 3});
  ASSERT_EQ(run_unary("aten::relu.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 0, 3, 0, 5, 0}));
  ASSERT_EQ(run_unary("aten::neg.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-1, 2, -3, 4, -5, 6}));
}

TEST(Unary, NonContiguousIntegralInputGivesContiguousFloat) {
  TestTensor self(ScalarType::Int, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<int32_t>({1, 4, 9, 16, 25, 36});  // logical [[1, 9, 25], [4, 16, 36]]
  TestTensor out = zeros<float>({2, 3});
  ASSERT_EQ(run_unary("aten::sqrt.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(Unary, NonContiguousOutIsWrittenThroughItsStrides) {
  TestTensor self = make_16bit<Half>({2, 3}, {-1, 2, -3, 4, -5, 6});
  TestTensor out(ScalarType::Half, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_EQ(run_unary("aten::abs.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(floats_of<Half>(out), (std::vector<float>{1, 4, 2, 5, 3, 6}));  // column-major storage
  TestTensor ints = make_tensor<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  TestTensor float_out(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_EQ(run_unary("aten::exp.out", ints, float_out).failure_state(), Error::Ok);
  EXPECT_TRUE(close_values(float_out.values<float>(),
                           {1.0f, 20.085537f, 2.7182817f, 54.59815f, 7.3890562f, 148.41316f}, 2e-7));
}

TEST(Unary, InPlace) {
  TestTensor t = make_tensor<float>({3}, {1.5f, -2.5f, 4.0f});
  ASSERT_EQ(run_unary("aten::floor.out", t, t).failure_state(), Error::Ok);
  EXPECT_EQ(t.values<float>(), (std::vector<float>{1.0f, -3.0f, 4.0f}));
  ASSERT_EQ(run_unary("aten::sqrt.out", t, t).failure_state(), Error::Ok);
  EXPECT_TRUE(same_values(t.values<float>(), {1.0f, kNaN, 2.0f}));
}

TEST(Unary, ScalarAndEmptyTensors) {
  TestTensor scalar = make_tensor<float>({}, {1.0f});
  TestTensor scalar_out = zeros<float>({});
  ASSERT_EQ(run_unary("aten::sin.out", scalar, scalar_out).failure_state(), Error::Ok);
  EXPECT_EQ(scalar_out.values<float>(), (std::vector<float>{std::sin(1.0f)}));

  for (const char* op : {"aten::sin.out", "aten::neg.out", "aten::round.out", "aten::exp.out"}) {
    SCOPED_TRACE(op);
    TestTensor empty = zeros<float>({0, 3});
    TestTensor empty_out = zeros<float>({0, 3});
    EXPECT_EQ(run_unary(op, empty, empty_out).failure_state(), Error::Ok);
    TestTensor empty_half = zeros<Half>({3, 0});
    TestTensor empty_half_out = zeros<Half>({3, 0});
    EXPECT_EQ(run_unary(op, empty_half, empty_half_out).failure_state(), Error::Ok);
  }
  TestTensor empty_ints = zeros<int32_t>({0});
  TestTensor empty_float = zeros<float>({0});
  EXPECT_EQ(run_unary("aten::log.out", empty_ints, empty_float).failure_state(), Error::Ok);
}

TEST(Unary, ResizesDynamicOut) {
  TestTensor self = make_tensor<float>({2}, {-1.0f, 1.0f});
  TestTensor out = zeros<float>({5}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_unary("aten::relu.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{2}));
  EXPECT_EQ(out.values<float>()[1], 1.0f);
}

TEST(Unary, WrongOutShapeFails) {
  TestTensor self = make_tensor<float>({3}, {1, 2, 3});
  TestTensor out = zeros<float>({4});
  EXPECT_TRUE(failed_with(run_unary("aten::sin.out", self, out), Error::InvalidArgument, "aten::sin.out", "'out'"));
  TestTensor out_rank = zeros<float>({3, 1});
  EXPECT_TRUE(
      failed_with(run_unary("aten::cos.out", self, out_rank), Error::InvalidArgument, "aten::cos.out", "'out'"));
  EXPECT_TRUE(
      failed_with(run_unary("aten::abs.out", self, out_rank), Error::InvalidArgument, "aten::abs.out", "'out'"));
}

TEST(Unary, WrongOutDtypeFails) {
  TestTensor self = make_tensor<float>({3}, {1, 2, 3});
  TestTensor out = zeros<double>({3});
  EXPECT_TRUE(failed_with(run_unary("aten::relu.out", self, out), Error::InvalidArgument, "aten::relu.out", "'out'"));
  TestTensor ints = make_tensor<int32_t>({3}, {1, 2, 3});
  TestTensor long_out = zeros<int64_t>({3});
  EXPECT_TRUE(failed_with(run_unary("aten::neg.out", ints, long_out), Error::InvalidArgument, "aten::neg.out", "'out'"));
  TestTensor float_out = zeros<float>({3});
  EXPECT_TRUE(
      failed_with(run_unary("aten::floor.out", ints, float_out), Error::InvalidArgument, "aten::floor.out", "'out'"));
  TestTensor bf16_out = zeros<BFloat16>({3});
  TestTensor halves = make_16bit<Half>({3}, {1, 2, 3});
  EXPECT_TRUE(
      failed_with(run_unary("aten::sign.out", halves, bf16_out), Error::InvalidArgument, "aten::sign.out", "'out'"));
}

TEST(Unary, UnsupportedDtypeNamesSelf) {
  TestTensor bytes(ScalarType::Byte, {2});
  TestTensor out = zeros<float>({2});
  const auto ctx = run_unary("aten::exp.out", bytes, out);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::exp.out", "'self'"));
  EXPECT_NE(std::string(ctx.failure_message()).find("Byte"), std::string::npos) << ctx.failure_message();
}

TEST(Unary, WrongArgCountFails) {
  TestTensor self = make_tensor<float>({1}, {1});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(self).tensor(out).run("aten::sin.out", /*add_return_slot=*/false);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::sin.out", "'args'"));
  const auto neg = KernelCall().tensor(self).tensor(out).run("aten::neg.out", /*add_return_slot=*/false);
  EXPECT_TRUE(failed_with(neg, Error::InvalidArgument, "aten::neg.out", "'args'"));
}

TEST(Unary, NonTensorArgumentsFail) {
  TestTensor self = make_tensor<float>({1}, {1});
  TestTensor out = zeros<float>({1});
  EXPECT_TRUE(failed_with(KernelCall().scalar(1.0).tensor(out).run("aten::relu.out"), Error::InvalidArgument,
                          "aten::relu.out", "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(1.0).run("aten::exp.out"), Error::InvalidArgument,
                          "aten::exp.out", "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
