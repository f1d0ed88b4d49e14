// upsample_nearest2d.vec and upsample_bilinear2d.vec: hand-computed cases
// (checked against PyTorch), the source-index rules (scale factors replacing
// in / out, align_corners, the out == in and out == 2 * in cases), references
// on random inputs, 16-bit floats and argument errors.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <random>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kNearest = "aten::upsample_nearest2d.vec_out";
constexpr const char* kBilinear = "aten::upsample_bilinear2d.vec_out";

using Sizes = std::optional<std::vector<int64_t>>;
using Scales = std::optional<std::vector<double>>;

// Adds output_size and scale_factors (None or a list) to a call; the double
// list's storage lives as long as the call.
class ResizeCall {
 public:
  KernelCall& call() { return call_; }
  void sizes(const Sizes& sizes) {
    if (sizes) call_.int_list(*sizes);
    else call_.none();
  }
  void scales(const Scales& scales) {
    if (!scales) {
      call_.none();
      return;
    }
    scales_ = std::make_shared<std::vector<double>>(*scales);
    call_.value(EValue(runtime::Span<const double>(scales_->data(), scales_->size())));
  }

 private:
  KernelCall call_;
  std::shared_ptr<std::vector<double>> scales_;
};

KernelRuntimeContext run_nearest(const TestTensor& input, const Sizes& sizes, const Scales& scales,
                                 const TestTensor& out) {
  ResizeCall c;
  c.call().tensor(input);
  c.sizes(sizes);
  c.scales(scales);
  return c.call().tensor(out).run(kNearest);
}

KernelRuntimeContext run_bilinear(const TestTensor& input, const Sizes& sizes, bool align_corners,
                                  const Scales& scales, const TestTensor& out) {
  ResizeCall c;
  c.call().tensor(input);
  c.sizes(sizes);
  c.call().scalar(align_corners);
  c.scales(scales);
  return c.call().tensor(out).run(kBilinear);
}

TEST(UpsampleNearest, HandComputed) {
  // 0..5 as 2x3 to 3x5: rows 0, 0, 1 (floor(dst * 2 / 3)), columns 0, 0, 1, 1, 2.
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, iota(6));
  TestTensor out = zeros<float>({1, 1, 3, 5});
  auto ctx = run_nearest(input, std::vector<int64_t>{3, 5}, std::nullopt, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  const std::vector<float> expected = {0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5};
  EXPECT_EQ(out.values<float>(), expected);
  // Scale factors 1.5 and 1.7 give the same 3x5 (trunc(2 * 1.5), trunc(3 * 1.7)).
  TestTensor scaled = zeros<float>({1, 1, 3, 5}, TensorShapeDynamism::DynamicBound);
  ctx = run_nearest(input, std::nullopt, std::vector<double>{1.5, 1.7}, scaled);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(scaled.sizes(), (std::vector<SizesType>{1, 1, 3, 5}));
  EXPECT_EQ(scaled.values<float>(), expected);
}

TEST(UpsampleNearest, ScaleFactorsReplaceInOverOut) {
  // Width 4 with scale 1.7: 6 columns read at floor(dst / 1.7) = 0 0 1 1 2 2,
  // where in / out = 4 / 6 would read 0 0 1 2 2 3 (PyTorch reads the former).
  TestTensor input = make_tensor<float>({1, 1, 1, 4}, iota(4));
  TestTensor out = zeros<float>({1, 1, 1, 6});
  ASSERT_EQ(run_nearest(input, std::nullopt, std::vector<double>{1.0, 1.7}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 0, 1, 1, 2, 2}));
  TestTensor by_size = zeros<float>({1, 1, 1, 6});
  ASSERT_EQ(run_nearest(input, std::vector<int64_t>{1, 6}, std::nullopt, by_size).failure_state(), Error::Ok);
  EXPECT_EQ(by_size.values<float>(), (std::vector<float>{0, 0, 1, 2, 2, 3}));
}

TEST(UpsampleNearest, Downsampling) {
  // 5 to 2: floor(dst * 2.5) = 0, 2.
  TestTensor input = make_tensor<float>({1, 1, 1, 5}, iota(5));
  TestTensor out = zeros<float>({1, 1, 1, 2});
  ASSERT_EQ(run_nearest(input, std::vector<int64_t>{1, 2}, std::nullopt, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 2}));
}

// Nearest written out with PyTorch's formula (float arithmetic).
int64_t nearest_reference(int64_t dst, int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst / 2;
  const float s = scale ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
  return std::min<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(dst) * s)), in - 1);
}

TEST(UpsampleNearest, MatchesFormulaOnManySizes) {
  // Wide enough (300 columns) to span two blocks of column indices.
  for (auto [h, w, oh, ow] : std::vector<std::array<int, 4>>{{3, 5, 7, 11}, {4, 6, 8, 12}, {7, 9, 7, 9},
                                                             {5, 130, 3, 300}, {1, 1, 4, 3}}) {
    SCOPED_TRACE(::testing::Message() << h << "x" << w << " -> " << oh << "x" << ow);
    const std::vector<float> x = iota(2 * 3 * h * w);
    TestTensor input = make_tensor<float>({2, 3, h, w}, x);
    TestTensor out = zeros<float>({2, 3, oh, ow});
    ASSERT_EQ(run_nearest(input, std::vector<int64_t>{oh, ow}, std::nullopt, out).failure_state(), Error::Ok);
    std::vector<float> expected;
    for (int p = 0; p < 6; ++p)
      for (int y = 0; y < oh; ++y)
        for (int xx = 0; xx < ow; ++xx) {
          expected.push_back(x[(p * h + nearest_reference(y, h, oh, std::nullopt)) * w +
                               nearest_reference(xx, w, ow, std::nullopt)]);
        }
    EXPECT_EQ(out.values<float>(), expected);
  }
}

TEST(UpsampleNearest, HalfAndDouble) {
  std::vector<runtime::Half> half;
  for (float v : iota(4)) half.emplace_back(v * 0.25f);
  TestTensor input = make_tensor<runtime::Half>({1, 1, 2, 2}, half);
  TestTensor out = zeros<runtime::Half>({1, 1, 4, 4});
  ASSERT_EQ(run_nearest(input, std::nullopt, std::vector<double>{2.0, 2.0}, out).failure_state(), Error::Ok);
  const std::vector<int> source = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
  for (size_t i = 0; i < source.size(); ++i) EXPECT_EQ(out.values<runtime::Half>()[i].bits, half[source[i]].bits);
  TestTensor doubles = make_tensor<double>({1, 1, 1, 2}, {1.5, -2.5});
  TestTensor double_out = zeros<double>({1, 1, 2, 3});
  ASSERT_EQ(run_nearest(doubles, std::vector<int64_t>{2, 3}, std::nullopt, double_out).failure_state(), Error::Ok);
  EXPECT_EQ(double_out.values<double>(), (std::vector<double>{1.5, 1.5, -2.5, 1.5, 1.5, -2.5}));
}

TEST(UpsampleBilinear, HandComputed) {
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, iota(6));
  TestTensor out = zeros<float>({1, 1, 3, 5});
  // Half-pixel centres: columns read at 0.6 * (dst + 0.5) - 0.5, clamped at 0.
  auto ctx = run_bilinear(input, std::vector<int64_t>{3, 5}, false, std::nullopt, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_TRUE(all_near(out.values<float>(), {0, 0.4f, 1, 1.6f, 2, 1.5f, 1.9f, 2.5f, 3.1f, 3.5f, 3, 3.4f, 4, 4.6f, 5},
                       1e-6f));
  // Corners aligned: columns at dst * 2 / 4, rows at dst * 1 / 2.
  ASSERT_EQ(run_bilinear(input, std::vector<int64_t>{3, 5}, true, std::nullopt, out).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(out.values<float>(), {0, 0.5f, 1, 1.5f, 2, 1.5f, 2, 2.5f, 3, 3.5f, 3, 3.5f, 4, 4.5f, 5}, 1e-6f));
}

TEST(UpsampleBilinear, ScaleFactorsReplaceInOverOut) {
  // Width 3 with scale 1.7: columns at (dst + 0.5) / 1.7 - 0.5, so column 1
  // reads 0.3824 (in / out = 0.6 would give 0.4), as PyTorch.
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, iota(6));
  TestTensor out = zeros<float>({1, 1, 3, 5});
  ASSERT_EQ(run_bilinear(input, std::nullopt, false, std::vector<double>{1.5, 1.7}, out).failure_state(), Error::Ok);
  const std::vector<float> row = {0, 1.5f / 1.7f - 0.5f, 2.5f / 1.7f - 0.5f, 3.5f / 1.7f - 0.5f, 2};
  std::vector<float> expected;
  for (float base : {0.0f, 1.5f, 3.0f}) {
    for (float v : row) expected.push_back(base + v);
  }
  EXPECT_TRUE(all_near(out.values<float>(), expected, 1e-6f));
  // With align_corners the scale factors do not change the source index.
  TestTensor aligned = zeros<float>({1, 1, 3, 5});
  ASSERT_EQ(run_bilinear(input, std::nullopt, true, std::vector<double>{1.5, 1.7}, aligned).failure_state(), Error::Ok);
  EXPECT_TRUE(all_near(aligned.values<float>(), {0, 0.5f, 1, 1.5f, 2, 1.5f, 2, 2.5f, 3, 3.5f, 3, 3.5f, 4, 4.5f, 5}, 1e-6f));
}

TEST(UpsampleBilinear, SingleOutputsAndSameSize) {
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, iota(6));
  TestTensor one = zeros<float>({1, 1, 1, 1});
  ASSERT_EQ(run_bilinear(input, std::vector<int64_t>{1, 1}, true, std::nullopt, one).failure_state(), Error::Ok);
  EXPECT_EQ(one.values<float>(), std::vector<float>{0});  // the corner
  ASSERT_EQ(run_bilinear(input, std::vector<int64_t>{1, 1}, false, std::nullopt, one).failure_state(), Error::Ok);
  EXPECT_EQ(one.values<float>(), std::vector<float>{2.5f});  // row 0.5, column 1
  // Scale 1.2 keeps 2x3 (trunc(2.4), trunc(3.6)): an exact copy.
  TestTensor same = zeros<float>({1, 1, 2, 3});
  ASSERT_EQ(run_bilinear(input, std::nullopt, false, std::vector<double>{1.2, 1.2}, same).failure_state(), Error::Ok);
  EXPECT_EQ(same.values<float>(), iota(6));
  // Downsampling 4 to 2 averages neighbours: sources 0.5 and 2.5.
  TestTensor row = make_tensor<float>({1, 1, 1, 4}, iota(4));
  TestTensor half_row = zeros<float>({1, 1, 1, 2});
  ASSERT_EQ(run_bilinear(row, std::vector<int64_t>{1, 2}, false, std::nullopt, half_row).failure_state(), Error::Ok);
  EXPECT_EQ(half_row.values<float>(), (std::vector<float>{0.5f, 2.5f}));
}

// Bilinear interpolation from the definition, in double: the source position
// of each output, its two neighbours (the last one repeated at the border).
double source_position(int dst, int in, int out, bool align) {
  if (align) return out > 1 ? static_cast<double>(dst) * (in - 1) / (out - 1) : 0.0;
  return std::max(0.0, (dst + 0.5) * in / out - 0.5);
}

double bilinear_reference(const std::vector<double>& plane, int h, int w, double y, double x) {
  const int y0 = std::min(static_cast<int>(y), h - 1), x0 = std::min(static_cast<int>(x), w - 1);
  const int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  const double fy = std::min(y - y0, 1.0), fx = std::min(x - x0, 1.0);
  auto at = [&](int yy, int xx) { return plane[yy * w + xx]; };
  return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) + fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
}

TEST(UpsampleBilinear, MatchesDefinitionOnRandomInput) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-2, 2);
  for (bool align : {false, true}) {
    for (auto [h, w, oh, ow] : std::vector<std::array<int, 4>>{{3, 5, 7, 11}, {6, 9, 4, 5}, {5, 130, 9, 300},
                                                               {1, 4, 3, 7}, {4, 1, 2, 5}}) {
      SCOPED_TRACE(::testing::Message() << "align " << align << " " << h << "x" << w << " -> " << oh << "x" << ow);
      std::vector<double> x(2 * h * w);
      for (double& v : x) v = dist(rng);
      TestTensor input = make_tensor<double>({1, 2, h, w}, x);
      TestTensor out = zeros<double>({1, 2, oh, ow});
      ASSERT_EQ(run_bilinear(input, std::vector<int64_t>{oh, ow}, align, std::nullopt, out).failure_state(), Error::Ok);
      const std::vector<double> got = out.values<double>();
      for (int p = 0; p < 2; ++p) {
        const std::vector<double> plane(x.begin() + p * h * w, x.begin() + (p + 1) * h * w);
        for (int yy = 0; yy < oh; ++yy)
          for (int xx = 0; xx < ow; ++xx) {
            const double expected = bilinear_reference(plane, h, w, source_position(yy, h, oh, align),
                                                       source_position(xx, w, ow, align));
            ASSERT_NEAR(got[(p * oh + yy) * ow + xx], expected, 1e-12) << yy << ", " << xx;
          }
      }
      // Float agrees to the precision of a float source position (about
      // 1e-5 at column 130, times slopes of up to 4).
      TestTensor input_f = make_tensor<float>({1, 2, h, w}, std::vector<float>(x.begin(), x.end()));
      TestTensor out_f = zeros<float>({1, 2, oh, ow});
      ASSERT_EQ(run_bilinear(input_f, std::vector<int64_t>{oh, ow}, align, std::nullopt, out_f).failure_state(),
                Error::Ok);
      EXPECT_TRUE(all_near(out_f.values<float>(), std::vector<float>(got.begin(), got.end()), 1e-4f));
    }
  }
}

TEST(UpsampleBilinear, BFloat16AndHalfBlendInFloat) {
  // 0 and 2 to three columns with aligned corners: 0, 1, 2 exactly.
  std::vector<runtime::BFloat16> bf16 = {runtime::BFloat16(0.0f), runtime::BFloat16(2.0f)};
  TestTensor input = make_tensor<runtime::BFloat16>({1, 1, 1, 2}, bf16);
  TestTensor out = zeros<runtime::BFloat16>({1, 1, 1, 3});
  ASSERT_EQ(run_bilinear(input, std::vector<int64_t>{1, 3}, true, std::nullopt, out).failure_state(), Error::Ok);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(static_cast<float>(out.values<runtime::BFloat16>()[i]), static_cast<float>(i));
  // 0 and 1 to five columns, half-pixel centres: 0, 0.1, 0.5, 0.9, 1 in
  // float, each rounded once to half.
  std::vector<runtime::Half> half = {runtime::Half(0.0f), runtime::Half(1.0f)};
  TestTensor h_input = make_tensor<runtime::Half>({1, 1, 1, 2}, half);
  TestTensor h_out = zeros<runtime::Half>({1, 1, 1, 5});
  ASSERT_EQ(run_bilinear(h_input, std::vector<int64_t>{1, 5}, false, std::nullopt, h_out).failure_state(), Error::Ok);
  const float scale = 2.0f / 5.0f;
  for (int i = 0; i < 5; ++i) {
    const float src = std::max(scale * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    const float w1 = std::min(src, 1.0f);
    EXPECT_EQ(h_out.values<runtime::Half>()[i].bits, runtime::Half((1.0f - w1) * 0.0f + w1 * 1.0f).bits) << i;
  }
}

TEST(Upsample, EmptyBatch) {
  TestTensor input = zeros<float>({0, 2, 3, 3});
  TestTensor out = zeros<float>({0, 2, 6, 6});
  ASSERT_EQ(run_nearest(input, std::vector<int64_t>{6, 6}, std::nullopt, out).failure_state(), Error::Ok);
  ASSERT_EQ(run_bilinear(input, std::nullopt, false, std::vector<double>{2.0, 2.0}, out).failure_state(), Error::Ok);
}

TEST(Upsample, Errors) {
  TestTensor input = make_tensor<float>({1, 1, 2, 3}, iota(6));
  TestTensor out = zeros<float>({1, 1, 4, 6});
  for (const char* op : {kNearest, kBilinear}) {
    SCOPED_TRACE(op);
    const auto run = [&](const TestTensor& in, const Sizes& sizes, const Scales& scales, const TestTensor& o) {
      return op == kNearest ? run_nearest(in, sizes, scales, o) : run_bilinear(in, sizes, false, scales, o);
    };
    const std::vector<int64_t> size = {4, 6};
    const std::vector<double> two = {2.0, 2.0};
    EXPECT_TRUE(failed_with(run(input, size, two, out), Error::InvalidArgument, op, "'output_size'"));
    EXPECT_TRUE(failed_with(run(input, std::nullopt, std::nullopt, out), Error::InvalidArgument, op, "'scale_factors'"));
    EXPECT_TRUE(failed_with(run(input, std::vector<int64_t>{4}, std::nullopt, out), Error::InvalidArgument, op,
                            "'output_size'"));
    EXPECT_TRUE(failed_with(run(input, std::nullopt, std::vector<double>{2.0, 2.0, 2.0}, out), Error::InvalidArgument,
                            op, "'scale_factors'"));
    EXPECT_TRUE(failed_with(run(input, std::vector<int64_t>{0, 6}, std::nullopt, out), Error::InvalidArgument, op,
                            "'output_size'"));
    EXPECT_TRUE(failed_with(run(input, std::vector<int64_t>{4, -1}, std::nullopt, out), Error::InvalidArgument, op,
                            "'output_size'"));
    // trunc(2 * 0.1) = 0 rows; NaN gives no size at all.
    EXPECT_TRUE(failed_with(run(input, std::nullopt, std::vector<double>{0.1, 2.0}, out), Error::InvalidArgument, op,
                            "'scale_factors'"));
    EXPECT_TRUE(failed_with(run(input, std::nullopt, std::vector<double>{std::nan(""), 2.0}, out),
                            Error::InvalidArgument, op, "'scale_factors'"));
    TestTensor three_d = make_tensor<float>({1, 2, 3}, iota(6));
    EXPECT_TRUE(failed_with(run(three_d, size, std::nullopt, out), Error::InvalidArgument, op, "'input'"));
    TestTensor no_channels = zeros<float>({1, 0, 2, 3});
    EXPECT_TRUE(failed_with(run(no_channels, size, std::nullopt, out), Error::InvalidArgument, op, "'input'"));
    TestTensor ints = zeros<int64_t>({1, 1, 2, 3});
    EXPECT_TRUE(failed_with(run(ints, size, std::nullopt, out), Error::InvalidArgument, op, "'input'"));
    TestTensor double_out = zeros<double>({1, 1, 4, 6});
    EXPECT_TRUE(failed_with(run(input, size, std::nullopt, double_out), Error::InvalidArgument, op, "'out'"));
    TestTensor wrong_shape = zeros<float>({1, 1, 4, 5});
    EXPECT_TRUE(failed_with(run(input, size, std::nullopt, wrong_shape), Error::InvalidArgument, op, "'out'"));
    TestTensor channels_last(ScalarType::Float, {1, 2, 2, 3}, TensorShapeDynamism::Static, {0, 2, 3, 1});
    TestTensor out2 = zeros<float>({1, 2, 4, 6});
    EXPECT_TRUE(failed_with(run(channels_last, size, std::nullopt, out2), Error::NotSupported, op, "'input'"));
  }
  // Tags: output_size given as a Double, scale_factors as an int list, align_corners as an Int.
  const auto bad_size = KernelCall().tensor(input).scalar(2.0).none().tensor(out).run(kNearest);
  EXPECT_TRUE(failed_with(bad_size, Error::InvalidArgument, kNearest, "'output_size'"));
  const auto bad_scales = KernelCall().tensor(input).none().int_list({2, 2}).tensor(out).run(kNearest);
  EXPECT_TRUE(failed_with(bad_scales, Error::InvalidArgument, kNearest, "'scale_factors'"));
  const auto bad_align =
      KernelCall().tensor(input).int_list({4, 6}).scalar(int64_t{1}).none().tensor(out).run(kBilinear);
  EXPECT_TRUE(failed_with(bad_align, Error::InvalidArgument, kBilinear, "'align_corners'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
