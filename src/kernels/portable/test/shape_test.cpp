#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_view(const TestTensor& self, const std::vector<int64_t>& size, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(size).tensor(out).run("aten::view_copy.out");
}

KernelRuntimeContext run_permute(const TestTensor& self, const std::vector<int64_t>& dims, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(dims).tensor(out).run("aten::permute_copy.out");
}

std::vector<float> iota(size_t count) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(ViewCopy, InfersMinusOne) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({3, 2});
  const auto ctx = run_view(self, {3, -1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), iota(6));
}

TEST(ViewCopy, ResizesDynamicOutOfAnotherRank) {
  TestTensor self = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<int64_t>({1, 1, 6}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_view(self, {-1, 1, 2}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{3, 1, 2}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ViewCopy, NonContiguousSelfIsCopiedInLogicalOrder) {
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  TestTensor out = zeros<float>({6});
  ASSERT_EQ(run_view(self, {6}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), iota(6));
}

TEST(ViewCopy, Errors) {
  const char* op = "aten::view_copy.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({6});
  EXPECT_TRUE(failed_with(run_view(self, {-1, -1}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {7}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {4, -1}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {-3, -2}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {3, 2}, out), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_dtype = zeros<double>({6});
  EXPECT_TRUE(failed_with(run_view(self, {6}, wrong_dtype), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(int64_t{6}).tensor(out).run(op), Error::InvalidArgument,
                          op, "'size'"));
  EXPECT_TRUE(failed_with(KernelCall().int_list({6}).int_list({6}).tensor(out).run(op), Error::InvalidArgument, op,
                          "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).int_list({6}).run(op), Error::InvalidArgument, op, "'args'"));
}

TEST(PermuteCopy, NegativeDims) {
  // self[i][j][k] = 12i + 4j + k, shape [2, 3, 4]; out = self.permute(-1, 0, 1), shape [4, 2, 3].
  TestTensor self = make_tensor<float>({2, 3, 4}, iota(24));
  TestTensor out = zeros<float>({4, 2, 3});
  const auto ctx = run_permute(self, {-1, 0, 1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  std::vector<float> expected;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) expected.push_back(static_cast<float>(12 * i + 4 * j + k));
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(PermuteCopy, TransposeOfIntsAndIdentity) {
  TestTensor self = make_tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<int32_t>({3, 2});
  ASSERT_EQ(run_permute(self, {1, 0}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  TestTensor same = zeros<int32_t>({2, 3});
  ASSERT_EQ(run_permute(self, {0, -1}, same).failure_state(), Error::Ok);
  EXPECT_EQ(same.values<int32_t>(), self.values<int32_t>());
}

TEST(PermuteCopy, Errors) {
  const char* op = "aten::permute_copy.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({3, 2});
  EXPECT_TRUE(failed_with(run_permute(self, {1, 1}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {1, -1}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {2, 0}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {1, 0, 2}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {0, 1}, out), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).none().tensor(out).run(op), Error::InvalidArgument, op, "'dims'"));
}

TEST(Clone, CopiesWithAnyAcceptedMemoryFormat) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  for (const EValue& format : {EValue(), EValue(int64_t{0}), EValue(int64_t{1})}) {
    TestTensor out = zeros<float>({2, 2});
    const auto ctx = KernelCall().tensor(self).value(format).tensor(out).run("aten::clone.out");
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_EQ(out.values<float>(), self.values<float>());
  }
}

TEST(Clone, BoolAndNonContiguous) {
  TestTensor flags = make_tensor<bool>({3}, {true, false, true});
  TestTensor flags_out = zeros<bool>({3});
  ASSERT_EQ(KernelCall().tensor(flags).none().tensor(flags_out).run("aten::clone.out").failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<bool>(), (std::vector<bool>{true, false, true}));

  TestTensor self(ScalarType::Double, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  self.set<double>({1, 3, 2, 4});  // logical [[1, 2], [3, 4]]
  TestTensor out = zeros<double>({2, 2});
  ASSERT_EQ(KernelCall().tensor(self).none().tensor(out).run("aten::clone.out").failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Clone, Errors) {
  const char* op = "aten::clone.out";
  TestTensor self = zeros<float>({2, 2});
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(int64_t{2}).tensor(out).run(op), Error::NotSupported, op,
                          "'memory_format'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(1.0).tensor(out).run(op), Error::InvalidArgument, op,
                          "'memory_format'"));
  TestTensor wrong_dtype = zeros<int32_t>({2, 2});
  EXPECT_TRUE(
      failed_with(KernelCall().tensor(self).none().tensor(wrong_dtype).run(op), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_shape = zeros<float>({4});
  EXPECT_TRUE(
      failed_with(KernelCall().tensor(self).none().tensor(wrong_shape).run(op), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).none().tensor(out).none().run(op), Error::InvalidArgument, op,
                          "'args'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
