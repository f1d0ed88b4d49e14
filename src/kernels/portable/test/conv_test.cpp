#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

struct ConvParams {
  std::vector<int64_t> stride{1, 1};
  std::vector<int64_t> padding{0, 0};
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
  bool transposed = false;
};

KernelRuntimeContext run_conv(const TestTensor& input, const TestTensor& weight, const TestTensor* bias,
                              const ConvParams& p, const TestTensor& out) {
  KernelCall call;
  call.tensor(input).tensor(weight);
  if (bias != nullptr) call.tensor(*bias);
  else call.none();
  return call.int_list(p.stride)
      .int_list(p.padding)
      .int_list(p.dilation)
      .scalar(p.transposed)
      .int_list({0, 0})
      .scalar(p.groups)
      .tensor(out)
      .run("aten::convolution.out");
}

// A straightforward NCHW convolution, the definition written out.
std::vector<float> reference_conv(const std::vector<float>& in, const std::vector<float>& w,
                                  const std::vector<float>& b,
                                  int n, int c_in, int h, int wd, int c_out, int kh, int kw, const ConvParams& p,
                                  int oh, int ow) {
  std::vector<float> out;
  const int in_g = c_in / static_cast<int>(p.groups), out_g = c_out / static_cast<int>(p.groups);
  for (int b_ = 0; b_ < n; ++b_)
    for (int oc = 0; oc < c_out; ++oc)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          float acc = 0;
          for (int icg = 0; icg < in_g; ++icg)
            for (int ky = 0; ky < kh; ++ky)
              for (int kx = 0; kx < kw; ++kx) {
                const int iy = y * static_cast<int>(p.stride[0]) - static_cast<int>(p.padding[0]) +
                               ky * static_cast<int>(p.dilation[0]);
                const int ix = x * static_cast<int>(p.stride[1]) - static_cast<int>(p.padding[1]) +
                               kx * static_cast<int>(p.dilation[1]);
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const int ic = (oc / out_g) * in_g + icg;
                acc += in[((b_ * c_in + ic) * h + iy) * wd + ix] * w[((oc * in_g + icg) * kh + ky) * kw + kx];
              }
          out.push_back(acc + (b.empty() ? 0.0f : b[oc]));
        }
  return out;
}

std::vector<float> small_ints(size_t count, int seed) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>((static_cast<int>(i) * 7 + seed) % 9 - 4);
  return v;
}

TEST(Convolution, AllOnesCountsTheWindow) {
  TestTensor input = make_tensor<float>({1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  TestTensor weight = make_tensor<float>({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  TestTensor out = zeros<float>({1, 1, 4, 4});
  ConvParams p;
  p.padding = {1, 1};
  const auto ctx = run_conv(input, weight, nullptr, p, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4}));
}

TEST(Convolution, HandComputed3x3WithBias) {
  TestTensor input = make_tensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  TestTensor weight = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor bias = make_tensor<float>({1}, {0.5f});
  TestTensor out = zeros<float>({1, 1, 2, 2});
  ASSERT_EQ(run_conv(input, weight, &bias, ConvParams{}, out).failure_state(), Error::Ok);
  // 1*1 + 2*2 + 3*4 + 4*5 = 37, and so on, plus the bias.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{37.5f, 47.5f, 67.5f, 77.5f}));
}

TEST(Convolution, StrideTwoPaddingOne) {
  TestTensor input = make_tensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  TestTensor weight = make_tensor<float>({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  TestTensor out = zeros<float>({1, 1, 2, 2});
  ConvParams p;
  p.stride = {2, 2};
  p.padding = {1, 1};
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  // Each output sums the 2x2 corner of the input its window covers.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{12, 16, 24, 28}));
}

TEST(Convolution, DilationTwo) {
  std::vector<float> in(25);
  for (int i = 0; i < 25; ++i) in[i] = static_cast<float>(i);
  TestTensor input = make_tensor<float>({1, 1, 5, 5}, in);
  TestTensor weight = make_tensor<float>({1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  TestTensor out = zeros<float>({1, 1, 3, 3});
  ConvParams p;
  p.dilation = {2};  // one entry applies to both dims
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  // in[y][x] + in[y][x+2] + in[y+2][x] + in[y+2][x+2] = 4 * (5y + x) + 24
  std::vector<float> expected;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) expected.push_back(static_cast<float>(4 * (5 * y + x) + 24));
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(Convolution, GroupsKeepChannelsApart) {
  // Channels 0,1 feed output 0; channels 2,3 feed output 1 (1x1 kernels).
  TestTensor input = make_tensor<float>({1, 4, 1, 2}, {1, 2, 10, 20, 100, 200, 1000, 2000});
  TestTensor weight = make_tensor<float>({2, 2, 1, 1}, {1, 2, 3, 4});
  TestTensor bias = make_tensor<float>({2}, {-1, 1});
  TestTensor out = zeros<float>({1, 2, 1, 2});
  ConvParams p;
  p.groups = 2;
  ASSERT_EQ(run_conv(input, weight, &bias, p, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1 + 20 - 1, 2 + 40 - 1, 300 + 4000 + 1, 600 + 8000 + 1}));
}

TEST(Convolution, EverythingAtOnceMatchesDefinition) {
  const int n = 2, c_in = 4, h = 7, w = 9, c_out = 6, kh = 3, kw = 2;
  ConvParams p;
  p.stride = {2, 1};
  p.padding = {1, 2};
  p.dilation = {2, 1};
  p.groups = 2;
  const int oh = (h + 2 - 2 * 2 - 1) / 2 + 1, ow = (w + 4 - 1 - 1) / 1 + 1;
  const std::vector<float> in = small_ints(n * c_in * h * w, 1);
  const std::vector<float> wt = small_ints(c_out * 2 * kh * kw, 5);
  const std::vector<float> bs = {1, -2, 3, -4, 5, -6};
  TestTensor input = make_tensor<float>({n, c_in, h, w}, in);
  TestTensor weight = make_tensor<float>({c_out, 2, kh, kw}, wt);
  TestTensor bias = make_tensor<float>({c_out}, bs);
  TestTensor out = zeros<float>({n, c_out, oh, ow});
  ASSERT_EQ(run_conv(input, weight, &bias, p, out).failure_state(), Error::Ok);
  // Small integers: every sum is exact, whatever the order.
  EXPECT_EQ(out.values<float>(), reference_conv(in, wt, bs, n, c_in, h, w, c_out, kh, kw, p, oh, ow));
}

TEST(Convolution, WideRowsMatchDefinition) {
  const int h = 5, w = 67;
  ConvParams p;
  p.padding = {1, 3};
  p.stride = {1, 3};
  const int oh = h, ow = (w + 6 - 5) / 3 + 1;
  const std::vector<float> in = small_ints(3 * h * w, 2);
  const std::vector<float> wt = small_ints(2 * 3 * 3 * 5, 3);
  TestTensor input = make_tensor<float>({1, 3, h, w}, in);
  TestTensor weight = make_tensor<float>({2, 3, 3, 5}, wt);
  TestTensor out = zeros<float>({1, 2, oh, ow});
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), reference_conv(in, wt, {}, 1, 3, h, w, 2, 3, 5, p, oh, ow));
}

TEST(Convolution, OneDimensional) {
  TestTensor input = make_tensor<float>({1, 1, 5}, {1, 2, 3, 4, 5});
  TestTensor weight = make_tensor<float>({1, 1, 3}, {1, 0, -1});
  TestTensor out = zeros<float>({1, 1, 5});
  ConvParams p;
  p.stride = {1};
  p.padding = {1};
  p.dilation = {1};
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-2, -2, -2, -2, 4}));
}

TEST(Convolution, Double) {
  TestTensor input = make_tensor<double>({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor weight = make_tensor<double>({2, 1, 1, 1}, {0.5, -1});
  TestTensor out = zeros<double>({1, 2, 2, 2});
  ASSERT_EQ(run_conv(input, weight, nullptr, ConvParams{}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0.5, 1, 1.5, 2, -1, -2, -3, -4}));
}

TEST(Convolution, ResizesDynamicOut) {
  TestTensor input = zeros<float>({1, 1, 3, 3});
  TestTensor weight = zeros<float>({1, 1, 2, 2});
  TestTensor out = zeros<float>({1, 1, 3, 3}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_conv(input, weight, nullptr, ConvParams{}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{1, 1, 2, 2}));
}

class ConvolutionErrors : public ::testing::Test {
 protected:
  TestTensor input = zeros<float>({1, 2, 4, 4});
  TestTensor weight = zeros<float>({2, 2, 3, 3});
  TestTensor out = zeros<float>({1, 2, 2, 2});
  static constexpr const char* kOp = "aten::convolution.out";
};

TEST_F(ConvolutionErrors, Transposed) {
  ConvParams p;
  p.transposed = true;
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::NotSupported, kOp, "'transposed'"));
}

TEST_F(ConvolutionErrors, WeightChannels) {
  TestTensor bad = zeros<float>({2, 1, 3, 3});
  EXPECT_TRUE(failed_with(run_conv(input, bad, nullptr, {}, out), Error::InvalidArgument, kOp, "'weight'"));
  ConvParams p;
  p.groups = 2;  // then weight must have 1 input channel per group
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kOp, "'weight'"));
}

TEST_F(ConvolutionErrors, BiasShape) {
  TestTensor bias = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_conv(input, weight, &bias, {}, out), Error::InvalidArgument, kOp, "'bias'"));
}

TEST_F(ConvolutionErrors, OutShapeAndDtype) {
  TestTensor wrong_shape = zeros<float>({1, 2, 3, 3});
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, {}, wrong_shape), Error::InvalidArgument, kOp, "'out'"));
  TestTensor wrong_dtype = zeros<double>({1, 2, 2, 2});
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, {}, wrong_dtype), Error::InvalidArgument, kOp, "'out'"));
}

TEST_F(ConvolutionErrors, IntegerInput) {
  TestTensor ints = zeros<int32_t>({1, 2, 4, 4});
  EXPECT_TRUE(failed_with(run_conv(ints, weight, nullptr, {}, out), Error::InvalidArgument, kOp, "'input'"));
}

TEST_F(ConvolutionErrors, BadGeometry) {
  ConvParams p;
  p.stride = {0, 1};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kOp, "'stride'"));
  p = ConvParams{};
  p.padding = {1, 1, 1};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kOp, "'padding'"));
  p = ConvParams{};
  p.dilation = {3, 3};  // a 7x7 window over a 4x4 input
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kOp, "'input'"));
  TestTensor flat = zeros<float>({2, 4, 4});
  EXPECT_TRUE(failed_with(run_conv(flat, weight, nullptr, {}, out), Error::InvalidArgument, kOp, "'input'"));
}

TEST_F(ConvolutionErrors, NonContiguousInput) {
  TestTensor channels_last(ScalarType::Float, {1, 2, 4, 4}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  EXPECT_TRUE(failed_with(run_conv(channels_last, weight, nullptr, {}, out), Error::NotSupported, kOp, "'input'"));
}

TEST_F(ConvolutionErrors, ArgCountAndTags) {
  KernelCall short_call;
  short_call.tensor(input).tensor(weight).none().tensor(out);
  EXPECT_TRUE(failed_with(short_call.run(kOp), Error::InvalidArgument, kOp, "'args'"));
  KernelCall bad_weight;
  bad_weight.tensor(input).scalar(1.0).none().int_list({1, 1}).int_list({0, 0}).int_list({1, 1}).scalar(false);
  bad_weight.int_list({0, 0}).scalar(int64_t{1}).tensor(out);
  EXPECT_TRUE(failed_with(bad_weight.run(kOp), Error::InvalidArgument, kOp, "'weight'"));
  KernelCall bad_groups;
  bad_groups.tensor(input).tensor(weight).none().int_list({1, 1}).int_list({0, 0}).int_list({1, 1}).scalar(false);
  bad_groups.int_list({0, 0}).scalar(1.0).tensor(out);
  EXPECT_TRUE(failed_with(bad_groups.run(kOp), Error::InvalidArgument, kOp, "'groups'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
