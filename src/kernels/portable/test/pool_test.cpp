// max_pool2d_with_indices: windows, PyTorch's output-size rule (ceil_mode and
// its "last window starts inside" correction), -inf padding, NaN, indices.
#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kOp = "aten::max_pool2d_with_indices.out";

struct PoolParams {
  std::vector<int64_t> kernel, stride, padding = {0}, dilation = {1};
  bool ceil_mode = false;
};

KernelRuntimeContext run_pool(const TestTensor& self, const PoolParams& p, const TestTensor& out,
                              const TestTensor& indices) {
  // Multi-output ops get one (None) return slot after their out tensors.
  return KernelCall()
      .tensor(self)
      .int_list(p.kernel)
      .int_list(p.stride)
      .int_list(p.padding)
      .int_list(p.dilation)
      .scalar(p.ceil_mode)
      .tensor(out)
      .tensor(indices)
      .none()
      .run(kOp, false);
}

// A 5x5 plane with negative and positive values in no particular order:
//   -8 -5 -2  1 -7
//   -1  2 -6 -3  0
//   -5 -2  1 -7 -4
//    2 -6 -3  0 -8
//   -2  1 -7 -4 -1
std::vector<float> plane5x5() {
  std::vector<float> v;
  for (int h = 0; h < 5; ++h) {
    for (int w = 0; w < 5; ++w) v.push_back(static_cast<float>((h * 7 + w * 3) % 11 - 8));
  }
  return v;
}

TEST(MaxPoolWithIndices, PaddingActsAsMinusInfinityAndCeilModeDropsAWindowStartingInThePadding) {
  // 5 + 2 * 1 - 1 - 1 + (2 - 1) = 6 -> 6 / 2 + 1 = 4 windows in ceil mode, but
  // the 4th would start at 6 >= 5 + 1 (inside the right padding), so 3.
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, plane5x5());
  TestTensor out = zeros<float>({1, 1, 3, 3}, TensorShapeDynamism::DynamicBound);
  TestTensor indices = zeros<int64_t>({1, 1, 3, 3}, TensorShapeDynamism::DynamicBound);
  const auto ctx = run_pool(self, {{2, 2}, {2, 2}, {1, 1}, {1, 1}, true}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{1, 1, 3, 3}));
  // The corner window holds only x[0][0] = -8 and padding: -8, not 0.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-8, -2, 1, -1, 2, 0, 2, 1, 0}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 2, 3, 5, 6, 9, 15, 21, 18}));
}

TEST(MaxPoolWithIndices, CeilModeKeepsThePartialLastWindow) {
  TestTensor self = make_tensor<float>({1, 5, 5}, plane5x5());  // 3-D (C, H, W)
  TestTensor out = zeros<float>({1, 3, 3});
  TestTensor indices = zeros<int64_t>({1, 3, 3});
  auto ctx = run_pool(self, {{2}, {}, {0}, {1}, true}, out, indices);  // stride [] = kernel_size
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 1, 0, 2, 1, -4, 1, -4, -1}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{6, 3, 9, 15, 12, 14, 21, 23, 24}));

  // Floor mode drops the partial windows.
  TestTensor floor_out = zeros<float>({1, 2, 2});
  TestTensor floor_indices = zeros<int64_t>({1, 2, 2});
  ctx = run_pool(self, {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false}, floor_out, floor_indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(floor_out.values<float>(), (std::vector<float>{2, 1, 2, 1}));
  EXPECT_EQ(floor_indices.values<int64_t>(), (std::vector<int64_t>{6, 3, 15, 12}));
}

TEST(MaxPoolWithIndices, IndicesAreFlatWithinEachPlane) {
  // Two batches of two channels, each plane 2x2 with its maximum elsewhere.
  TestTensor self = make_tensor<float>({2, 2, 2, 2}, {9, 0, 0, 0, 0, 9, 0, 0, 0, 0, 9, 0, 0, 0, 0, 9});
  TestTensor out = zeros<float>({2, 2, 1, 1});
  TestTensor indices = zeros<int64_t>({2, 2, 1, 1});
  const auto ctx = run_pool(self, {{2, 2}, {}, {0}, {1}, false}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{9, 9, 9, 9}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(MaxPoolWithIndices, DilationAndAsymmetricParameters) {
  std::vector<float> iota(16);
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<float>(i);
  TestTensor self = make_tensor<float>({1, 1, 4, 4}, iota);
  // Dilation 2: the window (oh, ow) covers rows oh, oh + 2 and columns ow, ow + 2.
  TestTensor out = zeros<float>({1, 1, 2, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 2, 2});
  auto ctx = run_pool(self, {{2, 2}, {1, 1}, {0, 0}, {2, 2}, false}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{10, 11, 14, 15}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{10, 11, 14, 15}));
  // A 1x4 window with stride [1, 4]: each row's maximum.
  TestTensor rows = zeros<float>({1, 1, 4, 1});
  TestTensor row_indices = zeros<int64_t>({1, 1, 4, 1});
  ctx = run_pool(self, {{1, 4}, {1, 4}, {0, 0}, {1, 1}, false}, rows, row_indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{3, 7, 11, 15}));
  EXPECT_EQ(row_indices.values<int64_t>(), (std::vector<int64_t>{3, 7, 11, 15}));
}

TEST(MaxPoolWithIndices, NaNPropagatesAndTheLastNaNIsIndexed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  TestTensor self = make_tensor<float>({1, 1, 2, 4}, {nan, nan, -inf, -inf, 1, 5, -inf, -inf});
  TestTensor out = zeros<float>({1, 1, 1, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 1, 2});
  const auto ctx = run_pool(self, {{2, 2}, {}, {0}, {1}, false}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {nan, -inf}, 0));
  // As PyTorch's loop: every NaN takes over; an all -inf window keeps its first element.
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(MaxPoolWithIndices, DoubleInput) {
  TestTensor self = make_tensor<double>({1, 2, 2}, {1.5, -2, 0.25, 1.25});
  TestTensor out = zeros<double>({1, 1, 1});
  TestTensor indices = zeros<int64_t>({1, 1, 1});
  const auto ctx = run_pool(self, {{2, 2}, {}, {0}, {1}, false}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<double>(), std::vector<double>{1.5});
  EXPECT_EQ(indices.values<int64_t>(), std::vector<int64_t>{0});
}

TEST(MaxPoolWithIndices, Errors) {
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, plane5x5());
  TestTensor out = zeros<float>({1, 1, 2, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 2, 2});
  // Padding over half the kernel.
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {2, 2}, {2, 2}, {1, 1}}, out, indices), Error::InvalidArgument,
                          kOp, "'padding'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{0, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp,
                          "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp,
                          "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {1, 2, 3}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp,
                          "'stride'"));
  // A window larger than the input.
  EXPECT_TRUE(failed_with(run_pool(self, {{6, 6}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp, "'self'"));
  // 2-D input, empty channel dim.
  TestTensor flat = make_tensor<float>({5, 5}, plane5x5());
  EXPECT_TRUE(failed_with(run_pool(flat, {{2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp, "'self'"));
  TestTensor empty = zeros<float>({1, 0, 5, 5});
  EXPECT_TRUE(failed_with(run_pool(empty, {{2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kOp, "'self'"));
  // Indices must be Long; out must have self's dtype and the pooled shape.
  TestTensor int_indices = zeros<int32_t>({1, 1, 2, 2});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, out, int_indices), Error::InvalidArgument, kOp,
                          "'indices'"));
  TestTensor double_out = zeros<double>({1, 1, 2, 2});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, double_out, indices), Error::InvalidArgument, kOp,
                          "'out'"));
  TestTensor wrong = zeros<float>({1, 1, 3, 3});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, wrong, indices), Error::InvalidArgument, kOp, "'out'"));
  // No return slot.
  const auto short_stack = KernelCall().tensor(self).int_list({2}).int_list({}).int_list({0}).int_list({1})
                               .scalar(false).tensor(out).tensor(indices).run(kOp, false);
  EXPECT_TRUE(failed_with(short_stack, Error::InvalidArgument, kOp, "'args'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
