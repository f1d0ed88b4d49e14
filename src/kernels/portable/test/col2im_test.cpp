// col2im: overlapping blocks add up; the shapes and parameters it refuses.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kCol2imOp = "aten::col2im.out";

struct FoldParams {
  std::vector<int64_t> output_size, kernel, dilation = {1}, padding = {0}, stride = {1};
};

KernelRuntimeContext run_fold(const TestTensor& self, const FoldParams& p, const TestTensor& out) {
  return KernelCall()
      .tensor(self)
      .int_list(p.output_size)
      .int_list(p.kernel)
      .int_list(p.dilation)
      .int_list(p.padding)
      .int_list(p.stride)
      .tensor(out)
      .run(kCol2imOp);
}

TEST(Col2im, OverlappingBlocksAddUp) {
  // One channel, 2x2 blocks at columns 0 and 1 of a 2x3 image; column j of
  // self is block j, its rows the kernel's (0, 0), (0, 1), (1, 0), (1, 1).
  TestTensor self = make_tensor<float>({1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  TestTensor out = zeros<float>({1, 1, 2, 3});
  const auto ctx = run_fold(self, {{2, 3}, {2, 2}}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 5, 4, 5, 13, 8}));  // PyTorch
}

TEST(Col2im, Errors) {
  TestTensor self = zeros<float>({1, 4, 2});
  TestTensor out = zeros<float>({1, 1, 2, 3});
  // 3 blocks do not fit a 2x3 image with a 2x2 kernel.
  TestTensor three_blocks = zeros<float>({1, 4, 3});
  EXPECT_TRUE(failed_with(run_fold(three_blocks, {{2, 3}, {2, 2}}, out), Error::InvalidArgument, kCol2imOp, "'self'"));
  TestTensor five_rows = zeros<float>({1, 5, 2});
  EXPECT_TRUE(failed_with(run_fold(five_rows, {{2, 3}, {2, 2}}, out), Error::InvalidArgument, kCol2imOp, "'self'"));
  TestTensor no_blocks = zeros<float>({1, 4, 0});
  EXPECT_TRUE(failed_with(run_fold(no_blocks, {{2, 3}, {2, 2}}, out), Error::InvalidArgument, kCol2imOp, "'self'"));
  EXPECT_TRUE(failed_with(run_fold(self, {{1, 3}, {2, 2}}, out), Error::InvalidArgument, kCol2imOp, "'output_size'"));
  EXPECT_TRUE(failed_with(run_fold(self, {{2, 3}, {2, 2}, {1}, {-1}}, out), Error::InvalidArgument, kCol2imOp, "'padding'"));
  EXPECT_TRUE(failed_with(run_fold(self, {{2, 3}, {0, 2}}, out), Error::InvalidArgument, kCol2imOp, "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_fold(self, {{2, 3}, {2, 2, 2}}, out), Error::InvalidArgument, kCol2imOp, "'kernel_size'"));
  TestTensor longs = zeros<int64_t>({1, 4, 2});
  TestTensor long_out = zeros<int64_t>({1, 1, 2, 3});
  EXPECT_TRUE(failed_with(run_fold(longs, {{2, 3}, {2, 2}}, long_out), Error::InvalidArgument, kCol2imOp, "'self'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
