// max_pool2d_with_indices: windows, PyTorch's output-size rule (ceil_mode and
// its "last window starts inside" correction), -inf padding, NaN, indices.
// avg_pool2d and _adaptive_avg_pool2d: hand-computed windows and divisors
// (checked against PyTorch), a reference on random inputs, 16-bit floats.
// The 3-D pools (the same code): volume indices, int64 averages, checks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kMaxPoolOp = "aten::max_pool2d_with_indices.out";

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
      .run(kMaxPoolOp, false);
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
                          kMaxPoolOp, "'padding'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{0, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp,
                          "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp,
                          "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {1, 2, 3}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp,
                          "'stride'"));
  // A window larger than the input.
  EXPECT_TRUE(failed_with(run_pool(self, {{6, 6}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp, "'self'"));
  // 2-D input, empty channel dim.
  TestTensor flat = make_tensor<float>({5, 5}, plane5x5());
  EXPECT_TRUE(failed_with(run_pool(flat, {{2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp, "'self'"));
  TestTensor empty = zeros<float>({1, 0, 5, 5});
  EXPECT_TRUE(failed_with(run_pool(empty, {{2, 2}, {}, {0}, {1}}, out, indices), Error::InvalidArgument, kMaxPoolOp, "'self'"));
  // Indices must be Long; out must have self's dtype and the pooled shape.
  TestTensor int_indices = zeros<int32_t>({1, 1, 2, 2});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, out, int_indices), Error::InvalidArgument, kMaxPoolOp,
                          "'indices'"));
  TestTensor double_out = zeros<double>({1, 1, 2, 2});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, double_out, indices), Error::InvalidArgument, kMaxPoolOp,
                          "'out'"));
  TestTensor wrong = zeros<float>({1, 1, 3, 3});
  EXPECT_TRUE(failed_with(run_pool(self, {{2, 2}, {}, {0}, {1}}, wrong, indices), Error::InvalidArgument, kMaxPoolOp, "'out'"));
  // No return slot.
  const auto short_stack = KernelCall().tensor(self).int_list({2}).int_list({}).int_list({0}).int_list({1})
                               .scalar(false).tensor(out).tensor(indices).run(kMaxPoolOp, false);
  EXPECT_TRUE(failed_with(short_stack, Error::InvalidArgument, kMaxPoolOp, "'args'"));
}

constexpr const char* kAvgOp = "aten::avg_pool2d.out";
constexpr const char* kAdaptiveOp = "aten::_adaptive_avg_pool2d.out";

struct AvgParams {
  std::vector<int64_t> kernel = {};
  std::vector<int64_t> stride = {};
  std::vector<int64_t> padding = {0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor = std::nullopt;
};

KernelRuntimeContext run_avg(const TestTensor& self, const AvgParams& p, const TestTensor& out) {
  KernelCall call;
  call.tensor(self).int_list(p.kernel).int_list(p.stride).int_list(p.padding).scalar(p.ceil_mode);
  call.scalar(p.count_include_pad);
  if (p.divisor.has_value()) call.scalar(*p.divisor);
  else call.none();
  return call.tensor(out).run(kAvgOp);
}

KernelRuntimeContext run_adaptive(const TestTensor& self, const std::vector<int64_t>& size, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(size).tensor(out).run(kAdaptiveOp);
}

TEST(AvgPool, PaddingCountsUnlessExcludedAndCeilModeKeepsPartialWindows) {
  // 0..24 in a 5x5 plane; kernel 2, stride 2, padding 1, ceil mode: 3x3
  // windows (a 4th would start in the right padding). Window (0, 2) covers
  // rows -1..0 and columns 3..4: 3 + 4 = 7 over 4 (padding counted) or 2.
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, iota(25));
  TestTensor out = zeros<float>({1, 1, 3, 3});
  AvgParams p{{2, 2}, {2, 2}, {1, 1}, true, true, std::nullopt};
  auto ctx = run_avg(self, p, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0, 0.75f, 1.75f, 3.75f, 9, 11, 8.75f, 19, 21}, 1e-6f));
  p.count_include_pad = false;
  ASSERT_EQ(run_avg(self, p, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {0, 1.5f, 3.5f, 7.5f, 9, 11, 17.5f, 19, 21}, 1e-6f));
}

TEST(AvgPool, CountIncludePadStopsAtThePaddedInput) {
  // Kernel 3, stride 2, padding 1, ceil mode over 5x5: the last window
  // (rows 3..5) reaches past the padded input (rows -1..5), so it counts
  // 3 rows, but the 2x2 corner window (rows 3..4 of the input) counts 3x3.
  TestTensor self = make_tensor<float>({1, 5, 5}, iota(25));  // 3-D
  TestTensor out = zeros<float>({1, 3, 3});
  ASSERT_EQ(run_avg(self, {{3}, {2}, {1}, true, true, std::nullopt}, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {12.0f / 9, 3, 24.0f / 9, 7, 12, 9, 72.0f / 9, 13, 84.0f / 9}, 1e-5f));
}

TEST(AvgPool, DivisorOverride) {
  // Kernel 2 with stride [] (= kernel) in ceil mode: every window divided by 5.
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, iota(25));
  TestTensor out = zeros<float>({1, 1, 3, 3});
  ASSERT_EQ(run_avg(self, {{2, 2}, {}, {0}, true, true, 5}, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {2.4f, 4, 2.6f, 10.4f, 12, 6.6f, 8.2f, 9, 4.8f}, 1e-5f));
}

// PyTorch's avg_pool2d written out: output size, window, divisor.
std::vector<double> reference_avg(const std::vector<double>& x, int planes, int h, int w, const AvgParams& p,
                                  int* out_h, int* out_w) {
  auto at = [](const std::vector<int64_t>& v, const std::vector<int64_t>& fallback, int d) {
    const std::vector<int64_t>& list = v.empty() ? fallback : v;
    return static_cast<int>(list[list.size() == 1 ? 0 : d]);
  };
  const int kh = at(p.kernel, p.kernel, 0), kw = at(p.kernel, p.kernel, 1);
  const int sh = at(p.stride, p.kernel, 0), sw = at(p.stride, p.kernel, 1);
  const int ph = at(p.padding, p.padding, 0), pw = at(p.padding, p.padding, 1);
  auto size = [&](int in, int k, int s, int pad) {
    int o = (in + 2 * pad - k + (p.ceil_mode ? s - 1 : 0)) / s + 1;
    if (p.ceil_mode && (o - 1) * s >= in + pad) --o;
    return o;
  };
  *out_h = size(h, kh, sh, ph);
  *out_w = size(w, kw, sw, pw);
  std::vector<double> out;
  for (int c = 0; c < planes; ++c)
    for (int oy = 0; oy < *out_h; ++oy)
      for (int ox = 0; ox < *out_w; ++ox) {
        const int y0 = oy * sh - ph, x0 = ox * sw - pw;
        const int y1 = std::min(y0 + kh, h + ph), x1 = std::min(x0 + kw, w + pw);
        double sum = 0;
        int inside = 0;
        for (int y = std::max(y0, 0); y < std::min(y1, h); ++y)
          for (int xx = std::max(x0, 0); xx < std::min(x1, w); ++xx, ++inside) sum += x[(c * h + y) * w + xx];
        const int count = p.divisor ? static_cast<int>(*p.divisor) : p.count_include_pad ? (y1 - y0) * (x1 - x0) : inside;
        out.push_back(sum / count);
      }
  return out;
}

template <typename T>
void expect_avg_matches_reference(std::vector<SizesType> shape, const AvgParams& p, float tolerance) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-3, 3);
  int planes = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d) planes *= shape[d];
  const int h = shape[shape.size() - 2], w = shape.back();
  std::vector<T> x(static_cast<size_t>(planes) * h * w);
  std::vector<double> xd;
  for (T& v : x) {
    v = static_cast<T>(dist(rng));
    xd.push_back(static_cast<double>(v));
  }
  int out_h = 0, out_w = 0;
  const std::vector<double> expected = reference_avg(xd, planes, h, w, p, &out_h, &out_w);
  std::vector<SizesType> out_shape = shape;
  out_shape[shape.size() - 2] = out_h;
  out_shape.back() = out_w;
  TestTensor self = make_tensor<T>(shape, x);
  TestTensor out = zeros<T>(out_shape);
  const auto ctx = run_avg(self, p, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const std::vector<T> got = out.values<T>();
  EXPECT_TRUE(all_near(std::vector<float>(got.begin(), got.end()), std::vector<float>(expected.begin(), expected.end()),
                       tolerance));
}

TEST(AvgPool, MatchesReference) {
  for (bool ceil_mode : {false, true}) {
    for (bool include_pad : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "ceil " << ceil_mode << " include_pad " << include_pad);
      expect_avg_matches_reference<float>({2, 3, 7, 9}, {{3, 2}, {2, 3}, {1, 1}, ceil_mode, include_pad, {}}, 1e-5f);
      expect_avg_matches_reference<float>({3, 6, 5}, {{2, 3}, {1, 2}, {1, 0}, ceil_mode, include_pad, {}}, 1e-5f);
      expect_avg_matches_reference<double>({1, 2, 8, 8}, {{4}, {3}, {2}, ceil_mode, include_pad, {}}, 1e-6f);
      expect_avg_matches_reference<float>({1, 1, 1, 1}, {{1}, {}, {0}, ceil_mode, include_pad, {}}, 0);
      expect_avg_matches_reference<float>({2, 4, 9}, {{3, 3}, {2, 2}, {1, 1}, ceil_mode, include_pad, -7}, 1e-5f);
    }
  }
}

TEST(AvgPool, NonSquareWindowShape) {
  // PyTorch: kernel [2, 3], stride [1, 2], padding [1, 0] over 5x5 gives 6x2.
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, iota(25));
  TestTensor out = zeros<float>({1, 1, 6, 2}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_avg(self, {{2, 3}, {1, 2}, {1, 0}, false, true, std::nullopt}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{1, 1, 6, 2}));
}

TEST(AvgPool, HalfAndBFloat16SumInFloat) {
  // 2x2 windows of 0..15: 2.5, 4.5, 10.5, 12.5 are exact in both formats.
  const std::vector<float> plane = iota(16);
  std::vector<runtime::Half> half;
  std::vector<runtime::BFloat16> bf16;
  for (float v : plane) {
    half.emplace_back(v);
    bf16.emplace_back(v);
  }
  TestTensor h_self = make_tensor<runtime::Half>({1, 4, 4}, half);
  TestTensor h_out = zeros<runtime::Half>({1, 2, 2});
  ASSERT_EQ(run_avg(h_self, {{2}, {}, {0}, false, true, std::nullopt}, h_out).failure_state(), Error::Ok);
  TestTensor b_self = make_tensor<runtime::BFloat16>({1, 4, 4}, bf16);
  TestTensor b_out = zeros<runtime::BFloat16>({1, 2, 2});
  ASSERT_EQ(run_avg(b_self, {{2}, {}, {0}, false, true, std::nullopt}, b_out).failure_state(), Error::Ok);
  const std::vector<float> expected = {2.5f, 4.5f, 10.5f, 12.5f};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(static_cast<float>(h_out.values<runtime::Half>()[i]), expected[i]);
    EXPECT_EQ(static_cast<float>(b_out.values<runtime::BFloat16>()[i]), expected[i]);
  }
  // A 3x3 window of 1, 1, ..., 1, 2: 10 / 9 computed in float, rounded once.
  std::vector<runtime::Half> ones(9, runtime::Half(1.0f));
  ones[8] = runtime::Half(2.0f);
  TestTensor third = make_tensor<runtime::Half>({1, 3, 3}, ones);
  TestTensor third_out = zeros<runtime::Half>({1, 1, 1});
  ASSERT_EQ(run_avg(third, {{3}, {}, {0}, false, true, std::nullopt}, third_out).failure_state(), Error::Ok);
  EXPECT_EQ(third_out.values<runtime::Half>()[0].bits, runtime::Half(10.0f / 9.0f).bits);
}

TEST(AvgPool, EmptyBatch) {
  TestTensor self = zeros<float>({0, 2, 4, 4});
  TestTensor out = zeros<float>({0, 2, 2, 2});
  ASSERT_EQ(run_avg(self, {{2}, {}, {0}, false, true, std::nullopt}, out).failure_state(), Error::Ok);
}

TEST(AvgPool, Errors) {
  TestTensor self = make_tensor<float>({1, 1, 5, 5}, iota(25));
  TestTensor out = zeros<float>({1, 1, 2, 2});
  const auto fails = [&](const AvgParams& p, const TestTensor& in, const TestTensor& o, Error error, const char* arg) {
    return failed_with(run_avg(in, p, o), error, kAvgOp, arg);
  };
  EXPECT_TRUE(fails({{2}, {}, {2}}, self, out, Error::InvalidArgument, "'padding'"));
  EXPECT_TRUE(fails({{2}, {}, {-1}}, self, out, Error::InvalidArgument, "'padding'"));
  EXPECT_TRUE(fails({{2}, {0, 2}}, self, out, Error::InvalidArgument, "'stride'"));
  EXPECT_TRUE(fails({{0, 2}, {1}}, self, out, Error::InvalidArgument, "'kernel_size'"));
  EXPECT_TRUE(fails({{2, 2, 2}}, self, out, Error::InvalidArgument, "'kernel_size'"));
  EXPECT_TRUE(fails({{2}, {}, {0}, false, true, 0}, self, out, Error::InvalidArgument, "'divisor_override'"));
  EXPECT_TRUE(fails({{6}}, self, out, Error::InvalidArgument, "'self'"));  // window larger than the input
  TestTensor flat = make_tensor<float>({5, 5}, iota(25));
  EXPECT_TRUE(fails({{2}}, flat, out, Error::InvalidArgument, "'self'"));
  TestTensor no_channels = zeros<float>({1, 0, 5, 5});
  EXPECT_TRUE(fails({{2}}, no_channels, out, Error::InvalidArgument, "'self'"));
  TestTensor ints = zeros<int32_t>({1, 1, 5, 5});
  EXPECT_TRUE(fails({{2}}, ints, out, Error::InvalidArgument, "'self'"));
  TestTensor double_out = zeros<double>({1, 1, 2, 2});
  EXPECT_TRUE(fails({{2}}, self, double_out, Error::InvalidArgument, "'out'"));
  TestTensor wrong_shape = zeros<float>({1, 1, 3, 3});
  EXPECT_TRUE(fails({{2}}, self, wrong_shape, Error::InvalidArgument, "'out'"));
  TestTensor channels_last(ScalarType::Float, {1, 2, 4, 4}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  EXPECT_TRUE(fails({{2}}, channels_last, out, Error::NotSupported, "'self'"));
  const auto bad_divisor = KernelCall().tensor(self).int_list({2}).int_list({}).int_list({0}).scalar(false)
                               .scalar(true).scalar(2.0).tensor(out).run(kAvgOp);
  EXPECT_TRUE(failed_with(bad_divisor, Error::InvalidArgument, kAvgOp, "'divisor_override'"));
}

TEST(AdaptiveAvgPool, HandComputedWindows) {
  // 0..9 as 2x5 to 2x3: column windows [0, 2), [1, 4), [3, 5) (checked against PyTorch).
  TestTensor self = make_tensor<float>({1, 1, 2, 5}, iota(10));
  TestTensor out = zeros<float>({1, 1, 2, 3});
  auto ctx = run_adaptive(self, {2, 3}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0.5f, 2, 3.5f, 5.5f, 7, 8.5f}, 1e-6f));
  // Larger than the input: windows of one or two elements, overlapping.
  TestTensor up = zeros<float>({1, 1, 3, 7});
  ASSERT_EQ(run_adaptive(self, {3, 7}, up).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(up.values<float>(),
                       {0, 0.5f, 1.5f, 2, 2.5f, 3.5f, 4, 2.5f, 3, 4, 4.5f, 5, 6, 6.5f, 5, 5.5f, 6.5f, 7, 7.5f, 8.5f, 9},
                       1e-6f));
}

TEST(AdaptiveAvgPool, GlobalAverageIsTheMean) {
  TestTensor self = make_tensor<float>({2, 3, 4}, iota(24));  // 3-D: two planes of 3x4
  TestTensor out = zeros<float>({2, 1, 1});
  ASSERT_EQ(run_adaptive(self, {1, 1}, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {5.5f, 17.5f}, 1e-6f));
}

// Windows from the floor and ceil of real quotients.
std::vector<double> reference_adaptive(const std::vector<double>& x, int planes, int h, int w, int oh, int ow) {
  std::vector<double> out;
  for (int c = 0; c < planes; ++c)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j) {
        const int y0 = static_cast<int>(std::floor(static_cast<double>(i) * h / oh));
        const int y1 = static_cast<int>(std::ceil(static_cast<double>(i + 1) * h / oh));
        const int x0 = static_cast<int>(std::floor(static_cast<double>(j) * w / ow));
        const int x1 = static_cast<int>(std::ceil(static_cast<double>(j + 1) * w / ow));
        double sum = 0;
        for (int y = y0; y < y1; ++y)
          for (int xx = x0; xx < x1; ++xx) sum += x[(c * h + y) * w + xx];
        out.push_back(sum / ((y1 - y0) * (x1 - x0)));
      }
  return out;
}

TEST(AdaptiveAvgPool, MatchesReference) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> dist(-3, 3);
  const int planes = 6, h = 9, w = 23;
  std::vector<double> x(planes * h * w);
  for (double& v : x) v = dist(rng);
  TestTensor self = make_tensor<double>({2, 3, h, w}, x);
  for (auto [oh, ow] : std::vector<std::pair<int, int>>{{4, 3}, {9, 23}, {5, 7}, {18, 30}, {1, 23}, {2, 1}}) {
    SCOPED_TRACE(::testing::Message() << oh << "x" << ow);
    TestTensor out = zeros<double>({2, 3, oh, ow});
    ASSERT_EQ(run_adaptive(self, {oh, ow}, out).failure_state(), Error::Ok);
    const std::vector<double> expected = reference_adaptive(x, planes, h, w, oh, ow);
    const std::vector<double> got = out.values<double>();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
  }
}

TEST(AdaptiveAvgPool, BFloat16) {
  std::vector<runtime::BFloat16> values;
  for (float v : iota(10)) values.emplace_back(v);
  TestTensor self = make_tensor<runtime::BFloat16>({1, 2, 5}, values);
  TestTensor out = zeros<runtime::BFloat16>({1, 1, 2});
  ASSERT_EQ(run_adaptive(self, {1, 2}, out).failure_state(), Error::Ok);
  // Columns [0, 3) and [2, 5) of both rows: 3.5 and 5.5 (PyTorch).
  EXPECT_EQ(static_cast<float>(out.values<runtime::BFloat16>()[0]), 3.5f);
  EXPECT_EQ(static_cast<float>(out.values<runtime::BFloat16>()[1]), 5.5f);
}

TEST(AdaptiveAvgPool, EmptyOutputAndChannels) {
  TestTensor self = make_tensor<float>({1, 1, 2, 5}, iota(10));
  TestTensor out = zeros<float>({1, 1, 0, 2});
  ASSERT_EQ(run_adaptive(self, {0, 2}, out).failure_state(), Error::Ok);
  TestTensor no_channels = zeros<float>({1, 0, 2, 2});
  TestTensor no_channels_out = zeros<float>({1, 0, 1, 1});
  ASSERT_EQ(run_adaptive(no_channels, {1, 1}, no_channels_out).failure_state(), Error::Ok);
}

TEST(AdaptiveAvgPool, Errors) {
  TestTensor self = make_tensor<float>({1, 1, 2, 5}, iota(10));
  TestTensor out = zeros<float>({1, 1, 1, 1});
  EXPECT_TRUE(failed_with(run_adaptive(self, {1}, out), Error::InvalidArgument, kAdaptiveOp, "'output_size'"));
  EXPECT_TRUE(failed_with(run_adaptive(self, {1, 1, 1}, out), Error::InvalidArgument, kAdaptiveOp, "'output_size'"));
  EXPECT_TRUE(failed_with(run_adaptive(self, {-1, 1}, out), Error::InvalidArgument, kAdaptiveOp, "'output_size'"));
  TestTensor no_rows = zeros<float>({1, 1, 0, 5});
  EXPECT_TRUE(failed_with(run_adaptive(no_rows, {1, 1}, out), Error::InvalidArgument, kAdaptiveOp, "'self'"));
  TestTensor flat = make_tensor<float>({2, 5}, iota(10));
  EXPECT_TRUE(failed_with(run_adaptive(flat, {1, 1}, out), Error::InvalidArgument, kAdaptiveOp, "'self'"));
  TestTensor longs = zeros<int64_t>({1, 1, 2, 5});
  EXPECT_TRUE(failed_with(run_adaptive(longs, {1, 1}, out), Error::InvalidArgument, kAdaptiveOp, "'self'"));
  TestTensor half_out = zeros<runtime::Half>({1, 1, 1, 1});
  EXPECT_TRUE(failed_with(run_adaptive(self, {1, 1}, half_out), Error::InvalidArgument, kAdaptiveOp, "'out'"));
}

// 3-D pools share the 2-D ones' code: the volume's flat indices, int64
// averages truncating, and the checks sized to three spatial dims.
constexpr const char* kMax3dOp = "aten::max_pool3d_with_indices.out";
constexpr const char* kAvg3dOp = "aten::avg_pool3d.out";

KernelRuntimeContext run_max3d(const TestTensor& self, const std::vector<int64_t>& kernel, const TestTensor& out,
                               const TestTensor& indices) {
  return KernelCall()
      .tensor(self)
      .int_list(kernel)
      .int_list({1})
      .int_list({0})
      .int_list({1})
      .scalar(false)
      .tensor(out)
      .tensor(indices)
      .none()
      .run(kMax3dOp, false);
}

TEST(Pool3d, MaxPoolIndicesAreFlatWithinEachVolume) {
  // A 2x2x3 volume: (d * 7 + h * 5 + w * 3) % 11 - 5.
  TestTensor self = make_tensor<float>({1, 1, 2, 2, 3}, {-5, -2, 1, 0, 3, -5, 2, 5, -3, -4, -1, 2});
  TestTensor out = zeros<float>({1, 1, 1, 1, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 1, 1, 2});
  const auto ctx = run_max3d(self, {2}, out, indices);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 5}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{7, 7}));  // (1 * 2 + 0) * 3 + 1 (PyTorch)
}

TEST(Pool3d, Int64AveragesTruncateTowardZero) {
  TestTensor self = make_tensor<int64_t>({1, 2, 2, 2}, {-7, 2, 3, -5, 1, 0, 4, -6});  // unbatched (C, D, H, W)
  TestTensor out = zeros<int64_t>({1, 3, 3, 3});
  // kernel 2, stride 1, padding 1, padding not counted.
  const auto ctx = KernelCall().tensor(self).int_list({2}).int_list({1}).int_list({1}).scalar(false).scalar(false).none()
                       .tensor(out).run(kAvg3dOp);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const std::vector<int64_t> values = out.values<int64_t>();
  // -7 alone, (-7 + 2) / 2 = -2.5, 2 alone; the middle window holds all 8: -8 / 8.
  EXPECT_EQ((std::vector<int64_t>(values.begin(), values.begin() + 3)), (std::vector<int64_t>{-7, -2, 2}));
  EXPECT_EQ(values[13], -1);
}

TEST(Pool3d, Errors) {
  TestTensor self = zeros<float>({1, 1, 2, 2, 3});
  TestTensor out = zeros<float>({1, 1, 1, 1, 2});
  TestTensor indices = zeros<int64_t>({1, 1, 1, 1, 2});
  EXPECT_TRUE(failed_with(run_max3d(self, {2, 2}, out, indices), Error::InvalidArgument, kMax3dOp, "'kernel_size'"));
  EXPECT_TRUE(failed_with(run_max3d(self, {3}, out, indices), Error::InvalidArgument, kMax3dOp, "'self'"));
  TestTensor plane = zeros<float>({1, 2, 3});
  EXPECT_TRUE(failed_with(run_max3d(plane, {2}, out, indices), Error::InvalidArgument, kMax3dOp, "'self'"));
  TestTensor flags = zeros<bool>({1, 1, 2, 2, 3});
  TestTensor flags_out = zeros<bool>({1, 1, 1, 1, 2});
  EXPECT_TRUE(failed_with(run_max3d(flags, {2}, flags_out, indices), Error::InvalidArgument, kMax3dOp, "'self'"));
  TestTensor adaptive_out = zeros<float>({1, 1, 1, 1, 1});
  constexpr const char* kAdaptive3dOp = "aten::_adaptive_avg_pool3d.out";
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).int_list({1, 1}).tensor(adaptive_out).run(kAdaptive3dOp),
                          Error::InvalidArgument, kAdaptive3dOp, "'output_size'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
