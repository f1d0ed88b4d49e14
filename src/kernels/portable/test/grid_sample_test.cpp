// grid_sampler_2d: the identity grid in every interpolation mode, the three
// padding modes on a point past the border (hand-computed, checked against
// PyTorch), and argument errors.
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kGridSampler = "aten::grid_sampler_2d.out";

KernelRuntimeContext run_grid_sampler(const TestTensor& input, const TestTensor& grid, int64_t interpolation,
                                      int64_t padding, bool align_corners, const TestTensor& out) {
  return KernelCall()
      .tensor(input)
      .tensor(grid)
      .scalar(interpolation)
      .scalar(padding)
      .scalar(align_corners)
      .tensor(out)
      .run(kGridSampler);
}

TEST(GridSampler, IdentityGridReproducesTheInputInEveryMode) {
  // With align_corners, -1, 0 and 1 are the centres of pixels 0, 1 and 2.
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, values);
  TestTensor grid = make_tensor<float>({1, 2, 3, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1});
  for (int64_t interpolation : {0, 1, 2}) {
    TestTensor out = zeros<float>({1, 1, 2, 3});
    auto ctx = run_grid_sampler(input, grid, interpolation, 0, true, out);
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_TRUE(all_near(out.values<float>(), values, 1e-6f)) << "interpolation_mode " << interpolation;
  }
}

TEST(GridSampler, PaddingModesPastTheRightBorder) {
  // x = 1.5 over 3 pixels is at 3.25: outside (zeros), clipped to pixel 2
  // (border), or reflected about 2.5 to 1.75 (reflection).
  TestTensor input = make_tensor<float>({1, 1, 1, 3}, {0, 10, 20});
  TestTensor grid = make_tensor<float>({1, 1, 1, 2}, {1.5f, 0});
  const float expected[] = {0, 20, 17.5f};
  for (int64_t padding : {0, 1, 2}) {
    TestTensor out = zeros<float>({1, 1, 1, 1});
    auto ctx = run_grid_sampler(input, grid, 0, padding, false, out);
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_FLOAT_EQ(out.values<float>()[0], expected[padding]) << "padding_mode " << padding;
  }
}

TEST(GridSampler, RefusesBadModesShapesAndDtypes) {
  TestTensor input = zeros<float>({2, 3, 4, 4});
  TestTensor grid = zeros<float>({2, 5, 6, 2});
  TestTensor out = zeros<float>({2, 3, 5, 6});
  EXPECT_TRUE(failed_with(run_grid_sampler(input, grid, 3, 0, false, out), Error::InvalidArgument, kGridSampler,
                          "'interpolation_mode'"));
  EXPECT_TRUE(failed_with(run_grid_sampler(input, grid, 0, -1, false, out), Error::InvalidArgument, kGridSampler,
                          "'padding_mode'"));
  TestTensor other_batch = zeros<float>({1, 5, 6, 2});
  EXPECT_TRUE(failed_with(run_grid_sampler(input, other_batch, 0, 0, false, out), Error::InvalidArgument,
                          kGridSampler, "'grid'"));
  TestTensor three_coordinates = zeros<float>({2, 5, 6, 3});
  EXPECT_TRUE(failed_with(run_grid_sampler(input, three_coordinates, 0, 0, false, out), Error::InvalidArgument,
                          kGridSampler, "'grid'"));
  TestTensor double_grid = zeros<double>({2, 5, 6, 2});
  EXPECT_TRUE(failed_with(run_grid_sampler(input, double_grid, 0, 0, false, out), Error::InvalidArgument,
                          kGridSampler, "'grid'"));
  TestTensor empty_width = zeros<float>({2, 3, 4, 0});
  EXPECT_TRUE(failed_with(run_grid_sampler(empty_width, grid, 0, 0, false, out), Error::InvalidArgument, kGridSampler,
                          "'input'"));
  TestTensor ints = zeros<int32_t>({2, 3, 4, 4});
  EXPECT_TRUE(failed_with(run_grid_sampler(ints, grid, 0, 0, false, out), Error::InvalidArgument, kGridSampler,
                          "'input'"));
  TestTensor wrong_out = zeros<float>({2, 3, 5, 5});
  EXPECT_TRUE(failed_with(run_grid_sampler(input, grid, 0, 0, false, wrong_out), Error::InvalidArgument,
                          kGridSampler, "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
