// The fusion rules (aot/fusion/rule.h) one by one, on hand-built graphs:
// plan_fusion's groups, each shown as the rules that made it and the nodes
// it took. What the groups compute is the lowering tests' and the
// conformance suite's business; these pin which nodes each rule takes and
// which it must leave.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "aot/ir/graph_builder.h"
#include "backends/onednn/aot/fusion.h"
#include "backends/onednn/aot/fusion/rule.h"
#include "backends/onednn/test/onednn_test_util.h"

namespace kiln::backends::onednn {
namespace {

using aot::ExportedProgram;
using aot::f32;
using aot::GraphBuilder;
using aot::Node;
using aot::None;
using testing::conv2d;
using testing::ints;
using testing::ramp;

// "relu[post_op]: convolution relu; ..." -- a group's rules, then its nodes.
std::string groups_of(const ExportedProgram& program) {
  std::string text;
  for (const FusedGroup& group : plan_fusion(program, constant_tensors(program))) {
    if (!text.empty()) text += "; ";
    text += group.last()->name() + "[";
    for (size_t i = 0; i < group.rules.size(); ++i) text += (i ? "," : "") + std::string(group.rules[i]);
    text += "]:";
    for (const Node* node : group.nodes) text += " " + node->name();
  }
  return text;
}

TEST(FusionRulesTest, TheTableNamesEachRuleOnceAndListsEveryFamily) {
  std::set<std::string> names;
  for (const FusionRule& rule : fusion_rules()) EXPECT_TRUE(names.insert(rule.name).second) << rule.name;
  size_t families = 0;
  for (auto family : {softmax_rules(), activation_rules(), quantize_rules(), matmul_rules(), batch_norm_rules(), post_op_rules(),
                      requantization_rules(), layout_rules()}) {
    families += family.size();
  }
  EXPECT_EQ(fusion_rules().size(), families);
}

TEST(FusionRulesTest, SafeSoftmaxTakesItsBooleanNodes) {
  GraphBuilder b;
  Node* s = b.input("s", f32({2, 3, 4}));
  Node* y = b.call("aten::_softmax", {s, -1, false});
  Node* eq = b.call("aten::eq.Scalar", {s, -INFINITY});
  Node* rows = b.call("aten::logical_not", {b.call("aten::any.dim", {b.call("aten::logical_not", {eq}), -1, true})});
  b.output({b.call("aten::where.self", {rows, b.call("aten::full_like", {y, 0}), y})});
  EXPECT_EQ(groups_of(std::move(b).build()),
            "where[safe_softmax]: eq logical_not any logical_not_1 _softmax full_like where");
}

TEST(FusionRulesTest, SwishAloneIsOneEltwiseAndAfterAConvolutionItsPostOp) {
  {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 4, 5, 5}));
    b.output({b.call("aten::mul.Tensor", {x, b.call("aten::sigmoid", {x})})});
    EXPECT_EQ(groups_of(std::move(b).build()), "mul[swish]: sigmoid mul");
  }
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  b.output({b.call("aten::mul.Tensor", {b.call("aten::sigmoid", {y}), y})});
  EXPECT_EQ(groups_of(std::move(b).build()), "mul[post_op]: convolution sigmoid mul");
}

// PT2E's quantize/dequantize pairs: a quantize alone is its grid's eltwise
// ops; after a convolution, the convolution's post-ops; the dequantize ops
// name its value (each its own no-op group, elided at lowering).
Node* quantize(GraphBuilder& b, Node* x, double scale, int64_t zero_point) {
  return b.call("quantized_decomposed::quantize_per_tensor", {x, scale, zero_point, -128, 127, aot::ScalarType::Char});
}
Node* dequantize(GraphBuilder& b, Node* q, double scale, int64_t zero_point) {
  return b.call("quantized_decomposed::dequantize_per_tensor", {q, scale, zero_point, -128, 127, aot::ScalarType::Char});
}

TEST(FusionRulesTest, AQuantizeReadByItsDequantizesIsItsGridAndAConvolutionsPostOps) {
  {
    GraphBuilder b;
    Node* q = quantize(b, b.input("x", f32({1, 4, 5, 5})), 0.5, 3);
    b.output({b.call("aten::add.Tensor", {dequantize(b, q, 0.5, 3), dequantize(b, q, 0.5, 3)})});
    EXPECT_EQ(groups_of(std::move(b).build()),
              "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
              "dequantize_per_tensor_1[]: dequantize_per_tensor_1; add[]: add");
  }
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* q = quantize(b, b.call("aten::relu", {y}), 0.25, -128);
  b.output({dequantize(b, q, 0.25, -128)});
  EXPECT_EQ(groups_of(std::move(b).build()),
            "quantize_per_tensor[post_op]: convolution relu quantize_per_tensor; "
            "dequantize_per_tensor[]: dequantize_per_tensor");
}

// conv, q, dq, relu6, q, dq of the same parameters (MobileNet as PT2E
// quantizes it): the relu6 and the second grid join the convolution in place
// of the first grid; with other parameters the chain goes on past the
// dequantize op, both grids kept.
TEST(FusionRulesTest, AClampBetweenTwoGridsOfTheSameParametersJoinsTheGroup) {
  for (double second_scale : {0.25, 0.5}) {
    GraphBuilder b;
    Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
    Node* first = dequantize(b, quantize(b, y, 0.25, -3), 0.25, -3);
    Node* six = b.call("aten::hardtanh", {first, 0.0, 6.0});
    b.output({dequantize(b, quantize(b, six, second_scale, -3), second_scale, -3)});
    EXPECT_EQ(groups_of(std::move(b).build()),
              second_scale == 0.25
                  ? "quantize_per_tensor_1[post_op,activation_between_grids]: convolution quantize_per_tensor "
                    "dequantize_per_tensor hardtanh quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1"
                  : "quantize_per_tensor_1[post_op]: convolution quantize_per_tensor dequantize_per_tensor hardtanh "
                    "quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1")
        << "second scale " << second_scale;
  }
}

// A max pool requantized to its input's grid takes the quantize op (the
// identity there); to another grid it does not.
TEST(FusionRulesTest, AMaxPoolOnItsInputsGridTakesTheQuantizeAfterIt) {
  for (double second_scale : {0.25, 0.5}) {
    GraphBuilder b;
    Node* x = dequantize(b, quantize(b, b.input("x", f32({1, 4, 6, 6})), 0.25, 1), 0.25, 1);
    Node* pool = b.call("aten::max_pool2d_with_indices", {x, ints({2, 2}), ints({2, 2})});
    b.output({dequantize(b, quantize(b, b.getitem(pool, 0), second_scale, 1), second_scale, 1)});
    const std::string groups = groups_of(std::move(b).build());
    if (second_scale == 0.25) {
      EXPECT_THAT(groups, ::testing::HasSubstr("quantize_per_tensor_1[max_pool_on_its_grid]: max_pool2d_with_indices "));
    } else {
      EXPECT_THAT(groups, ::testing::HasSubstr("quantize_per_tensor_1[fake_quant]: quantize_per_tensor_1"));
    }
  }
}

// ResNet's residual as PT2E writes it: conv, q, dq, add(_, x), relu, q --
// the add and the relu are the convolution's post-ops after its grid.
TEST(FusionRulesTest, AResidualAddAfterAQuantizedConvolutionIsItsPostOp) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* y = conv2d(b, x, b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* sum = b.call("aten::add.Tensor", {dequantize(b, quantize(b, y, 0.25, 1), 0.25, 1), x});
  b.output({dequantize(b, quantize(b, b.call("aten::relu", {sum}), 0.5, -128), 0.5, -128)});
  EXPECT_EQ(groups_of(std::move(b).build()),
            "quantize_per_tensor_1[post_op]: convolution quantize_per_tensor dequantize_per_tensor add relu "
            "quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1");
}

TEST(FusionRulesTest, AQuantizeReadOtherwiseOrRequantizedDifferentlyIsRefused) {
  {
    GraphBuilder b;
    Node* q = quantize(b, b.input("x", f32({2, 3})), 0.5, 0);
    b.output({dequantize(b, q, 0.25, 0)});  // another scale: not the same grid
    EXPECT_THROW(groups_of(std::move(b).build()), aot::AotError);
  }
  GraphBuilder b;
  Node* q = quantize(b, b.input("x", f32({2, 3})), 0.5, 0);
  b.output({dequantize(b, q, 0.5, 0), q});  // the int8 values themselves leave
  EXPECT_THROW(groups_of(std::move(b).build()), aot::AotError);
}

TEST(FusionRulesTest, HardswishTakesItsClampChain) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* six = b.call("aten::clamp", {b.call("aten::clamp", {b.call("aten::add.Tensor", {x, 3}), 0}), None{}, 6});
  b.output({b.call("aten::mul.Tensor", {x, six})});
  EXPECT_EQ(groups_of(std::move(b).build()), "mul[hardswish]: add clamp clamp_1 mul");
}

TEST(FusionRulesTest, AnActivationWhoseInnerNodeIsReadElsewhereIsNoPattern) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* s = b.call("aten::sigmoid", {x});
  b.output({b.call("aten::mul.Tensor", {x, s}), s});
  EXPECT_EQ(groups_of(std::move(b).build()), "sigmoid[]: sigmoid; mul[]: mul");
}

TEST(FusionRulesTest, LinearAbsorbsItsTransposedWeightAndTheReshapesAroundIt) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 64, 4}));
  Node* flat = b.call("aten::view", {x, ints({64, 4})});
  Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({5, 4})), ints({1, 0})});
  Node* addmm = b.call("aten::addmm", {b.parameter("fc.bias", ramp({5}, 1)), flat, t});
  b.output({b.call("aten::view", {addmm, ints({1, 64, 5})})});
  EXPECT_EQ(groups_of(std::move(b).build()),
            "view_1[transposed_operand,flattened_linear]: view permute addmm view_1");
}

TEST(FusionRulesTest, ATransposeReadTwiceStaysApart) {
  GraphBuilder b;
  Node* t = b.call("aten::permute", {b.input("w", f32({5, 4})), ints({1, 0})});
  b.output({b.call("aten::mm", {b.input("x", f32({2, 4})), t}), t});
  EXPECT_EQ(groups_of(std::move(b).build()), "permute[]: permute; mm[]: mm");
}

// (A batch norm is no operation that takes post-ops: with statistics from an
// input, it and the relu after it stay apart.)
TEST(FusionRulesTest, ABatchNormOnConstantsFoldsIntoTheConvolutionThenTheReluIsAPostOp) {
  for (const bool constant_statistics : {true, false}) {
    SCOPED_TRACE(constant_statistics ? "constant statistics" : "statistics from an input");
    GraphBuilder b;
    Node* conv = conv2d(b, b.input("x", f32({1, 3, 5, 5})), b.parameter("w", ramp({4, 3, 3, 3})), None{}, 1, 1);
    Node* mean = constant_statistics ? b.buffer("mean", ramp({4}, 2)) : b.input("mean", f32({4}));
    Node* bn = b.call("aten::_native_batch_norm_legit_no_training",
                      {conv, b.parameter("gamma", ramp({4}, 1)), b.parameter("beta", ramp({4}, 9)), mean,
                       b.buffer("var", ramp({4}, 4)), 0.1, 1e-5});
    b.output({b.call("aten::relu", {b.getitem(bn, 0)})});
    EXPECT_EQ(groups_of(std::move(b).build()),
              constant_statistics
                  ? "relu[batch_norm_into_convolution,post_op]: convolution _native_batch_norm_legit_no_training getitem relu"
                  : "convolution[]: convolution; getitem[]: _native_batch_norm_legit_no_training getitem; relu[]: relu");
  }
}

TEST(FusionRulesTest, PostOpsFollowAConvolutionButNotAnEltwiseOp) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 3, 3})), None{}, 1, 1);
  Node* sum = b.call("aten::add.Tensor", {x, conv});  // the convolution second: add commutes
  Node* relu = b.call("aten::relu", {sum});
  b.output({b.call("aten::tanh", {b.call("aten::sigmoid", {b.call("aten::mul.Scalar", {relu, 2.0})})})});
  EXPECT_EQ(groups_of(std::move(b).build()), "tanh[post_op]: convolution add relu mul sigmoid tanh");
  GraphBuilder e;
  Node* s = e.call("aten::sigmoid", {e.input("x", f32({4}))});
  e.output({e.call("aten::tanh", {s})});
  EXPECT_EQ(groups_of(std::move(e).build()), "sigmoid[]: sigmoid; tanh[]: tanh");
}

TEST(FusionRulesTest, ASubtractionReadingTheResultSecondIsNoPostOp) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 3, 3})), None{}, 1, 1);
  b.output({b.call("aten::sub.Tensor", {x, conv})});
  EXPECT_EQ(groups_of(std::move(b).build()), "convolution[]: convolution; sub[]: sub");
}

TEST(FusionRulesTest, ReshapesAfterAReshapeAndPermutesAfterAPermuteAreOne) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* flat = b.call("aten::view", {b.call("aten::view", {x, ints({6, 4})}), ints({24})});
  Node* turned = b.call("aten::permute", {b.call("aten::permute", {x, ints({1, 2, 0})}), ints({1, 2, 0})});
  b.output({flat, turned});
  EXPECT_EQ(groups_of(std::move(b).build()), "view_1[layout_chain]: view view_1; permute_1[layout_chain]: permute permute_1");
}

}  // namespace
}  // namespace kiln::backends::onednn
