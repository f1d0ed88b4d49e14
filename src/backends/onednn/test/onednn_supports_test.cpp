// OneDnnBackend's partitioner decisions, op by op: what it accepts, and what
// it refuses with which reason (the text `kiln lower --explain` prints).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/ir/testing/aot_testing.h"
#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/test/onednn_test_util.h"

namespace kiln::backends::onednn {
namespace {

using aot::f32;
using aot::GraphBuilder;
using aot::Node;
using aot::None;
using testing::backend;
using testing::conv2d;
using testing::ints;
using testing::ramp;
using ::testing::HasSubstr;

// Builds `b` returning `output` (default `node`) and asks OneDnnBackend about `node`.
aot::NodeSupport ask(GraphBuilder& b, Node* node, Node* output = nullptr) {
  b.output({output != nullptr ? output : node});
  const aot::ExportedProgram program = std::move(b).build();
  return backend().supports(*node, program);
}

#define EXPECT_ACCEPTED(support)                         \
  do {                                                   \
    const aot::NodeSupport s_ = (support);               \
    EXPECT_TRUE(s_.supported) << "refused: " << s_.reason; \
  } while (0)

#define EXPECT_REFUSED(support, text)           \
  do {                                          \
    const aot::NodeSupport s_ = (support);      \
    EXPECT_FALSE(s_.supported);                 \
    EXPECT_THAT(s_.reason, HasSubstr(text));    \
  } while (0)

TEST(OneDnnSupportsTest, TheBackendIsRegisteredWhenLinked) {
  ASSERT_NE(aot::find_backend(kBackendId), nullptr);
  EXPECT_EQ(aot::find_backend(kBackendId)->id(), "OneDnnBackend");
  EXPECT_THAT(backend().supported_ops(), ::testing::Contains("aten::convolution.default"));
}

struct ConvCase {
  const char* name;
  std::vector<int64_t> weight;
  int64_t stride, padding, dilation, groups;
  bool transposed;
  int64_t output_padding;
};

TEST(OneDnnSupportsTest, AcceptsEveryKindOfConvolution) {
  const std::vector<ConvCase> cases = {
      {"regular", {8, 4, 3, 3}, 1, 1, 1, 1, false, 0},   {"strided", {8, 4, 3, 3}, 2, 1, 1, 1, false, 0},
      {"depthwise", {4, 1, 3, 3}, 1, 1, 1, 4, false, 0}, {"pointwise", {8, 4, 1, 1}, 1, 0, 1, 1, false, 0},
      {"dilated", {8, 4, 3, 3}, 1, 2, 2, 1, false, 0},   {"grouped", {8, 2, 3, 3}, 1, 1, 1, 2, false, 0},
      {"transposed", {4, 8, 3, 3}, 2, 1, 1, 1, true, 1}, {"transposed grouped", {4, 2, 2, 2}, 2, 0, 1, 2, true, 0},
  };
  for (const ConvCase& c : cases) {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 4, 8, 8}));
    Node* w = b.parameter("w", ramp(c.weight));
    Node* y = conv2d(b, x, w, None{}, c.stride, c.padding, c.dilation, c.groups, c.transposed, c.output_padding);
    SCOPED_TRACE(c.name);
    EXPECT_ACCEPTED(ask(b, y));
  }
}

TEST(OneDnnSupportsTest, RefusesATransposedConvolutionWhoseOutputPaddingExceedsItsPadding) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4, 8, 8}));
  Node* y = conv2d(b, x, b.parameter("w", ramp({4, 8, 3, 3})), None{}, 2, 0, 1, 1, true, 1);
  EXPECT_REFUSED(ask(b, y), "output_padding [1, 1] exceeds padding [0, 0]");
}

TEST(OneDnnSupportsTest, RefusesParametersOneDnnDoesNotComputeAsPyTorch) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 5, 6}));
  Node* image = b.input("image", f32({1, 2, 7, 7}));
  Node* gelu = b.call("aten::gelu", {x}, {{"approximate", "fast"}});
  Node* pool3d = b.call("aten::avg_pool2d", {x, ints({2, 2})});
  Node* padded_pool = b.call("aten::max_pool2d_with_indices", {image, ints({2, 2}), ints({2, 2}), ints({1, 1})});
  Node* overlapping_pool = b.call("aten::max_pool2d_with_indices", {image, ints({2, 2}), ints({1, 1}), ints({0, 0}), ints({1, 1})});
  b.output({gelu, pool3d, b.getitem(padded_pool, 0), b.getitem(overlapping_pool, 0)});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_REFUSED(backend().supports(*gelu, program), "approximate='fast' is neither 'none' nor 'tanh'");
  EXPECT_REFUSED(backend().supports(*pool3d, program), "OneDnnBackend pools batched images (rank 4)");
  EXPECT_ACCEPTED(backend().supports(*padded_pool, program));
  EXPECT_ACCEPTED(backend().supports(*overlapping_pool, program));
}

TEST(OneDnnSupportsTest, RaisesToTwoThreeAndAHalfOnly) {
  for (const double exponent : {2.0, 3.0, 0.5}) {
    GraphBuilder b;
    SCOPED_TRACE(exponent);
    EXPECT_ACCEPTED(ask(b, b.call("aten::pow.Tensor_Scalar", {b.input("x", f32({2, 3})), exponent})));
  }
  GraphBuilder b;
  EXPECT_REFUSED(ask(b, b.call("aten::pow.Tensor_Scalar", {b.input("x", f32({2, 3})), 2.5})),
                 "x ** 2.5 (OneDnnBackend raises to 2, 3 and 0.5 only)");
}

TEST(OneDnnSupportsTest, RefusesOtherDtypesAndUnknownOps) {
  GraphBuilder b;
  Node* x = b.input("x", aot::i64({2, 3}));
  Node* y = b.call("aten::abs", {x});
  EXPECT_REFUSED(ask(b, y), "runs float32 only");
  GraphBuilder c;
  Node* t = c.call("aten::tan", {c.input("x", f32({2, 3}))});
  EXPECT_REFUSED(ask(c, t), "aten::tan.default is not an op OneDnnBackend has");
}

TEST(OneDnnSupportsTest, RefusesSymbolicSizes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({aot::SymExpr::symbol("s0"), 3}));
  b.set_range("s0", {1, 8});
  Node* y = b.call("aten::relu", {x});
  EXPECT_REFUSED(ask(b, y), "needs static sizes");
}

// What the runtime cannot build (capabilities.h) is refused here, not at load.
TEST(OneDnnSupportsTest, RefusesMoreDimensionsThanTheRuntimeBuilds) {
  GraphBuilder b;
  Node* y = b.call("aten::relu", {b.input("x", f32(std::vector<aot::SymExpr>(kMaxRank + 1, aot::SymExpr(1))))});
  EXPECT_REFUSED(ask(b, y), "at most 12 dimensions");
  GraphBuilder c;
  Node* z = c.call("aten::relu", {c.input("x", f32(std::vector<aot::SymExpr>(kMaxRank, aot::SymExpr(1))))});
  EXPECT_ACCEPTED(ask(c, z));
}

TEST(OneDnnSupportsTest, MatmulsAcceptBiasAddedAsIs) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4}));
  Node* w = b.parameter("w", ramp({4, 3}));
  Node* bias = b.parameter("bias", ramp({3}));
  Node* plain = b.call("aten::addmm", {bias, x, w});
  Node* scaled = b.call("aten::addmm", {bias, x, w}, {{"beta", 2.0}});
  Node* mm = b.call("aten::mm", {x, w});
  Node* bmm = b.call("aten::bmm", {b.input("p", f32({2, 3, 4})), b.input("q", f32({2, 4, 5}))});
  b.output({plain, scaled, mm, bmm});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*plain, program));
  EXPECT_REFUSED(backend().supports(*scaled, program), "beta=2.0, alpha=1");
  EXPECT_ACCEPTED(backend().supports(*mm, program));
  EXPECT_ACCEPTED(backend().supports(*bmm, program));
}

TEST(OneDnnSupportsTest, NormsAndSoftmaxWhenOnlyTheirFirstResultIsUsed) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4, 3, 3}));
  Node* bn = b.call("aten::_native_batch_norm_legit_no_training",
                    {x, b.parameter("g", ramp({4})), b.parameter("beta", ramp({4})), b.buffer("mean", ramp({4})),
                     b.buffer("var", testing::ramp({4}, 3)), 0.1, 1e-5});
  Node* ln = b.call("aten::native_layer_norm", {x, ints({3, 3}), None{}, None{}, 1e-5});
  Node* ln_mean = b.getitem(ln, 1);
  Node* sm = b.call("aten::_softmax", {x, -1, false});
  Node* lsm = b.call("aten::_log_softmax", {x, 1, false});
  b.output({b.getitem(bn, 0), b.getitem(ln, 0), ln_mean, sm, lsm});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*bn, program));
  EXPECT_REFUSED(backend().supports(*ln, program), "uses a result other than its first");
  EXPECT_ACCEPTED(backend().supports(*sm, program));
  EXPECT_ACCEPTED(backend().supports(*lsm, program));
}

TEST(OneDnnSupportsTest, EveryActivation) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 5}));
  std::vector<Node*> accepted = {
      b.call("aten::relu", {x}),      b.call("aten::clamp", {x, 0.0, 6.0}),  b.call("aten::clamp", {x, None{}, 1.0}),
      b.call("aten::hardtanh", {x}),  b.call("aten::hardswish", {x}),        b.call("aten::hardsigmoid", {x}),
      b.call("aten::sigmoid", {x}),   b.call("aten::silu", {x}),             b.call("aten::gelu", {x}),
      b.call("aten::gelu", {x}, {{"approximate", "tanh"}}),                  b.call("aten::elu", {x, 0.5}),
      b.call("aten::leaky_relu", {x, 0.2}),                                  b.call("aten::tanh", {x}),
  };
  Node* scaled_elu = b.call("aten::elu", {x, 1.0, 2.0});
  accepted.push_back(scaled_elu);
  b.output(accepted);
  const aot::ExportedProgram program = std::move(b).build();
  for (size_t i = 0; i + 1 < accepted.size(); ++i) {
    SCOPED_TRACE(accepted[i]->format());
    EXPECT_ACCEPTED(backend().supports(*accepted[i], program));
  }
  EXPECT_REFUSED(backend().supports(*scaled_elu, program), "oneDNN's elu has neither");
}

TEST(OneDnnSupportsTest, ArithmeticBroadcastsTheSecondOperandOnly) {
  GraphBuilder b;
  Node* big = b.input("big", f32({2, 3, 4}));
  Node* row = b.input("row", f32({4}));
  Node* add = b.call("aten::add.Tensor", {big, row});
  Node* swapped = b.call("aten::add.Tensor", {row, big});
  Node* sub = b.call("aten::sub.Tensor", {row, big});
  Node* mul = b.call("aten::mul.Tensor", {big, big});
  Node* div = b.call("aten::div.Tensor", {big, row});
  Node* alpha = b.call("aten::add.Tensor", {big, row}, {{"alpha", 2}});
  Node* scalar = b.call("aten::mul.Scalar", {big, 3.0});
  b.output({add, swapped, sub, mul, div, alpha, scalar});
  const aot::ExportedProgram program = std::move(b).build();
  for (Node* ok : {add, swapped, mul, div, scalar}) EXPECT_ACCEPTED(backend().supports(*ok, program));
  EXPECT_REFUSED(backend().supports(*sub, program), "oneDNN broadcasts its second operand only");
  EXPECT_REFUSED(backend().supports(*alpha, program), "alpha=2 with a tensor");
}

TEST(OneDnnSupportsTest, MaxPoolingOnlyWhenItsIndicesAreUnused) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 7, 7}));
  Node* pooled = b.call("aten::max_pool2d_with_indices", {x, ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), true});
  Node* both = b.call("aten::max_pool2d_with_indices", {x, ints({2, 2})});
  b.output({b.getitem(pooled, 0), b.getitem(both, 0), b.getitem(both, 1)});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*pooled, program));
  EXPECT_REFUSED(backend().supports(*both, program), "uses a result other than its first");
}

TEST(OneDnnSupportsTest, AveragePooling) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 7, 7}));
  Node* avg = b.call("aten::avg_pool2d", {x, ints({3, 3}), ints({2, 2}), ints({1, 1})});
  Node* ceil = b.call("aten::avg_pool2d", {x, ints({2, 2}), ints({2, 2}), ints({0, 0}), true, true});
  Node* ceil_excluding = b.call("aten::avg_pool2d", {x, ints({2, 2}), ints({2, 2}), ints({0, 0}), true, false});
  Node* divisor = b.call("aten::avg_pool2d", {x, ints({2, 2}), ints({2, 2}), ints({0, 0}), false, true, 3});
  Node* global = b.call("aten::_adaptive_avg_pool2d", {x, ints({1, 1})});
  Node* uneven = b.call("aten::_adaptive_avg_pool2d", {x, ints({3, 3})});
  Node* mean = b.call("aten::mean.dim", {x, ints({-1, -2}), true});
  b.output({avg, ceil, ceil_excluding, divisor, global, uneven, mean});
  const aot::ExportedProgram program = std::move(b).build();
  for (Node* ok : {avg, ceil_excluding, global, mean}) EXPECT_ACCEPTED(backend().supports(*ok, program));
  EXPECT_REFUSED(backend().supports(*ceil, program), "ceil_mode with count_include_pad");
  EXPECT_REFUSED(backend().supports(*divisor, program), "divisor_override=3");
  EXPECT_REFUSED(backend().supports(*uneven, program), "output size [3, 3] does not divide input size [7, 7]");
}

TEST(OneDnnSupportsTest, Resampling) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3, 3}));
  Node* nearest = b.call("aten::upsample_nearest2d.vec", {x, None{}, aot::ArgumentList{2.0, 2.0}});
  Node* bilinear = b.call("aten::upsample_bilinear2d.vec", {x, ints({5, 5}), false, None{}});
  Node* corners = b.call("aten::upsample_bilinear2d.vec", {x, ints({6, 6}), true, None{}});
  Node* odd = b.call("aten::upsample_nearest2d.vec", {x, ints({5, 5}), None{}});
  b.output({nearest, bilinear, corners, odd});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*nearest, program));
  EXPECT_ACCEPTED(backend().supports(*bilinear, program));
  EXPECT_REFUSED(backend().supports(*corners, program), "align_corners=True");
  EXPECT_REFUSED(backend().supports(*odd, program), "is not by a whole factor");
}

TEST(OneDnnSupportsTest, ConcatAndConstantPad) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3, 3}));
  Node* y = b.input("y", f32({1, 4, 3, 3}));
  Node* cat = b.call("aten::cat", {aot::ArgumentList{x, y}, 1});
  Node* pad = b.call("aten::constant_pad_nd", {x, ints({1, 2, 0, 1}), 0.5});
  Node* crop = b.call("aten::constant_pad_nd", {x, ints({-1, 0})});
  b.output({cat, pad, crop});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*cat, program));
  EXPECT_ACCEPTED(backend().supports(*pad, program));
  EXPECT_REFUSED(backend().supports(*crop, program), "crops (negative padding)");
}

TEST(OneDnnSupportsTest, SliceWithStepOneAndSelectAreCrops) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 4, 5}));
  Node* slice = b.call("aten::slice.Tensor", {x, 2, 1, -1});
  Node* strided = b.call("aten::slice.Tensor", {x, 2, 0, 5, 2});
  Node* select = b.call("aten::select.int", {x, 0, -1});
  b.output({slice, strided, select});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*slice, program));
  EXPECT_ACCEPTED(backend().supports(*select, program));
  EXPECT_REFUSED(backend().supports(*strided, program), "step 2; OneDnnBackend slices with step 1 only");
}

TEST(OneDnnSupportsTest, LayoutOpsOnlyNextToAComputeOp) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* view = b.call("aten::view", {x, ints({6, 4})});
  Node* relu = b.call("aten::relu", {view});
  Node* lone = b.call("aten::permute", {x, ints({2, 0, 1})});
  Node* repeat = b.call("aten::expand", {b.input("s", f32({1, 4})), ints({3, 4})});
  Node* used = b.call("aten::relu", {repeat});
  b.output({relu, lone, used});
  const aot::ExportedProgram program = std::move(b).build();
  EXPECT_ACCEPTED(backend().supports(*view, program));
  EXPECT_REFUSED(backend().supports(*lone, program), "a layout op with no oneDNN compute op next to it");
  EXPECT_REFUSED(backend().supports(*repeat, program), "it repeats elements (4 to 12)");
}

}  // namespace
}  // namespace kiln::backends::onednn
