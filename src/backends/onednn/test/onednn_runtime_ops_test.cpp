// The oneDNN runtime against reference computations, one blob per case
// written by hand: every operation kind of onednn_graph.fbs, with post-ops,
// at odd shapes (7x5 images, 3 channels), chained so that intermediates stay
// in oneDNN's blocked layouts, and at 1 and 2 threads. Tolerance: 1e-4
// relative+absolute (float32 accumulation order differs from the double
// references).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/graph_builder.h"

#include "backends/onednn/test/runtime_test_util.h"
#include "backends/onednn/test/reference_ops.h"

namespace kiln::backends::onednn::testing {
namespace {

namespace ref = reference;
using runtime::Error;
using Floats = std::vector<float>;

struct Arg {
  Sizes sizes;
  Floats data;
};

/// Runs the blob on `inputs` and returns the single output of `out_sizes`.
Floats run(BlobBuilder& b, const std::vector<Arg>& inputs, const Sizes& out_sizes) {
  const std::vector<uint8_t> blob = b.finish();
  Runner runner;
  const Error init = runner.init(blob, &b.named_data);
  EXPECT_EQ(init, Error::Ok);
  if (init != Error::Ok) return {};
  std::vector<std::unique_ptr<HostTensor>> tensors;
  std::vector<HostTensor*> args;
  for (const Arg& a : inputs) {
    tensors.push_back(std::make_unique<HostTensor>(a.sizes, a.data));
    args.push_back(tensors.back().get());
  }
  tensors.push_back(std::make_unique<HostTensor>(out_sizes));
  args.push_back(tensors.back().get());
  EXPECT_EQ(runner.execute(args), Error::Ok);
  return tensors.back()->data;
}

flatbuffers::Offset<void> conv(BlobBuilder& b, const Sizes& stride, const Sizes& pad_l, const Sizes& pad_r,
                               const Sizes& dilation, int64_t groups, bool transposed = false,
                               const Sizes& output_padding = {}) {
  auto s = b.longs(stride), pl = b.longs(pad_l), pr = b.longs(pad_r), d = b.longs(dilation),
       op = b.longs(output_padding);
  return fb::CreateConvolution(b.fbb, s, pl, pr, d, groups, transposed, op).Union();
}

float relu(float x) { return x > 0 ? x : 0; }

// ---------------------------------------------------------------- convolution

struct ConvCase {
  const char* name;
  Sizes x, w;
  ref::Conv2dParams p;
  bool bias, relu, residual;
};

class ConvolutionTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvolutionTest, MatchesTheReference) {
  const ConvCase& c = GetParam();
  const Floats x = random_values(numel(c.x), 1), w = random_values(numel(c.w), 2, -0.5f, 0.5f);
  const Floats bias = c.bias ? random_values(c.w[0], 3) : Floats{};
  Sizes out_sizes;
  Floats want = ref::conv2d(x, c.x, w, c.w, bias, c.p, &out_sizes);
  const Floats residual = random_values(numel(out_sizes), 4);
  if (c.residual) for (size_t i = 0; i < want.size(); ++i) want[i] += residual[i];
  if (c.relu) want = ref::map(want, relu);

  BlobBuilder b;
  const int in = b.input(c.x);
  const int res = c.residual ? b.input(out_sizes) : -1;
  const int wv = b.constant(c.w, w);
  const int bv = c.bias ? b.constant({c.w[0]}, bias) : -1;
  const int out = b.output(out_sizes);
  std::vector<flatbuffers::Offset<fb::PostOp>> posts;
  if (c.residual) posts.push_back(b.binary_post(fb::BinaryAlgorithm::Add, res));
  if (c.relu) posts.push_back(b.eltwise_post(fb::EltwiseAlgorithm::Relu));
  const auto table = conv(b, {c.p.stride_h, c.p.stride_w}, {c.p.pad_t, c.p.pad_l}, {c.p.pad_b, c.p.pad_r},
                          {c.p.dil_h, c.p.dil_w}, c.p.groups);
  b.op(fb::OperationKind::Convolution, table, {in, wv, bv}, out, posts);
  std::vector<Arg> inputs{{c.x, x}};
  if (c.residual) inputs.push_back({out_sizes, residual});
  expect_near_all(run(b, inputs, out_sizes), want);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ConvolutionTest,
    ::testing::Values(ConvCase{"regular_c3_7x5", {2, 3, 7, 5}, {8, 3, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, true, true, false},
                      ConvCase{"strided", {1, 16, 9, 7}, {16, 16, 3, 3}, {2, 2, 1, 1, 1, 1, 1, 1, 1}, true, false, false},
                      ConvCase{"dilated_asymmetric", {1, 5, 11, 9}, {7, 5, 3, 3}, {1, 1, 2, 1, 2, 0, 2, 2, 1}, false, true, false},
                      ConvCase{"depthwise", {1, 32, 7, 5}, {32, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 32}, true, true, false},
                      ConvCase{"grouped", {1, 12, 6, 6}, {8, 3, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 4}, true, false, false},
                      ConvCase{"pointwise_residual", {2, 32, 7, 5}, {64, 32, 1, 1}, {}, true, true, true},
                      ConvCase{"wide_kernel_stride3", {1, 3, 13, 11}, {16, 3, 7, 7}, {3, 3, 3, 3, 3, 3, 1, 1, 1}, true, false, false}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

TEST(OneDnnOpsTest, TransposedConvolutionWithGroupsAndOutputPadding) {
  const Sizes xs{1, 4, 5, 3}, ws{4, 3, 3, 3};  // groups 2: C=4 -> O = 3 * 2
  ref::Conv2dParams p;
  p.stride_h = p.stride_w = 2;
  p.pad_t = p.pad_l = p.pad_b = p.pad_r = 1;
  p.groups = 2;
  const Floats x = random_values(numel(xs), 5), w = random_values(numel(ws), 6), bias = random_values(6, 7);
  Sizes out_sizes;
  const Floats want = ref::conv_transpose2d(x, xs, w, ws, bias, p, 1, 0, &out_sizes);
  BlobBuilder b;
  const int in = b.input(xs), wv = b.constant(ws, w), bv = b.constant({6}, bias), out = b.output(out_sizes);
  const auto table = conv(b, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 2, true, {1, 0});
  b.op(fb::OperationKind::Convolution, table, {in, wv, bv}, out);
  expect_near_all(run(b, {{xs, x}}, out_sizes), want);
}

// A 1-D convolution (rank 3), checked as a 2-D one of height 1.
TEST(OneDnnOpsTest, OneDimensionalConvolution) {
  const Sizes xs{2, 6, 11}, ws{4, 3, 5};  // groups 2, stride 2, padding 2/1, dilation 1
  const Floats x = random_values(numel(xs), 55), w = random_values(numel(ws), 56), bias = random_values(4, 57);
  ref::Conv2dParams p;
  p.stride_w = 2;
  p.pad_l = 2;
  p.pad_r = 1;
  p.groups = 2;
  Sizes s;
  const Floats want = ref::conv2d(x, {2, 6, 1, 11}, w, {4, 3, 1, 5}, bias, p, &s);
  const Sizes os{2, 4, s[3]};
  BlobBuilder b;
  const int in = b.input(xs), wv = b.constant(ws, w), bv = b.constant({4}, bias), out = b.output(os);
  b.op(fb::OperationKind::Convolution, conv(b, {2}, {2}, {1}, {1}, 2), {in, wv, bv}, out);
  expect_near_all(run(b, {{xs, x}}, os), want);
}

// conv -> conv -> add(residual from the first) -> output: the intermediates
// stay in oneDNN's layout and the result is still right.
TEST(OneDnnOpsTest, ChainedConvolutionsWithAResidualKeepTheirLayouts) {
  const Sizes xs{1, 16, 7, 5}, ws{16, 16, 3, 3};
  const Floats x = random_values(numel(xs), 8), w1 = random_values(numel(ws), 9, -0.2f, 0.2f),
               w2 = random_values(numel(ws), 10, -0.2f, 0.2f);
  ref::Conv2dParams p;
  p.pad_t = p.pad_l = p.pad_b = p.pad_r = 1;
  Sizes s;
  const Floats y1 = ref::map(ref::conv2d(x, xs, w1, ws, {}, p, &s), relu);
  Floats want = ref::conv2d(y1, s, w2, ws, {}, p, &s);
  for (size_t i = 0; i < want.size(); ++i) want[i] = relu(want[i] + y1[i]);

  BlobBuilder b;
  const int in = b.input(xs), c1 = b.constant(ws, w1), c2 = b.constant(ws, w2);
  const int mid = b.intermediate(s), out = b.output(s);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {in, c1, -1}, mid,
       {b.eltwise_post(fb::EltwiseAlgorithm::Relu)});
  const auto posts = std::vector<flatbuffers::Offset<fb::PostOp>>{b.binary_post(fb::BinaryAlgorithm::Add, mid),
                                                                  b.eltwise_post(fb::EltwiseAlgorithm::Relu)};
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {mid, c2, -1}, out, posts);
  expect_near_all(run(b, {{xs, x}}, s), want);
}

// A delegate output that a later operation reads too: the convolution's
// result is reordered to the plain output, and the relu reads it there.
TEST(OneDnnOpsTest, AnOutputReadByALaterOperation) {
  const Sizes xs{1, 16, 7, 5}, ws{16, 16, 3, 3};
  const Floats x = random_values(numel(xs), 50), w = random_values(numel(ws), 51);
  ref::Conv2dParams p;
  p.pad_t = p.pad_l = p.pad_b = p.pad_r = 1;
  Sizes s;
  const Floats y = ref::conv2d(x, xs, w, ws, {}, p, &s);
  BlobBuilder b;
  const int in = b.input(xs), wv = b.constant(ws, w), out0 = b.output(xs), out1 = b.output(xs);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {in, wv, -1}, out0);
  auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Relu, 0, 0);
  b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {out0}, out1);
  const std::vector<uint8_t> blob = b.finish();
  Runner runner;
  ASSERT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  HostTensor xt(xs, x), o0(xs), o1(xs);
  ASSERT_EQ(runner.execute({&xt, &o0, &o1}), Error::Ok);
  expect_near_all(o0.data, y);
  expect_near_all(o1.data, ref::map(y, relu));
}

// ---------------------------------------------------------------- matmul

TEST(OneDnnOpsTest, LinearWithConstantTransposedWeightsAndBias) {
  const Sizes xs{3, 7, 20}, ws{13, 20};
  const Floats x = random_values(numel(xs), 11), w = random_values(numel(ws), 12), bias = random_values(13, 13);
  const Floats want = ref::matmul(x, xs, w, ws, true, bias, {13}, {3, 7, 13});
  BlobBuilder b;
  const int in = b.input(xs), wv = b.constant(ws, w), bv = b.constant({13}, bias), out = b.output({3, 7, 13});
  b.op(fb::OperationKind::MatMul, fb::CreateMatMul(b.fbb, true).Union(), {in, wv, bv}, out,
       {b.eltwise_post(fb::EltwiseAlgorithm::GeluErf)});
  const Floats gelu = ref::map(want, [](float v) { return float(0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))); });
  expect_near_all(run(b, {{xs, x}}, {3, 7, 13}), gelu);
}

TEST(OneDnnOpsTest, BatchedMatMulOfTwoInputsWithBroadcastBatch) {
  const Sizes as{2, 3, 5, 4}, bs{3, 4, 6}, os{2, 3, 5, 6};
  const Floats a = random_values(numel(as), 14), c = random_values(numel(bs), 15);
  const Floats want = ref::matmul(a, as, c, bs, false, {}, {}, os);
  BlobBuilder b;
  const int in0 = b.input(as), in1 = b.input(bs), out = b.output(os);
  b.op(fb::OperationKind::MatMul, fb::CreateMatMul(b.fbb, false).Union(), {in0, in1, -1}, out);
  expect_near_all(run(b, {{as, a}, {bs, c}}, os), want);
}

// q @ k^T with k a computed value (attention scores), then softmax.
TEST(OneDnnOpsTest, AttentionScoresWithTransposedComputedOperandThenSoftmax) {
  const Sizes qs{2, 4, 9, 8}, os{2, 4, 9, 9};
  const Floats q = random_values(numel(qs), 16), k = random_values(numel(qs), 17);
  const Floats scores = ref::matmul(q, qs, k, qs, true, {}, {}, os);
  const Floats want = ref::softmax(ref::map(scores, [](float v) { return v * 0.25f; }), os, 3, false);
  BlobBuilder b;
  const int in0 = b.input(qs), in1 = b.input(qs), mid = b.intermediate(os), out = b.output(os);
  b.op(fb::OperationKind::MatMul, fb::CreateMatMul(b.fbb, true).Union(), {in0, in1, -1}, mid,
       {b.eltwise_post(fb::EltwiseAlgorithm::Linear, 0.25f, 0.0f)});
  b.op(fb::OperationKind::Softmax, fb::CreateSoftmax(b.fbb, -1, false).Union(), {mid}, out);
  expect_near_all(run(b, {{qs, q}, {qs, k}}, os), want);
}

// ---------------------------------------------------------------- normalization

// Layer norm over W of a convolution's channels-last result: a layout the
// primitive refuses, so the operation is planned again reading a plain copy.
TEST(OneDnnOpsTest, LayerNormAfterAConvolutionReadsAPlainCopy) {
  const Sizes xs{1, 16, 7, 5}, ws{16, 16, 1, 1};
  const Floats x = random_values(numel(xs), 60), w = random_values(numel(ws), 61), lw = random_values(5, 62);
  ref::Conv2dParams p;
  Sizes s;
  const Floats y = ref::conv2d(x, xs, w, ws, {}, p, &s);
  BlobBuilder b;
  const int in = b.input(xs), wv = b.constant(ws, w), lv = b.constant({5}, lw), mid = b.intermediate(xs),
            out = b.output(xs);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1), {in, wv, -1}, mid);
  b.op(fb::OperationKind::LayerNorm, fb::CreateLayerNorm(b.fbb, 1e-5f, 1).Union(), {mid, lv, -1}, out);
  expect_near_all(run(b, {{xs, x}}, xs), ref::layer_norm(y, xs, 1, lw, {}, 1e-5f));
}

TEST(OneDnnOpsTest, BatchNormInferenceWithScaleAndShift) {
  const Sizes xs{2, 3, 7, 5};
  const Floats x = random_values(numel(xs), 18), mean = random_values(3, 19), var = random_values(3, 20, 0.5f, 2.f),
               w = random_values(3, 21), bias = random_values(3, 22);
  const Floats want = ref::batch_norm(x, xs, mean, var, w, bias, 1e-5f);
  BlobBuilder b;
  const int in = b.input(xs), m = b.constant({3}, mean), v = b.constant({3}, var), wv = b.constant({3}, w),
            bv = b.constant({3}, bias), out = b.output(xs);
  b.op(fb::OperationKind::BatchNorm, fb::CreateBatchNorm(b.fbb, 1e-5f).Union(), {in, m, v, wv, bv}, out);
  expect_near_all(run(b, {{xs, x}}, xs), want);
}

TEST(OneDnnOpsTest, LayerNormOverTheLastOneAndTwoDimensions) {
  const Sizes xs{2, 7, 5};
  const Floats x = random_values(numel(xs), 23), w5 = random_values(5, 24), b5 = random_values(5, 25),
               w35 = random_values(35, 26);
  {
    BlobBuilder b;
    const int in = b.input(xs), wv = b.constant({5}, w5), bv = b.constant({5}, b5), out = b.output(xs);
    b.op(fb::OperationKind::LayerNorm, fb::CreateLayerNorm(b.fbb, 1e-5f, 1).Union(), {in, wv, bv}, out);
    expect_near_all(run(b, {{xs, x}}, xs), ref::layer_norm(x, xs, 1, w5, b5, 1e-5f));
  }
  {
    BlobBuilder b;
    const int in = b.input(xs), wv = b.constant({7, 5}, w35), out = b.output(xs);
    b.op(fb::OperationKind::LayerNorm, fb::CreateLayerNorm(b.fbb, 1e-5f, 2).Union(), {in, wv, -1}, out);
    expect_near_all(run(b, {{xs, x}}, xs), ref::layer_norm(x, xs, 2, w35, {}, 1e-5f));
  }
}

TEST(OneDnnOpsTest, SoftmaxAndLogSoftmaxOnAnInnerAxis) {
  const Sizes xs{2, 6, 7, 5};
  const Floats x = random_values(numel(xs), 27, -3.f, 3.f);
  for (bool log : {false, true}) {
    BlobBuilder b;
    const int in = b.input(xs), out = b.output(xs);
    b.op(fb::OperationKind::Softmax, fb::CreateSoftmax(b.fbb, 1, log).Union(), {in}, out);
    expect_near_all(run(b, {{xs, x}}, xs), ref::softmax(x, xs, 1, log));
  }
}

// ---------------------------------------------------------------- pooling, reduction, resampling

TEST(OneDnnOpsTest, PoolingMaxAndAverageWithAndWithoutPadding) {
  const Sizes xs{2, 3, 7, 5};
  const Floats x = random_values(numel(xs), 28);
  struct Case {
    fb::PoolingAlgorithm alg;
    ref::Pool kind;
    int64_t pb, pr;  // bottom/right padding (ceil mode adds 1)
  };
  for (const Case& c : {Case{fb::PoolingAlgorithm::Max, ref::Pool::Max, 1, 1},
                        Case{fb::PoolingAlgorithm::AvgIncludePadding, ref::Pool::AvgInclude, 1, 1},
                        Case{fb::PoolingAlgorithm::AvgExcludePadding, ref::Pool::AvgExclude, 1, 1},
                        Case{fb::PoolingAlgorithm::Max, ref::Pool::Max, 2, 2}}) {
    const int64_t oh = (7 + 1 + c.pb - 3) / 2 + 1, ow = (5 + 1 + c.pr - 3) / 2 + 1;
    const Sizes os{2, 3, oh, ow};
    BlobBuilder b;
    const int in = b.input(xs), out = b.output(os);
    auto k = b.longs({3, 3}), s = b.longs({2, 2}), pl = b.longs({1, 1}), pr = b.longs({c.pb, c.pr});
    b.op(fb::OperationKind::Pooling, fb::CreatePooling(b.fbb, c.alg, k, s, pl, pr).Union(), {in}, out);
    expect_near_all(run(b, {{xs, x}}, os), ref::pool2d(x, xs, os, 3, 3, 2, 2, 1, 1, c.pb, c.pr, c.kind));
  }
}

TEST(OneDnnOpsTest, MeanOverHeightAndWidth) {
  const Sizes xs{2, 19, 7, 5}, os{2, 19, 1, 1};
  const Floats x = random_values(numel(xs), 29);
  BlobBuilder b;
  const int in = b.input(xs), out = b.output(os);
  b.op(fb::OperationKind::Reduction, fb::CreateReduction(b.fbb, fb::ReductionAlgorithm::Mean).Union(), {in}, out);
  expect_near_all(run(b, {{xs, x}}, os), ref::reduce_mean(x, xs, os));
}

TEST(OneDnnOpsTest, UpsampleNearestAndBilinear) {
  const Sizes xs{1, 3, 7, 5};
  const Floats x = random_values(numel(xs), 30);
  for (const Sizes& os : {Sizes{1, 3, 14, 10}, Sizes{1, 3, 21, 15}}) {
    for (bool bilinear : {false, true}) {
      BlobBuilder b;
      const int in = b.input(xs), out = b.output(os);
      const auto alg = bilinear ? fb::ResamplingAlgorithm::Linear : fb::ResamplingAlgorithm::Nearest;
      b.op(fb::OperationKind::Resampling, fb::CreateResampling(b.fbb, alg).Union(), {in}, out);
      expect_near_all(run(b, {{xs, x}}, os), ref::upsample(x, xs, os, bilinear));
    }
  }
}

// ---------------------------------------------------------------- combining ops

// One source is a convolution's result (blocked inside), one a plain input.
TEST(OneDnnOpsTest, ConcatOfAConvolutionResultAndInputs) {
  const Sizes xs{1, 3, 7, 5}, ws{16, 3, 1, 1}, ys{1, 16, 7, 5}, zs{1, 5, 7, 5}, os{1, 24, 7, 5};
  const Floats x = random_values(numel(xs), 31), w = random_values(numel(ws), 32), z = random_values(numel(zs), 33);
  ref::Conv2dParams p;
  Sizes s;
  const Floats y = ref::conv2d(x, xs, w, ws, {}, p, &s);
  const Floats want = ref::concat({y, z, x}, {ys, zs, xs}, 1);
  BlobBuilder b;
  const int in_x = b.input(xs), in_z = b.input(zs), wv = b.constant(ws, w), mid = b.intermediate(ys),
            out = b.output(os);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1), {in_x, wv, -1}, mid);
  b.op(fb::OperationKind::Concat, fb::CreateConcat(b.fbb, 1).Union(), {mid, in_z, in_x}, out);
  expect_near_all(run(b, {{xs, x}, {zs, z}}, os), want);
}

TEST(OneDnnOpsTest, BinaryWithNumpyBroadcasting) {
  const Sizes as{2, 3, 7, 5}, bs{3, 1, 1}, cs{5};
  const Floats a = random_values(numel(as), 34), c = random_values(numel(bs), 35, 0.5f, 2.f),
               d = random_values(numel(cs), 36);
  struct Case {
    fb::BinaryAlgorithm alg;
    std::function<float(float, float)> f;
    bool swap;
  };
  for (const Case& k : {Case{fb::BinaryAlgorithm::Add, [](float x, float y) { return x + y; }, false},
                        Case{fb::BinaryAlgorithm::Sub, [](float x, float y) { return x - y; }, false},
                        Case{fb::BinaryAlgorithm::Div, [](float x, float y) { return x / y; }, false},
                        Case{fb::BinaryAlgorithm::Mul, [](float x, float y) { return x * y; }, true},
                        Case{fb::BinaryAlgorithm::Max, [](float x, float y) { return std::max(x, y); }, true}}) {
    BlobBuilder b;
    const int in = b.input(as), cv = b.constant(bs, c), out = b.output(as);
    b.op(fb::OperationKind::BinaryOp, fb::CreateBinaryOp(b.fbb, k.alg).Union(), k.swap ? std::vector<int>{cv, in}
                                                                                     : std::vector<int>{in, cv},
         out);
    const Floats want = k.swap ? ref::binary(c, bs, a, as, as, k.f) : ref::binary(a, as, c, bs, as, k.f);
    expect_near_all(run(b, {{as, a}}, as), want);
  }
  // A 0-dimensional constant operand (a scalar tensor).
  {
    BlobBuilder b;
    const int in = b.input(as), scalar = b.constant({}, {0.5f}), out = b.output(as);
    b.op(fb::OperationKind::BinaryOp, fb::CreateBinaryOp(b.fbb, fb::BinaryAlgorithm::Sub).Union(), {in, scalar}, out);
    expect_near_all(run(b, {{as, a}}, as), ref::map(a, [](float x) { return x - 0.5f; }));
  }
  // Rank-1 second operand over the last dim, as a bias add.
  BlobBuilder b;
  const int in0 = b.input(as), in1 = b.input(cs), out = b.output(as);
  b.op(fb::OperationKind::BinaryOp, fb::CreateBinaryOp(b.fbb, fb::BinaryAlgorithm::Add).Union(), {in0, in1}, out);
  expect_near_all(run(b, {{as, a}, {cs, d}}, as),
                  ref::binary(a, as, d, cs, as, [](float x, float y) { return x + y; }));
}

TEST(OneDnnOpsTest, EveryEltwiseAlgorithm) {
  const Sizes xs{3, 7, 5};
  const Floats x = random_values(numel(xs), 37, -4.f, 4.f);
  const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  struct Case {
    fb::EltwiseAlgorithm alg;
    float alpha, beta;
    std::function<double(double)> f;
  };
  const std::vector<Case> cases = {
      {fb::EltwiseAlgorithm::Relu, 0.f, 0.f, [](double v) { return v > 0 ? v : 0; }},
      {fb::EltwiseAlgorithm::Relu, 0.1f, 0.f, [](double v) { return v > 0 ? v : 0.1 * v; }},
      {fb::EltwiseAlgorithm::Clip, -1.f, 6.f, [](double v) { return std::min(6.0, std::max(-1.0, v)); }},
      {fb::EltwiseAlgorithm::HardSwish, 1.f / 6, .5f, [](double v) { return v * std::min(6.0, std::max(0.0, v + 3)) / 6; }},
      {fb::EltwiseAlgorithm::HardSwish, .25f, 0.f, [](double v) { return v * std::min(1.0, std::max(0.0, v / 4)); }},
      {fb::EltwiseAlgorithm::HardSigmoid, 1.f / 6, .5f, [](double v) { return std::min(6.0, std::max(0.0, v + 3)) / 6; }},
      {fb::EltwiseAlgorithm::Logistic, 0.f, 0.f, sigmoid},
      {fb::EltwiseAlgorithm::Swish, 0.f, 0.f, [&](double v) { return v * sigmoid(v); }},
      {fb::EltwiseAlgorithm::GeluErf, 0.f, 0.f, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {fb::EltwiseAlgorithm::GeluTanh, 0.f, 0.f,
       [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }},
      {fb::EltwiseAlgorithm::Elu, 0.7f, 0.f, [](double v) { return v > 0 ? v : 0.7 * (std::exp(v) - 1); }},
      {fb::EltwiseAlgorithm::Tanh, 0.f, 0.f, [](double v) { return std::tanh(v); }},
      {fb::EltwiseAlgorithm::Exp, 0.f, 0.f, [](double v) { return std::exp(v); }},
      {fb::EltwiseAlgorithm::Abs, 0.f, 0.f, [](double v) { return std::abs(v); }},
      {fb::EltwiseAlgorithm::Square, 0.f, 0.f, [](double v) { return v * v; }},
      {fb::EltwiseAlgorithm::Linear, 2.5f, -1.f, [](double v) { return 2.5 * v - 1; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fb::EnumNameEltwiseAlgorithm(c.alg));
    BlobBuilder b;
    const int in = b.input(xs), out = b.output(xs);
    auto e = fb::CreateEltwise(b.fbb, c.alg, c.alpha, c.beta);
    b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {in}, out);
    expect_near_all(run(b, {{xs, x}}, xs), ref::map(x, [&](float v) { return static_cast<float>(c.f(v)); }));
  }
  // Round: ties go to the even neighbour, as std::nearbyint and torch.round do.
  {
    const Floats ties = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.49f, -3.51f};
    const Sizes ts{static_cast<int64_t>(ties.size())};
    BlobBuilder b;
    const int in = b.input(ts), out = b.output(ts);
    auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Round, 0.f, 0.f);
    b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {in}, out);
    EXPECT_EQ(run(b, {{ts, ties}}, ts), (Floats{-2.f, -2.f, -0.f, 0.f, 2.f, 2.f, 3.f, -4.f}));
  }
  // Sqrt on positive values.
  const Floats positive = random_values(numel(xs), 38, 0.01f, 9.f);
  BlobBuilder b;
  const int in = b.input(xs), out = b.output(xs);
  auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Sqrt, 0.f, 0.f);
  b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {in}, out);
  expect_near_all(run(b, {{xs, positive}}, xs), ref::map(positive, [](float v) { return std::sqrt(v); }));
}

// ---------------------------------------------------------------- layout ops

TEST(OneDnnOpsTest, PermuteOfAnInputAndOfABlockedConvolutionResult) {
  const Sizes xs{2, 3, 4, 5}, perm{0, 2, 3, 1}, os{2, 4, 5, 3};
  const Floats x = random_values(numel(xs), 39);
  {
    BlobBuilder b;
    const int in = b.input(xs), out = b.output(os);
    b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb, b.longs(perm)).Union(), {in}, out);
    expect_near_all(run(b, {{xs, x}}, os), ref::permute(x, xs, perm), 0);
  }
  const Sizes cs{1, 16, 7, 5}, ws{16, 16, 1, 1}, cos{1, 7, 5, 16};
  const Floats c = random_values(numel(cs), 40), w = random_values(numel(ws), 41);
  ref::Conv2dParams p;
  Sizes s;
  const Floats y = ref::conv2d(c, cs, w, ws, {}, p, &s);
  BlobBuilder b;
  const int in = b.input(cs), wv = b.constant(ws, w), mid = b.intermediate(cs), out = b.output(cos);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1), {in, wv, -1}, mid);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb, b.longs(perm)).Union(), {mid}, out);
  expect_near_all(run(b, {{cs, c}}, cos), ref::permute(y, cs, perm));
}

// A reshape of a plain value is a view (no copy) feeding the next op; a
// reshape of a blocked convolution result to the output is one reorder.
TEST(OneDnnOpsTest, ReshapeAsAViewAndAfterABlockedResult) {
  const Sizes xs{2, 3, 4}, rs{6, 4};
  const Floats x = random_values(numel(xs), 42);
  {
    BlobBuilder b;
    const int in = b.input(xs), mid = b.intermediate(rs), out = b.output(rs);
    b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {in}, mid);
    b.op(fb::OperationKind::Softmax, fb::CreateSoftmax(b.fbb, 0, false).Union(), {mid}, out);
    expect_near_all(run(b, {{xs, x}}, rs), ref::softmax(x, rs, 0, false));
  }
  const Sizes cs{1, 16, 7, 5}, ws{32, 16, 1, 1}, ys{1, 32, 7, 5}, flat{1, 32 * 35};
  const Floats c = random_values(numel(cs), 43), w = random_values(numel(ws), 44);
  ref::Conv2dParams p;
  Sizes s;
  const Floats y = ref::conv2d(c, cs, w, ws, {}, p, &s);
  BlobBuilder b;
  const int in = b.input(cs), wv = b.constant(ws, w), mid = b.intermediate(ys), out = b.output(flat);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1), {in, wv, -1}, mid);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {mid}, out);
  expect_near_all(run(b, {{cs, c}}, flat), y);
}

TEST(OneDnnOpsTest, ConstantPadWithPositiveAndNegativeAmounts) {
  const Sizes xs{1, 3, 7, 5};
  const Floats x = random_values(numel(xs), 45);
  struct Case {
    Sizes before, after;
    float value;
  };
  for (const Case& c : {Case{{0, 0, 1, 2}, {0, 0, 3, 0}, 0.f}, Case{{0, 1, -2, 1}, {0, 0, 1, -1}, 1.5f}}) {
    Sizes os(4);
    for (size_t d = 0; d < 4; ++d) os[d] = xs[d] + c.before[d] + c.after[d];
    BlobBuilder b;
    const int in = b.input(xs), out = b.output(os);
    auto before = b.longs(c.before), after = b.longs(c.after);
    b.op(fb::OperationKind::Pad, fb::CreatePad(b.fbb, before, after, c.value).Union(), {in}, out);
    expect_near_all(run(b, {{xs, x}}, os), ref::pad(x, xs, c.before, c.after, c.value), 0);
  }
}

// ---------------------------------------------------------------- threads

// With two threads, an operation too small to repay forking (a relu of 16
// floats) is made and run on one; a large one (a 3x3 convolution of 64
// channels at 56x56) on both. Execute leaves OpenMP at the backend's count.
TEST(OneDnnOpsTest, SmallOperationsRunOnOneThreadAmongSeveral) {
  set_num_threads(2);
  const Sizes xs{2, 8}, is{1, 64, 56, 56}, ws{64, 64, 3, 3};
  BlobBuilder b;
  const int x = b.input(xs), image = b.input(is), wv = b.constant(ws, random_values(numel(ws), 3));
  const int small = b.output(xs), large = b.output(is);
  const auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Relu, 0, 0);
  b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {x}, small);
  b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {image, wv, -1}, large);
  const std::vector<uint8_t> blob = b.finish();
  const fb::Graph* graph = fb::GetGraph(blob.data() + kBlobHeaderSize);
  EXPECT_LT(estimated_ns(graph, graph->operations()->Get(0)), kSmallOperationNs);
  EXPECT_GT(estimated_ns(graph, graph->operations()->Get(1)), 100 * kSmallOperationNs);  // 115M multiply-adds
  {
    // The same sizes in int8 (where the CPU's int8 dot products are exact)
    // take a quarter of the float32 estimate.
    BlobBuilder q;
    const int qx = q.quantized(is, fb::DataType::UInt8, 0.5f, 3), qw = q.constant(ws, random_values(numel(ws), 4));
    q.op(fb::OperationKind::Convolution, conv(q, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {qx, qw, -1}, q.output(is));
    const std::vector<uint8_t> quantized_blob = q.finish();
    const fb::Graph* quantized_graph = fb::GetGraph(quantized_blob.data() + kBlobHeaderSize);
    const double ratio = estimated_ns(quantized_graph, quantized_graph->operations()->Get(0)) /
                         estimated_ns(graph, graph->operations()->Get(1));
    EXPECT_DOUBLE_EQ(ratio, exact_int8_dot_products(dnnl_get_effective_cpu_isa()) ? 0.25 : 1.0);
  }
  Runner runner;
  ASSERT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  const auto* compiled = static_cast<const CompiledGraph*>(runner.handle);
  std::vector<bool> single(2, false), seen(2, false);
  for (uint32_t s = 0; s < compiled->steps.size; ++s) {
    const Step& step = compiled->steps[s];
    seen[step.operation] = true;
    single[step.operation] = step.single_thread;
  }
  EXPECT_TRUE(seen[0] && seen[1]);
  EXPECT_TRUE(single[0]);
  EXPECT_FALSE(single[1]);
  HostTensor xt(xs, random_values(numel(xs), 1)), it(is, random_values(numel(is), 2)), o0(xs), o1(is);
  ASSERT_EQ(runner.execute({&xt, &it, &o0, &o1}), Error::Ok);
  EXPECT_EQ(o0.data, ref::map(xt.data, relu));
  EXPECT_EQ(omp_get_max_threads(), 2);
  set_num_threads(1);
}

// A small network (conv, pool, matmul) gives the same bits at 1 and 2 threads.
TEST(OneDnnOpsTest, OneAndTwoThreadsGiveTheSameResults) {
  const Sizes xs{2, 8, 15, 13}, ws{32, 8, 3, 3}, ps{2, 32, 1, 1}, fs{2, 32}, ls{10, 32}, os{2, 10};
  const Floats x = random_values(numel(xs), 46), w = random_values(numel(ws), 47), l = random_values(numel(ls), 48);
  std::vector<Floats> results;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    BlobBuilder b;
    const int in = b.input(xs), wv = b.constant(ws, w), lv = b.constant(ls, l);
    const int c = b.intermediate({2, 32, 15, 13}), p = b.intermediate(ps), f = b.intermediate(fs), out = b.output(os);
    b.op(fb::OperationKind::Convolution, conv(b, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1), {in, wv, -1}, c,
         {b.eltwise_post(fb::EltwiseAlgorithm::Relu)});
    b.op(fb::OperationKind::Reduction, fb::CreateReduction(b.fbb, fb::ReductionAlgorithm::Mean).Union(), {c}, p);
    b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {p}, f);
    b.op(fb::OperationKind::MatMul, fb::CreateMatMul(b.fbb, true).Union(), {f, lv, -1}, out);
    results.push_back(run(b, {{xs, x}}, os));
    EXPECT_EQ(num_threads(), threads);
  }
  set_num_threads(1);
  EXPECT_EQ(results[0], results[1]);
  Sizes s;
  ref::Conv2dParams p;
  p.pad_t = p.pad_l = p.pad_b = p.pad_r = 1;
  const Floats conv_out = ref::map(ref::conv2d(x, xs, w, ws, {}, p, &s), relu);
  const Floats pooled = ref::reduce_mean(conv_out, s, ps);
  expect_near_all(results[0], ref::matmul(pooled, fs, l, ls, true, {}, {}, os));
}

// An image quantized into the channels-last int8 the convolutions read,
// and back to a plain output: the quantization is Kiln's one-pass kernel
// (channels_last_quantize.h); the dequantization converts in the float
// side's layout and permutes bytes in a step of its own (oneDNN's reorder
// doing both at once runs at half the speed); PyTorch's numbers.
TEST(OneDnnOpsTest, QuantizationThatChangesLayoutConvertsThenPermutes) {
  const Sizes xs{1, 3, 7, 5};
  const float scale = 0.05f;
  const int32_t zero_point = 131;
  BlobBuilder b;
  const int in = b.input(xs), q = b.quantized(xs, fb::DataType::UInt8, scale, zero_point), out = b.output(xs);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {in}, q);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {q}, out);
  const std::vector<uint8_t> blob = b.finish();
  Runner runner;
  ASSERT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  const auto* compiled = static_cast<const CompiledGraph*>(runner.handle);
  uint32_t conversions = 0, permutes = 0, kiln_quantizations = 0;
  for (uint32_t s = 0; s < compiled->steps.size; ++s) {
    const Step& step = compiled->steps[s];
    if (step.quantize_image.src >= 0) {
      ++kiln_quantizations;
      EXPECT_EQ(step.quantize_image.shape.channels, 3);
      EXPECT_EQ(step.quantize_image.shape.pixels, 35);
      continue;
    }
    const_dnnl_memory_desc_t src = dnnl_primitive_desc_query_md(step.pd, dnnl_query_src_md, 0);
    const_dnnl_memory_desc_t dst = dnnl_primitive_desc_query_md(step.pd, dnnl_query_dst_md, 0);
    ASSERT_NE(src, nullptr);
    ASSERT_NE(dst, nullptr);
    const dnnl_dims_t* src_strides = nullptr;
    const dnnl_dims_t* dst_strides = nullptr;
    dnnl_data_type_t src_type, dst_type;
    ASSERT_EQ(dnnl_memory_desc_query(src, dnnl_query_strides, &src_strides), dnnl_success);
    ASSERT_EQ(dnnl_memory_desc_query(dst, dnnl_query_strides, &dst_strides), dnnl_success);
    ASSERT_EQ(dnnl_memory_desc_query(src, dnnl_query_data_type, &src_type), dnnl_success);
    ASSERT_EQ(dnnl_memory_desc_query(dst, dnnl_query_data_type, &dst_type), dnnl_success);
    const bool same_layout = std::equal(*src_strides, *src_strides + xs.size(), *dst_strides);
    if (src_type != dst_type) {
      ++conversions;
      EXPECT_TRUE(same_layout) << "step " << s << " converts and permutes at once";
    } else {
      ++permutes;
      EXPECT_EQ(src_type, dnnl_u8) << "step " << s << " permutes float32";
    }
  }
  EXPECT_EQ(kiln_quantizations, 1u);
  EXPECT_EQ(conversions, 1u);
  EXPECT_EQ(permutes, 1u);  // out of channels-last
  Floats x = random_values(numel(xs), 61);
  for (float& v : x) v *= 8;  // past the grid's ends too: saturation
  HostTensor xt(xs, x), ot(xs);
  ASSERT_EQ(runner.execute({&xt, &ot}), Error::Ok);
  for (size_t i = 0; i < x.size(); ++i) {
    const float level = std::clamp(std::nearbyint(x[i] * (1.0f / scale)) + zero_point, 0.0f, 255.0f);
    EXPECT_EQ(ot.data[i], scale * (level - zero_point)) << i;
  }
}

// int8 weights reach a layout oneDNN reorders into only on `simple:any`
// (a linear's [N, K] weights read as [K, N], with zero-point compensation)
// through row-major [K, N]; weights it has a JIT reorder for go directly,
// and so do float32 ones.
TEST(OneDnnOpsTest, Int8WeightsWithoutAJitReorderAreStagedRowMajor) {
  if (!exact_int8_dot_products(dnnl_get_effective_cpu_isa())) GTEST_SKIP() << "no int8 matmul on this CPU";
  dnnl_engine_t engine = nullptr;
  ASSERT_EQ(dnnl_engine_create(&engine, dnnl_cpu, 0), dnnl_success);
  const auto desc = [](std::vector<dnnl_dim_t> dims, dnnl_data_type_t type, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = nullptr;
    EXPECT_EQ(dnnl_memory_desc_create_with_tag(&md, static_cast<int>(dims.size()), dims.data(), type, tag),
              dnnl_success);
    return MemoryDesc(md);
  };
  // The packed weights of a uint8 x int8 matmul with a source zero point.
  const auto packed_weights = [&](dnnl_dim_t k, dnnl_dim_t n, dnnl_data_type_t type) {
    MemoryDesc src = desc({1, k}, type == dnnl_s8 ? dnnl_u8 : type, dnnl_ab);
    MemoryDesc weights = desc({k, n}, type, dnnl_format_tag_any), dst = desc({1, n}, dnnl_f32, dnnl_ab);
    Attr attr;
    EXPECT_EQ(dnnl_primitive_attr_create(attr.out()), dnnl_success);
    if (type == dnnl_s8) {
      EXPECT_EQ(dnnl_primitive_attr_set_zero_points_mask(attr.get(), DNNL_ARG_SRC, 0), dnnl_success);
    }
    PrimitiveDesc pd;
    EXPECT_EQ(dnnl_matmul_primitive_desc_create(pd.out(), engine, src.get(), weights.get(), nullptr, dst.get(),
                                                attr.get()),
              dnnl_success);
    dnnl_memory_desc_t chosen = nullptr;
    EXPECT_EQ(dnnl_memory_desc_clone(&chosen, dnnl_primitive_desc_query_md(pd.get(), dnnl_query_weights_md, 0)),
              dnnl_success);
    return MemoryDesc(chosen);
  };
  const MemoryDesc packed = packed_weights(1280, 1000, dnnl_s8);
  dnnl_memory_desc_t staging = nullptr;
  ASSERT_TRUE(int8_staging_layout(engine, desc({1280, 1000}, dnnl_s8, dnnl_ba).get(), packed.get(), &staging));
  const MemoryDesc staged(staging);
  EXPECT_TRUE(dnnl_memory_desc_equal(staged.get(), desc({1280, 1000}, dnnl_s8, dnnl_ab).get()));
  EXPECT_FALSE(int8_staging_layout(engine, desc({1280, 1000}, dnnl_s8, dnnl_ab).get(), packed.get(), &staging));
  const MemoryDesc packed_f32 = packed_weights(1280, 1000, dnnl_f32);
  EXPECT_FALSE(int8_staging_layout(engine, desc({1280, 1000}, dnnl_f32, dnnl_ba).get(), packed_f32.get(), &staging));
  dnnl_engine_destroy(engine);
}

// oneDNN's int8 kernels are exact with VNNI only; elsewhere quantized
// operations run in float32 (the quantized conformance cases check both).
TEST(OneDnnOpsTest, Int8KernelsAreExactWithVnniOnly) {
  for (const dnnl_cpu_isa_t isa : {dnnl_cpu_isa_sse41, dnnl_cpu_isa_avx, dnnl_cpu_isa_avx2, dnnl_cpu_isa_avx512_core}) {
    EXPECT_FALSE(exact_int8_dot_products(isa)) << isa;
  }
  for (const dnnl_cpu_isa_t isa : {dnnl_cpu_isa_avx2_vnni, dnnl_cpu_isa_avx2_vnni_2, dnnl_cpu_isa_avx512_core_vnni,
                                   dnnl_cpu_isa_avx512_core_bf16, dnnl_cpu_isa_avx512_core_fp16,
                                   dnnl_cpu_isa_avx512_core_amx}) {
    EXPECT_TRUE(exact_int8_dot_products(isa)) << isa;
  }
}

}  // namespace
}  // namespace kiln::backends::onednn::testing
