// Activation kernels: silu, hardswish, hardsigmoid, leaky_relu, elu, gelu and
// hardtanh. Expected values are closed forms or what PyTorch 2.15 returns for
// the same inputs.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/test/unary_test_util.h"
#include "runtime/core/scalar_type.h"

namespace kiln::kernels::portable::testing {
namespace {

using runtime::BFloat16;
using runtime::Half;

// Calls an op on `self` and `out` with its other arguments filled in.
using Call = std::function<KernelRuntimeContext(const TestTensor& self, const TestTensor& out)>;

Call plain(const char* op) {
  return [op](const TestTensor& self, const TestTensor& out) { return KernelCall().tensor(self).tensor(out).run(op); };
}

KernelRuntimeContext run_gelu(const TestTensor& self, const char* approximate, const TestTensor& out) {
  return KernelCall().tensor(self).value(EValue(approximate, std::strlen(approximate))).tensor(out).run("aten::gelu.out");
}

Call gelu(const char* approximate) {
  return [approximate](const TestTensor& self, const TestTensor& out) { return run_gelu(self, approximate, out); };
}

Call leaky_relu(double slope) {
  return [slope](const TestTensor& self, const TestTensor& out) {
    return KernelCall().tensor(self).scalar(slope).tensor(out).run("aten::leaky_relu.out");
  };
}

Call elu(double alpha, double scale, double input_scale) {
  return [=](const TestTensor& self, const TestTensor& out) {
    return KernelCall().tensor(self).scalar(alpha).scalar(scale).scalar(input_scale).tensor(out).run("aten::elu.out");
  };
}

Call hardtanh(double min_val, double max_val) {
  return [=](const TestTensor& self, const TestTensor& out) {
    return KernelCall().tensor(self).scalar(min_val).scalar(max_val).tensor(out).run("aten::hardtanh.out");
  };
}

template <typename T>
std::vector<T> run(const Call& call, const std::vector<T>& values) {
  TestTensor self = make_tensor<T>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<T>({static_cast<SizesType>(values.size())});
  const auto ctx = call(self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  return out.values<T>();
}

template <typename H>
std::vector<float> run_16bit(const Call& call, const std::vector<float>& values) {
  TestTensor self = make_16bit<H>({static_cast<SizesType>(values.size())}, values);
  TestTensor out = zeros<H>({static_cast<SizesType>(values.size())});
  const auto ctx = call(self, out);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  return floats_of<H>(out);
}

// ---------------------------------------------------------------------------
// silu, hardswish, hardsigmoid

TEST(Silu, MatchesPyTorch) {
  EXPECT_TRUE(close_values(run<float>(plain("aten::silu.out"), {-2.5f, -0.5f, 0.0f, 0.5f, 2.5f}),
                           {-0.189645454287529f, -0.1887703388929367f, 0.0f, 0.3112296760082245f, 2.310354471206665f},
                           3e-7));
  EXPECT_TRUE(close_values(run<double>(plain("aten::silu.out"), {-2.5, 0.5, 2.5}),
                           {-0.18964545005310887, 0.3112296656009273, 2.3103545499468914}, 1e-15));
  // -inf / (1 + inf) is NaN, as in PyTorch.
  EXPECT_TRUE(same_values(run<float>(plain("aten::silu.out"), {kInf, -kInf, kNaN, -0.0f}), {kInf, kNaN, kNaN, -0.0f}));
}

TEST(Hardswish, ClosedForm) {
  // x * min(max(x + 3, 0), 6) / 6: -0 below -3 (a negative times 0).
  EXPECT_TRUE(same_values(run<float>(plain("aten::hardswish.out"), {-4.0f, -3.0f, -1.0f, 0.0f, 1.5f, 3.0f, 5.0f}),
                          {-0.0f, -0.0f, -1.0f / 3.0f, 0.0f, 1.125f, 3.0f, 5.0f}));
  EXPECT_TRUE(same_values(run<float>(plain("aten::hardswish.out"), {kInf, -kInf, kNaN}), {kInf, kNaN, kNaN}));
  EXPECT_TRUE(same_values(run<double>(plain("aten::hardswish.out"), {-1.0, 2.5}), {-1.0 / 3.0, 2.5 * 5.5 / 6.0}));
}

TEST(Hardsigmoid, ClosedForm) {
  EXPECT_TRUE(same_values(run<float>(plain("aten::hardsigmoid.out"), {-4.0f, -3.0f, -1.0f, 0.0f, 1.5f, 3.0f, 5.0f}),
                          {0.0f, 0.0f, 1.0f / 3.0f, 0.5f, 0.75f, 1.0f, 1.0f}));
  EXPECT_TRUE(same_values(run<float>(plain("aten::hardsigmoid.out"), {kInf, -kInf, kNaN}), {1.0f, 0.0f, kNaN}));
  EXPECT_TRUE(same_values(run<double>(plain("aten::hardsigmoid.out"), {2.5}), {5.5 / 6.0}));
}

// ---------------------------------------------------------------------------
// leaky_relu, elu

TEST(LeakyRelu, ScalesNegatives) {
  // The slope is converted to float first: float(0.01) * -2.
  EXPECT_TRUE(same_values(run<float>(leaky_relu(0.01), {-2.0f, 3.0f, -0.0f, 0.0f, -kInf, kInf, kNaN}),
                          {-0.019999999552965164f, 3.0f, -0.0f, 0.0f, -kInf, kInf, kNaN}));
  // float: -3 * float(0.1); double: -3 * 0.1.
  EXPECT_EQ(run<float>(leaky_relu(0.1), {-3.0f})[0], -0.30000001192092896f);
  EXPECT_EQ(run<double>(leaky_relu(0.1), {-3.0})[0], -0.30000000000000004);
}

TEST(LeakyRelu, IntAndBoolSlopes) {
  TestTensor self = make_tensor<float>({2}, {-2.0f, 3.0f});
  TestTensor out = zeros<float>({2});
  auto ctx = KernelCall().tensor(self).scalar(int64_t{2}).tensor(out).run("aten::leaky_relu.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-4.0f, 3.0f}));
  ctx = KernelCall().tensor(self).scalar(true).tensor(out).run("aten::leaky_relu.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-2.0f, 3.0f}));
}

TEST(LeakyRelu, SlopeMustFitTheComputeType) {
  // PyTorch converts the slope to float for Float (and Half) tensors and
  // fails on overflow; a Double tensor takes it.
  TestTensor floats = make_tensor<float>({1}, {-1.0f});
  TestTensor float_out = zeros<float>({1});
  EXPECT_TRUE(failed_with(leaky_relu(1e300)(floats, float_out), Error::InvalidArgument, "aten::leaky_relu.out",
                          "'negative_slope'"));
  TestTensor halves = make_16bit<Half>({1}, {-1.0f});
  TestTensor half_out = zeros<Half>({1});
  EXPECT_TRUE(failed_with(leaky_relu(1e300)(halves, half_out), Error::InvalidArgument, "aten::leaky_relu.out",
                          "'negative_slope'"));
  // 1e6 fits a float: -1e6 overflows the half result to -inf.
  ASSERT_EQ(leaky_relu(1e6)(halves, half_out).failure_state(), Error::Ok);
  EXPECT_EQ(floats_of<Half>(half_out)[0], -kInf);
  EXPECT_EQ(run<double>(leaky_relu(1e300), {-1.0})[0], -1e300);
  EXPECT_EQ(run<float>(leaky_relu(kInf), {-1.0f, 1.0f}), (std::vector<float>{-kInf, 1.0f}));
}

TEST(Elu, DefaultParameters) {
  EXPECT_TRUE(close_values(run<float>(elu(1, 1, 1), {-1.0f, 2.0f, -kInf, kInf, kNaN}),
                           {-0.6321205496788025f, 2.0f, -1.0f, kInf, kNaN}, 2e-7));
  // expm1(-0) = -0.
  EXPECT_TRUE(same_values(run<float>(elu(1, 1, 1), {-0.0f, 0.0f}), {-0.0f, 0.0f}));
}

TEST(Elu, AlphaScaleAndInputScale) {
  // x <= 0: expm1(x * input_scale) * alpha * scale; x > 0: x * scale.
  EXPECT_TRUE(close_values(run<float>(elu(2.0, 3.0, 0.5), {-1.0f, 2.0f}), {-2.36081600189209f, 6.0f}, 2e-7));
  EXPECT_TRUE(close_values(run<double>(elu(2.0, 3.0, 0.5), {-1.0, 2.0}), {-2.3608160417241995, 6.0}, 1e-15));
}

TEST(Elu, ParametersMustFitTheComputeType) {
  TestTensor self = make_tensor<float>({1}, {-1.0f});
  TestTensor out = zeros<float>({1});
  EXPECT_TRUE(failed_with(elu(1e300, 1, 1)(self, out), Error::InvalidArgument, "aten::elu.out", "'alpha'"));
  EXPECT_TRUE(failed_with(elu(1, -1e300, 1)(self, out), Error::InvalidArgument, "aten::elu.out", "'scale'"));
  EXPECT_TRUE(failed_with(elu(1, 1, 1e39)(self, out), Error::InvalidArgument, "aten::elu.out", "'input_scale'"));
  // Half computes in float: alpha 1e5 is fine (PyTorch gives -63200).
  EXPECT_EQ(run_16bit<Half>(elu(1e5, 1, 1), {-1.0f})[0], -63200.0f);
  // alpha * scale may overflow to inf without an error.
  EXPECT_TRUE(same_values(run<float>(elu(1e30, 1e30, 1), {-1.0f, 1.0f}), {-kInf, 1e30f}));
}

TEST(Activations, ScalarArgumentsMustBeScalars) {
  TestTensor self = make_tensor<float>({1}, {1.0f});
  TestTensor out = zeros<float>({1});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(self).tensor(out).run("aten::leaky_relu.out"),
                          Error::InvalidArgument, "aten::leaky_relu.out", "'negative_slope'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(1.0).none().scalar(1.0).tensor(out).run("aten::elu.out"),
                          Error::InvalidArgument, "aten::elu.out", "'scale'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(1.0).none().tensor(out).run("aten::hardtanh.out"),
                          Error::InvalidArgument, "aten::hardtanh.out", "'max_val'"));
}

// ---------------------------------------------------------------------------
// gelu

TEST(Gelu, ErfFormAtKnownPoints) {
  TestTensor self = make_tensor<float>({5}, {1, -1, 2, -3, 0});
  TestTensor out = zeros<float>({5});
  const auto ctx = run_gelu(self, "none", out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.8413447f, -0.1586553f, 1.9544997f, -0.0040497f, 0}, 1e-6f));
  // 0.5 x (1 + erf(x / sqrt 2)): inf at +inf; -inf * 0 = NaN at -inf (PyTorch's double result).
  EXPECT_TRUE(close_values(run<double>(gelu("none"), {1.0, kInf, -kInf}), {0.841344746068543, kInf, kNaN}, 1e-15));
}

TEST(Gelu, TanhApproximationAtKnownPoints) {
  TestTensor self = make_tensor<float>({5}, {1, -1, 2, -3, 0});
  TestTensor out = zeros<float>({5});
  auto ctx = run_gelu(self, "tanh", out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.8411920f, -0.1588080f, 1.9545977f, -0.0036374f, 0}, 1e-6f));
  TestTensor doubles = make_tensor<double>({1}, {1});
  TestTensor double_out = zeros<double>({1});
  ctx = run_gelu(doubles, "tanh", double_out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_NEAR(double_out.values<double>()[0], 0.8411919906082768, 1e-15);
}

TEST(Gelu, Errors) {
  TestTensor self = make_tensor<float>({1}, {1});
  TestTensor out = zeros<float>({1});
  EXPECT_TRUE(failed_with(run_gelu(self, "fast", out), Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  EXPECT_TRUE(failed_with(run_gelu(self, "tanhh", out), Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  EXPECT_TRUE(failed_with(run_gelu(self, "tan", out), Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  EXPECT_TRUE(failed_with(run_gelu(self, "", out), Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  const auto not_string = KernelCall().tensor(self).none().tensor(out).run("aten::gelu.out");
  EXPECT_TRUE(failed_with(not_string, Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  TestTensor ints = make_tensor<int32_t>({1}, {1});
  EXPECT_TRUE(failed_with(run_gelu(ints, "none", out), Error::InvalidArgument, "aten::gelu.out", "'self'"));
  TestTensor double_out = zeros<double>({1});
  EXPECT_TRUE(failed_with(run_gelu(self, "none", double_out), Error::InvalidArgument, "aten::gelu.out", "'out'"));
}

TEST(Gelu, BadArgumentLeavesADynamicOutUnresized) {
  TestTensor self = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<float>({4}, TensorShapeDynamism::DynamicBound);
  EXPECT_TRUE(failed_with(run_gelu(self, "fast", out), Error::InvalidArgument, "aten::gelu.out", "'approximate'"));
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{4}));
}

// ---------------------------------------------------------------------------
// hardtanh

TEST(Hardtanh, ClampsFloats) {
  EXPECT_TRUE(same_values(run<float>(hardtanh(-1, 1), {-2.0f, -1.0f, 0.0f, 0.5f, 1.0f, 2.0f, kNaN, kInf, -kInf, -0.0f}),
                          {-1.0f, -1.0f, 0.0f, 0.5f, 1.0f, 1.0f, kNaN, 1.0f, -1.0f, -0.0f}));
  EXPECT_TRUE(same_values(run<double>(hardtanh(-0.25, 1e300), {-1.0, 0.0, 1e301}), {-0.25, 0.0, 1e300}));
  // Infinite bounds clamp nothing.
  EXPECT_TRUE(same_values(run<float>(hardtanh(-kInf, kInf), {-3.0f, 3.0f, kNaN}), {-3.0f, 3.0f, kNaN}));
}

TEST(Hardtanh, CrossedBoundsGiveMaxAndNanBoundsGiveNan) {
  EXPECT_TRUE(same_values(run<float>(hardtanh(2.0, -1.0), {-3.0f, 0.0f, 3.0f}), {-1.0f, -1.0f, -1.0f}));
  EXPECT_TRUE(same_values(run<float>(hardtanh(kNaN, 1.0), {-3.0f, 0.0f, 3.0f}), {kNaN, kNaN, kNaN}));
  EXPECT_TRUE(same_values(run<double>(hardtanh(-1.0, kNaN), {0.5}), {static_cast<double>(kNaN)}));
  EXPECT_TRUE(same_values(run_16bit<Half>(hardtanh(-1.0, kNaN), {0.5f}), {kNaN}));
}

TEST(Hardtanh, IntegersTakeTruncatedBounds) {
  // PyTorch truncates the bounds for integral tensors (no type promotion).
  EXPECT_EQ(run<int32_t>(hardtanh(-1.5, 2.7), {-5, -1, 0, 1, 2, 3, 9}), (std::vector<int32_t>{-1, -1, 0, 1, 2, 2, 2}));
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  TestTensor longs = make_tensor<int64_t>({5}, {lo, -5, 0, 5, hi});
  TestTensor long_out = zeros<int64_t>({5});
  const auto ctx =
      KernelCall().tensor(longs).scalar(int64_t{-3}).scalar(int64_t{1} << 62).tensor(long_out).run("aten::hardtanh.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(long_out.values<int64_t>(), (std::vector<int64_t>{-3, -3, 0, 5, int64_t{1} << 62}));
}

TEST(Hardtanh, IntegerBoundsBeyondTheDtype) {
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  // Bounds that only widen the range leave the values alone.
  EXPECT_EQ(run<int32_t>(hardtanh(-1e10, 1e10), {lo, -5, 0, hi}), (std::vector<int32_t>{lo, -5, 0, hi}));
  EXPECT_EQ(run<int32_t>(hardtanh(-3, 4294967301.0), {lo, 0, hi}), (std::vector<int32_t>{-3, 0, hi}));
  // A min above the dtype's range or a max below it fails, as in PyTorch.
  TestTensor ints = make_tensor<int32_t>({2}, {1, 2});
  TestTensor out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(hardtanh(34359738368.0, 1099511627776.0)(ints, out), Error::InvalidArgument,
                          "aten::hardtanh.out", "'min_val'"));
  EXPECT_TRUE(failed_with(hardtanh(-1099511627776.0, -34359738368.0)(ints, out), Error::InvalidArgument,
                          "aten::hardtanh.out", "'max_val'"));
  // Bounds must convert to int64 (finite, in range).
  EXPECT_TRUE(failed_with(hardtanh(-kInf, 1)(ints, out), Error::InvalidArgument, "aten::hardtanh.out", "'min_val'"));
  EXPECT_TRUE(failed_with(hardtanh(kNaN, 1)(ints, out), Error::InvalidArgument, "aten::hardtanh.out", "'min_val'"));
  TestTensor longs = make_tensor<int64_t>({1}, {1});
  TestTensor long_out = zeros<int64_t>({1});
  EXPECT_TRUE(
      failed_with(hardtanh(-1, 1e30)(longs, long_out), Error::InvalidArgument, "aten::hardtanh.out", "'max_val'"));
  EXPECT_TRUE(failed_with(hardtanh(-1, 9223372036854775808.0)(longs, long_out), Error::InvalidArgument,
                          "aten::hardtanh.out", "'max_val'"));
}

TEST(Hardtanh, FloatingBoundsMustFitTheDtype) {
  TestTensor floats = make_tensor<float>({1}, {1.0f});
  TestTensor float_out = zeros<float>({1});
  EXPECT_TRUE(
      failed_with(hardtanh(-1e300, 1)(floats, float_out), Error::InvalidArgument, "aten::hardtanh.out", "'min_val'"));
  TestTensor halves = make_16bit<Half>({1}, {1.0f});
  TestTensor half_out = zeros<Half>({1});
  EXPECT_TRUE(
      failed_with(hardtanh(-65505.0, 1)(halves, half_out), Error::InvalidArgument, "aten::hardtanh.out", "'min_val'"));
  EXPECT_TRUE(
      failed_with(hardtanh(-1, 70000.0)(halves, half_out), Error::InvalidArgument, "aten::hardtanh.out", "'max_val'"));
  EXPECT_EQ(run_16bit<Half>(hardtanh(-65504.0, 65504.0), {1.0f}), (std::vector<float>{1.0f}));
  TestTensor bf16 = make_16bit<BFloat16>({1}, {1.0f});
  TestTensor bf16_out = zeros<BFloat16>({1});
  EXPECT_TRUE(
      failed_with(hardtanh(-3.39e38, 1)(bf16, bf16_out), Error::InvalidArgument, "aten::hardtanh.out", "'min_val'"));
  EXPECT_EQ(run_16bit<BFloat16>(hardtanh(-1e6, 1e6), {1.0f}), (std::vector<float>{1.0f}));
}

TEST(Hardtanh, BoolIsRejected) {
  TestTensor flags = make_tensor<bool>({1}, {true});
  TestTensor out = zeros<bool>({1});
  EXPECT_TRUE(failed_with(hardtanh(-1, 1)(flags, out), Error::InvalidArgument, "aten::hardtanh.out", "'self'"));
}

TEST(Hardtanh, NonContiguousSelf) {
  TestTensor self(ScalarType::Long, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<int64_t>({-5, 4, 0, 5, 2, -1});  // logical [[-5, 0, 2], [4, 5, -1]]
  TestTensor out = zeros<int64_t>({2, 3});
  ASSERT_EQ(hardtanh(-1, 3)(self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{-1, 0, 2, 3, 3, -1}));
}

// ---------------------------------------------------------------------------
// Half and BFloat16 against PyTorch's results

struct SixteenBitCase {
  const char* name;
  Call call;
  std::vector<float> in;
  std::vector<float> half_out;
  std::vector<float> bfloat16_out;
};

TEST(Activations, HalfAndBFloat16MatchPyTorch) {
  const std::vector<float> in = {-2.5f, -1.0f, -0.3f, 0.0f, 0.7f, 1.5f, 3.25f, 10.0f};
  const SixteenBitCase cases[] = {
      {"silu", plain("aten::silu.out"), in,
       {-0.189697265625f, -0.26904296875f, -0.127685546875f, 0.0f, 0.4677734375f, 1.2265625f, 3.12890625f, 10.0f},
       {-0.189453125f, -0.26953125f, -0.1279296875f, 0.0f, 0.466796875f, 1.2265625f, 3.125f, 10.0f}},
      {"hardswish", plain("aten::hardswish.out"), in,
       {-0.2083740234375f, -0.333251953125f, -0.135009765625f, 0.0f, 0.431884765625f, 1.125f, 3.25f, 10.0f},
       {-0.2080078125f, -0.333984375f, -0.1357421875f, 0.0f, 0.431640625f, 1.125f, 3.25f, 10.0f}},
      {"hardsigmoid", plain("aten::hardsigmoid.out"), in,
       {0.08331298828125f, 0.333251953125f, 0.449951171875f, 0.5f, 0.61669921875f, 0.75f, 1.0f, 1.0f},
       {0.08349609375f, 0.333984375f, 0.44921875f, 0.5f, 0.6171875f, 0.75f, 1.0f, 1.0f}},
      {"gelu none", gelu("none"), in,
       {-0.01552581787109375f, -0.15869140625f, -0.1146240234375f, 0.0f, 0.53076171875f, 1.3994140625f, 3.248046875f,
        10.0f},
       {-0.0155029296875f, -0.158203125f, -0.11474609375f, 0.0f, 0.53125f, 1.3984375f, 3.25f, 10.0f}},
      {"gelu tanh", gelu("tanh"), in,
       {-0.01508331298828125f, -0.1588134765625f, -0.1146240234375f, 0.0f, 0.53076171875f, 1.3994140625f,
        3.248046875f, 10.0f},
       {-0.01507568359375f, -0.1591796875f, -0.11474609375f, 0.0f, 0.53125f, 1.3984375f, 3.25f, 10.0f}},
      {"elu(1.5, 2, 0.5)", elu(1.5, 2.0, 0.5), in,
       {-2.140625f, -1.1806640625f, -0.41796875f, 0.0f, 1.400390625f, 3.0f, 6.5f, 20.0f},
       {-2.140625f, -1.1796875f, -0.41796875f, 0.0f, 1.3984375f, 3.0f, 6.5f, 20.0f}},
      {"leaky_relu(0.1)", leaky_relu(0.1), in,
       {-0.25f, -0.0999755859375f, -0.029998779296875f, 0.0f, 0.7001953125f, 1.5f, 3.25f, 10.0f},
       {-0.25f, -0.10009765625f, -0.030029296875f, 0.0f, 0.69921875f, 1.5f, 3.25f, 10.0f}},
      // The bounds are rounded to the dtype first (0.3 -> 0.300048828125 in half).
      {"hardtanh(-0.1, 0.3)", hardtanh(-0.1, 0.3), {-2.5f, -1.0f, -0.3f, 0.0f, 0.2f, 0.29f, 0.31f, 10.0f},
       {-0.0999755859375f, -0.0999755859375f, -0.0999755859375f, 0.0f, 0.199951171875f, 0.2900390625f,
        0.300048828125f, 0.300048828125f},
       {-0.10009765625f, -0.10009765625f, -0.10009765625f, 0.0f, 0.2001953125f, 0.2890625f, 0.30078125f,
        0.30078125f}},
  };
  for (const SixteenBitCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(same_values(run_16bit<Half>(c.call, c.in), c.half_out));
    EXPECT_TRUE(same_values(run_16bit<BFloat16>(c.call, c.in), c.bfloat16_out));
  }
}

// ---------------------------------------------------------------------------
// Shared argument checks

TEST(Activations, RejectIntegralAndBoolSelf) {
  const std::pair<const char*, Call> ops[] = {
      {"aten::silu.out", plain("aten::silu.out")},
      {"aten::hardswish.out", plain("aten::hardswish.out")},
      {"aten::hardsigmoid.out", plain("aten::hardsigmoid.out")},
      {"aten::leaky_relu.out", leaky_relu(0.01)},
      {"aten::elu.out", elu(1, 1, 1)},
  };
  for (const auto& [op, call] : ops) {
    SCOPED_TRACE(op);
    TestTensor ints = make_tensor<int32_t>({1}, {1});
    TestTensor int_out = zeros<int32_t>({1});
    EXPECT_TRUE(failed_with(call(ints, int_out), Error::InvalidArgument, op, "'self'"));
    TestTensor flags = make_tensor<bool>({1}, {true});
    TestTensor flag_out = zeros<bool>({1});
    EXPECT_TRUE(failed_with(call(flags, flag_out), Error::InvalidArgument, op, "'self'"));
  }
}

TEST(Activations, OutMustMatchSelf) {
  const std::pair<const char*, Call> ops[] = {
      {"aten::silu.out", plain("aten::silu.out")},   {"aten::leaky_relu.out", leaky_relu(0.01)},
      {"aten::elu.out", elu(1, 1, 1)},               {"aten::hardtanh.out", hardtanh(-1, 1)},
      {"aten::gelu.out", gelu("tanh")},
  };
  for (const auto& [op, call] : ops) {
    SCOPED_TRACE(op);
    TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
    TestTensor wrong_dtype = zeros<Half>({2, 2});
    EXPECT_TRUE(failed_with(call(self, wrong_dtype), Error::InvalidArgument, op, "'out'"));
    TestTensor wrong_shape = zeros<float>({4});
    EXPECT_TRUE(failed_with(call(self, wrong_shape), Error::InvalidArgument, op, "'out'"));
    TestTensor empty = zeros<float>({0, 2});
    TestTensor empty_out = zeros<float>({0, 2});
    EXPECT_EQ(call(empty, empty_out).failure_state(), Error::Ok);
  }
}

TEST(Activations, WrongArgCountFails) {
  TestTensor self = make_tensor<float>({1}, {1});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(self).tensor(out).run("aten::elu.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::elu.out", "'args'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
