// index_put, masked_scatter, nonzero: the arguments refused, and what the
// golden cases cannot show (a repeated index without accumulate, an out
// tensor resized to a data-dependent shape).
#include <cstdint>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/test/tensor_lists.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_index_put(const TestTensor& self, const std::vector<const TestTensor*>& indices,
                                   const TestTensor& values, bool accumulate, const TestTensor& out) {
  OptionalTensorList list(indices);
  return KernelCall().tensor(self).value(list.value()).tensor(values).scalar(accumulate).tensor(out).run(
      "aten::index_put.out");
}

TEST(IndexPut, RepeatedIndexKeepsTheLastValueOrAddsThemAll) {
  TestTensor self = make_tensor<float>({3}, {1, 2, 3});
  TestTensor index = longs({3}, {2, 0, -1});
  TestTensor values = make_tensor<float>({3}, {10, 20, 30});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_index_put(self, {&index}, values, false, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{20, 2, 30}));
  ASSERT_EQ(run_index_put(self, {&index}, values, true, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{21, 2, 43}));
}

TEST(IndexPut, Errors) {
  const char* op = "aten::index_put.out";
  TestTensor self = zeros<float>({3, 4});
  TestTensor out = zeros<float>({3, 4});
  TestTensor rows = longs({2}, {0, 2});
  TestTensor row_values = zeros<float>({2, 4});
  TestTensor past = longs({2}, {0, 3});
  KernelRuntimeContext ctx = run_index_put(self, {&past}, row_values, false, out);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, op, "'indices'[0]"));
  EXPECT_NE(std::string(ctx.failure_message()).find("index 3, out of range for dim 0 of size 3"), std::string::npos)
      << ctx.failure_message();
  TestTensor doubles = zeros<double>({2, 4});
  EXPECT_TRUE(failed_with(run_index_put(self, {&rows}, doubles, false, out), Error::InvalidArgument, op, "'values'"));
  TestTensor too_wide = zeros<float>({2, 5});
  EXPECT_TRUE(failed_with(run_index_put(self, {&rows}, too_wide, true, out), Error::InvalidArgument, op, "'values'"));
  EXPECT_TRUE(failed_with(run_index_put(self, {nullptr}, row_values, false, out), Error::InvalidArgument, op,
                          "'indices'"));
  TestTensor short_mask = make_tensor<bool>({2}, {true, false});
  EXPECT_TRUE(failed_with(run_index_put(self, {&short_mask}, row_values, false, out), Error::InvalidArgument, op,
                          "'indices'[0]"));
  TestTensor small_out = zeros<float>({2, 4});
  EXPECT_TRUE(failed_with(run_index_put(self, {&rows}, row_values, false, small_out), Error::InvalidArgument, op,
                          "'out'"));
}

KernelRuntimeContext run_masked_scatter(const TestTensor& self, const TestTensor& mask, const TestTensor& source,
                                        const TestTensor& out) {
  return KernelCall().tensor(self).tensor(mask).tensor(source).tensor(out).run("aten::masked_scatter.out");
}

TEST(MaskedScatter, TakesSourceInItsLogicalOrder) {
  TestTensor self = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  TestTensor mask = make_tensor<bool>({2}, {true, false});  // broadcast over the rows
  TestTensor source(ScalarType::Int, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  source.set<int32_t>({10, 30, 20, 40});  // logical [[10, 20], [30, 40]]
  TestTensor out = zeros<int32_t>({2, 2});
  ASSERT_EQ(run_masked_scatter(self, mask, source, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{10, 2, 20, 4}));
}

TEST(MaskedScatter, Errors) {
  const char* op = "aten::masked_scatter.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor mask = make_tensor<bool>({3}, {true, true, false});
  TestTensor out = zeros<float>({2, 3});
  TestTensor three = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_masked_scatter(self, mask, three, out), Error::InvalidArgument, op, "'source'"));
  TestTensor four = zeros<float>({4});
  ASSERT_EQ(run_masked_scatter(self, mask, four, out).failure_state(), Error::Ok);
  TestTensor bytes = make_tensor<uint8_t>({3}, {1, 1, 0});
  EXPECT_TRUE(failed_with(run_masked_scatter(self, bytes, four, out), Error::InvalidArgument, op, "'mask'"));
  TestTensor long_mask = make_tensor<bool>({4}, {true, true, false, false});
  EXPECT_TRUE(failed_with(run_masked_scatter(self, long_mask, four, out), Error::InvalidArgument, op, "'mask'"));
  TestTensor ints = zeros<int32_t>({4});
  EXPECT_TRUE(failed_with(run_masked_scatter(self, mask, ints, out), Error::InvalidArgument, op, "'source'"));
}

TEST(Nonzero, ShrinksABoundDynamicOutToTheCount) {
  const char* op = "aten::nonzero.out";
  TestTensor self = make_tensor<float>({2, 2}, {0, 1.5f, -0.0f, 2});
  TestTensor out = zeros<int64_t>({4, 2}, TensorShapeDynamism::DynamicBound);  // numel(self) rows
  ASSERT_EQ(KernelCall().tensor(self).tensor(out).run(op).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{2, 2}));
  const std::vector<int64_t> stored = out.values<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(stored.begin(), stored.begin() + 4), (std::vector<int64_t>{0, 1, 1, 1}));
  TestTensor static_out = zeros<int64_t>({4, 2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(static_out).run(op), Error::InvalidArgument, op, "'out'"));
  TestTensor ints = zeros<int32_t>({2, 2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(ints).run(op), Error::InvalidArgument, op, "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
