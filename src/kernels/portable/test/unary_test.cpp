#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

KernelRuntimeContext run_unary(const char* op, const TestTensor& self, const TestTensor& out) {
  return KernelCall().tensor(self).tensor(out).run(op);
}

TEST(Relu, ClampsNegativesAndKeepsNaN) {
  TestTensor self = make_tensor<float>({2, 3}, {-1.5f, 0.0f, 2.0f, kNaN, -kInf, kInf});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_unary("aten::relu.out", self, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.0f, 0.0f, 2.0f, kNaN, 0.0f, kInf}, 0.0f));
}

TEST(Relu, Integers) {
  TestTensor self = make_tensor<int64_t>({4}, {-7, 0, 3, INT64_MIN});
  TestTensor out = zeros<int64_t>({4});
  ASSERT_EQ(run_unary("aten::relu.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{0, 0, 3, 0}));

  TestTensor self32 = make_tensor<int32_t>({3}, {-1, 5, -9});
  TestTensor out32 = zeros<int32_t>({3});
  ASSERT_EQ(run_unary("aten::relu.out", self32, out32).failure_state(), Error::Ok);
  EXPECT_EQ(out32.values<int32_t>(), (std::vector<int32_t>{0, 5, 0}));
}

TEST(Relu, RejectsBool) {
  TestTensor self = make_tensor<bool>({2}, {true, false});
  TestTensor out = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::relu.out", self, out), Error::InvalidArgument, "aten::relu.out", "'self'"));
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
  TestTensor self = make_tensor<float>({100}, inputs);
  TestTensor out = zeros<float>({100});
  ASSERT_EQ(run_unary("aten::sin.out", self, out).failure_state(), Error::Ok);
  const std::vector<float> values = out.values<float>();
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(values[i], std::sin(inputs[i])) << inputs[i];
}

TEST(Trig, Double) {
  TestTensor self = make_tensor<double>({2}, {0.5, -2.0});
  TestTensor out = zeros<double>({2});
  ASSERT_EQ(run_unary("aten::cos.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{std::cos(0.5), std::cos(-2.0)}));
}

TEST(Trig, IntegerInputGivesFloat) {
  TestTensor self = make_tensor<int32_t>({3}, {0, 1, 2});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_unary("aten::sin.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, std::sin(1.0f), std::sin(2.0f)}));

  TestTensor flags = make_tensor<bool>({2}, {false, true});
  TestTensor flags_out = zeros<float>({2});
  ASSERT_EQ(run_unary("aten::cos.out", flags, flags_out).failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<float>(), (std::vector<float>{1.0f, std::cos(1.0f)}));
}

TEST(Trig, IntegerInputWithIntegerOutFails) {
  TestTensor self = make_tensor<int64_t>({2}, {1, 2});
  TestTensor out = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(run_unary("aten::tan.out", self, out), Error::InvalidArgument, "aten::tan.out", "'out'"));
}

TEST(Trig, ScalarAndEmptyTensors) {
  TestTensor scalar = make_tensor<float>({}, {1.0f});
  TestTensor scalar_out = zeros<float>({});
  ASSERT_EQ(run_unary("aten::sin.out", scalar, scalar_out).failure_state(), Error::Ok);
  EXPECT_EQ(scalar_out.values<float>(), (std::vector<float>{std::sin(1.0f)}));

  TestTensor empty = zeros<float>({0, 3});
  TestTensor empty_out = zeros<float>({0, 3});
  EXPECT_EQ(run_unary("aten::sin.out", empty, empty_out).failure_state(), Error::Ok);
}

TEST(Unary, NonContiguousInputIsReadInLogicalOrder) {
  // Logical [[1, -2, 3], [-4, 5, -6]] stored column-major.
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({1, -4, -2, 5, 3, -6});
  TestTensor out = zeros<float>({2, 3});
  ASSERT_EQ(run_unary("aten::relu.out", self, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 0, 3, 0, 5, 0}));
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
}

TEST(Unary, WrongOutDtypeFails) {
  TestTensor self = make_tensor<float>({3}, {1, 2, 3});
  TestTensor out = zeros<double>({3});
  EXPECT_TRUE(failed_with(run_unary("aten::relu.out", self, out), Error::InvalidArgument, "aten::relu.out", "'out'"));
}

TEST(Unary, WrongArgCountFails) {
  TestTensor self = make_tensor<float>({1}, {1});
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().tensor(self).tensor(out).run("aten::sin.out", /*add_return_slot=*/false);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::sin.out", "'args'"));
}

TEST(Unary, NonTensorSelfFails) {
  TestTensor out = zeros<float>({1});
  const auto ctx = KernelCall().scalar(1.0).tensor(out).run("aten::relu.out");
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, "aten::relu.out", "'self'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
