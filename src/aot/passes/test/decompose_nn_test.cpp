// Decompositions of the network layers on small built graphs: the core ops
// and arguments each becomes, numerics where the portable kernels exist
// (references computed here directly), and errors for what does not decompose.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::called_ops;
using testing::decomposed;
using testing::expect_error;
using testing::text_of;
using testing::expect_decomposition_fails;
using testing::expect_values_near;
using testing::ops_without_kernels;
using testing::ramp;
using testing::run;

TEST(DecomposeConvTest, Conv1dBecomesConvolutionAndRuns) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 5}));
  Node* w = b.parameter("w", ramp({3, 2, 3}, 0.3f));
  Node* bias = b.parameter("b", ramp({3}));
  b.output({b.call("aten::conv1d", {x, w, bias, ArgumentList{2}, ArgumentList{1}})});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), HasSubstr("convolution: \"f32[1, 3, 3]\" = torch.ops.aten.convolution.default(x, p_w, p_b, "
                                             "[2], [1], [1], False, [0], 1)"));
  const HostTensor input = ramp({1, 2, 5}, 0.5f);
  const auto xv = input.to_doubles(), wv = ramp({3, 2, 3}, 0.3f).to_doubles(), bv = ramp({3}).to_doubles();
  std::vector<double> expected;
  for (int o = 0; o < 3; ++o) {
    for (int t = 0; t < 3; ++t) {
      double sum = bv[o];
      for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < 3; ++k) {
          const int pos = 2 * t - 1 + k;
          if (pos >= 0 && pos < 5) sum += xv[c * 5 + pos] * wv[(o * 2 + c) * 3 + k];
        }
      }
      expected.push_back(sum);
    }
  }
  expect_values_near(run(program, {input}).at(0), expected);
}

TEST(DecomposeConvTest, TransposedConvsKeepTheWeightLayoutAndReorderTheArguments) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4}));
  Node* w = b.parameter("w", ramp({2, 3, 3}));
  // conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)
  b.output({b.call("aten::conv_transpose1d", {x, w, None{}, ArgumentList{2}, ArgumentList{1}, ArgumentList{1}})});
  EXPECT_THAT(text_of(std::move(b)), HasSubstr("convolution: \"f32[1, 3, 8]\" = torch.ops.aten.convolution.default(x, p_w, None, "
                                               "[2], [1], [1], True, [1], 1)"));

  GraphBuilder b2;
  Node* image = b2.input("image", f32({1, 4, 5, 5}));
  Node* w2 = b2.parameter("w", ramp({4, 3, 3, 3}));
  b2.output({b2.call("aten::conv_transpose2d.input", {image, w2, None{}, ArgumentList{2, 2}, ArgumentList{1, 0},
                                                      ArgumentList{1, 0}, 2, ArgumentList{2, 1}})});
  EXPECT_THAT(text_of(std::move(b2)), HasSubstr("convolution: \"f32[1, 6, 12, 11]\" = torch.ops.aten.convolution.default(image, "
                                                "p_w, None, [2, 2], [1, 0], [2, 1], True, [1, 0], 2)"));
}

TEST(DecomposeConvTest, UnbatchedConvIsAnErrorNamingTheNode) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 5}));
  Node* w = b.parameter("w", ramp({3, 2, 3}));
  b.output({testing::call_with_meta(b, "aten::conv1d", {x, w}, f32({3, 3}))});
  expect_decomposition_fails(std::move(b), "node 'conv1d' (aten::conv1d.default): expects a batched 3-D input, got f32[2, 5]");
}

TEST(DecomposeNormTest, GroupNormPassesSizesAsSymInts) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0, 4, 3, 2}));
  Node* w = b.parameter("w", ramp({4}));
  Node* bias = b.parameter("b", ramp({4}));
  b.output({b.call("aten::group_norm", {x, 2, w, bias, 1e-3})});
  b.set_range("s0", {1, 8});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("sym_size: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.native_group_norm.default(x, p_w, p_b, sym_size, 4, 6, 2, 0.001)"));
  EXPECT_THAT(text, HasSubstr("getitem: \"f32[s0, 4, 3, 2]\" = native_group_norm[0]"));
}

TEST(DecomposeNormTest, GroupNormOfASymbolicSpatialProductIsAnError) {
  GraphBuilder b;
  const SymExpr h = SymExpr::symbol("h"), w = SymExpr::symbol("w");
  Node* x = b.input("x", f32({1, 4, h, w}));
  b.output({b.call("aten::group_norm", {x, 2})});
  expect_decomposition_fails(std::move(b), "the spatial size of f32[1, 4, h, w] must be static");
}

TEST(DecomposeSoftmaxTest, SoftmaxBecomesTheCoreOpAndRuns) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  b.output({b.call("aten::softmax.int", {x, 1})});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), HasSubstr("_softmax: \"f32[2, 3]\" = torch.ops.aten._softmax.default(x, 1, False)"));
  const HostTensor input = HostTensor::from_vector<float>({2, 3}, {0, 1, 2, -1, -1, 3});
  const double e = std::exp(1.0), e2 = std::exp(2.0), e4 = std::exp(4.0);
  expect_values_near(run(program, {input}).at(0),
                     {1 / (1 + e + e2), e / (1 + e + e2), e2 / (1 + e + e2), 1 / (2 + e4), 1 / (2 + e4), e4 / (2 + e4)});
}

TEST(DecomposeSoftmaxTest, ADtypeCastsFirstAndLogSoftmaxHasItsOwnOp) {
  GraphBuilder b;
  Node* x = b.input("x", TensorMeta(ScalarType::Half, std::vector<int64_t>{2, 3}));
  b.output({b.call("aten::softmax.int", {x, -1, ScalarType::Float}), b.call("aten::log_softmax.int", {x, 0})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("_to_copy: \"f32[2, 3]\" = torch.ops.aten._to_copy.default(x, dtype = torch.float32)"));
  EXPECT_THAT(text, HasSubstr("_softmax: \"f32[2, 3]\" = torch.ops.aten._softmax.default(_to_copy, -1, False)"));
  EXPECT_THAT(text, HasSubstr("_log_softmax: \"f16[2, 3]\" = torch.ops.aten._log_softmax.default(x, 0, False)"));
}

TEST(DecomposeMishTest, MishIsXTimesTanhOfSoftplus) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  b.output({b.call("aten::mish", {x})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("exp: \"f32[4]\" = torch.ops.aten.exp.default(x)"));
  EXPECT_THAT(text, HasSubstr("log1p: \"f32[4]\" = torch.ops.aten.log1p.default(exp)"));
  EXPECT_THAT(text, HasSubstr("gt: \"b8[4]\" = torch.ops.aten.gt.Scalar(x, 20)"));
  EXPECT_THAT(text, HasSubstr("where: \"f32[4]\" = torch.ops.aten.where.self(gt, x, log1p)"));
  EXPECT_THAT(text, HasSubstr("tanh: \"f32[4]\" = torch.ops.aten.tanh.default(where)"));
  EXPECT_THAT(text, HasSubstr("mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(x, tanh)"));
}

// matmul of [.., m, n] by [.., n, p] with broadcast batch dims, computed directly.
std::vector<double> reference_matmul(const HostTensor& a, const HostTensor& b, const std::vector<int64_t>& batch) {
  const auto av = a.to_doubles(), bv = b.to_doubles();
  const auto& as = a.sizes();
  const auto& bs = b.sizes();
  const int64_t m = as[as.size() - 2], n = as.back(), p = bs.back();
  auto offset = [&batch](const std::vector<int64_t>& sizes, const std::vector<int64_t>& index) {
    // Row-major offset of the batch index in a tensor whose batch dims broadcast.
    int64_t flat = 0, stride = sizes[sizes.size() - 1] * sizes[sizes.size() - 2];
    for (size_t i = 0; i + 2 < sizes.size(); ++i) {
      const size_t d = sizes.size() - 3 - i;
      const size_t bi = batch.size() - 1 - i;
      flat += (sizes[d] == 1 ? 0 : index[bi]) * stride;
      stride *= sizes[d];
    }
    return flat;
  };
  int64_t count = 1;
  for (int64_t size : batch) count *= size;
  std::vector<double> out;
  for (int64_t flat = 0; flat < count; ++flat) {
    std::vector<int64_t> index(batch.size());
    for (int64_t rest = flat, d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      index[static_cast<size_t>(d)] = rest % batch[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
    }
    const int64_t ao = offset(as, index), bo = offset(bs, index);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += av[ao + i * n + k] * bv[bo + k * p + j];
        out.push_back(sum);
      }
    }
  }
  return out;
}

struct MatmulCase {
  std::vector<int64_t> a, b;
  std::vector<std::string> ops;  // the ops the decomposition calls
  std::string result;            // its meta
};

class DecomposeMatmulTest : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(DecomposeMatmulTest, UsesMmOrBmmAndRunsAsTheProduct) {
  const MatmulCase& c = GetParam();
  GraphBuilder b;
  Node* x = b.input("x", TensorMeta(ScalarType::Float, c.a));
  Node* y = b.input("y", TensorMeta(ScalarType::Float, c.b));
  b.output({b.call("aten::matmul", {x, y})});
  ExportedProgram program = decomposed(std::move(b));
  std::set<std::string> ops = called_ops(program);
  EXPECT_EQ(std::vector<std::string>(ops.begin(), ops.end()), c.ops) << program.to_string();
  EXPECT_EQ(program.graph().output_node()->args()[0].list()[0].node()->meta.tensor().to_string(), c.result);
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());

  // Vectors as matrices: [n] is [1, n] on the left and [n, 1] on the right.
  const HostTensor xv = ramp(c.a, 0.3f), yv = ramp(c.b, 0.2f);
  HostTensor xm = xv, ym = yv;
  if (c.a.size() == 1) xm = HostTensor::from_vector<float>({1, c.a[0]}, std::vector<float>(xv.data<float>(), xv.data<float>() + c.a[0]));
  if (c.b.size() == 1) ym = HostTensor::from_vector<float>({c.b[0], 1}, std::vector<float>(yv.data<float>(), yv.data<float>() + c.b[0]));
  std::vector<int64_t> batch;
  const size_t rank = std::max(xm.rank(), ym.rank());
  for (size_t i = 2; i < rank; ++i) {
    const auto size_of = [&](const HostTensor& t) { return i < t.rank() ? t.sizes()[t.rank() - 1 - i] : int64_t{1}; };
    batch.insert(batch.begin(), std::max(size_of(xm), size_of(ym)));
  }
  expect_values_near(run(program, {xv, yv}).at(0), reference_matmul(xm, ym, batch));
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, DecomposeMatmulTest,
    ::testing::Values(
        MatmulCase{{4}, {4}, {"aten::mul.Tensor", "aten::sum.dim_IntList"}, "f32[]"},
        MatmulCase{{3, 4}, {4}, {"aten::mul.Tensor", "aten::sum.dim_IntList"}, "f32[3]"},
        MatmulCase{{2, 3, 4}, {4}, {"aten::mul.Tensor", "aten::sum.dim_IntList", "aten::view.default"}, "f32[2, 3]"},
        MatmulCase{{4}, {4, 5}, {"aten::mm.default", "aten::squeeze.dims", "aten::unsqueeze.default"}, "f32[5]"},
        MatmulCase{{3, 4}, {4, 5}, {"aten::mm.default"}, "f32[3, 5]"},
        MatmulCase{{2, 3, 4}, {4, 5}, {"aten::mm.default", "aten::view.default"}, "f32[2, 3, 5]"},
        MatmulCase{{3, 4}, {2, 4, 5}, {"aten::bmm.default", "aten::expand.default"}, "f32[2, 3, 5]"},
        MatmulCase{{2, 3, 4}, {2, 4, 5}, {"aten::bmm.default"}, "f32[2, 3, 5]"},
        MatmulCase{{2, 1, 3, 4}, {5, 4, 6}, {"aten::bmm.default", "aten::expand.default", "aten::view.default"}, "f32[2, 5, 3, 6]"},
        MatmulCase{{4}, {2, 4, 5},
                   {"aten::bmm.default", "aten::expand.default", "aten::squeeze.dims", "aten::unsqueeze.default"}, "f32[2, 5]"}),
    [](const auto& info) {
      std::string name;
      for (const auto* sizes : {&info.param.a, &info.param.b}) {
        name += name.empty() ? "" : "_by_";
        for (size_t i = 0; i < sizes->size(); ++i) name += (i ? "x" : "") + std::to_string((*sizes)[i]);
      }
      return name;
    });

TEST(DecomposeMatmulSymbolicTest, FoldsASymbolicBatchWithAnInferredSize) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0, 3, 4}));
  Node* y = b.input("y", f32({4, 5}));
  b.output({b.call("aten::matmul", {x, y})});
  b.set_range("s0", {1, 8});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("view: \"f32[3*s0, 4]\" = torch.ops.aten.view.default(x, [-1, 4])"));
  EXPECT_THAT(text, HasSubstr("mm: \"f32[3*s0, 5]\" = torch.ops.aten.mm.default(view, y)"));
  EXPECT_THAT(text, HasSubstr("view_1: \"f32[s0, 3, 5]\" = torch.ops.aten.view.default(mm, [sym_size, 3, 5])"));
  const HostTensor xv = ramp({2, 3, 4}, 0.3f), yv = ramp({4, 5});
  const HostTensor x2 = HostTensor::from_vector<float>({6, 4}, std::vector<float>(xv.data<float>(), xv.data<float>() + 24));
  expect_values_near(run(program, {xv, yv}).at(0), reference_matmul(x2, yv, {}));
}

TEST(DecomposeMatmulSymbolicTest, ExpandsToTheOtherOperandsSymbolicBatch) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({3, 4}));
  Node* y = b.input("y", f32({s0, 4, 5}));
  b.output({b.call("aten::matmul", {x, y})});
  b.set_range("s0", {1, 8});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("sym_size: \"Sym(s0)\" = torch.ops.aten.sym_size.int(y, 0)"));
  EXPECT_THAT(text, HasSubstr("expand: \"f32[s0, 3, 4]\" = torch.ops.aten.expand.default(x, [sym_size, 3, 4])"));
  EXPECT_THAT(text, HasSubstr("bmm: \"f32[s0, 3, 5]\" = torch.ops.aten.bmm.default(expand, y)"));
}

TEST(DecomposeMatmulTest, IntegerVectorProductsSumInTheirOwnDtype) {
  GraphBuilder b;
  Node* x = b.input("x", TensorMeta(ScalarType::Int, std::vector<int64_t>{3, 4}));
  Node* y = b.input("y", TensorMeta(ScalarType::Int, std::vector<int64_t>{4}));
  b.output({b.call("aten::matmul", {x, y})});
  EXPECT_THAT(text_of(std::move(b)),
              HasSubstr("\"i32[3]\" = torch.ops.aten.sum.dim_IntList(mul, [1], dtype = torch.int32)"));
}

}  // namespace
}  // namespace kiln::aot
