// The fusion rules (aot/fusion/rule.h) one by one, on hand-built graphs:
// plan_fusion's groups, each shown as the rules that made it and the nodes
// it took. What the groups compute is the lowering tests' and the
// conformance suite's business; these pin which nodes each rule takes and
// which it must leave. The cases are one table, so that a test can check
// the rule table against them: every rule makes a group in some case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
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

// PT2E's quantize/dequantize pairs: a quantize alone is its grid's eltwise
// ops; after a convolution, the convolution's post-ops; the dequantize ops
// name its value (each its own no-op group, elided at lowering).
Node* quantize(GraphBuilder& b, Node* x, double scale, int64_t zero_point) {
  return b.call("quantized_decomposed::quantize_per_tensor", {x, scale, zero_point, -128, 127, aot::ScalarType::Char});
}
Node* dequantize(GraphBuilder& b, Node* q, double scale, int64_t zero_point) {
  return b.call("quantized_decomposed::dequantize_per_tensor", {q, scale, zero_point, -128, 127, aot::ScalarType::Char});
}

ExportedProgram safe_softmax() {
  GraphBuilder b;
  Node* s = b.input("s", f32({2, 3, 4}));
  Node* y = b.call("aten::_softmax", {s, -1, false});
  Node* eq = b.call("aten::eq.Scalar", {s, -INFINITY});
  Node* rows = b.call("aten::logical_not", {b.call("aten::any.dim", {b.call("aten::logical_not", {eq}), -1, true})});
  b.output({b.call("aten::where.self", {rows, b.call("aten::full_like", {y, 0}), y})});
  return std::move(b).build();
}

// A GRU cell's gates on crops of its two products' results, of `hidden`
// elements: r = sigmoid(xr + hr), z = sigmoid(xz + hz),
// n = tanh(xn + r * hn), h' = (h - n) * z + n.
ExportedProgram gru_cell(int64_t hidden) {
  GraphBuilder b;
  Node* gx = b.input("gx", f32({1, 3 * hidden}));
  Node* gh = b.input("gh", f32({1, 3 * hidden}));
  Node* h = b.input("h", f32({1, hidden}));
  const auto crop = [&](Node* x, int64_t i) { return b.call("aten::slice.Tensor", {x, 1, i * hidden, (i + 1) * hidden}); };
  Node* r = b.call("aten::sigmoid", {b.call("aten::add.Tensor", {crop(gx, 0), crop(gh, 0)})});
  Node* z = b.call("aten::sigmoid", {b.call("aten::add.Tensor", {crop(gx, 1), crop(gh, 1)})});
  Node* n = b.call("aten::tanh", {b.call("aten::add.Tensor", {crop(gx, 2), b.call("aten::mul.Tensor", {r, crop(gh, 2)})})});
  Node* next = b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {b.call("aten::sub.Tensor", {h, n}), z}), n});
  b.output({next});
  return std::move(b).build();
}

// An LSTM cell whose new state c' is returned as well as read by h' =
// o * tanh(c'): c' ends a program of its own, h' another.
ExportedProgram lstm_cell_state_returned() {
  GraphBuilder b;
  Node* g = b.input("g", f32({1, 64}));
  Node* c = b.input("c", f32({1, 16}));
  const auto crop = [&](int64_t i) { return b.call("aten::slice.Tensor", {g, 1, i * 16, (i + 1) * 16}); };
  Node* i = b.call("aten::sigmoid", {crop(0)});
  Node* f = b.call("aten::sigmoid", {crop(1)});
  Node* u = b.call("aten::tanh", {crop(2)});
  Node* o = b.call("aten::sigmoid", {crop(3)});
  Node* state = b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {f, c}), b.call("aten::mul.Tensor", {i, u})});
  b.output({b.call("aten::mul.Tensor", {o, b.call("aten::tanh", {state})}), state});
  return std::move(b).build();
}

// A chain of elementwise ops, each read once: post-ops run it.
ExportedProgram elementwise_chain() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 16}));
  Node* y = b.input("y", f32({1, 16}));
  b.output({b.call("aten::mul.Tensor", {b.call("aten::sigmoid", {b.call("aten::add.Tensor", {x, y})}), y})});
  return std::move(b).build();
}

// A residual block's tail with frozen batch norms (scale and shift as ops:
// detection backbones) on a small image: each branch's scale and shift are
// its convolution's post-ops, as without programs.
ExportedProgram frozen_norms_joined() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 8, 4, 4}));
  const auto branch = [&](const char* w) {
    Node* y = conv2d(b, x, b.parameter(w, ramp({8, 8, 1, 1})), None{});
    return b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {y, b.parameter(std::string(w) + "s", ramp({1, 8, 1, 1}))}),
                                       b.parameter(std::string(w) + "b", ramp({1, 8, 1, 1}))});
  };
  b.output({b.call("aten::relu", {b.call("aten::add.Tensor", {branch("w1"), branch("w2")})})});
  return std::move(b).build();
}

// Gates read through a permute and a reshape merging its dimensions: no
// view of the source's elements composes, so no program reads them.
ExportedProgram gates_of_a_merged_permute() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 6}));
  Node* merged = b.call("aten::reshape", {b.call("aten::permute", {x, ints({0, 2, 1})}), ints({1, 24})});
  Node* gate = b.call("aten::sigmoid", {merged});
  b.output({b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {gate, b.call("aten::tanh", {merged})}), gate})});
  return std::move(b).build();
}

ExportedProgram swish_alone() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  b.output({b.call("aten::mul.Tensor", {x, b.call("aten::sigmoid", {x})})});
  return std::move(b).build();
}

ExportedProgram swish_after_a_convolution() {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  b.output({b.call("aten::mul.Tensor", {b.call("aten::sigmoid", {y}), y})});
  return std::move(b).build();
}

ExportedProgram quantize_alone() {
  GraphBuilder b;
  Node* q = quantize(b, b.input("x", f32({1, 4, 5, 5})), 0.5, 3);
  b.output({b.call("aten::add.Tensor", {dequantize(b, q, 0.5, 3), dequantize(b, q, 0.5, 3)})});
  return std::move(b).build();
}

ExportedProgram quantize_after_a_convolution() {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* q = quantize(b, b.call("aten::relu", {y}), 0.25, -128);
  b.output({dequantize(b, q, 0.25, -128)});
  return std::move(b).build();
}

// conv, q, dq, relu6, q, dq (MobileNet as PT2E quantizes it), the second
// grid of scale `second_scale` (the first's is 0.25).
ExportedProgram clamp_between_grids(double second_scale) {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* first = dequantize(b, quantize(b, y, 0.25, -3), 0.25, -3);
  Node* six = b.call("aten::hardtanh", {first, 0.0, 6.0});
  b.output({dequantize(b, quantize(b, six, second_scale, -3), second_scale, -3)});
  return std::move(b).build();
}

// A max pool between two grids, the second of scale `second_scale` (the
// first's is 0.25).
ExportedProgram max_pool_between_grids(double second_scale) {
  GraphBuilder b;
  Node* x = dequantize(b, quantize(b, b.input("x", f32({1, 4, 6, 6})), 0.25, 1), 0.25, 1);
  Node* pool = b.call("aten::max_pool2d_with_indices", {x, ints({2, 2}), ints({2, 2})});
  b.output({dequantize(b, quantize(b, b.getitem(pool, 0), second_scale, 1), second_scale, 1)});
  return std::move(b).build();
}

// A concat of two values on one grid, then a grid of scale `second_scale`
// (the first's is 0.25).
ExportedProgram concat_between_grids(double second_scale) {
  GraphBuilder b;
  aot::ArgumentList parts;
  for (const char* name : {"x", "y"}) {
    parts.emplace_back(dequantize(b, quantize(b, b.input(name, f32({2, 3})), 0.25, 1), 0.25, 1));
  }
  Node* joined = b.call("aten::cat", {parts, 0});
  b.output({dequantize(b, quantize(b, joined, second_scale, 1), second_scale, 1)});
  return std::move(b).build();
}

// ShuffleNet's channel shuffle as PT2E writes it: each layout op between two
// grids of its input's parameters (q, dq, view, q, dq, permute, q).
ExportedProgram reshape_and_permute_between_grids() {
  GraphBuilder b;
  Node* x = quantize(b, b.input("x", f32({1, 4, 3, 3})), 0.25, 1);
  Node* split = b.call("aten::view", {dequantize(b, x, 0.25, 1), ints({1, 2, 2, 3, 3})});
  Node* swapped = b.call("aten::permute", {dequantize(b, quantize(b, split, 0.25, 1), 0.25, 1), ints({0, 2, 1, 3, 4})});
  b.output({dequantize(b, quantize(b, swapped, 0.25, 1), 0.25, 1)});
  return std::move(b).build();
}

// ResNet's residual as PT2E writes it: conv, q, dq, add(_, x), relu, q.
ExportedProgram residual_after_a_quantized_convolution() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* y = conv2d(b, x, b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* sum = b.call("aten::add.Tensor", {dequantize(b, quantize(b, y, 0.25, 1), 0.25, 1), x});
  b.output({dequantize(b, quantize(b, b.call("aten::relu", {sum}), 0.5, -128), 0.5, -128)});
  return std::move(b).build();
}

// x quantized by parameters computed at run time, as PT2E writes it.
ExportedProgram dynamic_quantization() {
  GraphBuilder b;
  const auto int8 = aot::ScalarType::Char;
  Node* x = b.input("x", f32({4, 8}));
  Node* qparams = b.call("quantized_decomposed::choose_qparams.tensor", {x, -128, 127, 1.0 / 4096, int8});
  Node* scale = b.getitem(qparams, 0);
  Node* zero_point = b.getitem(qparams, 1);
  Node* q = b.call("quantized_decomposed::quantize_per_tensor.tensor", {x, scale, zero_point, -128, 127, int8});
  b.output({b.call("quantized_decomposed::dequantize_per_tensor.tensor", {q, scale, zero_point, -128, 127, int8})});
  return std::move(b).build();
}

ExportedProgram hardswish() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* six = b.call("aten::clamp", {b.call("aten::clamp", {b.call("aten::add.Tensor", {x, 3}), 0}), None{}, 6});
  b.output({b.call("aten::mul.Tensor", {x, six})});
  return std::move(b).build();
}

ExportedProgram hardsigmoid() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* six = b.call("aten::clamp", {b.call("aten::clamp", {b.call("aten::add.Tensor", {x, 3}), 0}), None{}, 6});
  b.output({b.call("aten::div.Tensor", {six, 6})});
  return std::move(b).build();
}

// nn.PReLU() after a convolution, decomposed: where(x > 0, x, w * x) of a
// one-element weight is a relu with that slope, the convolution's post-op.
ExportedProgram prelu_after_a_convolution(std::vector<int64_t> slopes) {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  Node* slope = b.parameter("slope", ramp(slopes, 0.25f));
  Node* negative = b.call("aten::mul.Tensor", {slope, y});
  b.output({b.call("aten::where.self", {b.call("aten::gt.Scalar", {y, 0}), y, negative})});
  return std::move(b).build();
}

ExportedProgram prelu_alone() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* negative = b.call("aten::mul.Tensor", {x, b.parameter("slope", ramp({1}, 0.25f))});
  b.output({b.call("aten::where.self", {b.call("aten::gt.Scalar", {x, 0}), x, negative})});
  return std::move(b).build();
}

ExportedProgram activation_read_elsewhere() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* s = b.call("aten::sigmoid", {x});
  b.output({b.call("aten::mul.Tensor", {x, s}), s});
  return std::move(b).build();
}

ExportedProgram linear_with_reshapes() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 64, 4}));
  Node* flat = b.call("aten::view", {x, ints({64, 4})});
  Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({5, 4})), ints({1, 0})});
  Node* addmm = b.call("aten::addmm", {b.parameter("fc.bias", ramp({5}, 1)), flat, t});
  b.output({b.call("aten::view", {addmm, ints({1, 64, 5})})});
  return std::move(b).build();
}

ExportedProgram transpose_read_twice() {
  GraphBuilder b;
  Node* t = b.call("aten::permute", {b.input("w", f32({5, 4})), ints({1, 0})});
  b.output({b.call("aten::mm", {b.input("x", f32({2, 4})), t}), t});
  return std::move(b).build();
}

// (A batch norm is no operation that takes post-ops: with statistics from an
// input, it and the relu after it stay apart.)
ExportedProgram batch_norm_after_a_convolution(bool constant_statistics) {
  GraphBuilder b;
  Node* conv = conv2d(b, b.input("x", f32({1, 3, 5, 5})), b.parameter("w", ramp({4, 3, 3, 3})), None{}, 1, 1);
  Node* mean = constant_statistics ? b.buffer("mean", ramp({4}, 2)) : b.input("mean", f32({4}));
  Node* bn = b.call("aten::_native_batch_norm_legit_no_training",
                    {conv, b.parameter("gamma", ramp({4}, 1)), b.parameter("beta", ramp({4}, 9)), mean,
                     b.buffer("var", ramp({4}, 4)), 0.1, 1e-5});
  b.output({b.call("aten::relu", {b.getitem(bn, 0)})});
  return std::move(b).build();
}

ExportedProgram post_ops_after_a_convolution() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 3, 3})), None{}, 1, 1);
  Node* sum = b.call("aten::add.Tensor", {x, conv});  // the convolution second: add commutes
  Node* relu = b.call("aten::relu", {sum});
  b.output({b.call("aten::tanh", {b.call("aten::sigmoid", {b.call("aten::mul.Scalar", {relu, 2.0})})})});
  return std::move(b).build();
}

ExportedProgram eltwise_after_an_eltwise() {
  GraphBuilder b;
  Node* s = b.call("aten::sigmoid", {b.input("x", f32({4}))});
  b.output({b.call("aten::tanh", {s})});
  return std::move(b).build();
}

ExportedProgram subtraction_reading_the_result_second() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 3, 3})), None{}, 1, 1);
  b.output({b.call("aten::sub.Tensor", {x, conv})});
  return std::move(b).build();
}

ExportedProgram reshape_and_permute_chains() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* flat = b.call("aten::view", {b.call("aten::view", {x, ints({6, 4})}), ints({24})});
  Node* turned = b.call("aten::permute", {b.call("aten::permute", {x, ints({1, 2, 0})}), ints({1, 2, 0})});
  b.output({flat, turned});
  return std::move(b).build();
}

// A graph and the groups plan_fusion makes of it.
struct FusionCase {
  const char* name;
  std::function<ExportedProgram()> build;
  const char* groups;
};

const std::vector<FusionCase>& fusion_cases() {
  static const std::vector<FusionCase> cases = {
      {"SafeSoftmaxTakesItsBooleanNodes", safe_softmax,
       "where[safe_softmax]: eq logical_not any logical_not_1 _softmax full_like where"},
      {"SwishAloneIsOneEltwise", swish_alone, "mul[swish]: sigmoid mul"},
      {"SwishAfterAConvolutionIsItsPostOp", swish_after_a_convolution, "mul[post_op]: convolution sigmoid mul"},
      {"AQuantizeReadByItsDequantizesIsItsGrid", quantize_alone,
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
       "dequantize_per_tensor_1[]: dequantize_per_tensor_1; add[]: add"},
      {"AQuantizeAfterAConvolutionIsItsPostOps", quantize_after_a_convolution,
       "quantize_per_tensor[post_op]: convolution relu quantize_per_tensor; "
       "dequantize_per_tensor[]: dequantize_per_tensor"},
      // The relu6 and the second grid join the convolution in place of the
      // first grid; with other parameters the chain goes on past the
      // dequantize op, both grids kept.
      {"AClampBetweenTwoGridsOfTheSameParametersJoinsTheGroup", [] { return clamp_between_grids(0.25); },
       "quantize_per_tensor_1[post_op,activation_between_grids]: convolution quantize_per_tensor "
       "dequantize_per_tensor hardtanh quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1"},
      {"AClampBetweenTwoGridsOfOtherParametersKeepsBoth", [] { return clamp_between_grids(0.5); },
       "quantize_per_tensor_1[post_op]: convolution quantize_per_tensor dequantize_per_tensor hardtanh "
       "quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1"},
      // A max pool or a concat requantized to its input's grid takes the
      // quantize op (the identity there); to another grid it does not.
      {"AMaxPoolOnItsInputsGridTakesTheQuantizeAfterIt", [] { return max_pool_between_grids(0.25); },
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
       "quantize_per_tensor_1[max_pool_on_its_grid]: max_pool2d_with_indices getitem quantize_per_tensor_1; "
       "dequantize_per_tensor_1[]: dequantize_per_tensor_1"},
      {"AMaxPoolOnAnotherGridLeavesTheQuantize", [] { return max_pool_between_grids(0.5); },
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
       "getitem[]: max_pool2d_with_indices getitem; quantize_per_tensor_1[fake_quant]: quantize_per_tensor_1; "
       "dequantize_per_tensor_1[]: dequantize_per_tensor_1"},
      {"AConcatOnItsInputsGridTakesTheQuantizeAfterIt", [] { return concat_between_grids(0.25); },
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
       "quantize_per_tensor_1[fake_quant]: quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1; "
       "quantize_per_tensor_2[layout_on_its_grid]: cat quantize_per_tensor_2; "
       "dequantize_per_tensor_2[]: dequantize_per_tensor_2"},
      {"AConcatOnAnotherGridLeavesTheQuantize", [] { return concat_between_grids(0.5); },
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; dequantize_per_tensor[]: dequantize_per_tensor; "
       "quantize_per_tensor_1[fake_quant]: quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1; "
       "cat[]: cat; quantize_per_tensor_2[fake_quant]: quantize_per_tensor_2; "
       "dequantize_per_tensor_2[]: dequantize_per_tensor_2"},
      // The view joins the dequantize op's alias of the first grid, and then
      // the quantize op after it (the identity); the permute likewise.
      {"AReshapeAfterADequantizeTakesTheQuantizeAfterIt", reshape_and_permute_between_grids,
       "quantize_per_tensor[fake_quant]: quantize_per_tensor; "
       "quantize_per_tensor_1[layout_chain,layout_on_its_grid]: dequantize_per_tensor view quantize_per_tensor_1; "
       "dequantize_per_tensor_1[]: dequantize_per_tensor_1; "
       "quantize_per_tensor_2[layout_on_its_grid]: permute quantize_per_tensor_2; "
       "dequantize_per_tensor_2[]: dequantize_per_tensor_2"},
      // The add and the relu are the convolution's post-ops after its grid.
      {"AResidualAddAfterAQuantizedConvolutionIsItsPostOp", residual_after_a_quantized_convolution,
       "quantize_per_tensor_1[post_op]: convolution quantize_per_tensor dequantize_per_tensor add relu "
       "quantize_per_tensor_1; dequantize_per_tensor_1[]: dequantize_per_tensor_1"},
      {"ADynamicQuantizationIsOneOperation", dynamic_quantization,
       "dequantize_per_tensor[dynamic_quantize]: choose_qparams getitem getitem_1 quantize_per_tensor "
       "dequantize_per_tensor"},
      {"HardswishTakesItsClampChain", hardswish, "mul[hardswish]: add clamp clamp_1 mul"},
      {"CoreATensHardsigmoidIsOneEltwise", hardsigmoid, "div[hardsigmoid]: add clamp clamp_1 div"},
      {"APReluOfOneSlopeIsARelu", prelu_alone, "where[prelu]: gt mul where"},
      {"APReluOfOneSlopeIsAReluPostOp", [] { return prelu_after_a_convolution({1}); },
       "where[post_op]: convolution gt mul where"},
      {"AnActivationWhoseInnerNodeIsReadElsewhereIsNoPattern", activation_read_elsewhere,
       "sigmoid[]: sigmoid; mul[]: mul"},
      {"LinearAbsorbsItsTransposedWeightAndTheReshapesAroundIt", linear_with_reshapes,
       "view_1[transposed_operand,flattened_linear]: view permute addmm view_1"},
      {"ATransposeReadTwiceStaysApart", transpose_read_twice, "permute[]: permute; mm[]: mm"},
      {"ABatchNormOnConstantsFoldsIntoTheConvolutionThenTheReluIsAPostOp",
       [] { return batch_norm_after_a_convolution(true); },
       "relu[batch_norm_into_convolution,post_op]: convolution _native_batch_norm_legit_no_training getitem relu"},
      // Apart from the convolution; the relu is its one post-op.
      {"ABatchNormOnAnInputsStatisticsStaysApart", [] { return batch_norm_after_a_convolution(false); },
       "convolution[]: convolution; relu[post_op]: _native_batch_norm_legit_no_training getitem relu"},
      {"PostOpsFollowAConvolution", post_ops_after_a_convolution,
       "tanh[post_op]: convolution add relu mul sigmoid tanh"},
      {"PostOpsDoNotFollowAnEltwiseOp", eltwise_after_an_eltwise, "sigmoid[]: sigmoid; tanh[]: tanh"},
      {"ASubtractionReadingTheResultSecondIsNoPostOp", subtraction_reading_the_result_second,
       "convolution[]: convolution; sub[]: sub"},
      // The whole cell, its crops read in place: one program.
      {"AGruCellIsOneProgram", [] { return gru_cell(16); },
       "add_3[pointwise]: slice slice_1 add sigmoid slice_2 slice_3 add_1 sigmoid_1 slice_4 slice_5 mul add_2 tanh "
       "sub mul_1 add_3"},
      // Past the kernel's size, oneDNN's operations and post-ops.
      {"AGruCellOfLargeTensorsIsNoProgram", [] { return gru_cell(kMaxPointwiseNumel + 1); },
       "slice[]: slice; slice_1[]: slice_1; slice_2[]: slice_2; slice_3[]: slice_3; slice_4[]: slice_4; "
       "slice_5[]: slice_5; tanh[post_op]: add sigmoid mul add_2 tanh; sub[]: sub; "
       "add_3[post_op]: add_1 sigmoid_1 mul_1 add_3"},
      {"AnLstmCellStateReadTwiceEndsAProgram", lstm_cell_state_returned,
       "add[pointwise]: slice sigmoid slice_1 sigmoid_1 slice_2 tanh mul mul_1 add; "
       "mul_2[pointwise]: slice_3 sigmoid_2 tanh_1 mul_2"},
      {"AChainOfElementwiseOpsIsNoProgram", elementwise_chain, "mul[post_op]: add sigmoid mul"},
      {"GatesReadThroughAViewThatDoesNotComposeAreNoProgram", gates_of_a_merged_permute,
       "permute[]: permute; reshape[]: reshape; sigmoid[]: sigmoid; tanh[]: tanh; add[post_op]: mul add"},
      {"FrozenNormsAfterConvolutionsStayTheirPostOps", frozen_norms_joined,
       "add_1[post_op]: convolution_1 mul_1 add_1; relu[post_op]: convolution mul add add_2 relu"},
      {"ReshapesAfterAReshapeAndPermutesAfterAPermuteAreOne", reshape_and_permute_chains,
       "view_1[layout_chain]: view view_1; permute_1[layout_chain]: permute permute_1"},
  };
  return cases;
}

class FusionCaseTest : public ::testing::TestWithParam<FusionCase> {};

TEST_P(FusionCaseTest, GroupsAsExpected) { EXPECT_EQ(groups_of(GetParam().build()), GetParam().groups); }

INSTANTIATE_TEST_SUITE_P(Cases, FusionCaseTest, ::testing::ValuesIn(fusion_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(FusionRulesTest, TheTableNamesEachRuleOnce) {
  std::set<std::string> names;
  for (const FusionRule& rule : fusion_rules()) EXPECT_TRUE(names.insert(rule.name).second) << rule.name;
}

// The table against the cases: a rule no case exercises is untested (and a
// family left out of the table fails the cases that name its rules).
TEST(FusionRulesTest, EveryRuleOfTheTableMakesAGroupInSomeCase) {
  std::set<std::string> applied;
  for (const FusionCase& c : fusion_cases()) {
    const ExportedProgram program = c.build();
    for (const FusedGroup& group : plan_fusion(program, constant_tensors(program))) {
      applied.insert(group.rules.begin(), group.rules.end());
    }
  }
  for (const FusionRule& rule : fusion_rules()) {
    EXPECT_TRUE(applied.count(rule.name)) << "no case of this file makes a group with rule '" << rule.name << "'";
  }
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

}  // namespace
}  // namespace kiln::backends::onednn
