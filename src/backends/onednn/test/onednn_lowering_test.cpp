// OneDnnBackend's preprocess on small programs: the graph it writes, as
// describe_onednn_blob prints it, before and after fusion (conv + batch norm
// + relu as one convolution with folded weights, a residual add as a binary
// post-op, linear as a MatMul on the weight as stored), the folded weights
// checked against the reference interpreter, value numbering of inputs and
// outputs, the debug-handle map, and weights deduplicated by content.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/testing/aot_testing.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/test/blob_reference.h"
#include "backends/onednn/test/onednn_test_util.h"

namespace kiln::backends::onednn {
namespace {

namespace fb = ::kiln::onednn;
using aot::ExportedProgram;
using aot::f32;
using aot::GraphBuilder;
using aot::HostTensor;
using aot::Node;
using aot::None;
using testing::backend;
using testing::conv2d;
using testing::ints;
using testing::ramp;
using ::testing::HasSubstr;

std::string printout(const aot::PreprocessResult& result) { return testing::describe_unpacked(result.processed_bytes); }

// A positive ramp, for variances.
HostTensor positive(const std::vector<int64_t>& sizes, int seed) {
  HostTensor t = ramp(sizes, seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::fabs(t.data<float>()[i]) + 0.5f;
  return t;
}

HostTensor named_tensor(const aot::PreprocessResult& result, const fb::ValueT& value) {
  return testing::constant_tensor(value, result.data_store_output);
}

HostTensor run(ExportedProgram& program, const HostTensor& input) {
  return std::get<HostTensor>(aot::call_program(program, aot::PyTree::tuple({aot::PyTree::make_leaf(input)})).leaf);
}

// conv (3 -> 4 channels, 3x3, padding 1) + batch norm + relu.
ExportedProgram conv_bn_relu(bool fold_friendly = true) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 3, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("conv.weight", ramp({4, 3, 3, 3})), b.parameter("conv.bias", ramp({4}, 5)), 1, 1);
  Node* mean = fold_friendly ? b.buffer("bn.running_mean", ramp({4}, 2)) : b.input("mean", f32({4}));
  Node* bn = b.call("aten::_native_batch_norm_legit_no_training",
                    {conv, b.parameter("bn.weight", ramp({4}, 1)), b.parameter("bn.bias", ramp({4}, 9)), mean,
                     b.buffer("bn.running_var", positive({4}, 4)), 0.1, 1e-5});
  b.output({b.call("aten::relu", {b.getitem(bn, 0)})});
  return std::move(b).build();
}

TEST(OneDnnLoweringTest, ConvBatchNormReluIsOneConvolutionWithFoldedWeights) {
  ExportedProgram program = conv_bn_relu();
  aot::generate_debug_handles(program);
  const aot::PreprocessResult result = backend().preprocess(program, {});
  EXPECT_EQ(printout(result),
            "graph: 4 values (2 constants), 1 operations\n"
            "  %0 (input 0) f32[1, 3, 5, 5]\n"
            "  %1 (constant) f32[4, 3, 3, 3]\n"
            "  %2 (constant) f32[4]\n"
            "  %3 (output 0) f32[1, 4, 5, 5]\n"
            "  #0 Convolution strides=[1, 1] padding_l=[1, 1] padding_r=[1, 1] dilations=[1, 1] groups=1 "
            "(%0[1, 3, 5, 5], %1[4, 3, 3, 3], %2[4]) -> %3[1, 4, 5, 5] post-ops [Eltwise Relu(alpha=0)] debug_id 0 'convolution'\n");
  // conv, batch norm, getitem, relu: handles 1 to 4, all in operation 0.
  EXPECT_EQ(aot::to_string(result.debug_handle_map), "{0: (1, 2, 3, 4)}");
  EXPECT_EQ(result.data_store_output.pte_data.size(), 2u);  // the folded weight and bias only

  // The folded convolution computes what conv + batch norm + relu computes.
  const auto graph = parse_onednn_blob(result.processed_bytes);
  GraphBuilder folded;
  Node* x = folded.input("x", f32({1, 3, 5, 5}));
  Node* conv = conv2d(folded, x, folded.parameter("w", named_tensor(result, *graph->values[1])),
                      folded.parameter("b", named_tensor(result, *graph->values[2])), 1, 1);
  folded.output({folded.call("aten::relu", {conv})});
  ExportedProgram folded_program = std::move(folded).build();
  const HostTensor input = ramp({1, 3, 5, 5}, 11);
  const std::vector<double> expected = run(program, input).to_doubles();
  const std::vector<double> actual = run(folded_program, input).to_doubles();
  ASSERT_EQ(actual.size(), expected.size());
  size_t positives = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5 * std::max(1.0, std::fabs(expected[i]))) << "element " << i;
    positives += expected[i] > 0;
  }
  EXPECT_GT(positives, 10u);  // the relu did not zero everything
}

TEST(OneDnnLoweringTest, ABatchNormWithStatisticsFromAnInputStaysABatchNorm) {
  const ExportedProgram program = conv_bn_relu(/*fold_friendly=*/false);
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const aot::PreprocessResult result = backend().preprocess(program, {});
  const std::string text = printout(result);
  EXPECT_THAT(text, HasSubstr("#0 Convolution"));
  // The relu is the batch norm's post-op (its one kind: capabilities.h).
  EXPECT_THAT(text, HasSubstr("#1 BatchNorm epsilon=1e-05 (%4[1, 4, 5, 5], %1[4], %5[4], %6[4], %7[4]) -> %8[1, 4, 5, 5] "
                              "post-ops [Eltwise Relu(alpha=0)]"));
  EXPECT_THAT(text, Not(HasSubstr("EltwiseOp")));
}

TEST(OneDnnLoweringTest, AResidualAddAndReluArePostOps) {
  for (bool conv_first : {true, false}) {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 4, 5, 5}));
    Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 3, 3})), None{}, 1, 1);
    Node* sum = b.call("aten::add.Tensor", {conv_first ? conv : x, conv_first ? x : conv});
    b.output({b.call("aten::relu", {sum})});
    SCOPED_TRACE(conv_first ? "conv + x" : "x + conv");
    const ExportedProgram program = std::move(b).build();
    testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
    EXPECT_THAT(printout(backend().preprocess(program, {})),
                HasSubstr("#0 Convolution strides=[1, 1] padding_l=[1, 1] padding_r=[1, 1] dilations=[1, 1] groups=1 "
                          "(%0[1, 4, 5, 5], %1[4, 4, 3, 3], none) -> %2[1, 4, 5, 5] "
                          "post-ops [Binary Add %0[1, 4, 5, 5], Eltwise Relu(alpha=0)] debug_id -1 'convolution'\n"));
  }
}

// x on an int8 grid as PT2E writes it: quantize then dequantize.
Node* on_grid(GraphBuilder& b, Node* x, double scale, int64_t zero_point) {
  const auto int8 = aot::ScalarType::Char;
  Node* q = b.call("quantized_decomposed::quantize_per_tensor", {x, scale, zero_point, -128, 127, int8});
  return b.call("quantized_decomposed::dequantize_per_tensor", {q, scale, zero_point, -128, 127, int8});
}

// int8 weights of `sizes` (values i * step % 255 - 127) dequantized per
// output channel by positive scales, as PT2E writes a layer's weights.
Node* int8_weight(GraphBuilder& b, const std::vector<int64_t>& sizes, int64_t step = 1) {
  const auto int8 = aot::ScalarType::Char;
  HostTensor values = HostTensor::zeros(int8, sizes);
  for (int64_t i = 0; i < values.numel(); ++i) values.data<int8_t>()[i] = static_cast<int8_t>(i * step % 255 - 127);
  HostTensor zero_points = HostTensor::zeros(aot::ScalarType::Long, {sizes[0]});
  return b.call("quantized_decomposed::dequantize_per_channel", {b.buffer("wq", values), b.buffer("ws", positive({sizes[0]}, 3)),
                                                                 b.buffer("wz", zero_points), 0, -127, 127, int8});
}

// PT2E static quantization: the input quantized by one reorder into an int8
// value (held as uint8, shifted by 128: zero point 3 + 128), the convolution
// reading it with int8 weights and their per-channel
// scales and writing its relu'd result requantized (no grid post-ops left),
// the result dequantized where the call returns it.
TEST(OneDnnLoweringTest, AQuantizedConvolutionReadsAndWritesInt8) {
  GraphBuilder b;
  Node* xd = on_grid(b, b.input("x", f32({1, 3, 5, 5})), 0.02, 3);
  Node* y = b.call("aten::relu", {conv2d(b, xd, int8_weight(b, {4, 3, 3, 3}), b.parameter("bias", ramp({4}, 5)), 1, 1)});
  b.output({on_grid(b, y, 0.5, -128)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, HasSubstr("%1 (intermediate) u8[1, 3, 5, 5] scale 0.02 zero point 131\n"));
  EXPECT_THAT(text, HasSubstr("%2 (constant) i8[4, 3, 3, 3]\n"));
  EXPECT_THAT(text, HasSubstr("#0 Reorder reshape (%0[1, 3, 5, 5]) -> %1[1, 3, 5, 5]"));
  EXPECT_THAT(text, HasSubstr("(%1[1, 3, 5, 5], %2[4, 3, 3, 3], %3[4], %4[4]) -> %5[1, 4, 5, 5] "
                              "post-ops [Eltwise Relu(alpha=0)] debug_id"));
  EXPECT_THAT(text, HasSubstr("%5 (intermediate) u8[1, 4, 5, 5] scale 0.5 zero point 0\n"));
}

// An int8 residual add as PT2E writes it (ResNet's, MobileNetV2's): the
// convolution's post-op reads the residual's integers (uint8), between
// Linear post-ops that move the sum onto its grid and back, with no
// float32 copy of the residual; the blob still computes the program.
TEST(OneDnnLoweringTest, AnInt8ResidualAddReadsTheResidualsIntegers) {
  GraphBuilder b;
  Node* xd = on_grid(b, b.input("x", f32({1, 4, 5, 5})), 0.02, 3);
  Node* y = conv2d(b, xd, int8_weight(b, {4, 4, 3, 3}), b.parameter("bias", ramp({4}, 5)), 1, 1);
  Node* sum = b.call("aten::relu", {b.call("aten::add.Tensor", {on_grid(b, y, 0.25, -7), xd})});
  b.output({on_grid(b, sum, 0.5, -128)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, HasSubstr("%1 (intermediate) u8[1, 4, 5, 5] scale 0.02 zero point 131\n"));
  // s * (d / s - z + q): 0.25 / 0.02 = 12.5 composed with the grid's last Linear.
  EXPECT_THAT(text, HasSubstr("Eltwise Linear(alpha=12.5, beta=-131), Binary Add %1[1, 4, 5, 5], "
                              "Eltwise Linear(alpha=0.02, beta=0), Eltwise Relu(alpha=0)]"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("Reorder reshape (%1[1, 4, 5, 5])")));  // no float32 copy
}

// A slice between two grids of the same parameters (ShuffleNet's channel
// split, PT2E-quantized) is a crop of the int8 values themselves.
TEST(OneDnnLoweringTest, AnInt8SliceIsACropOnItsGrid) {
  GraphBuilder b;
  Node* xd = on_grid(b, b.input("x", f32({1, 4, 5, 5})), 0.02, 3);
  b.output({on_grid(b, b.call("aten::slice_copy.Tensor", {xd, 1, 2, 4}), 0.02, 3)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text,
              HasSubstr("Pad before=[0, -2, 0, 0] after=[0, 0, 0, 0] value=0 (%1[1, 4, 5, 5]) -> %2[1, 2, 5, 5]"));
  EXPECT_THAT(text, HasSubstr("%2 (intermediate) u8[1, 2, 5, 5] scale 0.02 zero point 131\n"));
}

// A silu between two grids (PT2E leaves it float32; core ATen spells it
// as x * sigmoid(x)) is the convolution's post-ops between its grid and
// the next: one operation writing the second grid's int8 values.
TEST(OneDnnLoweringTest, ADecomposedSiluBetweenTwoGridsIsPostOpsOfTheConvolution) {
  GraphBuilder b;
  Node* xd = on_grid(b, b.input("x", f32({1, 4, 5, 5})), 0.02, 3);
  Node* y = conv2d(b, xd, int8_weight(b, {4, 4, 1, 1}, 7), b.parameter("bias", ramp({4}, 5)), 1, 0);
  Node* yd = on_grid(b, y, 0.25, -7);
  Node* silu = b.call("aten::mul.Tensor", {yd, b.call("aten::sigmoid", {yd})});
  b.output({on_grid(b, silu, 0.125, -100)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, HasSubstr("Eltwise Linear(alpha=0.25, beta=0), Eltwise Swish(alpha=1)] debug_id"));
  EXPECT_THAT(text, HasSubstr("u8[1, 4, 5, 5] scale 0.125 zero point 28\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("EltwiseOp")));
}

// A cat of more tensors than one Concat joins (DenseNet's 23 and more)
// lowers to a tree of Concats, each within the runtime's limit, all with
// the cat's name; the blob still computes the cat.
TEST(OneDnnLoweringTest, AWideCatIsATreeOfConcats) {
  for (const int64_t n : {int64_t{kMaxConcatInputs}, int64_t{kMaxConcatInputs} + 1, int64_t{50}}) {
    SCOPED_TRACE(n);
    GraphBuilder b;
    aot::ArgumentList tensors;
    for (int64_t i = 0; i < n; ++i) {
      tensors.emplace_back(b.call("aten::relu", {b.input("x" + std::to_string(i), f32({1, 1 + i % 3, 2, 3}))}));
    }
    b.output({b.call("aten::cat", {tensors, 1})});
    const ExportedProgram program = std::move(b).build();
    const auto graph = parse_onednn_blob(backend().preprocess(program, {}).processed_bytes);
    size_t concats = 0;
    int64_t joined = 0;
    for (const auto& op : graph->operations) {
      if (op->op.type != fb::OperationKind::Concat) continue;
      ++concats;
      EXPECT_LE(op->inputs.size(), kMaxConcatInputs);
      EXPECT_EQ(op->name, "cat");
      const auto& out = graph->values.at(static_cast<size_t>(op->outputs.at(0)));
      if (out->kind == fb::ValueKind::Output) joined = out->sizes.at(1);
    }
    const size_t chunks = (static_cast<size_t>(n) + kMaxConcatInputs - 1) / kMaxConcatInputs;
    const size_t expected = n <= kMaxConcatInputs ? 1 : 1 + chunks - (n % kMaxConcatInputs == 1 ? 1 : 0);
    EXPECT_EQ(concats, expected);
    int64_t channels = 0;
    for (int64_t i = 0; i < n; ++i) channels += 1 + i % 3;
    EXPECT_EQ(joined, channels);
    testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  }
}

// The same on int8 values between grids of one scale and zero point
// (DenseNet's later blocks, PT2E-quantized): every Concat of the tree joins
// the int8 values on their grid, with no float32 copy of any of them.
TEST(OneDnnLoweringTest, AWideInt8CatIsATreeOfConcatsOnItsGrid) {
  GraphBuilder b;
  aot::ArgumentList tensors;
  const int64_t n = int64_t{kMaxConcatInputs} + 5;
  for (int64_t i = 0; i < n; ++i) {
    tensors.emplace_back(on_grid(b, b.input("x" + std::to_string(i), f32({1, 2, 3, 3})), 0.02, 3));
  }
  b.output({on_grid(b, b.call("aten::cat", {tensors, 1}), 0.02, 3)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const auto graph = parse_onednn_blob(backend().preprocess(program, {}).processed_bytes);
  size_t concats = 0;
  for (const auto& op : graph->operations) {
    if (op->op.type != fb::OperationKind::Concat) continue;
    ++concats;
    EXPECT_LE(op->inputs.size(), kMaxConcatInputs);
    for (int32_t v : op->inputs) EXPECT_EQ(graph->values.at(static_cast<size_t>(v))->dtype, fb::DataType::UInt8);
    const auto& out = *graph->values.at(static_cast<size_t>(op->outputs.at(0)));
    EXPECT_EQ(out.dtype, fb::DataType::UInt8);
    EXPECT_FLOAT_EQ(out.scale, 0.02f);
    EXPECT_EQ(out.zero_point, 131);
  }
  EXPECT_EQ(concats, 3u);  // 22 and 5 joined, then the two
}

// A chain of more activations than one operation carries as post-ops is
// split: the first kMaxPostOps ride on the convolution, the rest start a
// new operation. (Scalings alternate with tanh: consecutive ones compose.)
TEST(OneDnnLoweringTest, PostOpsStopAtTheRuntimesLimit) {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  for (uint32_t i = 0; i < kMaxPostOps + 3; ++i) {
    y = i % 2 == 0 ? b.call("aten::mul.Scalar", {y, 1.0 + 0.01 * i}) : b.call("aten::tanh", {y});
  }
  b.output({y});
  const ExportedProgram program = std::move(b).build();
  const auto graph = parse_onednn_blob(backend().preprocess(program, {}).processed_bytes);
  ASSERT_GE(graph->operations.size(), 2u);
  EXPECT_EQ(graph->operations[0]->op.type, fb::OperationKind::Convolution);
  EXPECT_EQ(graph->operations[0]->post_ops.size(), kMaxPostOps);
  for (const auto& op : graph->operations) EXPECT_LE(op->post_ops.size(), kMaxPostOps);
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

// silu and hardswish as core ATen decomposes them ride on the convolution
// as one eltwise post-op (the hardswish's division composed away).
TEST(OneDnnLoweringTest, DecomposedSwishAndHardswishArePostOps) {
  for (const bool hard : {false, true}) {
    SCOPED_TRACE(hard ? "hardswish" : "swish");
    GraphBuilder b;
    Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
    if (hard) {
      Node* six = b.call("aten::clamp", {b.call("aten::clamp", {b.call("aten::add.Tensor", {y, 3}), 0}), None{}, 6});
      b.output({b.call("aten::div.Tensor", {b.call("aten::mul.Tensor", {y, six}), 6})});
    } else {
      b.output({b.call("aten::mul.Tensor", {b.call("aten::sigmoid", {y}), y})});
    }
    const ExportedProgram program = std::move(b).build();
    const std::string text = printout(backend().preprocess(program, {}));
    EXPECT_THAT(text, HasSubstr(hard ? "post-ops [Eltwise HardSwish(alpha=0.166667, beta=0.5)] debug_id" : "post-ops [Eltwise Swish(alpha=1)] debug_id"));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("#1 ")));  // one operation
    testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  }
}

// A pattern's inner node read elsewhere is no pattern: nothing is lost.
TEST(OneDnnLoweringTest, ASigmoidReadTwiceIsNoSwish) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* s = b.call("aten::sigmoid", {x});
  b.output({b.call("aten::mul.Tensor", {x, s}), s});
  const ExportedProgram program = std::move(b).build();
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("Swish")));
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

// Arithmetic with numbers in a row is one Linear post-op; one that cancels
// out is none.
TEST(OneDnnLoweringTest, ConsecutiveScalingsComposeIntoOnePostOp) {
  GraphBuilder b;
  Node* y = conv2d(b, b.input("x", f32({1, 4, 5, 5})), b.parameter("w", ramp({4, 4, 1, 1})), None{});
  y = b.call("aten::add.Tensor", {b.call("aten::mul.Scalar", {y, 2.0}), 1.0});
  Node* z = b.call("aten::relu", {b.call("aten::div.Tensor", {b.call("aten::mul.Scalar", {y, 4.0}), 4.0})});
  b.output({z});
  const ExportedProgram program = std::move(b).build();
  EXPECT_THAT(printout(backend().preprocess(program, {})),
              HasSubstr("post-ops [Eltwise Linear(alpha=2, beta=1), Eltwise Relu(alpha=0)] debug_id"));
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

// A group norm is a layer norm over each group's elements between two
// reshapes, then its weight and bias per channel, the relu after it a
// post-op of that.
TEST(OneDnnLoweringTest, AGroupNormIsALayerNormPerGroupThenItsAffine) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 8, 3, 3}));
  Node* gn = b.call("aten::native_group_norm", {x, b.parameter("w", ramp({8}, 1)), b.parameter("b", ramp({8}, 2)), 2, 8, 9, 4, 1e-5});
  b.output({b.call("aten::relu", {b.getitem(gn, 0)})});
  const ExportedProgram program = std::move(b).build();
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, HasSubstr("#0 Reorder reshape (%0[2, 8, 3, 3]) -> %1[8, 18]"));
  EXPECT_THAT(text, HasSubstr("#1 LayerNorm epsilon=1e-05 normalized_dims=1 (%1[8, 18], none, none) -> %2[8, 18]"));
  EXPECT_THAT(text, HasSubstr("#2 Reorder reshape (%2[8, 18]) -> %3[2, 8, 3, 3]"));
  EXPECT_THAT(text, HasSubstr("BinaryOp Mul (%3[2, 8, 3, 3], %4[8, 1, 1]) -> %6[2, 8, 3, 3] post-ops [Binary Add %5[8, 1, 1], "
                              "Eltwise Relu(alpha=0)]"));
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

// torch's _safe_softmax, spelled out in boolean ops, is taken whole and
// lowered as a softmax, a per-row gate and their product; the same nodes with
// the comparison read elsewhere are no such pattern and are refused.
TEST(OneDnnLoweringTest, ASafeSoftmaxIsOneOperationOfOneDnnSteps) {
  for (const bool eq_read_elsewhere : {false, true}) {
    SCOPED_TRACE(eq_read_elsewhere ? "eq read elsewhere" : "the pattern");
    GraphBuilder b;
    Node* s = b.call("aten::relu", {b.input("s", f32({2, 3, 4}))});
    Node* y = b.call("aten::_softmax", {s, -1, false});
    Node* eq = b.call("aten::eq.Scalar", {s, -INFINITY});
    Node* rows = b.call("aten::logical_not", {b.call("aten::any.dim", {b.call("aten::logical_not", {eq}), -1, true})});
    Node* out = b.call("aten::where.self", {rows, b.call("aten::full_like", {y, 0}), y});
    if (eq_read_elsewhere) {
      b.output({out, eq});
    } else {
      b.output({out});
    }
    const ExportedProgram program = std::move(b).build();
    EXPECT_EQ(backend().supports(*eq, program).supported, !eq_read_elsewhere);
    if (eq_read_elsewhere) continue;
    const std::string text = printout(backend().preprocess(program, {}));
    EXPECT_THAT(text, HasSubstr("EltwiseOp Clip(min=-3.40282e+38, max=3.40282e+38)"));
    EXPECT_THAT(text, HasSubstr("Softmax axis=2"));
    EXPECT_THAT(text, HasSubstr("Reduction Max"));
    EXPECT_THAT(text, HasSubstr("post-ops [Eltwise Linear(alpha=1, beta=3.40282e+38), Eltwise Clip(min=0, max=1)]"));
    // The product as [rows, K] times [rows, 1], which oneDNN broadcasts on its JIT path.
    EXPECT_THAT(text, ::testing::ContainsRegex("BinaryOp Mul \\(%[0-9]+\\[6, 4\\], %[0-9]+\\[6, 1\\]\\)"));
    testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  }
}

// oneDNN runs an eltwise primitive with post-ops on its reference
// implementation (GPT-2's tanh gelu took ten times as long so): no EltwiseOp
// carries post-ops, after an input (the ops after it stay apart) or as an
// activation pattern standing alone (x * relu6(x): HardSwish, then its scale).
TEST(OneDnnLoweringTest, NoEltwiseOpCarriesPostOps) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 16, 8}));
  Node* cube = b.call("aten::mul.Scalar", {b.call("aten::tanh", {x}), 0.5});
  Node* gelu_like = b.call("aten::mul.Tensor", {b.call("aten::add.Tensor", {cube, 1.0}), x});
  Node* hard = b.call("aten::mul.Tensor", {x, b.call("aten::hardtanh", {x, 0.0, 6.0})});
  b.output({gelu_like, hard});
  const ExportedProgram program = std::move(b).build();
  const auto graph = parse_onednn_blob(backend().preprocess(program, {}).processed_bytes);
  size_t eltwise_ops = 0;
  for (const auto& op : graph->operations) {
    if (op->op.type != fb::OperationKind::EltwiseOp) continue;
    ++eltwise_ops;
    EXPECT_TRUE(op->post_ops.empty()) << op->name;
  }
  EXPECT_GE(eltwise_ops, 4u);  // tanh, the scaling, HardSwish, its scale by 6
  EXPECT_THAT(printout(backend().preprocess(program, {})), HasSubstr("EltwiseOp HardSwish(alpha=0.166667, beta=0)"));
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

// [..., n, 1] over [..., n, K] (an RMS norm's scale) is broadcast by oneDNN's
// reference binary only: it runs as [rows, K] times [rows, 1], its weight
// (one row) and relu still post-ops.
TEST(OneDnnLoweringTest, AColumnBroadcastRunsOnRows) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 8}));
  Node* scale = b.call("aten::sigmoid", {b.input("s", f32({2, 3, 1}))});
  Node* weighted = b.call("aten::mul.Tensor", {b.call("aten::mul.Tensor", {x, scale}), b.parameter("w", ramp({8}))});
  b.output({b.call("aten::relu", {weighted})});
  const ExportedProgram program = std::move(b).build();
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, ::testing::ContainsRegex("BinaryOp Mul \\(%[0-9]+\\[6, 8\\], %[0-9]+\\[6, 1\\]\\) -> %[0-9]+\\[6, 8\\] "
                                             "post-ops \\[Binary Mul %[0-9]+\\[8\\], Eltwise Relu"));
  EXPECT_THAT(text, ::testing::ContainsRegex("Reorder reshape \\(%[0-9]+\\[6, 8\\]\\) -> %[0-9]+\\[2, 3, 8\\]"));
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
}

TEST(OneDnnLoweringTest, AnIntermediateUsedTwiceIsNotFusedAway) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* conv = conv2d(b, x, b.parameter("w", ramp({4, 4, 1, 1})), None{});
  b.output({b.call("aten::relu", {conv}), b.call("aten::sigmoid", {conv})});
  const std::string text = printout(backend().preprocess(std::move(b).build(), {}));
  EXPECT_THAT(text, HasSubstr("-> %2[1, 4, 5, 5] debug_id -1 'convolution'\n"));
  EXPECT_THAT(text, HasSubstr("#1 EltwiseOp Relu(alpha=0) (%2[1, 4, 5, 5]) -> %3[1, 4, 5, 5]"));
  EXPECT_THAT(text, HasSubstr("#2 EltwiseOp Logistic (%2[1, 4, 5, 5]) -> %4[1, 4, 5, 5]"));
  EXPECT_THAT(text, HasSubstr("%3 (output 0)"));
  EXPECT_THAT(text, HasSubstr("%4 (output 1)"));
}

// Linear as core ATen has it: permute(weight) + addmm.
TEST(OneDnnLoweringTest, LinearIsAMatMulOnTheWeightAsStored) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4}));
  Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({3, 4})), ints({1, 0})});
  Node* addmm = b.call("aten::addmm", {b.parameter("fc.bias", ramp({3}, 1)), x, t});
  b.output({b.call("aten::relu", {addmm})});
  ExportedProgram program = std::move(b).build();
  aot::generate_debug_handles(program);
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const aot::PreprocessResult result = backend().preprocess(program, {});
  EXPECT_EQ(printout(result),
            "graph: 4 values (2 constants), 1 operations\n"
            "  %0 (input 0) f32[2, 4]\n"
            "  %1 (constant) f32[3, 4]\n"
            "  %2 (constant) f32[3]\n"
            "  %3 (output 0) f32[2, 3]\n"
            "  #0 MatMul transpose_b (%0[2, 4], %1[3, 4], %2[3]) -> %3[2, 3] post-ops [Eltwise Relu(alpha=0)] debug_id 0 'permute'\n");
  EXPECT_EQ(aot::to_string(result.debug_handle_map), "{0: (1, 2, 3)}");
  // The weight is stored as the model holds it, not transposed.
  const auto graph = parse_onednn_blob(result.processed_bytes);
  EXPECT_EQ(named_tensor(result, *graph->values[1]).to_doubles(), ramp({3, 4}).to_doubles());
}

// Linear on a 3-D input, as core ATen has it: view, permute + addmm, view
// (a batch of 2 sequences of 64: rows enough per batch for oneDNN's batched
// GEMM).
TEST(OneDnnLoweringTest, LinearOnA3dInputIsOneMatMulWithItsActivationAndResidual) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 64, 4}));
  Node* flat = b.call("aten::view", {x, ints({128, 4})});
  Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({5, 4})), ints({1, 0})});
  Node* addmm = b.call("aten::addmm", {b.parameter("fc.bias", ramp({5}, 1)), flat, t});
  Node* restored = b.call("aten::view", {addmm, ints({2, 64, 5})});
  Node* sum = b.call("aten::add.Tensor", {b.input("residual", f32({2, 64, 5})), b.call("aten::relu", {restored})});
  b.output({sum});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  EXPECT_EQ(printout(backend().preprocess(program, {})),
            "graph: 5 values (2 constants), 1 operations\n"
            "  %0 (input 0) f32[2, 64, 4]\n"
            "  %1 (input 1) f32[2, 64, 5]\n"
            "  %2 (constant) f32[5, 4]\n"
            "  %3 (constant) f32[5]\n"
            "  %4 (output 0) f32[2, 64, 5]\n"
            "  #0 MatMul transpose_b (%0[2, 64, 4], %2[5, 4], %3[5]) -> %4[2, 64, 5] "
            "post-ops [Eltwise Relu(alpha=0), Binary Add %1[2, 64, 5]] debug_id -1 'view'\n");
}

// Sequence-first linear ([L, 1, E], as MultiheadAttention projects): kept a
// 2-D matmul between the reshapes, not L batched GEMMs of one row each.
// A linear on [B..., M, K] with batch dimensions other than 1 stays a 2-D
// MatMul on the flattened rows: one row per batch (a sequence-first
// [L, 1, E] projection) and a channels-last image ([1, 2, 3, K], ConvNeXt's
// MLP) alike.
TEST(OneDnnLoweringTest, LinearWithBatchDimensionsStaysATwoDimensionalMatMul) {
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{6, 1, 4}, std::vector<int64_t>{1, 2, 3, 4}}) {
    GraphBuilder b;
    std::vector<aot::SymExpr> symbolic(sizes.begin(), sizes.end());
    Node* x = b.input("x", f32(symbolic));
    Node* flat = b.call("aten::view", {x, ints({6, 4})});
    Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({5, 4})), ints({1, 0})});
    Node* addmm = b.call("aten::addmm", {b.parameter("fc.bias", ramp({5}, 1)), flat, t});
    std::vector<int64_t> out = sizes;
    out.back() = 5;
    b.output({b.call("aten::relu", {b.call("aten::view", {addmm, ints(out)})})});
    const ExportedProgram program = std::move(b).build();
    testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
    const std::string text = printout(backend().preprocess(program, {}));
    EXPECT_THAT(text, HasSubstr("-> %1[6, 4]"));
    EXPECT_THAT(text, HasSubstr("MatMul transpose_b (%1[6, 4], %2[5, 4], %3[5]) -> %4[6, 5]"));
  }
}

// (The reduced dimensions are not the innermost: the reduction runs on the
// source permuted so that they are, fast_forms/reductions.cpp.)
TEST(OneDnnLoweringTest, AMeanWithoutKeepdimReducesThenReshapes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 3, 3}));
  b.output({b.call("aten::mean.dim", {x, ints({-1, 1})})});
  EXPECT_EQ(printout(backend().preprocess(std::move(b).build(), {})),
            "graph: 5 values (0 constants), 4 operations\n"
            "  %0 (input 0) f32[1, 4, 3, 3]\n"
            "  %1 (intermediate) f32[1, 1, 3, 1]\n"
            "  %2 (output 0) f32[1, 3]\n"
            "  %3 (intermediate) f32[1, 3, 4, 3]\n"
            "  %4 (intermediate) f32[1, 3, 1, 1]\n"
            "  #0 Reorder permutation=[0, 2, 1, 3] (%0[1, 4, 3, 3]) -> %3[1, 3, 4, 3] debug_id -1 'mean'\n"
            "  #1 Reduction Mean (%3[1, 3, 4, 3]) -> %4[1, 3, 1, 1] debug_id -1 'mean'\n"
            "  #2 Reorder reshape (%4[1, 3, 1, 1]) -> %1[1, 1, 3, 1] debug_id -1 'mean'\n"
            "  #3 Reorder reshape (%1[1, 1, 3, 1]) -> %2[1, 3] debug_id -1 'mean'\n");
}

// A mean over every spatial dimension is a global average pool: pooling
// reads the layout a convolution wrote, the reduction would reorder it.
TEST(OneDnnLoweringTest, AMeanOverTheSpatialDimensionsIsAGlobalAveragePool) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 3, 5}));
  b.output({b.call("aten::mean.dim", {x, ints({-1, -2})})});
  EXPECT_EQ(printout(backend().preprocess(std::move(b).build(), {})),
            "graph: 3 values (0 constants), 2 operations\n"
            "  %0 (input 0) f32[1, 4, 3, 5]\n"
            "  %1 (intermediate) f32[1, 4, 1, 1]\n"
            "  %2 (output 0) f32[1, 4]\n"
            "  #0 Pooling AvgExcludePadding kernel=[3, 5] strides=[3, 5] padding_l=[0, 0] padding_r=[0, 0] "
            "dilations=[1, 1] (%0[1, 4, 3, 5]) -> %1[1, 4, 1, 1] debug_id -1 'mean'\n"
            "  #1 Reorder reshape (%1[1, 4, 1, 1]) -> %2[1, 4] debug_id -1 'mean'\n");
}

// A classifier's mean over the image between grids of the same parameters
// (MNASNet's, PT2E-quantized): the int8 pool averages onto the grid and a
// reshape drops the kept dimensions, so the linear after it reads int8; a
// float32 pool would leave the quantize op's rounding out.
TEST(OneDnnLoweringTest, AnInt8MeanWithoutKeepdimStaysOnItsGrid) {
  GraphBuilder b;
  Node* xd = on_grid(b, b.input("x", f32({1, 8, 3, 5})), 0.02, 3);
  Node* pooled = on_grid(b, b.call("aten::mean.dim", {xd, ints({-1, -2})}), 0.02, 3);
  Node* t = b.call("aten::permute", {int8_weight(b, {6, 8}), ints({1, 0})});
  b.output({on_grid(b, b.call("aten::addmm", {b.parameter("fc.bias", ramp({6}, 1)), pooled, t}), 0.1, -5)});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const std::string text = printout(backend().preprocess(program, {}));
  EXPECT_THAT(text, HasSubstr("(%1[1, 8, 3, 5]) -> %2[1, 8, 1, 1] debug_id"));
  EXPECT_THAT(text, HasSubstr("%2 (intermediate) u8[1, 8, 1, 1] scale 0.02 zero point 131\n"));
  EXPECT_THAT(text, HasSubstr("Reorder reshape (%2[1, 8, 1, 1]) -> %3[1, 8]"));
  EXPECT_THAT(text, HasSubstr("%3 (intermediate) u8[1, 8] scale 0.02 zero point 131\n"));
  EXPECT_THAT(text, HasSubstr("MatMul transpose_b (%3[1, 8]"));
}

TEST(OneDnnLoweringTest, AReshapeToTheSameSizesIsNoOperation) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* same = b.call("aten::view", {b.call("aten::relu", {x}), ints({2, 3})});
  b.output({b.call("aten::sigmoid", {same})});
  EXPECT_EQ(printout(backend().preprocess(std::move(b).build(), {})),
            "graph: 3 values (0 constants), 2 operations\n"
            "  %0 (input 0) f32[2, 3]\n"
            "  %1 (intermediate) f32[2, 3]\n"
            "  %2 (output 0) f32[2, 3]\n"
            "  #0 EltwiseOp Relu(alpha=0) (%0[2, 3]) -> %1[2, 3] debug_id -1 'relu'\n"
            "  #1 EltwiseOp Logistic (%1[2, 3]) -> %2[2, 3] debug_id -1 'sigmoid'\n");
}

TEST(OneDnnLoweringTest, ChainsOfReshapesAndOfPermutesAreOneReorder) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* there = b.call("aten::permute", {x, ints({1, 2, 0})});
  Node* back = b.call("aten::permute", {there, ints({2, 0, 1})});
  Node* relu = b.call("aten::relu", {back});
  Node* flat = b.call("aten::view", {b.call("aten::view", {relu, ints({6, 4})}), ints({24})});
  Node* turned = b.call("aten::transpose.int", {b.call("aten::permute", {b.call("aten::sigmoid", {flat}), ints({0})}), 0, 0});
  Node* cube = b.call("aten::permute", {b.call("aten::permute", {b.call("aten::tanh", {relu}), ints({1, 2, 0})}), ints({1, 2, 0})});
  b.output({turned, cube});
  const ExportedProgram program = std::move(b).build();
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  EXPECT_EQ(printout(backend().preprocess(program, {})),
            "graph: 7 values (0 constants), 6 operations\n"
            "  %0 (input 0) f32[2, 3, 4]\n"
            "  %1 (intermediate) f32[2, 3, 4]\n"
            "  %2 (intermediate) f32[24]\n"
            "  %3 (intermediate) f32[24]\n"
            "  %4 (output 0) f32[24]\n"
            "  %5 (intermediate) f32[2, 3, 4]\n"
            "  %6 (output 1) f32[4, 2, 3]\n"
            "  #0 EltwiseOp Relu(alpha=0) (%0[2, 3, 4]) -> %1[2, 3, 4] debug_id -1 'relu'\n"
            "  #1 Reorder reshape (%1[2, 3, 4]) -> %2[24] debug_id -1 'view'\n"
            "  #2 EltwiseOp Logistic (%2[24]) -> %3[24] debug_id -1 'sigmoid'\n"
            "  #3 Reorder reshape (%3[24]) -> %4[24] debug_id -1 'permute_2'\n"
            "  #4 EltwiseOp Tanh (%1[2, 3, 4]) -> %5[2, 3, 4] debug_id -1 'tanh'\n"
            "  #5 Reorder permutation=[2, 0, 1] (%5[2, 3, 4]) -> %6[4, 2, 3] debug_id -1 'permute_3'\n");
}

TEST(OneDnnLoweringTest, CeilModePoolingPadsOnTheRight) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 6, 6}));
  Node* pool = b.call("aten::max_pool2d_with_indices", {x, ints({3, 3}), ints({2, 2}), ints({0, 0}), ints({1, 1}), true});
  b.output({b.getitem(pool, 0)});
  EXPECT_THAT(printout(backend().preprocess(std::move(b).build(), {})),
              HasSubstr("#0 Pooling Max kernel=[3, 3] strides=[2, 2] padding_l=[0, 0] padding_r=[1, 1] dilations=[1, 1] "
                        "(%0[1, 2, 6, 6]) -> %1[1, 2, 3, 3]"));
}

TEST(OneDnnLoweringTest, InputsAndOutputsAreNumberedAsTheCallPassesThem) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* y = b.input("y", f32({2, 3}));
  Node* sum = b.call("aten::add.Tensor", {y, x});
  b.output({b.call("aten::tanh", {x}), sum, x});
  EXPECT_EQ(printout(backend().preprocess(std::move(b).build(), {})),
            "graph: 5 values (0 constants), 3 operations\n"
            "  %0 (input 0) f32[2, 3]\n"
            "  %1 (input 1) f32[2, 3]\n"
            "  %2 (output 1) f32[2, 3]\n"
            "  %3 (output 0) f32[2, 3]\n"
            "  %4 (output 2) f32[2, 3]\n"
            "  #0 BinaryOp Add (%1[2, 3], %0[2, 3]) -> %2[2, 3] debug_id -1 'add'\n"
            "  #1 EltwiseOp Tanh (%0[2, 3]) -> %3[2, 3] debug_id -1 'tanh'\n"
            "  #2 Reorder reshape (%0[2, 3]) -> %4[2, 3] debug_id -1 'x'\n");
}

TEST(OneDnnLoweringTest, IdenticalWeightsAreStoredOnce) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 5, 5}));
  Node* first = conv2d(b, x, b.parameter("a.weight", ramp({4, 4, 1, 1})), None{});
  Node* second = conv2d(b, first, b.parameter("b.weight", ramp({4, 4, 1, 1})), None{});
  Node* third = conv2d(b, second, b.parameter("c.weight", ramp({4, 4, 1, 1}, 1)), None{});
  b.output({third});
  const aot::PreprocessResult result = backend().preprocess(std::move(b).build(), {});
  const auto graph = parse_onednn_blob(result.processed_bytes);
  ASSERT_EQ(graph->operations.size(), 3u);
  const auto key = [&](size_t op) { return graph->values[static_cast<size_t>(graph->operations[op]->inputs[1])]->constant_key; };
  EXPECT_EQ(key(0), key(1));
  EXPECT_NE(key(0), key(2));
  EXPECT_EQ(result.data_store_output.pte_data.size(), 2u);
  EXPECT_EQ(result.data_store_output.buffers.size(), 2u);
  for (const auto& [name, entry] : result.data_store_output.pte_data) {
    EXPECT_THAT(name, ::testing::StartsWith("onednn_w_"));
    EXPECT_EQ(entry.alignment, 64u);
  }
}

// A chain through most ops the partitioner takes: it is one delegate, and
// preprocess lowers every node of it.
TEST(OneDnnLoweringTest, ManyKindsOfOpsInOneDelegate) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 6, 6}));
  Node* bn = b.call("aten::_native_batch_norm_legit_no_training",
                    {x, None{}, None{}, b.input("mean", f32({4})), b.buffer("var", positive({4}, 1)), 0.1, 1e-5});
  Node* hs = b.call("aten::hardswish", {b.getitem(bn, 0)});
  Node* avg = b.call("aten::avg_pool2d", {hs, ints({2, 2}), ints({2, 2})});
  Node* up = b.call("aten::upsample_nearest2d.vec", {avg, None{}, aot::ArgumentList{2.0, 2.0}});
  Node* cat = b.call("aten::cat", {aot::ArgumentList{up, x}, 1});
  Node* pad = b.call("aten::constant_pad_nd", {cat, ints({1, 1, 1, 1})});
  Node* pool = b.call("aten::max_pool2d_with_indices", {pad, ints({2, 2})});
  Node* ln = b.call("aten::native_layer_norm", {b.getitem(pool, 0), ints({4}), None{}, None{}, 1e-5});
  Node* view = b.call("aten::view", {b.getitem(ln, 0), ints({1, 8, 16})});
  Node* sm = b.call("aten::_softmax", {view, -1, false});
  Node* t = b.call("aten::transpose.int", {sm, 1, 2});
  Node* scaled = b.call("aten::mul.Scalar", {b.call("aten::bmm", {sm, t}), 0.5});
  Node* mean = b.call("aten::mean.dim", {b.call("aten::sigmoid", {scaled}), ints({-1})});
  b.output({mean});
  ExportedProgram program = std::move(b).build();
  aot::generate_debug_handles(program);
  std::vector<aot::ToBackendReport> reports;
  const aot::CapabilityPartitioner partitioner("OneDnnBackend");
  const ExportedProgram lowered = aot::to_backend(program, {&partitioner}, &reports);
  for (const aot::UnsupportedNode& node : reports.at(0).unsupported) ADD_FAILURE() << node.node << ": " << node.reason;
  const auto delegates = aot::get_lowered_submodules(lowered);
  ASSERT_EQ(delegates.size(), 1u);
  const std::string text = describe_onednn_blob(delegates[0].module->processed_bytes());
  for (const char* op : {"#0 BatchNorm", "#1 EltwiseOp HardSwish", "#2 Pooling AvgIncludePadding", "#3 Resampling Nearest",
                         "#4 Concat axis=1", "#5 Pad before=[0, 0, 1, 1] after=[0, 0, 1, 1] value=0", "#6 Pooling Max",
                         "#7 LayerNorm epsilon=1e-05 normalized_dims=1", "#8 Reorder reshape", "#9 Softmax axis=2",
                         "#10 MatMul transpose_b (%12[1, 8, 16], %12[1, 8, 16], none) -> %13[1, 8, 8] "
                         "post-ops [Eltwise Linear(alpha=0.5, beta=0), Eltwise Logistic]",
                         "#11 Pooling AvgExcludePadding kernel=[8]", "#12 Reorder reshape"}) {
    EXPECT_THAT(text, HasSubstr(op));
  }
  EXPECT_THAT(text, ::testing::Not(HasSubstr("#13")));
  testing::expect_blob_computes_the_delegated_program(*delegates[0].module);
}

TEST(OneDnnLoweringTest, ANodeItCannotRunIsNamed) {
  GraphBuilder b;
  b.output({b.call("aten::tan", {b.input("x", f32({2}))})});
  aot::testing::expect_error([&] { backend().preprocess(std::move(b).build(), {}); },
                             "OneDnnBackend cannot run node 'tan' (aten::tan.default): aten::tan.default is not an op");
}

}  // namespace
}  // namespace kiln::backends::onednn
