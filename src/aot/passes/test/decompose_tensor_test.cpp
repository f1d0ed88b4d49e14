// Decompositions of padding, dtype conversions, chunk/split/stack, factories,
// pools, upsampling and the in-place activations, on small built graphs:
// the ops and arguments each becomes, numerics where the portable kernels
// exist, and errors naming the node and the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::call_with_meta;
using testing::decomposed;
using testing::expect_error;
using testing::text_of;
using testing::expect_decomposition_fails;
using testing::expect_values_near;
using testing::ops_without_kernels;
using testing::ramp;
using testing::run;

TensorMeta meta_of(ScalarType dtype, std::vector<int64_t> sizes) { return TensorMeta(dtype, sizes); }

TEST(DecomposePadTest, ConstantPaddingBecomesConstantPadNd) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  b.output({b.call("aten::pad", {x, ArgumentList{1, 2}}), b.call("aten::pad", {x, ArgumentList{0, 0, 1, 0}, "constant", -1.5})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("constant_pad_nd: \"f32[2, 6]\" = torch.ops.aten.constant_pad_nd.default(x, [1, 2], 0.0)"));
  EXPECT_THAT(text, HasSubstr("constant_pad_nd_1: \"f32[3, 3]\" = torch.ops.aten.constant_pad_nd.default(x, [0, 0, 1, 0], -1.5)"));
}

TEST(DecomposePadTest, ReflectAndReplicatePaddingBecomeTheirPadOps) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4}));
  b.output({b.call("aten::pad", {x, ArgumentList{2, 1}, "reflect"}),
            b.call("aten::pad", {x, ArgumentList{1, 1, 1, 0}, "replicate"})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.reflection_pad1d.default(x, [2, 1])"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.replication_pad2d.default(x, [1, 1, 1, 0])"));
  const auto outputs = run(program, {HostTensor::from_vector<float>({1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})});
  expect_values_near(outputs.at(0), {2, 1, 0, 1, 2, 3, 2, 6, 5, 4, 5, 6, 7, 6});
  expect_values_near(outputs.at(1), {0, 0, 1, 2, 3, 3, 0, 0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 7});
}

TEST(DecomposePadTest, CircularPaddingWrapsAround) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 4}));
  b.output({call_with_meta(b, "aten::pad", {x, ArgumentList{2, 1}, "circular"}, f32({1, 7}))});
  ExportedProgram program = decomposed(std::move(b));
  const auto outputs = run(program, {HostTensor::from_vector<float>({1, 4}, {0, 1, 2, 3})});
  expect_values_near(outputs.at(0), {2, 3, 0, 1, 2, 3, 0});
}

TEST(DecomposePadTest, OtherModesAndPadLengthsAreAnErrorNamingTheNode) {
  GraphBuilder other;
  Node* x = other.input("x", f32({2, 3}));
  other.output({call_with_meta(other, "aten::pad", {x, ArgumentList{1, 1}, "mirror"}, f32({2, 5}))});
  expect_decomposition_fails(std::move(other), "node 'pad' (aten::pad.default): padding mode 'mirror' does not decompose");
  GraphBuilder four_dims;
  Node* y = four_dims.input("y", f32({1, 2, 3, 4, 5}));
  four_dims.output({call_with_meta(four_dims, "aten::pad", {y, ArgumentList{1, 1, 1, 1, 1, 1, 1, 1}, "reflect"},
                                   f32({1, 4, 5, 6, 7}))});
  expect_decomposition_fails(std::move(four_dims), "reflect padding takes 2, 4 or 6 pad entries");
}

TEST(DecomposeConversionTest, ToDtypeCopiesOnlyWhenTheDtypeChangesOrACopyIsAsked) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* same = b.call("aten::to.dtype", {x, ScalarType::Float});
  b.output({b.call("aten::to.dtype", {x, ScalarType::Half}), b.call("aten::relu", {same}),
            b.call("aten::to.dtype", {x, ScalarType::Float, false, true})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("_to_copy: \"f16[2]\" = torch.ops.aten._to_copy.default(x, dtype = torch.float16)"));
  EXPECT_THAT(text, HasSubstr("relu: \"f32[2]\" = torch.ops.aten.relu.default(x)"));
  EXPECT_THAT(text, HasSubstr("_to_copy_1: \"f32[2]\" = torch.ops.aten._to_copy.default(x, dtype = torch.float32)"));
}

TEST(DecomposeConversionTest, TypeAsTakesTheOtherTensorsDtype) {
  GraphBuilder b;
  Node* flags = b.input("flags", meta_of(ScalarType::Bool, {3}));
  Node* x = b.input("x", f32({3}));
  Node* as_float = b.call("aten::type_as", {flags, x});
  b.output({b.call("aten::mul.Tensor", {as_float, b.call("aten::type_as", {x, x})})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("_to_copy: \"f32[3]\" = torch.ops.aten._to_copy.default(flags, dtype = torch.float32)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.mul.Tensor(_to_copy, x)"));
}

TEST(DecomposeSplitTest, ChunkAndSplitBecomeOneSplitWithSizesCopy) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 8}));
  Node* chunks = b.call("aten::chunk", {x, 3, -1});
  Node* parts = b.call("aten::split.Tensor", {x, 1, 0});
  b.output({b.getitem(chunks, 2), b.getitem(parts, 1)});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.split_with_sizes_copy.default(x, [3, 3, 2], 1)"));
  EXPECT_THAT(text, HasSubstr("getitem: \"f32[2, 2]\" = split_with_sizes_copy[2]"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.split_with_sizes_copy.default(x, [1, 1])"));
  EXPECT_THAT(text, HasSubstr("getitem_1: \"f32[1, 8]\" = split_with_sizes_copy_1[1]"));
}

TEST(DecomposeSplitTest, ChunkOfASymbolicDimIsAnError) {
  GraphBuilder b;
  Node* x = b.input("x", f32({SymExpr::symbol("s0"), 4}));
  Node* chunks = call_with_meta(b, "aten::chunk", {x, 2}, std::vector<TensorMeta>{f32({1, 4}), f32({1, 4})});
  Node* first = b.graph().call_function("getitem", {chunks, 0});
  first->meta.val = f32({1, 4});
  b.output({first});
  expect_decomposition_fails(std::move(b), "node 'chunk' (aten::chunk.default): cannot split dim 0 of f32[s0, 4]: its size is symbolic");
}

TEST(DecomposeStackTest, StackIsUnsqueezeAndCat) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* y = b.input("y", f32({2, 3}));
  b.output({b.call("aten::stack", {ArgumentList{x, y}, -1})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("unsqueeze: \"f32[2, 3, 1]\" = torch.ops.aten.unsqueeze.default(x, 2)"));
  EXPECT_THAT(text, HasSubstr("unsqueeze_1: \"f32[2, 3, 1]\" = torch.ops.aten.unsqueeze.default(y, 2)"));
  EXPECT_THAT(text, HasSubstr("cat: \"f32[2, 3, 2]\" = torch.ops.aten.cat.default([unsqueeze, unsqueeze_1], 2)"));
}

TEST(DecomposeFactoryTest, ZerosAndOnesLikeBecomeFullLikeAndRun) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  b.output({b.call("aten::zeros_like", {x}), b.call("aten::ones_like", {x}, {{"dtype", ScalarType::Long}})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("full_like: \"f32[2, 2]\" = torch.ops.aten.full_like.default(x, 0)"));
  EXPECT_THAT(text, HasSubstr("full_like_1: \"i64[2, 2]\" = torch.ops.aten.full_like.default(x, 1, dtype = torch.int64)"));
  const auto outputs = run(program, {ramp({2, 2})});
  expect_values_near(outputs.at(0), {0, 0, 0, 0});
  EXPECT_EQ(outputs.at(1).describe(), HostTensor::zeros(ScalarType::Long, {2, 2}).describe());
  expect_values_near(outputs.at(1), {1, 1, 1, 1});
}

TEST(DecomposeFactoryTest, ArangeVariantsBecomeStartStep) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0}));
  Node* n = b.call("aten::sym_size.int", {x, 0});
  b.output({b.call("aten::arange", {n}), b.call("aten::arange.start", {1, 9}, {{"dtype", ScalarType::Float}})});
  b.set_range("s0", {1, 8});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("\"i64[s0]\" = torch.ops.aten.arange.start_step(0, sym_size)"));
  EXPECT_THAT(text, HasSubstr("\"f32[8]\" = torch.ops.aten.arange.start_step(1, 9, dtype = torch.float32)"));
}

TEST(DecomposePoolTest, MaxPool1dRunsAsThe2dPoolOfOneRow) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 1, 7}));
  b.output({b.call("aten::max_pool1d", {x, ArgumentList{3}, ArgumentList{2}, ArgumentList{1}})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("unsqueeze: \"f32[1, 1, 1, 7]\" = torch.ops.aten.unsqueeze.default(x, -2)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.max_pool2d_with_indices.default(unsqueeze, [1, 3], [1, 2], [0, 1])"));
  EXPECT_THAT(text, HasSubstr("squeeze: \"f32[1, 1, 4]\" = torch.ops.aten.squeeze.dims(getitem, [-2])"));
  // Windows over [-1, 1], [1, 3], [3, 5], [5, 7]; the padding never wins.
  const HostTensor input = HostTensor::from_vector<float>({1, 1, 7}, {3, -1, 4, 1, -5, 9, 2});
  expect_values_near(run(program, {input}).at(0), {3, 4, 9, 9});
}

TEST(DecomposePoolTest, AvgPool1dKeepsItsModes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4, 9}));
  b.output({b.call("aten::avg_pool1d", {x, ArgumentList{3}, ArgumentList{}, ArgumentList{1}, true, false})});
  EXPECT_THAT(text_of(std::move(b)), HasSubstr("avg_pool2d: \"f32[2, 4, 1, 4]\" = torch.ops.aten.avg_pool2d.default(unsqueeze, "
                                               "[1, 3], [1, 3], [0, 1], True, False)"));
}

TEST(DecomposePoolTest, AdaptiveAvgPool1dToOneIsAMeanAndRuns) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3}));
  b.output({b.call("aten::adaptive_avg_pool1d", {x, ArgumentList{1}}), b.call("aten::adaptive_avg_pool1d", {x, ArgumentList{2}})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("mean: \"f32[1, 2, 1, 1]\" = torch.ops.aten.mean.dim(unsqueeze, [-1, -2], True)"));
  EXPECT_THAT(text, HasSubstr("_adaptive_avg_pool2d: \"f32[1, 2, 1, 2]\" = torch.ops.aten._adaptive_avg_pool2d.default("
                              "unsqueeze_1, [1, 2])"));
  GraphBuilder b2;
  Node* y = b2.input("y", f32({1, 2, 3}));
  b2.output({b2.call("aten::adaptive_avg_pool1d", {y, ArgumentList{1}})});
  ExportedProgram mean_only = decomposed(std::move(b2));
  const HostTensor input = HostTensor::from_vector<float>({1, 2, 3}, {1, 2, 6, -3, 0, 6});
  expect_values_near(run(mean_only, {input}).at(0), {3, 1});
}

TEST(DecomposeUpsampleTest, DefaultOverloadsBecomeVec) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4, 5}));
  b.output({b.call("aten::upsample_nearest2d", {x, ArgumentList{8, 10}}),
            b.call("aten::upsample_nearest2d", {x, ArgumentList{8, 10}, 2.0, 2.0}),
            b.call("aten::upsample_bilinear2d", {x, ArgumentList{9, 10}, true, 3.0, 2.0})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("\"f32[1, 2, 8, 10]\" = torch.ops.aten.upsample_nearest2d.vec(x, [8, 10], None)"));
  EXPECT_THAT(text, HasSubstr("\"f32[1, 2, 8, 10]\" = torch.ops.aten.upsample_nearest2d.vec(x, None, [2.0, 2.0])"));
  // align_corners maps corners to corners whatever the scales.
  EXPECT_THAT(text, HasSubstr("\"f32[1, 2, 9, 10]\" = torch.ops.aten.upsample_bilinear2d.vec(x, [9, 10], True, None)"));
}

TEST(DecomposeUpsampleTest, ScalesThatDoNotGiveTheSizeAreAnError) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4, 5}));
  b.output({b.call("aten::upsample_bilinear2d", {x, ArgumentList{9, 10}, false, 3.0, 2.0})});
  expect_decomposition_fails(std::move(b), "node 'upsample_bilinear2d' (aten::upsample_bilinear2d.default): scales 3.0, 2.0 "
                                           "do not give output_size [9, 10]");
}

struct InPlaceCase {
  std::string op;
  ArgumentList extra;  // arguments after self
  std::string call;    // the functional call expected, on `mul`
};

void PrintTo(const InPlaceCase& c, std::ostream* out) { *out << c.op; }

class DecomposeInPlaceTest : public ::testing::TestWithParam<InPlaceCase> {};

// x * 2 is mutated in place, then used: the later use reads the functional value.
TEST_P(DecomposeInPlaceTest, BecomesItsFunctionalOp) {
  const InPlaceCase& c = GetParam();
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* other = b.input("other", f32({2, 3}));
  Node* mask = b.input("mask", meta_of(ScalarType::Bool, {3}));
  Node* temp = b.call("aten::mul.Tensor", {x, 2});
  ArgumentList args = {temp};
  for (const Argument& arg : c.extra) {
    const bool is_other = arg.is_string() && arg.to_string() == "other", is_mask = arg.is_string() && arg.to_string() == "mask";
    args.push_back(is_other ? Argument(other) : is_mask ? Argument(mask) : arg);
  }
  b.call(c.op, args);
  b.output({b.call("aten::relu", {temp})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr(c.call)) << text;
  EXPECT_THAT(text, Not(HasSubstr("_.")));
  EXPECT_EQ(program.graph_signature().output_specs.size(), 1u);
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    Activations, DecomposeInPlaceTest,
    ::testing::Values(
        InPlaceCase{"aten::hardtanh_", {-0.5, 0.5}, "torch.ops.aten.hardtanh.default(mul, -0.5, 0.5)"},
        InPlaceCase{"aten::silu_", {}, "torch.ops.aten.sigmoid.default(mul)"},
        InPlaceCase{"aten::hardswish_", {}, "torch.ops.aten.add.Tensor(mul, 3)"},
        InPlaceCase{"aten::hardsigmoid_", {}, "torch.ops.aten.add.Tensor(mul, 3)"},
        InPlaceCase{"aten::leaky_relu_", {0.2}, "torch.ops.aten.leaky_relu.default(mul, 0.2)"},
        InPlaceCase{"aten::elu_", {0.7}, "torch.ops.aten.elu.default(mul, 0.7)"},
        InPlaceCase{"aten::sigmoid_", {}, "torch.ops.aten.sigmoid.default(mul)"},
        InPlaceCase{"aten::tanh_", {}, "torch.ops.aten.tanh.default(mul)"},
        InPlaceCase{"aten::clamp_", {None{}, 0.3}, "torch.ops.aten.clamp.default(mul, None, 0.3)"},
        InPlaceCase{"aten::sub_.Tensor", {"other"}, "torch.ops.aten.sub.Tensor(mul, other)"},
        InPlaceCase{"aten::div_.Tensor", {"other"}, "torch.ops.aten.div.Tensor(mul, other)"},
        InPlaceCase{"aten::masked_fill_.Scalar", {"mask", -1.0}, "torch.ops.aten.masked_fill.Scalar(mul, mask, -1.0)"}),
    [](const auto& info) {
      std::string name = info.param.op.substr(6);
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(DecomposeInPlaceTest, SubWithAlphaOnAUserInputRunsAndMutatesIt) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* y = b.input("y", f32({3}));
  b.call("aten::sub_.Tensor", {x, y}, {{"alpha", 2}});
  Node* quotient = b.call("aten::div_.Tensor", {x, y});
  b.output({b.call("aten::add.Tensor", {quotient, 1})});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), HasSubstr("sub: \"f32[3]\" = torch.ops.aten.sub.Tensor(x, y, alpha = 2)"));
  EXPECT_THAT(program.to_string(), HasSubstr("div: \"f32[3]\" = torch.ops.aten.div.Tensor(sub, y)"));
  HostTensor xv = HostTensor::from_vector<float>({3}, {10, 20, 30});
  const HostTensor yv = HostTensor::from_vector<float>({3}, {1, 2, 4});
  // x = (x - 2 y) / y = [8, 8, 5.5]; the output adds 1.
  const auto outputs = run(program, {xv, yv});
  expect_values_near(outputs.at(0), {9, 9, 6.5});
  expect_values_near(xv, {8, 8, 5.5});
}

TEST(DecomposeInPlaceTest, AWiderResultIsCastBackAndAFloatIntoIntsIsAnError) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* wide = b.input("wide", meta_of(ScalarType::Double, {3}));
  b.call("aten::add_.Tensor", {x, wide});
  b.output({b.call("aten::relu", {x})});
  const std::string text = text_of(std::move(b));
  EXPECT_THAT(text, HasSubstr("add: \"f64[3]\" = torch.ops.aten.add.Tensor(x, wide)"));
  EXPECT_THAT(text, HasSubstr("_to_copy: \"f32[3]\" = torch.ops.aten._to_copy.default(add, dtype = torch.float32)"));

  GraphBuilder b2;
  Node* counts = b2.input("counts", meta_of(ScalarType::Long, {3}));
  Node* by = b2.input("by", meta_of(ScalarType::Long, {3}));
  // (infer_meta refuses this call too; a .pt2 brings its own meta.)
  b2.output({call_with_meta(b2, "aten::div_.Tensor", {counts, by}, meta_of(ScalarType::Long, {3}))});
  expect_decomposition_fails(std::move(b2), "node 'div_' (aten::div_.Tensor): the result type Float cannot be written into self i64[3]");
}

// Core ops that decompose into ones with kernels: fill, mean over every dim,
// var with unbiased.
TEST(DecomposeReductionTest, FillMeanAndVarDimBecomeOpsWithKernels) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* filled = call_with_meta(b, "aten::fill.Scalar", {x, 2.5}, f32({2, 3}));
  Node* mean = call_with_meta(b, "aten::mean", {x}, f32({}));
  Node* var = call_with_meta(b, "aten::var.dim", {x, ArgumentList{1}, true, true}, f32({2, 1}));
  Node* biased = call_with_meta(b, "aten::var.dim", {x, ArgumentList{0}, false, false}, f32({3}));
  b.output({filled, mean, var, biased});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  const auto outputs = run(program, {HostTensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5})});
  expect_values_near(outputs.at(0), {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
  expect_values_near(outputs.at(1), {2.5});
  expect_values_near(outputs.at(2), {1, 1});
  expect_values_near(outputs.at(3), {2.25, 2.25, 2.25});
}

// Swin Transformer's shifted windows (training IR): roll over two dims and
// new_zeros for the attention mask.
TEST(DecomposeShapeTest, RollAndNewZerosBecomeSlicesCatAndFull) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* rolled = call_with_meta(b, "aten::roll", {x, ArgumentList{1, -1}, ArgumentList{0, 1}}, f32({2, 3}));
  Node* flat = call_with_meta(b, "aten::roll", {x, ArgumentList{2}, ArgumentList{}}, f32({2, 3}));
  Node* zeros = call_with_meta(b, "aten::new_zeros", {x, ArgumentList{3}}, f32({3}));
  b.output({rolled, flat, zeros});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  const auto outputs = run(program, {HostTensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5})});
  expect_values_near(outputs.at(0), {4, 5, 3, 1, 2, 0});  // torch.roll(x, (1, -1), (0, 1))
  expect_values_near(outputs.at(1), {4, 5, 0, 1, 2, 3});  // torch.roll(x, 2)
  expect_values_near(outputs.at(2), {0, 0, 0});
}

}  // namespace
}  // namespace kiln::aot
