// aten::convolution.out: hand-computed cases, PyTorch's output-size rules, and
// every tiling path (tile widths, borders, strides, depthwise, transposed)
// against the definition written out as plain loops. Inputs and weights are
// small integers, so every sum is exact whatever the order of accumulation.
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kConvolutionOp = "aten::convolution.out";

struct ConvParams {
  std::vector<int64_t> stride{1, 1};
  std::vector<int64_t> padding{0, 0};
  std::vector<int64_t> dilation{1, 1};
  std::vector<int64_t> output_padding{0, 0};
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
      .int_list(p.output_padding)
      .scalar(p.groups)
      .tensor(out)
      .run(kConvolutionOp);
}

// A 2-D convolution problem; 1-D with h = kh = 1 and 1-entry parameter
// lists when one_d is set.
struct Shape {
  int n, c_in, h, w, c_out, kh, kw;
  bool one_d = false;
};

int at(const std::vector<int64_t>& list, size_t i) { return static_cast<int>(list[list.size() == 1 ? 0 : i]); }

// Forward output size, as PyTorch defines it.
int forward_extent(int in, int k, int stride, int pad, int dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}
// Transposed output size, as PyTorch defines it.
int transposed_extent(int in, int k, int stride, int pad, int dilation, int out_pad) {
  return (in - 1) * stride - 2 * pad + dilation * (k - 1) + out_pad + 1;
}

// The definition: out[n][oc][y][x] = bias[oc] + sum over the group's input
// channels and the taps of in[n][ic][y * s - p + ky * d][x * s - p + kx * d]
// * w[oc][icg][ky][kx], taps outside the input skipped.
template <typename T>
std::vector<T> reference_forward(const std::vector<T>& in, const std::vector<T>& w, const std::vector<T>& b,
                                 const Shape& s, const ConvParams& p, int oh, int ow) {
  std::vector<T> out;
  const int in_g = s.c_in / static_cast<int>(p.groups), out_g = s.c_out / static_cast<int>(p.groups);
  const size_t last = p.stride.size() - 1;
  for (int n = 0; n < s.n; ++n)
    for (int oc = 0; oc < s.c_out; ++oc)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          T acc = 0;
          for (int icg = 0; icg < in_g; ++icg)
            for (int ky = 0; ky < s.kh; ++ky)
              for (int kx = 0; kx < s.kw; ++kx) {
                const int iy = s.one_d ? 0 : y * at(p.stride, 0) - at(p.padding, 0) + ky * at(p.dilation, 0);
                const int ix = x * at(p.stride, last) - at(p.padding, last) + kx * at(p.dilation, last);
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const int ic = (oc / out_g) * in_g + icg;
                acc += in[((n * s.c_in + ic) * s.h + iy) * s.w + ix] * w[((oc * in_g + icg) * s.kh + ky) * s.kw + kx];
              }
          out.push_back(acc + (b.empty() ? T(0) : b[oc]));
        }
  return out;
}

// The definition of the transposed convolution: every input element adds
// in * w[ic][ocg][ky][kx] at output (iy * s - p + ky * d, ix * s - p + kx * d)
// when that lies inside the output.
template <typename T>
std::vector<T> reference_transposed(const std::vector<T>& in, const std::vector<T>& w, const std::vector<T>& b,
                                    const Shape& s, const ConvParams& p, int oh, int ow) {
  std::vector<T> out(static_cast<size_t>(s.n) * s.c_out * oh * ow, T(0));
  const int in_g = s.c_in / static_cast<int>(p.groups), out_g = s.c_out / static_cast<int>(p.groups);
  const size_t last = p.stride.size() - 1;
  for (int n = 0; n < s.n; ++n)
    for (int ic = 0; ic < s.c_in; ++ic)
      for (int iy = 0; iy < s.h; ++iy)
        for (int ix = 0; ix < s.w; ++ix)
          for (int ocg = 0; ocg < out_g; ++ocg)
            for (int ky = 0; ky < s.kh; ++ky)
              for (int kx = 0; kx < s.kw; ++kx) {
                const int y = s.one_d ? 0 : iy * at(p.stride, 0) - at(p.padding, 0) + ky * at(p.dilation, 0);
                const int x = ix * at(p.stride, last) - at(p.padding, last) + kx * at(p.dilation, last);
                if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
                const int oc = (ic / in_g) * out_g + ocg;
                out[((n * s.c_out + oc) * oh + y) * ow + x] +=
                    in[((n * s.c_in + ic) * s.h + iy) * s.w + ix] * w[((ic * out_g + ocg) * s.kh + ky) * s.kw + kx];
              }
  for (size_t i = 0; i < out.size() && !b.empty(); ++i) out[i] += b[(i / (static_cast<size_t>(oh) * ow)) % s.c_out];
  return out;
}

template <typename T>
std::vector<T> small_ints(size_t count, int seed) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = static_cast<T>((static_cast<int>(i) * 7 + seed) % 9 - 4);
  return v;
}

// Runs the kernel on small integers of shape `s` and compares it exactly with
// the definition.
template <typename T>
void expect_matches_definition(const Shape& s, const ConvParams& p, bool with_bias) {
  const bool one_d = s.one_d;
  const int in_g = s.c_in / static_cast<int>(p.groups), out_g = s.c_out / static_cast<int>(p.groups);
  const size_t last = p.stride.size() - 1;
  int oh = 1, ow;
  if (p.transposed) {
    if (!one_d) oh = transposed_extent(s.h, s.kh, at(p.stride, 0), at(p.padding, 0), at(p.dilation, 0), at(p.output_padding, 0));
    ow = transposed_extent(s.w, s.kw, at(p.stride, last), at(p.padding, last), at(p.dilation, last),
                           at(p.output_padding, last));
  } else {
    if (!one_d) oh = forward_extent(s.h, s.kh, at(p.stride, 0), at(p.padding, 0), at(p.dilation, 0));
    ow = forward_extent(s.w, s.kw, at(p.stride, last), at(p.padding, last), at(p.dilation, last));
  }
  const std::vector<T> in = small_ints<T>(static_cast<size_t>(s.n) * s.c_in * s.h * s.w, 1);
  const std::vector<T> wt = small_ints<T>(static_cast<size_t>(s.c_out) * in_g * s.kh * s.kw, 5);
  std::vector<T> bs;
  if (with_bias) bs = small_ints<T>(static_cast<size_t>(s.c_out), 3);
  auto sizes = [&](int a, int b, int h, int w) {
    return one_d ? std::vector<SizesType>{a, b, w} : std::vector<SizesType>{a, b, h, w};
  };
  TestTensor input = make_tensor<T>(sizes(s.n, s.c_in, s.h, s.w), in);
  TestTensor weight = p.transposed ? make_tensor<T>(sizes(s.c_in, out_g, s.kh, s.kw), wt)
                                   : make_tensor<T>(sizes(s.c_out, in_g, s.kh, s.kw), wt);
  TestTensor bias = make_tensor<T>({s.c_out}, with_bias ? bs : std::vector<T>(s.c_out));
  TestTensor out = zeros<T>(sizes(s.n, s.c_out, oh, ow));
  const auto ctx = run_conv(input, weight, with_bias ? &bias : nullptr, p, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const std::vector<T> expected = p.transposed ? reference_transposed(in, wt, bs, s, p, oh, ow)
                                               : reference_forward(in, wt, bs, s, p, oh, ow);
  EXPECT_EQ(out.values<T>(), expected);
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

TEST(Convolution, EverythingAtOnceMatchesDefinition) {
  ConvParams p;
  p.stride = {2, 1};
  p.padding = {1, 2};
  p.dilation = {2, 1};
  p.groups = 2;
  expect_matches_definition<float>({2, 4, 7, 9, 6, 3, 2}, p, true);
}

TEST(Convolution, EveryRowWidthMatchesDefinition) {
  // Widths below, at and past each tile width (vectors of 4 floats, tiles of
  // 8 and 32 columns), with padding so that rows have border columns, for
  // channel blocks of 4 and 1 (7 output channels) and a depthwise case.
  for (int w = 1; w <= 41; ++w) {
    SCOPED_TRACE(w);
    ConvParams p;
    p.padding = {1, 1};
    expect_matches_definition<float>({1, 3, 3, w, 7, 3, 3}, p, true);
    ConvParams depthwise = p;
    depthwise.groups = 3;
    expect_matches_definition<float>({1, 3, 2, w + 1, 3, 3, 3}, depthwise, false);
    expect_matches_definition<double>({1, 2, 2, w, 5, 1, 3}, p, true);
  }
}

TEST(Convolution, StridesMatchDefinition) {
  // Horizontal stride 2 (paired loads) and 3 (single loads), with dilation
  // and padding wider than the kernel (rows and columns of padding only).
  for (int64_t stride : {2, 3}) {
    for (int w : {5, 17, 40, 71}) {
      SCOPED_TRACE(::testing::Message() << "stride " << stride << " width " << w);
      ConvParams p;
      p.stride = {stride, stride};
      p.padding = {1, 2};
      p.dilation = {1, 2};
      expect_matches_definition<float>({2, 5, 6, w, 6, 3, 3}, p, true);
      expect_matches_definition<double>({1, 2, 5, w, 4, 2, 3}, p, false);
      ConvParams wide_pad;
      wide_pad.stride = {stride, 1};
      wide_pad.padding = {4, 5};
      expect_matches_definition<float>({1, 2, 3, w, 4, 2, 2}, wide_pad, true);
    }
  }
}

TEST(Convolution, DepthwiseMatchesDefinition) {
  // groups == in_channels, with channel multipliers 1, 2 and 4.
  for (int multiplier : {1, 2, 4}) {
    SCOPED_TRACE(multiplier);
    ConvParams p;
    p.padding = {1, 1};
    p.groups = 4;
    expect_matches_definition<float>({2, 4, 9, 70, 4 * multiplier, 3, 3}, p, true);
    p.stride = {2, 2};
    expect_matches_definition<float>({1, 4, 9, 70, 4 * multiplier, 3, 3}, p, true);
    p.stride = {1, 1};
    p.dilation = {2, 3};
    expect_matches_definition<double>({1, 4, 8, 45, 4 * multiplier, 3, 3}, p, true);
  }
}

TEST(Convolution, OneDimensionalMatchesDefinition) {
  ConvParams p;
  p.stride = {2};
  p.padding = {3};
  p.dilation = {2};
  p.output_padding = {0};
  p.groups = 2;
  expect_matches_definition<float>({3, 4, 1, 50, 6, 1, 4, true}, p, true);
}

TEST(Convolution, SizeOneDims) {
  ConvParams p;
  expect_matches_definition<float>({1, 1, 1, 1, 1, 1, 1}, p, true);  // a 1x1 image and kernel
  expect_matches_definition<float>({1, 5, 1, 9, 3, 1, 2}, p, true);  // height 1
  p.padding = {2, 0};
  expect_matches_definition<float>({1, 2, 1, 1, 3, 3, 1}, p, true);  // a 1x1 image, padded rows
}

TEST(Convolution, PaddingOnlyRowsHoldTheBias) {
  // A 1x1 input with padding 2 and a 1x1 kernel: only the centre sees the input.
  TestTensor input = make_tensor<float>({1, 1, 1, 1}, {3});
  TestTensor weight = make_tensor<float>({1, 1, 1, 1}, {2});
  TestTensor bias = make_tensor<float>({1}, {-1});
  TestTensor out = zeros<float>({1, 1, 5, 5});
  ConvParams p;
  p.padding = {2, 2};
  ASSERT_EQ(run_conv(input, weight, &bias, p, out).failure_state(), Error::Ok);
  std::vector<float> expected(25, -1.0f);
  expected[12] = 5;
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(Convolution, EmptyBatch) {
  TestTensor input = zeros<float>({0, 2, 4, 4});
  TestTensor weight = zeros<float>({3, 2, 3, 3});
  TestTensor out = zeros<float>({0, 3, 2, 2});
  ConvParams p;
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  p.transposed = true;
  TestTensor t_weight = zeros<float>({2, 3, 3, 3});
  TestTensor t_out = zeros<float>({0, 3, 6, 6});
  ASSERT_EQ(run_conv(input, t_weight, nullptr, p, t_out).failure_state(), Error::Ok);
}

// A 3-D kernel of ones over an input of ones counts, at each output, the taps
// that fall inside the input: depth, rows and columns clipped alike.
TEST(Convolution, ThreeDimensionalCountsTheTapsInside) {
  TestTensor input = make_tensor<float>({1, 1, 2, 3, 40}, std::vector<float>(240, 1.0f));
  TestTensor weight = make_tensor<float>({1, 1, 3, 3, 3}, std::vector<float>(27, 1.0f));
  TestTensor out = zeros<float>({1, 1, 2, 3, 40});
  ConvParams p;
  p.stride = {1, 1, 1};
  p.padding = {1, 1, 1};
  p.dilation = {1, 1, 1};
  p.output_padding = {0, 0, 0};
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  const std::vector<float> got = out.values<float>();
  for (int d = 0; d < 2; ++d) {
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 40; ++x) {
        const int depth = 2, rows = (y == 1) ? 3 : 2, columns = (x == 0 || x == 39) ? 2 : 3;
        EXPECT_EQ(got[static_cast<size_t>((d * 3 + y) * 40 + x)], static_cast<float>(depth * rows * columns))
            << "at " << d << ", " << y << ", " << x;
      }
    }
  }
}

TEST(Convolution, ThreeDimensionalTransposedIsRefused) {
  TestTensor input = zeros<float>({1, 1, 2, 2, 2});
  TestTensor weight = zeros<float>({1, 1, 1, 1, 1});
  TestTensor out = zeros<float>({1, 1, 2, 2, 2});
  ConvParams p;
  p.stride = p.dilation = {1, 1, 1};
  p.padding = p.output_padding = {0, 0, 0};
  p.transposed = true;
  const KernelRuntimeContext ctx = run_conv(input, weight, nullptr, p, out);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("transposed: 3-D not supported yet"), std::string::npos)
      << ctx.failure_message();
}

TEST(ConvolutionTransposed, HandComputedOneDimensional) {
  // Each input element x[i] adds x[i] * [1, 10] at outputs 2i and 2i + 1
  // (checked against PyTorch); output_padding 1 appends a column nothing reaches.
  TestTensor input = make_tensor<float>({1, 1, 3}, {0, 1, 2});
  TestTensor weight = make_tensor<float>({1, 1, 2}, {1, 10});
  ConvParams p;
  p.transposed = true;
  p.stride = {2};
  p.padding = {0};
  p.dilation = {1};
  p.output_padding = {0};
  TestTensor out = zeros<float>({1, 1, 6});
  ASSERT_EQ(run_conv(input, weight, nullptr, p, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 0, 1, 10, 2, 20}));
  p.output_padding = {1};
  TestTensor padded = zeros<float>({1, 1, 7});
  ASSERT_EQ(run_conv(input, weight, nullptr, p, padded).failure_state(), Error::Ok);
  EXPECT_EQ(padded.values<float>(), (std::vector<float>{0, 0, 1, 10, 2, 20, 0}));
}

TEST(ConvolutionTransposed, HandComputed2x2) {
  TestTensor input = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor weight = make_tensor<float>({1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  TestTensor bias = make_tensor<float>({1}, {0.5f});
  ConvParams p;
  p.transposed = true;
  // Stride 1: the 2x2 windows of ones overlap, 3x3 output.
  TestTensor out = zeros<float>({1, 1, 3, 3});
  ASSERT_EQ(run_conv(input, weight, &bias, p, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5f, 3.5f, 2.5f, 4.5f, 10.5f, 6.5f, 3.5f, 7.5f, 4.5f}));
  // Stride 2: each input element fills its own 2x2 block.
  p.stride = {2, 2};
  TestTensor blocks = zeros<float>({1, 1, 4, 4});
  ASSERT_EQ(run_conv(input, weight, nullptr, p, blocks).failure_state(), Error::Ok);
  EXPECT_EQ(blocks.values<float>(), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Padding 1 crops a ring off the stride-1 result.
  p = ConvParams{};
  p.transposed = true;
  p.padding = {1, 1};
  TestTensor cropped = zeros<float>({1, 1, 1, 1});
  ASSERT_EQ(run_conv(input, weight, nullptr, p, cropped).failure_state(), Error::Ok);
  EXPECT_EQ(cropped.values<float>(), std::vector<float>{10});
}

TEST(ConvolutionTransposed, MatchesDefinition) {
  ConvParams p;
  p.transposed = true;
  p.stride = {2, 3};
  p.padding = {1, 0};
  p.dilation = {2, 1};
  p.output_padding = {1, 2};  // below the stride
  p.groups = 2;
  expect_matches_definition<float>({2, 4, 5, 7, 6, 3, 2}, p, true);
  expect_matches_definition<double>({1, 4, 3, 6, 2, 2, 3}, p, false);
  // Output padding below the dilation (stride 1).
  p.groups = 1;
  p.stride = {1, 1};
  p.dilation = {3, 2};
  p.output_padding = {2, 1};
  expect_matches_definition<float>({1, 2, 4, 5, 3, 2, 2}, p, true);
}

TEST(ConvolutionTransposed, StridesAndWidthsMatchDefinition) {
  for (int64_t stride : {1, 2, 3, 5}) {
    for (int w : {1, 2, 9, 33}) {
      SCOPED_TRACE(::testing::Message() << "stride " << stride << " width " << w);
      ConvParams p;
      p.transposed = true;
      p.stride = {stride, stride};
      p.padding = {1, 2};
      p.dilation = {1, 2};
      expect_matches_definition<float>({1, 3, 3, w, 4, 3, 4}, p, true);
    }
  }
  // Output rows too wide to accumulate in phase order scatter directly.
  ConvParams p;
  p.transposed = true;
  p.stride = {1, 2};
  expect_matches_definition<float>({1, 2, 2, 700, 2, 1, 3}, p, true);
}

TEST(ConvolutionTransposed, OneDimensionalDepthwise) {
  ConvParams p;
  p.transposed = true;
  p.stride = {3};
  p.padding = {1};
  p.dilation = {2};
  p.output_padding = {2};
  p.groups = 3;
  expect_matches_definition<float>({2, 3, 1, 11, 6, 1, 3, true}, p, true);
}

class ConvolutionErrors : public ::testing::Test {
 protected:
  TestTensor input = zeros<float>({1, 2, 4, 4});
  TestTensor weight = zeros<float>({2, 2, 3, 3});
  TestTensor out = zeros<float>({1, 2, 2, 2});
};

TEST_F(ConvolutionErrors, WeightChannels) {
  TestTensor bad = zeros<float>({2, 1, 3, 3});
  EXPECT_TRUE(failed_with(run_conv(input, bad, nullptr, {}, out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  ConvParams p;
  p.groups = 2;  // then weight must have 1 input channel per group
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  p.groups = 4;  // more groups than output channels
  TestTensor four = zeros<float>({1, 4, 4, 4});
  TestTensor per_group = zeros<float>({2, 1, 3, 3});
  EXPECT_TRUE(failed_with(run_conv(four, per_group, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  p.groups = 0;
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'groups'"));
}

TEST_F(ConvolutionErrors, WeightRank) {
  TestTensor flat_weight = zeros<float>({2, 2, 3});
  EXPECT_TRUE(failed_with(run_conv(input, flat_weight, nullptr, {}, out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
}

TEST_F(ConvolutionErrors, TransposedChannelsAndGroups) {
  ConvParams p;
  p.transposed = true;
  // Transposed weight is [in, out / groups, kh, kw]: dim 0 must be the input's 2 channels.
  TestTensor three_in = zeros<float>({3, 2, 3, 3});
  TestTensor t_out = zeros<float>({1, 2, 6, 6});
  EXPECT_TRUE(failed_with(run_conv(input, three_in, nullptr, p, t_out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  p.groups = 3;  // 2 input channels do not split into 3 groups
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, t_out), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  // Bias must have out / groups * groups = 2 entries, not 3.
  p.groups = 1;
  TestTensor bias = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_conv(input, weight, &bias, p, t_out), Error::InvalidArgument, kConvolutionOp, "'bias'"));
}

TEST_F(ConvolutionErrors, TransposedOutputPadding) {
  ConvParams p;
  p.transposed = true;
  p.stride = {2, 2};
  p.output_padding = {2, 0};  // not below stride 2 nor dilation 1
  TestTensor t_out = zeros<float>({1, 2, 11, 9});
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, t_out), Error::InvalidArgument, kConvolutionOp,
                          "'output_padding'"));
  p.output_padding = {-1, 0};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, t_out), Error::InvalidArgument, kConvolutionOp,
                          "'output_padding'"));
  p.output_padding = {0, 0, 0};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, t_out), Error::InvalidArgument, kConvolutionOp,
                          "'output_padding'"));
}

TEST_F(ConvolutionErrors, TransposedOutputTooSmall) {
  // (1 - 1) * 1 - 2 * 1 + 1 * (2 - 1) + 1 = 0 (PyTorch: "Output size is too small").
  TestTensor one = zeros<float>({1, 2, 1, 1});
  TestTensor two_by_two = zeros<float>({2, 2, 2, 2});
  ConvParams p;
  p.transposed = true;
  p.padding = {1, 1};
  EXPECT_TRUE(failed_with(run_conv(one, two_by_two, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'input'"));
}

TEST_F(ConvolutionErrors, BiasShape) {
  TestTensor bias = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_conv(input, weight, &bias, {}, out), Error::InvalidArgument, kConvolutionOp, "'bias'"));
}

TEST_F(ConvolutionErrors, OutShapeAndDtype) {
  TestTensor wrong_shape = zeros<float>({1, 2, 3, 3});
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, {}, wrong_shape), Error::InvalidArgument, kConvolutionOp, "'out'"));
  TestTensor wrong_dtype = zeros<double>({1, 2, 2, 2});
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, {}, wrong_dtype), Error::InvalidArgument, kConvolutionOp, "'out'"));
}

TEST_F(ConvolutionErrors, IntegerInput) {
  TestTensor ints = zeros<int32_t>({1, 2, 4, 4});
  EXPECT_TRUE(failed_with(run_conv(ints, weight, nullptr, {}, out), Error::InvalidArgument, kConvolutionOp, "'input'"));
}

TEST_F(ConvolutionErrors, BadGeometry) {
  ConvParams p;
  p.stride = {0, 1};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'stride'"));
  p = ConvParams{};
  p.padding = {1, 1, 1};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'padding'"));
  p = ConvParams{};
  p.padding = {-1, 0};
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'padding'"));
  p = ConvParams{};
  p.dilation = {3, 3};  // a 7x7 window over a 4x4 input
  EXPECT_TRUE(failed_with(run_conv(input, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'input'"));
  TestTensor flat = zeros<float>({2, 4, 4});
  EXPECT_TRUE(failed_with(run_conv(flat, weight, nullptr, {}, out), Error::InvalidArgument, kConvolutionOp, "'input'"));
  // An empty spatial dim (PyTorch allows only empty batch and channel dims).
  TestTensor no_rows = zeros<float>({1, 2, 0, 4});
  p = ConvParams{};
  p.padding = {2, 2};
  EXPECT_TRUE(failed_with(run_conv(no_rows, weight, nullptr, p, out), Error::InvalidArgument, kConvolutionOp, "'input'"));
}

TEST_F(ConvolutionErrors, NonContiguousInput) {
  TestTensor channels_last(ScalarType::Float, {1, 2, 4, 4}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  EXPECT_TRUE(failed_with(run_conv(channels_last, weight, nullptr, {}, out), Error::NotSupported, kConvolutionOp, "'input'"));
}

TEST_F(ConvolutionErrors, ArgCountAndTags) {
  KernelCall short_call;
  short_call.tensor(input).tensor(weight).none().tensor(out);
  EXPECT_TRUE(failed_with(short_call.run(kConvolutionOp), Error::InvalidArgument, kConvolutionOp, "'args'"));
  KernelCall bad_weight;
  bad_weight.tensor(input).scalar(1.0).none().int_list({1, 1}).int_list({0, 0}).int_list({1, 1}).scalar(false);
  bad_weight.int_list({0, 0}).scalar(int64_t{1}).tensor(out);
  EXPECT_TRUE(failed_with(bad_weight.run(kConvolutionOp), Error::InvalidArgument, kConvolutionOp, "'weight'"));
  KernelCall bad_groups;
  bad_groups.tensor(input).tensor(weight).none().int_list({1, 1}).int_list({0, 0}).int_list({1, 1}).scalar(false);
  bad_groups.int_list({0, 0}).scalar(1.0).tensor(out);
  EXPECT_TRUE(failed_with(bad_groups.run(kConvolutionOp), Error::InvalidArgument, kConvolutionOp, "'groups'"));
  KernelCall bad_transposed;
  bad_transposed.tensor(input).tensor(weight).none().int_list({1, 1}).int_list({0, 0}).int_list({1, 1});
  bad_transposed.scalar(int64_t{1}).int_list({0, 0}).scalar(int64_t{1}).tensor(out);
  EXPECT_TRUE(failed_with(bad_transposed.run(kConvolutionOp), Error::InvalidArgument, kConvolutionOp, "'transposed'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
