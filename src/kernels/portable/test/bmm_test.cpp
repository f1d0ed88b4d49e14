// bmm.out: one matrix product per batch entry.
#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kBmm = "aten::bmm.out";

TEST(BmmKernel, MultipliesEachBatchEntry) {
  // Batch 0: [[1, 2], [3, 4]] @ [[1, 0, 1], [0, 1, 1]]; batch 1: identity @ [[5, 6, 7], [8, 9, 10]].
  TestTensor a = make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
  TestTensor b = make_tensor<float>({2, 2, 3}, {1, 0, 1, 0, 1, 1, 5, 6, 7, 8, 9, 10});
  TestTensor out = zeros<float>({2, 2, 3});
  const auto ctx = KernelCall().tensor(a).tensor(b).tensor(out).run(kBmm);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 3, 4, 7, 5, 6, 7, 8, 9, 10}));
}

TEST(BmmKernel, IntegersDoublesAndEmptyInnerDim) {
  TestTensor a = make_tensor<int64_t>({1, 1, 2}, {2, 3});
  TestTensor b = make_tensor<int64_t>({1, 2, 1}, {4, 5});
  TestTensor out = zeros<int64_t>({1, 1, 1});
  auto ctx = KernelCall().tensor(a).tensor(b).tensor(out).run(kBmm);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<int64_t>(), std::vector<int64_t>{23});
  TestTensor da = make_tensor<double>({1, 1, 1}, {0.5});
  TestTensor db = make_tensor<double>({1, 1, 2}, {3, -4});
  TestTensor dout = zeros<double>({1, 1, 2});
  ctx = KernelCall().tensor(da).tensor(db).tensor(dout).run(kBmm);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(dout.values<double>(), (std::vector<double>{1.5, -2}));
  TestTensor ea = zeros<float>({2, 2, 0});
  TestTensor eb = zeros<float>({2, 0, 1});
  TestTensor eout = make_tensor<float>({2, 2, 1}, {7, 7, 7, 7});
  ctx = KernelCall().tensor(ea).tensor(eb).tensor(eout).run(kBmm);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(eout.values<float>(), (std::vector<float>{0, 0, 0, 0}));  // empty sums are zero
}

TEST(BmmKernel, Errors) {
  TestTensor a = make_tensor<float>({2, 1, 2}, {1, 2, 3, 4});
  TestTensor out = zeros<float>({2, 1, 1});
  auto ctx = KernelCall().tensor(a).tensor(a).tensor(out).run(kBmm);  // inner dims 2 vs 1
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'mat2'"));
  TestTensor other_batch = zeros<float>({3, 2, 1});
  ctx = KernelCall().tensor(a).tensor(other_batch).tensor(out).run(kBmm);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'mat2'"));
  TestTensor matrix = zeros<float>({2, 1});
  ctx = KernelCall().tensor(matrix).tensor(matrix).tensor(out).run(kBmm);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'self'"));
  TestTensor doubles = zeros<double>({2, 2, 1});
  ctx = KernelCall().tensor(a).tensor(doubles).tensor(out).run(kBmm);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'mat2'"));
  TestTensor b = zeros<float>({2, 2, 1});
  TestTensor wrong = zeros<float>({2, 1, 2});
  ctx = KernelCall().tensor(a).tensor(b).tensor(wrong).run(kBmm);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'out'"));
  TestTensor bools = zeros<bool>({2, 1, 2});
  ctx = KernelCall().tensor(bools).tensor(b).tensor(out).run(kBmm);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kBmm, "'self'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
