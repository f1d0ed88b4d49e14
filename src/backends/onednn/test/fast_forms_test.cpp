// The lowering's fast forms (aot/fast_forms.h) on small programs: what each
// rule writes, as describe_onednn_blob prints it, that every operation it
// writes keeps the replaced one's debug id (so a profile maps it to the
// node), that the blob still computes the program (read back as ATen on the
// reference interpreter), and forms the rules leave alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/debug_handle.h"
#include "aot/ir/testing/aot_testing.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/test/blob_reference.h"
#include "backends/onednn/test/onednn_test_util.h"

namespace kiln::backends::onednn {
namespace {

namespace fb = ::kiln::onednn;
using aot::ExportedProgram;
using aot::f32;
using aot::GraphBuilder;
using aot::Node;
using testing::backend;
using testing::conv2d;
using testing::ints;
using testing::ramp;
using ::testing::HasSubstr;
using ::testing::Not;

struct Lowered {
  std::string printout;
  std::string debug_handle_map;
  std::set<int32_t> debug_ids;  ///< of every operation
  size_t named_data = 0;        ///< entries
};

// `program` with debug handles, preprocessed; its blob also checked against
// the program on the reference interpreter.
Lowered lower(ExportedProgram program) {
  aot::generate_debug_handles(program);
  testing::expect_blob_computes_the_delegated_program(aot::to_backend("OneDnnBackend", program, {}));
  const aot::PreprocessResult result = backend().preprocess(program, {});
  Lowered lowered{testing::describe_unpacked(result.processed_bytes), aot::to_string(result.debug_handle_map), {},
                  result.data_store_output.pte_data.size()};
  const std::unique_ptr<fb::GraphT> graph = parse_onednn_blob(result.processed_bytes);
  for (const auto& op : graph->operations) lowered.debug_ids.insert(op->debug_id);
  return lowered;
}

ExportedProgram transposed_convolution(int64_t kernel, int64_t stride, int64_t padding) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 3, 5}));
  Node* up = conv2d(b, x, b.parameter("up.weight", ramp({4, 3, kernel, kernel})), b.parameter("up.bias", ramp({3}, 2)),
                    stride, padding, 1, 1, /*transposed=*/true);
  b.output({b.call("aten::relu", {up})});
  return std::move(b).build();
}

TEST(FastFormsTest, ATransposedConvolutionWhoseStrideIsItsKernelIsAMatmulAndADepthToSpace) {
  const Lowered lowered = lower(transposed_convolution(2, 2, 0));
  EXPECT_EQ(lowered.printout,
            "graph: 9 values (2 constants), 6 operations\n"
            "  %0 (input 0) f32[1, 4, 3, 5]\n"
            "  %1 (output 0) f32[1, 3, 6, 10]\n"
            "  %2 (intermediate) f32[1, 3, 5, 4]\n"
            "  %3 (intermediate) f32[15, 4]\n"
            "  %4 (constant) f32[12]\n"
            "  %5 (intermediate) f32[15, 12]\n"
            "  %6 (constant) f32[4, 12]\n"
            "  %7 (intermediate) f32[1, 3, 5, 3, 2, 2]\n"
            "  %8 (intermediate) f32[1, 3, 3, 2, 5, 2]\n"
            "  #0 Reorder permutation=[0, 2, 3, 1] (%0[1, 4, 3, 5]) -> %2[1, 3, 5, 4] debug_id 0 'convolution'\n"
            "  #1 Reorder reshape (%2[1, 3, 5, 4]) -> %3[15, 4] debug_id 0 'convolution'\n"
            "  #2 MatMul (%3[15, 4], %6[4, 12], %4[12]) -> %5[15, 12] post-ops [Eltwise Relu(alpha=0)] debug_id 0 "
            "'convolution'\n"
            "  #3 Reorder reshape (%5[15, 12]) -> %7[1, 3, 5, 3, 2, 2] debug_id 0 'convolution'\n"
            "  #4 Reorder permutation=[0, 3, 1, 4, 2, 5] (%7[1, 3, 5, 3, 2, 2]) -> %8[1, 3, 3, 2, 5, 2] debug_id 0 "
            "'convolution'\n"
            "  #5 Reorder reshape (%8[1, 3, 3, 2, 5, 2]) -> %1[1, 3, 6, 10] debug_id 0 'convolution'\n");
  EXPECT_EQ(lowered.debug_handle_map, "{0: (1, 2)}");  // the convolution and the relu
  // The weights under their own key, read as [4, 12]; the bias repeated; not the bias as it was.
  EXPECT_EQ(lowered.named_data, 2u);
}

TEST(FastFormsTest, ATransposedConvolutionWhoseKernelsOverlapStaysOne) {
  for (const auto& [kernel, stride, padding] : {std::tuple{3, 2, 0}, std::tuple{2, 2, 1}, std::tuple{2, 1, 0}}) {
    const Lowered lowered = lower(transposed_convolution(kernel, stride, padding));
    EXPECT_THAT(lowered.printout, HasSubstr("Convolution strides"));
    EXPECT_THAT(lowered.printout, Not(HasSubstr("MatMul")));
  }
}

// A squeeze-excitation block on an image of `pixels` x `pixels`: the mean,
// two 1x1 convolutions to a gate, the input times the gate.
ExportedProgram squeeze_excitation(int64_t pixels) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 16, pixels, pixels}));
  Node* pooled = b.call("aten::mean.dim", {x, ints({2, 3}), true});
  Node* squeezed = b.call("aten::relu", {conv2d(b, pooled, b.parameter("fc1.weight", ramp({4, 16, 1, 1})),
                                                b.parameter("fc1.bias", ramp({4}, 2)), 1, 0, 1, 1)});
  Node* gate = b.call("aten::sigmoid", {conv2d(b, squeezed, b.parameter("fc2.weight", ramp({16, 4, 1, 1}, 3)),
                                               b.parameter("fc2.bias", ramp({16}, 4)), 1, 0, 1, 1)});
  b.output({b.call("aten::mul.Tensor", {x, gate})});
  return std::move(b).build();
}

TEST(FastFormsTest, AOnePixelConvolutionWithABinaryPostOpIsAMatmul) {
  // On one pixel the product with the input is the second convolution's
  // post-op; that convolution is a matmul, reading its weights transposed.
  const Lowered lowered = lower(squeeze_excitation(1));
  EXPECT_THAT(lowered.printout, HasSubstr("MatMul transpose_b"));
  EXPECT_THAT(lowered.printout, HasSubstr("Eltwise Logistic"));
  EXPECT_THAT(lowered.printout, HasSubstr("Binary Mul"));
  EXPECT_THAT(lowered.printout, HasSubstr("Convolution"));  // the first: no binary post-op
}

TEST(FastFormsTest, APointwiseConvolutionOverMorePixelsStaysOne) {
  const Lowered lowered = lower(squeeze_excitation(3));
  EXPECT_THAT(lowered.printout, Not(HasSubstr("MatMul")));
}

TEST(FastFormsTest, AChannelMeanReducesTheSourcePermutedChannelsLast) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 8, 3, 5}));
  b.output({b.call("aten::mean.dim", {x, ints({1}), true})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("#0 Reorder permutation=[0, 2, 3, 1] (%0[2, 8, 3, 5]) -> %2[2, 3, 5, 8]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#1 Reduction Mean (%2[2, 3, 5, 8]) -> %3[2, 3, 5, 1]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#2 Reorder reshape (%3[2, 3, 5, 1]) -> %1[2, 1, 3, 5]"));
  EXPECT_EQ(lowered.debug_ids, std::set<int32_t>{0});
}

TEST(FastFormsTest, AReductionOverTheInnermostDimensionsStaysOne) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 8, 3, 5}));
  b.output({b.call("aten::sum.dim_IntList", {x, ints({3}), true})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("1 operations"));
  EXPECT_THAT(lowered.printout, HasSubstr("#0 Reduction Sum (%0[2, 8, 3, 5])"));
}

TEST(FastFormsTest, ASoftmaxOverChannelsRunsOverTheInnermostDimensionAndIsPermutedBack) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 6, 3, 5}));
  b.output({b.call("aten::_softmax", {x, 1, false})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("#0 Reorder permutation=[0, 2, 3, 1] (%0[2, 6, 3, 5]) -> %2[2, 3, 5, 6]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#1 Softmax axis=3 (%2[2, 3, 5, 6]) -> %3[2, 3, 5, 6]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#2 Reorder permutation=[0, 3, 1, 2] (%3[2, 3, 5, 6]) -> %1[2, 6, 3, 5]"));
  EXPECT_EQ(lowered.debug_ids, std::set<int32_t>{0});
}

TEST(FastFormsTest, AFullSizedBiasIsAddedAsAPostOp) {
  GraphBuilder b;
  Node* y = b.call("aten::addmm", {b.input("bias", f32({3, 5})), b.input("a", f32({3, 7})), b.input("b", f32({7, 5}))});
  b.output({b.call("aten::relu", {y})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("MatMul (%1[3, 7], %2[7, 5], none) -> %3[3, 5] post-ops [Binary Add %0[3, 5], Eltwise Relu"));
}

TEST(FastFormsTest, AMaskBroadcastOverTheBatchIsAddedAfterTheMatmul) {
  GraphBuilder b;
  Node* scores = b.call("aten::bmm", {b.input("q", f32({2, 5, 8})), b.input("k", f32({2, 8, 7}))});
  Node* masked = b.call("aten::add.Tensor", {scores, b.input("mask", f32({5, 7}))});
  b.output({b.call("aten::mul.Scalar", {masked, 0.5})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("#0 MatMul (%0[2, 5, 8], %1[2, 8, 7], none) -> %4[2, 5, 7] debug_id 0"));
  EXPECT_THAT(lowered.printout,
              HasSubstr("#1 BinaryOp Add (%4[2, 5, 7], %2[5, 7]) -> %3[2, 5, 7] post-ops [Eltwise Linear"));
  EXPECT_EQ(lowered.debug_ids, std::set<int32_t>{0});
}

TEST(FastFormsTest, RowsPerChannelBroadcastOverTheRowsRunWithTheRowsFirst) {
  GraphBuilder b;
  b.output({b.call("aten::mul.Tensor", {b.input("x", f32({2, 4, 5, 7})), b.input("scale", f32({1, 4, 1, 7}))})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("#0 Reorder permutation=[0, 2, 1, 3] (%0[2, 4, 5, 7]) -> %3[2, 5, 4, 7]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#1 Reorder reshape (%1[1, 4, 1, 7]) -> %4[1, 1, 4, 7]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#2 BinaryOp Mul (%3[2, 5, 4, 7], %4[1, 1, 4, 7]) -> %5[2, 5, 4, 7]"));
  EXPECT_THAT(lowered.printout, HasSubstr("#3 Reorder permutation=[0, 2, 1, 3] (%5[2, 5, 4, 7]) -> %2[2, 4, 5, 7]"));
  EXPECT_EQ(lowered.debug_ids, std::set<int32_t>{0});
}

// One number per batch, a column, columns per channel: broadcasts the JIT
// kernels do not take, each one channel of views of merged dimensions
// (nothing moves); rows per channel and per batch, which no views make one,
// with the broadcast dimensions moved first (above).
TEST(FastFormsTest, BroadcastsOfMergedDimensionsRunOnViews) {
  const std::vector<std::pair<std::vector<int64_t>, std::string>> cases = {
      {{2, 1, 1, 1}, "BinaryOp Mul (%3[1, 2, 140], %4[1, 2, 1]) -> %5[1, 2, 140]"},
      {{1, 1, 5, 1}, "BinaryOp Mul (%3[8, 5, 7], %4[1, 5, 1]) -> %5[8, 5, 7]"},
      {{1, 4, 5, 1}, "BinaryOp Mul (%3[2, 20, 7], %4[1, 20, 1]) -> %5[2, 20, 7]"},
      {{2, 1, 5, 1}, "BinaryOp Mul (%3[4, 7, 2, 5], %4[1, 1, 2, 5])"},  // four runs: moved, not viewed
  };
  for (const auto& [second, expected] : cases) {
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 4, 5, 7}));
    b.output({b.call("aten::mul.Tensor", {x, b.input("y", f32(std::vector<aot::SymExpr>(second.begin(), second.end())))})});
    const Lowered lowered = lower(std::move(b).build());
    EXPECT_THAT(lowered.printout, HasSubstr(expected)) << lowered.printout;
    EXPECT_EQ(lowered.debug_ids, std::set<int32_t>{0});
  }
}

// A product broadcast as rows under the heads, plus a full-sized tensor
// (GPT-J's rotary embedding): the product on views, the sum, a post-op
// that form does not take, after it.
TEST(FastFormsTest, ABinaryOpInAnotherFormTakesItsBinaryPostOpsAfterIt) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 6, 4, 8}));
  Node* scaled = b.call("aten::mul.Tensor", {x, b.input("cos", f32({1, 6, 1, 8}))});
  b.output({b.call("aten::add.Tensor", {scaled, b.input("rotated", f32({1, 6, 4, 8}))})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("BinaryOp Mul (%5[6, 4, 8], %6[6, 1, 8]) -> %7[6, 4, 8]"));
  EXPECT_THAT(lowered.printout, HasSubstr("BinaryOp Add (%4[1, 6, 4, 8], %2[1, 6, 4, 8])"));
  EXPECT_THAT(lowered.printout, Not(HasSubstr("Binary Add")));
}

// A U-Net's last convolution times a mask [N, 1, H, W]: as its post-op the
// whole convolution ran on oneDNN's reference kernel; the product runs
// after it, a binary operation of its own.
TEST(FastFormsTest, AConvolutionsPostOpBroadcastOverChannelsRunsAfterIt) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4, 5, 7}));
  Node* y = conv2d(b, x, b.parameter("w", ramp({3, 4, 1, 1})), b.parameter("b", ramp({3}, 2)), 1, 0, 1, 1);
  Node* gated = b.call("aten::sigmoid", {y});
  b.output({b.call("aten::mul.Tensor", {gated, b.input("mask", f32({2, 1, 5, 7}))})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("post-ops [Eltwise Logistic]"));
  EXPECT_THAT(lowered.printout, HasSubstr("BinaryOp Mul"));
  EXPECT_THAT(lowered.printout, Not(HasSubstr("Binary Mul")));
}

// A mean over a sequence of one token reduces nothing: oneDNN's reduction
// refuses such a one (its source and result sizes must differ).
TEST(FastFormsTest, AReductionOverDimensionsOfSizeOneIsItsSourceReshaped) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 1, 6}));
  b.output({b.call("aten::mean.dim", {b.call("aten::relu", {x}), ints({1})})});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, Not(HasSubstr("Reduction")));
  EXPECT_THAT(lowered.printout, HasSubstr("Reorder reshape"));
}

// TensorFlow's "same" padding, as ported models write it: a zero pad of one
// row and column after, then a strided convolution without padding. The
// convolution pads unequally itself, and maps to the pad's node too.
TEST(FastFormsTest, AZeroPaddingOfAnImageIsTheConvolutionsOwn) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 3, 8, 6}));
  Node* padded = b.call("aten::constant_pad_nd", {x, ints({0, 1, 0, 1})});
  b.output({conv2d(b, padded, b.parameter("w", ramp({4, 3, 3, 3})), b.parameter("b", ramp({4}, 2)), 2, 0, 1, 1)});
  const Lowered lowered = lower(std::move(b).build());
  EXPECT_THAT(lowered.printout, HasSubstr("1 operations"));
  EXPECT_THAT(lowered.printout, Not(HasSubstr("Pad")));
  EXPECT_THAT(lowered.printout, HasSubstr("padding_l=[0, 0] padding_r=[1, 1]"));
  // The convolution's debug id maps to both nodes' handles (1: the pad, 2: the convolution).
  ASSERT_EQ(lowered.debug_ids.size(), 1u);
  EXPECT_THAT(lowered.debug_handle_map, HasSubstr(std::to_string(*lowered.debug_ids.begin()) + ": (1, 2)"));
}

// A pad another op also reads, or one of a non-zero value, stays.
TEST(FastFormsTest, APaddingReadElsewhereOrNotZeroStays) {
  for (const double value : {0.0, 1.0}) {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 3, 8, 6}));
    Node* padded = b.call("aten::constant_pad_nd", {x, ints({0, 1, 0, 1}), value});
    Node* y = conv2d(b, padded, b.parameter("w", ramp({4, 3, 3, 3})), b.parameter("b", ramp({4}, 2)), 2, 0, 1, 1);
    if (value == 0.0) {
      b.output({y, b.call("aten::relu", {padded})});
    } else {
      b.output({y});
    }
    const Lowered lowered = lower(std::move(b).build());
    EXPECT_THAT(lowered.printout, HasSubstr("Pad")) << value;
  }
}

TEST(FastFormsTest, BroadcastsTheKernelsTakeStayOneOperation) {
  for (const std::vector<int64_t>& second : {std::vector<int64_t>{2, 1, 1, 7}, {1, 1, 5, 7}, {4, 1, 1}, {7}}) {
    GraphBuilder b;
    b.output({b.call("aten::add.Tensor", {b.input("x", f32({2, 4, 5, 7})), b.input("y", f32(std::vector<aot::SymExpr>(second.begin(), second.end())))})});
    const Lowered lowered = lower(std::move(b).build());
    EXPECT_THAT(lowered.printout, HasSubstr("1 operations")) << lowered.printout;
  }
}

}  // namespace
}  // namespace kiln::backends::onednn
