// Meta inference rules against what PyTorch 2.15 gives (checked with meta
// tensors and torch.export): result dtypes, sizes (symbolic too) and the
// errors for calls torch rejects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using testing::expect_error;

constexpr ScalarType kBool = ScalarType::Bool, kU8 = ScalarType::Byte, kI32 = ScalarType::Int, kI64 = ScalarType::Long,
                     kF16 = ScalarType::Half, kF32 = ScalarType::Float, kF64 = ScalarType::Double;

class InferMetaRulesTest : public ::testing::Test {
 protected:
  Node* input(ScalarType dtype, std::vector<SymExpr> sizes) {
    return b.input("t" + std::to_string(inputs_++), TensorMeta(dtype, std::move(sizes)));
  }
  /// The inferred meta of a call, as "f32[2, 3]", "(f32[2], i64[2])" or "Sym(s0)".
  std::string meta(const std::string& op, ArgumentList args, KwargList kwargs = {}) {
    return to_string(b.call(op, std::move(args), std::move(kwargs))->meta.val);
  }
  void expect_fails(const std::string& op, ArgumentList args, const std::string& message, KwargList kwargs = {}) {
    expect_error([&] { b.call(op, args, kwargs); }, message);
  }

  GraphBuilder b;
  int inputs_ = 0;
  const SymExpr s0 = SymExpr::symbol("s0");
};

TEST_F(InferMetaRulesTest, UnaryOpsKeepOrFloatTheDtype) {
  EXPECT_EQ(meta("aten::sin", {input(kI32, {2, 3})}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::sigmoid", {input(kBool, {2})}), "f32[2]");
  EXPECT_EQ(meta("aten::exp", {input(kF16, {2})}), "f16[2]");
  EXPECT_EQ(meta("aten::abs", {input(kBool, {2})}), "b8[2]");
  EXPECT_EQ(meta("aten::relu", {input(kI32, {s0, 2})}), "i32[s0, 2]");
  EXPECT_EQ(meta("aten::logical_not", {input(kF32, {4})}), "b8[4]");
  EXPECT_EQ(meta("aten::hardtanh", {input(kI32, {4}), 0.5, 2.5}), "i32[4]");
  EXPECT_EQ(meta("aten::leaky_relu", {input(kI32, {4}), 1}), "i32[4]");
  expect_fails("aten::neg", {input(kBool, {2})}, "negation does not take a bool tensor");
  expect_fails("aten::leaky_relu", {input(kI32, {2}), 0.2}, "a float negative_slope cannot apply to a Int tensor");
  expect_fails("aten::elu", {input(kI64, {2})}, "expects a floating-point tensor, got Long");
  expect_fails("aten::bitwise_not", {input(kF32, {2})}, "bitwise_not takes an integer or bool tensor");
}

TEST_F(InferMetaRulesTest, ClampPromotesWithItsBounds) {
  EXPECT_EQ(meta("aten::clamp", {input(kI32, {2}), 0.5}), "f32[2]");
  EXPECT_EQ(meta("aten::clamp", {input(kBool, {2}), 1}), "i64[2]");
  EXPECT_EQ(meta("aten::clamp", {input(kI32, {2}), 1}), "i32[2]");
  EXPECT_EQ(meta("aten::clamp", {input(kF16, {2}), None{}, 1.5}), "f16[2]");
  EXPECT_EQ(meta("aten::clamp.Tensor", {input(kI32, {2, 1}), None{}, input(kF32, {3})}), "f32[2, 3]");
  expect_fails("aten::clamp", {input(kF32, {2})}, "at least one of min and max must be given");
}

TEST_F(InferMetaRulesTest, BinaryOpsFollowResultType) {
  EXPECT_EQ(meta("aten::add.Tensor", {input(kI32, {2, 3}), input(kF32, {})}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::add.Tensor", {input(kF16, {2, 3}), input(kF32, {})}), "f16[2, 3]");
  EXPECT_EQ(meta("aten::add.Tensor", {input(kI32, {2, 3}), input(kI64, {})}), "i32[2, 3]");
  EXPECT_EQ(meta("aten::add.Tensor", {input(kF32, {}), input(kF64, {})}), "f64[]");
  // The kernels' rule too (runtime/core/result_type.h): the float's width, made complex.
  EXPECT_EQ(meta("aten::mul.Tensor", {input(kF32, {2, 3}), input(ScalarType::ComplexDouble, {})}), "c64[2, 3]");
  EXPECT_EQ(meta("aten::mul.Tensor", {input(kU8, {2}), input(kI32, {2})}), "i32[2]");
  EXPECT_EQ(meta("aten::mul.Tensor", {input(kF16, {2}), input(ScalarType::BFloat16, {2})}), "f32[2]");
  EXPECT_EQ(meta("aten::add.Scalar", {input(kBool, {2}), 2}), "i64[2]");
  EXPECT_EQ(meta("aten::mul.Scalar", {input(kI32, {2}), 2.5}), "f32[2]");
  EXPECT_EQ(meta("aten::sub.Scalar", {input(kF16, {2}), 2}), "f16[2]");
  EXPECT_EQ(meta("aten::div.Tensor", {input(kI32, {2}), input(kI64, {2})}), "f32[2]");
  EXPECT_EQ(meta("aten::div.Scalar", {input(kBool, {2}), true}), "f32[2]");
  EXPECT_EQ(meta("aten::div.Tensor_mode", {input(kI32, {2}), input(kI32, {2})}, {{"rounding_mode", "trunc"}}), "i32[2]");
  EXPECT_EQ(meta("aten::div.Scalar_mode", {input(kBool, {2}), 2}, {{"rounding_mode", "floor"}}), "i64[2]");
  EXPECT_EQ(meta("aten::pow.Tensor_Tensor", {input(kBool, {2}), input(kBool, {2})}), "i64[2]");
  EXPECT_EQ(meta("aten::pow.Tensor_Scalar", {input(kI32, {2}), 2.5}), "f32[2]");
  EXPECT_EQ(meta("aten::pow.Scalar", {2.5, input(kI32, {2})}), "f32[2]");
  EXPECT_EQ(meta("aten::maximum", {input(kI32, {4, 1}), input(kF16, {3})}), "f16[4, 3]");
  EXPECT_EQ(meta("aten::bitwise_and.Tensor", {input(kBool, {2}), input(kI32, {2})}), "i32[2]");
  expect_fails("aten::bitwise_or.Tensor", {input(kF32, {2}), input(kF32, {2})}, "bitwise ops take integer or bool tensors");
  expect_fails("aten::add.Tensor", {input(kI32, {2}), input(kI32, {2})}, "alpha 0.5 is a float, but the result is Int",
               {{"alpha", 0.5}});
  expect_fails("aten::div.Tensor_mode", {input(kF32, {2}), input(kF32, {2})}, "rounding_mode must be None, 'trunc' or 'floor'",
               {{"rounding_mode", "up"}});
}

TEST_F(InferMetaRulesTest, SymbolicSizesBroadcast) {
  EXPECT_EQ(meta("aten::add.Tensor", {input(kF32, {s0, 1}), input(kF32, {1, 4})}), "f32[s0, 4]");
  EXPECT_EQ(meta("aten::mul.Tensor", {input(kF32, {s0}), input(kF32, {s0})}), "f32[s0]");
  // A symbol meeting a constant other than 1 is that constant (torch guards it).
  EXPECT_EQ(meta("aten::sub.Tensor", {input(kF32, {s0}), input(kF32, {5})}), "f32[5]");
}

TEST_F(InferMetaRulesTest, ComparisonsLogicalWhereAndMaskedFill) {
  EXPECT_EQ(meta("aten::lt.Tensor", {input(kI32, {2, 1}), input(kF32, {3})}), "b8[2, 3]");
  EXPECT_EQ(meta("aten::ge.Scalar", {input(kF16, {2}), 2.5}), "b8[2]");
  EXPECT_EQ(meta("aten::logical_xor", {input(kF32, {2}), input(kI32, {2})}), "b8[2]");
  EXPECT_EQ(meta("aten::where.self", {input(kBool, {2, 1}), input(kF16, {3}), input(kF32, {})}), "f16[2, 3]");
  EXPECT_EQ(meta("aten::where.self", {input(kBool, {2}), input(kI32, {2}), input(kF32, {})}), "f32[2]");
  EXPECT_EQ(meta("aten::where.self", {input(kBool, {2}), input(kF32, {2}), 0.0}), "f32[2]");
  EXPECT_EQ(meta("aten::masked_fill.Scalar", {input(kI32, {2, 3}), input(kBool, {4, 2, 3}), 2.5}), "i32[4, 2, 3]");
  expect_fails("aten::where.self", {input(kU8, {2}), input(kF32, {2}), input(kF32, {2})}, "condition must be a bool tensor");
  expect_fails("aten::masked_fill.Scalar", {input(kF32, {2}), input(kI64, {2}), 1.0}, "mask must be a bool tensor");
}

TEST_F(InferMetaRulesTest, SumMeanAndVarReduceTheirDims) {
  EXPECT_EQ(meta("aten::sum.dim_IntList", {input(kI32, {2, 3, 4}), ArgumentList{1}}), "i64[2, 4]");
  EXPECT_EQ(meta("aten::sum.dim_IntList", {input(kF16, {2, 3, 4}), ArgumentList{-1}, true}), "f16[2, 3, 1]");
  EXPECT_EQ(meta("aten::sum.dim_IntList", {input(kF32, {2, 3, 4}), ArgumentList{}}), "f32[]");
  EXPECT_EQ(meta("aten::sum.dim_IntList", {input(kBool, {2, 3}), None{}}), "i64[]");
  EXPECT_EQ(meta("aten::sum.dim_IntList", {input(kI32, {2, 3}), ArgumentList{0}}, {{"dtype", kF64}}), "f64[3]");
  EXPECT_EQ(meta("aten::sum", {input(kU8, {2, 3})}), "i64[]");
  EXPECT_EQ(meta("aten::mean.dim", {input(kF32, {s0, 3, 4}), ArgumentList{-1, -2}, true}), "f32[s0, 1, 1]");
  EXPECT_EQ(meta("aten::mean.dim", {input(kI32, {2, 3}), ArgumentList{1}}, {{"dtype", kF64}}), "f64[2]");
  EXPECT_EQ(meta("aten::var.correction", {input(kF32, {2, 3, 4}), ArgumentList{0, 2}}, {{"keepdim", true}}), "f32[1, 3, 1]");
  EXPECT_EQ(meta("aten::var.correction", {input(kF32, {2, 3})}), "f32[]");
  expect_fails("aten::mean.dim", {input(kI32, {2}), ArgumentList{0}}, "mean of a Int tensor needs a floating dtype argument");
  expect_fails("aten::sum.dim_IntList", {input(kF32, {2, 3}), ArgumentList{1, -1}}, "dim -1 appears more than once");
  expect_fails("aten::sum.dim_IntList", {input(kF32, {2, 3}), ArgumentList{2}}, "dim 2 is out of range for a tensor of rank 2");
}

TEST_F(InferMetaRulesTest, LogicalAndArgReductions) {
  EXPECT_EQ(meta("aten::any.dim", {input(kI32, {2, 3, 4}), 1}), "b8[2, 4]");
  EXPECT_EQ(meta("aten::any", {input(kU8, {2, 3})}), "u8[]");
  EXPECT_EQ(meta("aten::all.dim", {input(kF32, {2, 3, 4}), -1, true}), "b8[2, 3, 1]");
  // An empty dim list reduces nothing for any.dims (everything for sum).
  EXPECT_EQ(meta("aten::any.dims", {input(kF32, {2, 3, 4}), ArgumentList{}}), "b8[2, 3, 4]");
  EXPECT_EQ(meta("aten::all.dims", {input(kF32, {2, 3, 4}), None{}}), "b8[]");
  EXPECT_EQ(meta("aten::argmax", {input(kF16, {2, 3, 4})}), "i64[]");
  EXPECT_EQ(meta("aten::argmax", {input(kF32, {2, 3, 4}), None{}, true}), "i64[1, 1, 1]");
  EXPECT_EQ(meta("aten::argmin", {input(kI32, {2, 3, 4}), 1, true}), "i64[2, 1, 4]");
  EXPECT_EQ(meta("aten::amax", {input(kBool, {2, 3, 4}), ArgumentList{1, 2}, true}), "b8[2, 1, 1]");
  EXPECT_EQ(meta("aten::amin", {input(kI32, {2, 3})}), "i32[]");
  expect_fails("aten::amax", {input(kF32, {0, 3}), ArgumentList{0}}, "amax cannot reduce dim 0 of size 0");
}

TEST_F(InferMetaRulesTest, ProdCumsumAndValueIndexPairs) {
  EXPECT_EQ(meta("aten::prod", {input(kBool, {2, 3})}), "i64[]");
  EXPECT_EQ(meta("aten::prod", {input(kI32, {2, 3})}, {{"dtype", kF32}}), "f32[]");
  EXPECT_EQ(meta("aten::prod.dim_int", {input(kF16, {2, 3, 4}), 1, true}), "f16[2, 1, 4]");
  EXPECT_EQ(meta("aten::cumsum", {input(kU8, {2, 3}), 1}), "i64[2, 3]");
  EXPECT_EQ(meta("aten::cumsum", {input(kI32, {2, 3}), 1}, {{"dtype", kF16}}), "f16[2, 3]");
  EXPECT_EQ(meta("aten::max.dim", {input(kI32, {2, 3, 4}), 1}), "(i32[2, 4], i64[2, 4])");
  EXPECT_EQ(meta("aten::min.dim", {input(kF32, {2, 3, 4}), -1, true}), "(f32[2, 3, 1], i64[2, 3, 1])");
  EXPECT_EQ(meta("aten::topk", {input(kF32, {2, 3, 4}), 2}), "(f32[2, 3, 2], i64[2, 3, 2])");
  EXPECT_EQ(meta("aten::topk", {input(kF32, {}), 1}), "(f32[], i64[])");
  EXPECT_EQ(meta("aten::sort", {input(kU8, {2, 3}), 0, true}), "(u8[2, 3], i64[2, 3])");
  expect_fails("aten::topk", {input(kF32, {2, 3}), 4}, "k 4 is out of range for f32[2, 3]");
}

TEST_F(InferMetaRulesTest, ViewsAndTheirCopies) {
  Node* x = input(kF32, {2, 3, 4});
  EXPECT_EQ(meta("aten::view", {x, ArgumentList{-1, 4}}), "f32[6, 4]");
  EXPECT_EQ(meta("aten::expand_copy", {input(kF32, {3, 1}), ArgumentList{2, -1, 4}}), "f32[2, 3, 4]");
  EXPECT_EQ(meta("aten::transpose_copy.int", {x, 0, -1}), "f32[4, 3, 2]");
  EXPECT_EQ(meta("aten::select.int", {x, 1, -1}), "f32[2, 4]");
  EXPECT_EQ(meta("aten::squeeze.dims", {input(kF32, {2, 1, 3, 1}), ArgumentList{1, -1, 0}}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::unsqueeze_copy", {x, -1}), "f32[2, 3, 4, 1]");
  EXPECT_EQ(meta("aten::unsqueeze", {x, 0}), "f32[1, 2, 3, 4]");
  EXPECT_EQ(meta("aten::alias_copy", {x}), "f32[2, 3, 4]");
  EXPECT_EQ(meta("aten::flatten.using_ints", {x, 1}), "f32[2, 12]");
  EXPECT_EQ(meta("aten::unflatten.int", {x, -1, ArgumentList{2, -1}}), "f32[2, 3, 2, 2]");
  expect_fails("aten::expand", {input(kF32, {3, 2}), ArgumentList{3, 4}}, "cannot expand f32[3, 2] to [3, 4]: dim 1 has size 2");
  expect_fails("aten::select_copy.int", {x, 0, 2}, "index 2 is out of range for dim 0 of f32[2, 3, 4]");
}

TEST_F(InferMetaRulesTest, DiagonalAndFlip) {
  Node* x = input(kF32, {2, 3, 4});
  EXPECT_EQ(meta("aten::diagonal", {x}), "f32[4, 2]");
  EXPECT_EQ(meta("aten::diagonal_copy", {x, 1, -1, 1}), "f32[2, 2]");
  EXPECT_EQ(meta("aten::diagonal_copy", {x, -2, 1, 2}), "f32[2, 1]");
  EXPECT_EQ(meta("aten::diagonal", {x, 5, 1, 2}), "f32[2, 0]");
  EXPECT_EQ(meta("aten::flip", {x, ArgumentList{0, -1}}), "f32[2, 3, 4]");
  expect_fails("aten::diagonal", {x, 0, 1, -2}, "dim1 and dim2 both name dim 1");
  expect_fails("aten::flip", {x, ArgumentList{2, -1}}, "appears more than once");
}

TEST_F(InferMetaRulesTest, SliceFollowsPythonSlicing) {
  Node* x = input(kF32, {2, 3, 4});
  EXPECT_EQ(meta("aten::slice_copy.Tensor", {x, 2, 1, None{}, 2}), "f32[2, 3, 2]");
  EXPECT_EQ(meta("aten::slice_copy.Tensor", {x, 2, -3, -1}), "f32[2, 3, 2]");
  EXPECT_EQ(meta("aten::slice_copy.Tensor", {x, 2, -10, 100}), "f32[2, 3, 4]");
  EXPECT_EQ(meta("aten::slice_copy.Tensor", {x, 2, 3, 1}), "f32[2, 3, 0]");
  EXPECT_EQ(meta("aten::slice.Tensor", {x, 2, 0, 4, 3}), "f32[2, 3, 2]");
  // Symbolic sizes as torch.export records them for x[:, 1:], x[:, -2:], x[:, 1:-1:2].
  Node* y = input(kF32, {2, s0});
  EXPECT_EQ(meta("aten::slice.Tensor", {y, 1, 1, int64_t{9223372036854775807}}), "f32[2, s0 - 1]");
  EXPECT_EQ(meta("aten::slice.Tensor", {y, 1, -2, int64_t{9223372036854775807}}), "f32[2, 2]");
  EXPECT_EQ(meta("aten::slice.Tensor", {y, 1, 1, -1, 2}), "f32[2, ((s0 - 1)//2)]");
  // Without s0's range, an end that may pass the size stays clamped.
  EXPECT_EQ(meta("aten::slice.Tensor", {y, 1, 0, 3}), "f32[2, Min(3, s0)]");
  expect_fails("aten::slice.Tensor", {x, 0, 0, 1, 0}, "step must be a positive int");
}

TEST_F(InferMetaRulesTest, CatSplitStackPadAndRepeat) {
  EXPECT_EQ(meta("aten::cat", {ArgumentList{input(kI32, {2, 3}), input(kF16, {2, 3})}, 0}), "f16[4, 3]");
  EXPECT_EQ(meta("aten::cat", {ArgumentList{input(kF32, {2, 3, 4}), input(kF32, {2, 3, 1})}, -1}), "f32[2, 3, 5]");
  // A 1-D empty tensor is skipped (PyTorch's legacy rule).
  EXPECT_EQ(meta("aten::cat", {ArgumentList{input(kF32, {2, 3}), input(kF32, {0})}, 0}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::cat", {ArgumentList{input(kF32, {s0, 3}), input(kF32, {2, 3})}, 0}), "f32[s0 + 2, 3]");
  EXPECT_EQ(meta("aten::split_with_sizes_copy", {input(kF32, {2, 4}), ArgumentList{1, 3}, -1}), "(f32[2, 1], f32[2, 3])");
  EXPECT_EQ(meta("aten::chunk", {input(kF32, {2, 8}), 3, -1}), "(f32[2, 3], f32[2, 3], f32[2, 2])");
  EXPECT_EQ(meta("aten::split.Tensor", {input(kF32, {2, 8}), 3, 1}), "(f32[2, 3], f32[2, 3], f32[2, 2])");
  EXPECT_EQ(meta("aten::stack", {ArgumentList{input(kF32, {2, 3}), input(kF32, {2, 3})}, -1}), "f32[2, 3, 2]");
  EXPECT_EQ(meta("aten::constant_pad_nd", {input(kF32, {2, 3, 4}), ArgumentList{1, 2, -1, 0}}), "f32[2, 2, 7]");
  EXPECT_EQ(meta("aten::constant_pad_nd", {input(kF32, {s0, 3}), ArgumentList{0, 0, 1, 1}}), "f32[s0 + 2, 3]");
  EXPECT_EQ(meta("aten::repeat", {input(kF32, {2, 3, 4}), ArgumentList{2, 1, 1, 3}}), "f32[2, 2, 3, 12]");
  expect_fails("aten::cat", {ArgumentList{input(kF32, {2, 3, 4}), input(kF32, {2, 2, 1})}, -1}, "differ in dim 1");
  expect_fails("aten::split_with_sizes_copy", {input(kF32, {2, 4}), ArgumentList{1, 2}, 1}, "split sizes [1, 2] add up to 3");
  expect_fails("aten::constant_pad_nd", {input(kF32, {2, 3}), ArgumentList{1}}, "must have an even length");
  expect_fails("aten::constant_pad_nd", {input(kF32, {2, 3}), ArgumentList{-3, -2}}, "with a negative size");
  expect_fails("aten::repeat", {input(kF32, {2, 3, 4}), ArgumentList{2, 3}}, "fewer entries than f32[2, 3, 4] has dims");
  EXPECT_EQ(meta("aten::reflection_pad2d", {input(kF32, {2, 3, 4}), ArgumentList{1, 2, -1, 0}}), "f32[2, 2, 7]");
  EXPECT_EQ(meta("aten::replication_pad3d", {input(kF32, {s0, 3, 1, 2, 2}), ArgumentList{0, 1, 2, 0, 3, 3}}),
            "f32[s0, 3, 7, 4, 3]");
  expect_fails("aten::reflection_pad1d", {input(kF32, {2, 3}), ArgumentList{3, 0}}, "must be smaller than the padded dims");
  expect_fails("aten::replication_pad1d", {input(kF32, {3}), ArgumentList{1, 1}}, "expects a 2-D or 3-D input");
  expect_fails("aten::replication_pad2d", {input(kF32, {2, 3, 4}), ArgumentList{1, 1}}, "must have 4 entries");
}

TEST_F(InferMetaRulesTest, IndexOps) {
  Node* x = input(kF32, {2, 3, 4});
  EXPECT_EQ(meta("aten::index.Tensor", {x, ArgumentList{None{}, input(kI64, {5})}}), "f32[2, 5, 4]");
  // Indices apart from each other put the broadcast index shape first.
  EXPECT_EQ(meta("aten::index.Tensor", {x, ArgumentList{input(kI64, {5, 1}), None{}, input(kI64, {6})}}), "f32[5, 6, 3]");
  EXPECT_EQ(meta("aten::index.Tensor", {x, ArgumentList{input(kI64, {5, 1}), input(kI32, {6})}}), "f32[5, 6, 4]");
  EXPECT_EQ(meta("aten::index_select", {x, 1, input(kI64, {5})}), "f32[2, 5, 4]");
  EXPECT_EQ(meta("aten::index_select", {x, 1, input(kI64, {})}), "f32[2, 1, 4]");
  EXPECT_EQ(meta("aten::gather", {x, 1, input(kI64, {1, 5, 2})}), "f32[1, 5, 2]");
  EXPECT_EQ(meta("aten::embedding", {input(kF32, {10, 4}), input(kI32, {2, 7})}), "f32[2, 7, 4]");
  expect_fails("aten::index.Tensor", {x, ArgumentList{input(kBool, {2, 3})}}, "is a mask: its result size depends on the data");
  expect_fails("aten::gather", {x, 1, input(kI64, {5, 2})}, "must have the same number of dims");
  expect_fails("aten::embedding", {input(kF32, {10, 4}), input(kF32, {2})}, "indices must be int64 or int32");
}

TEST_F(InferMetaRulesTest, ConvolutionsIncludingTransposed) {
  // Checked against torch: convolution(transposed=True) of [1, 4, 5, 5] by
  // [4, 3, 3, 3], stride 2, padding [1, 0], dilation [2, 1], output_padding
  // [1, 0], groups 2 is [1, 6, 12, 11].
  EXPECT_EQ(meta("aten::convolution", {input(kF32, {1, 4, 5, 5}), input(kF32, {4, 3, 3, 3}), None{}, ArgumentList{2, 2},
                                       ArgumentList{1, 0}, ArgumentList{2, 1}, true, ArgumentList{1, 0}, 2}),
            "f32[1, 6, 12, 11]");
  EXPECT_EQ(meta("aten::conv_transpose1d", {input(kF32, {1, 2, 4}), input(kF32, {2, 3, 3}), None{}, ArgumentList{2},
                                            ArgumentList{1}, ArgumentList{1}}),
            "f32[1, 3, 8]");
  EXPECT_EQ(meta("aten::conv1d", {input(kF16, {s0, 2, 5}), input(kF16, {3, 2, 3}), None{}, ArgumentList{2}, ArgumentList{1}}),
            "f16[s0, 3, 3]");
  expect_fails("aten::convolution", {input(kF32, {1, 4, 5}), input(kF32, {4, 3, 3}), None{}, ArgumentList{1}, ArgumentList{0},
                                     ArgumentList{1}, true, ArgumentList{1}, 1},
               "output_padding must be smaller than stride or dilation");
  expect_fails("aten::convolution", {input(kF32, {1, 4, 5}), input(kF32, {6, 4, 3}), input(kF32, {5}), ArgumentList{1},
                                     ArgumentList{0}, ArgumentList{1}, false, ArgumentList{0}, 1},
               "bias f32[5] does not match 6 output channels");
}

TEST_F(InferMetaRulesTest, MatrixProducts) {
  EXPECT_EQ(meta("aten::addmm", {input(kF16, {5}), input(kF32, {2, 3}), input(kF32, {3, 5})}), "f32[2, 5]");
  EXPECT_EQ(meta("aten::bmm", {input(kF32, {s0, 2, 3}), input(kF32, {s0, 3, 5})}), "f32[s0, 2, 5]");
  EXPECT_EQ(meta("aten::matmul", {input(kF32, {4}), input(kF32, {4})}), "f32[]");
  EXPECT_EQ(meta("aten::matmul", {input(kF32, {4}), input(kF32, {2, 4, 5})}), "f32[2, 5]");
  EXPECT_EQ(meta("aten::matmul", {input(kF32, {2, 3, 4}), input(kF32, {4})}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::matmul", {input(kF32, {2, 1, 3, 4}), input(kF32, {5, 4, 6})}), "f32[2, 5, 3, 6]");
  expect_fails("aten::bmm", {input(kF32, {2, 2, 3}), input(kF32, {3, 3, 5})}, "cannot multiply f32[2, 2, 3] by f32[3, 3, 5]");
  expect_fails("aten::matmul", {input(kF32, {2, 3}), input(kF32, {4})}, "cannot multiply f32[2, 3] by f32[4]");
}

TEST_F(InferMetaRulesTest, SoftmaxAndNorms) {
  EXPECT_EQ(meta("aten::_softmax", {input(kF16, {2, 3}), -1, true}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::_log_softmax", {input(kF32, {2, 3}), 0, false}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::softmax.int", {input(kF16, {2, 3}), -1, kF32}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::native_layer_norm", {input(kF16, {2, 3, 4}), ArgumentList{3, 4}, None{}, None{}, 1e-5}),
            "(f16[2, 3, 4], f16[2, 1, 1], f16[2, 1, 1])");
  Node* x = input(kF32, {s0, 6, 5, 5});
  Node* n = b.call("aten::sym_size.int", {x, 0});
  EXPECT_EQ(meta("aten::native_group_norm", {x, None{}, None{}, n, 6, 25, 3, 1e-5}),
            "(f32[s0, 6, 5, 5], f32[s0, 3], f32[s0, 3])");
  EXPECT_EQ(meta("aten::_native_batch_norm_legit_no_training",
                 {input(kF32, {2, 3, 5}), None{}, None{}, input(kF32, {3}), input(kF32, {3}), 0.1, 1e-5}),
            "(f32[2, 3, 5], f32[0], f32[0])");
  expect_fails("aten::_softmax", {input(kF32, {2, 3}), -1, true}, "half_to_float needs a float16 input");
  expect_fails("aten::native_group_norm", {input(kF32, {2, 6, 5}), None{}, None{}, 2, 6, 5, 4, 1e-5},
               "6 channels do not divide into 4 groups");
}

TEST_F(InferMetaRulesTest, PoolsAndUpsampling) {
  EXPECT_EQ(meta("aten::max_pool2d_with_indices",
                 {input(kF32, {2, 3, 9, 9}), ArgumentList{3, 3}, ArgumentList{2, 2}, ArgumentList{1, 1}, ArgumentList{1, 1}, true}),
            "(f32[2, 3, 5, 5], i64[2, 3, 5, 5])");
  // ceil_mode drops a last window that would start in the right padding.
  EXPECT_EQ(meta("aten::max_pool2d_with_indices",
                 {input(kF32, {1, 1, 5, 5}), ArgumentList{2, 2}, ArgumentList{2, 2}, ArgumentList{1, 1}, ArgumentList{1, 1}, true}),
            "(f32[1, 1, 3, 3], i64[1, 1, 3, 3])");
  EXPECT_EQ(meta("aten::avg_pool2d", {input(kF32, {2, 3, 9, 9}), ArgumentList{3, 3}, ArgumentList{}, ArgumentList{0, 0}}),
            "f32[2, 3, 3, 3]");
  EXPECT_EQ(meta("aten::avg_pool2d", {input(kF32, {s0, 3, 9, 9}), ArgumentList{3, 3}, ArgumentList{2, 2}, ArgumentList{1, 1}}),
            "f32[s0, 3, 5, 5]");
  EXPECT_EQ(meta("aten::_adaptive_avg_pool2d", {input(kF32, {3, 9, 9}), ArgumentList{4, 5}}), "f32[3, 4, 5]");
  EXPECT_EQ(meta("aten::upsample_nearest2d.vec", {input(kF32, {2, 3, 5, 7}), None{}, ArgumentList{1.5, 2.0}}), "f32[2, 3, 7, 14]");
  EXPECT_EQ(meta("aten::upsample_bilinear2d.vec", {input(kF32, {2, 3, 5, 7}), None{}, true, ArgumentList{0.5, 2.7}}),
            "f32[2, 3, 2, 18]");
  EXPECT_EQ(meta("aten::upsample_nearest2d.vec", {input(kF32, {2, 3, 5, 7}), ArgumentList{3, 4}, None{}}), "f32[2, 3, 3, 4]");
  EXPECT_EQ(meta("aten::max_pool1d", {input(kF32, {2, 4, 9}), ArgumentList{3}, ArgumentList{2}, ArgumentList{1}}), "f32[2, 4, 5]");
  EXPECT_EQ(meta("aten::avg_pool1d", {input(kF32, {2, 4, 9}), ArgumentList{3}, ArgumentList{2}, ArgumentList{1}, true}),
            "f32[2, 4, 5]");
  expect_fails("aten::max_pool2d_with_indices", {input(kF32, {1, 1, 5, 5}), ArgumentList{2, 2}, ArgumentList{}, ArgumentList{2, 2}},
               "padding 2 must be at most half of the kernel size 2");
  EXPECT_EQ(meta("aten::max_pool3d_with_indices",
                 {input(kF32, {2, 3, 7, 9, 9}), ArgumentList{3}, ArgumentList{2, 2, 1}, ArgumentList{1}, ArgumentList{1}, true}),
            "(f32[2, 3, 4, 5, 9], i64[2, 3, 4, 5, 9])");
  EXPECT_EQ(meta("aten::avg_pool3d", {input(kF32, {3, 6, 9, 9}), ArgumentList{2, 3, 3}, ArgumentList{}, ArgumentList{0}}),
            "f32[3, 3, 3, 3]");
  EXPECT_EQ(meta("aten::_adaptive_avg_pool3d", {input(kF32, {s0, 3, 5, 9, 9}), ArgumentList{1, 4, 5}}), "f32[s0, 3, 1, 4, 5]");
  EXPECT_EQ(meta("aten::col2im", {input(kF32, {s0, 12, 12}), ArgumentList{4, 5}, ArgumentList{2, 2}, ArgumentList{1, 1},
                                  ArgumentList{0, 0}, ArgumentList{1, 1}}),
            "f32[s0, 3, 4, 5]");
  expect_fails("aten::avg_pool3d", {input(kF32, {2, 9, 9}), ArgumentList{2}}, "expects a 4-D or 5-D input");
  expect_fails("aten::_adaptive_avg_pool3d", {input(kF32, {3, 5, 9, 9}), ArgumentList{1, 4}}, "output_size must have 3 entries");
  expect_fails("aten::col2im", {input(kF32, {1, 10, 12}), ArgumentList{4, 5}, ArgumentList{2, 2}, ArgumentList{1, 1},
                                ArgumentList{0, 0}, ArgumentList{1, 1}},
               "not a multiple of the kernel's 4 elements");
  expect_fails("aten::upsample_nearest2d.vec", {input(kF32, {2, 3, 5, 7}), None{}, None{}}, "needs output_size or two scale_factors");
}

TEST_F(InferMetaRulesTest, GridSamplerAndDistances) {
  EXPECT_EQ(meta("aten::grid_sampler_2d", {input(kF32, {s0, 3, 5, 7}), input(kF32, {s0, 4, 6, 2}), 0, 2, false}),
            "f32[s0, 3, 4, 6]");
  expect_fails("aten::grid_sampler_2d", {input(kF32, {2, 3, 5, 7}), input(kF32, {2, 4, 6, 3}), 0, 0, false},
               "grid must end in a dim of 2");
  expect_fails("aten::grid_sampler_2d", {input(kF32, {2, 3, 5, 7}), input(kF32, {2, 4, 6, 2}), 3, 0, false},
               "must be in [0, 2]");
  EXPECT_EQ(meta("aten::_cdist_forward", {input(kF32, {2, 1, 3, 4}), input(kF32, {5, 6, 4}), 2.0, None{}}),
            "f32[2, 5, 3, 6]");
  EXPECT_EQ(meta("aten::_cdist_forward", {input(kF64, {s0, 4}), input(kF64, {6, 4}), 1.0, 2}), "f64[s0, 6]");
  expect_fails("aten::_cdist_forward", {input(kF32, {3, 4}), input(kF32, {6, 5}), 2.0, None{}},
               "different numbers of columns");
  EXPECT_EQ(meta("aten::_pdist_forward", {input(kF32, {5, 3}), 2.0}), "f32[10]");
  expect_fails("aten::_pdist_forward", {input(kF32, {5, 3}), -1.0}, "p must be non-negative");
}

TEST_F(InferMetaRulesTest, FactoriesAndConversions) {
  EXPECT_EQ(meta("aten::full", {ArgumentList{2, 3}, 1.5}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::full", {ArgumentList{2, 3}, 1}), "i64[2, 3]");
  EXPECT_EQ(meta("aten::full", {ArgumentList{2, 3}, true}), "b8[2, 3]");
  EXPECT_EQ(meta("aten::full", {ArgumentList{2, 3}, 1}, {{"dtype", kF16}}), "f16[2, 3]");
  EXPECT_EQ(meta("aten::zeros", {Argument(ArgumentList{2, 3})}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::ones", {Argument(ArgumentList{2})}, {{"dtype", kI64}}), "i64[2]");
  EXPECT_EQ(meta("aten::full_like", {input(kI32, {2, 3}), 2.5}), "i32[2, 3]");
  EXPECT_EQ(meta("aten::full_like", {input(kI32, {2, 3}), 2.5}, {{"dtype", kF64}}), "f64[2, 3]");
  EXPECT_EQ(meta("aten::arange.start_step", {0, 10, 3}), "i64[4]");
  EXPECT_EQ(meta("aten::arange.start_step", {0, 1, 0.1}), "f32[10]");
  EXPECT_EQ(meta("aten::arange.start_step", {10, 0, -3}), "i64[4]");
  EXPECT_EQ(meta("aten::arange.start_step", {0, 10, 3}, {{"dtype", kF32}}), "f32[4]");
  EXPECT_EQ(meta("aten::arange.start", {0.5, 3}), "f32[3]");
  Node* length = b.call("aten::sym_size.int", {input(kI64, {2, s0}), 1});
  EXPECT_EQ(meta("aten::arange.start_step", {0, length}), "i64[s0]");
  EXPECT_EQ(meta("aten::arange.start_step", {1, length, 2}), "i64[(s0//2)]");
  EXPECT_EQ(meta("aten::scalar_tensor", {2}), "f32[]");
  EXPECT_EQ(meta("aten::scalar_tensor", {2.5}, {{"dtype", kF16}}), "f16[]");
  EXPECT_EQ(meta("aten::_to_copy", {input(kF32, {2})}, {{"dtype", kF16}}), "f16[2]");
  EXPECT_EQ(meta("aten::_to_copy", {input(kI32, {2})}), "i32[2]");
  expect_fails("aten::arange.start_step", {0, 10, 0}, "step must not be 0");
  expect_fails("aten::arange.start_step", {10, 0, 1}, "are inconsistent");
  expect_fails("aten::zeros", {Argument(ArgumentList{2, -1})}, "sizes must not be negative");
}

TEST_F(InferMetaRulesTest, QuantizeAndDequantizeCheckTheirParameters) {
  const ScalarType kI8 = ScalarType::Char;
  const std::string q = "quantized_decomposed::quantize_per_tensor", dq = "quantized_decomposed::dequantize_per_tensor";
  EXPECT_EQ(meta(q, {input(kF32, {2, 3}), 0.5, 3, -128, 127, kI8}), "i8[2, 3]");
  EXPECT_EQ(meta(dq, {input(kI8, {2, 3}), 0.5, 3, -128, 127, kI8}), "f32[2, 3]");
  EXPECT_EQ(meta(dq, {input(kI8, {2}), 0.5, 3, -128, 127, kI8}, {{"out_dtype", kF16}}), "f16[2]");
  EXPECT_EQ(meta("quantized_decomposed::choose_qparams.tensor", {input(kF32, {4, 5}), -128, 127, 1e-5, kI8}),
            "(f64[1], i64[1])");
  EXPECT_EQ(meta("quantized_decomposed::dequantize_per_channel", {input(kI8, {4, 3}), input(kF32, {4}), None{}, 0, -127,
                                                                  127, kI8}),
            "f32[4, 3]");
  EXPECT_EQ(meta("quantized_decomposed::embedding_4bit", {input(kU8, {10, 4}), input(kF32, {10}), None{}, -8, 7,
                                                          input(kI64, {2, 3})}),
            "f32[2, 3, 8]");
  // Every inconsistent parameter is refused with the node named.
  expect_fails(q, {input(kF32, {2}), 0.0, 0, -128, 127, kI8}, "scale 0.000000 is not a positive finite number");
  expect_fails(q, {input(kF32, {2}), -0.5, 0, -128, 127, kI8}, "is not a positive finite number");
  expect_fails(q, {input(kF32, {2}), 0.5, 200, -128, 127, kI8}, "zero point 200 is outside [quant_min, quant_max] = [-128, 127]");
  expect_fails(q, {input(kF32, {2}), 0.5, 0, -129, 127, kI8}, "quant_min -129 is below int8's lowest value -128");
  expect_fails(q, {input(kF32, {2}), 0.5, 0, 10, -10, kI8}, "quant_min 10 is above quant_max -10");
  expect_fails(q, {input(kF32, {2}), 0.5, 0, 0, 10, kF32}, "is not a quantized dtype");
  expect_fails(q, {input(kI32, {2}), 0.5, 0, -128, 127, kI8}, "must be float32, float16 or bfloat16");
  expect_fails(dq, {input(kU8, {2}), 0.5, 0, -128, 127, kI8}, "argument 'input' is uint8 but argument 'dtype' says int8");
  expect_fails("quantized_decomposed::dequantize_per_channel", {input(kI8, {4, 3}), input(kF32, {3}), None{}, 0, -127, 127, kI8},
               "argument 'scales' has 3 entries but the input has 4 channels on axis 0");
}

// torchao's affine primitives: one scale and zero point per block; a block of
// 1 keeps a dim in choose_qparams_affine's result, a whole dim drops it
// (unless keepdim), a group keeps the group count.
TEST_F(InferMetaRulesTest, TorchaoAffineOpsFollowTheBlockSize) {
  const ScalarType kI8 = ScalarType::Char;
  const std::string q = "torchao::quantize_affine", dq = "torchao::dequantize_affine",
                    choose = "torchao::choose_qparams_affine";
  const ArgumentList per_group{1, 32};
  // 8da4w's activations: per token over a dynamic sequence.
  EXPECT_EQ(meta(choose, {input(kF32, {1, s0, 32}), "ASYMMETRIC", ArgumentList{1, 1, 32}, kI8, -128, 127, None{}, None{},
                          kI8}),
            "(f32[1, s0], i8[1, s0])");
  EXPECT_EQ(meta(choose, {input(kF32, {4, 64}), "SYMMETRIC", per_group, kI8, -8, 7}), "(f32[4, 2], f32[4, 2])");
  EXPECT_EQ(meta(choose, {input(kF16, {4, 64}), "ASYMMETRIC", per_group, kI8}, {{"keepdim", true}}),
            "(f16[4, 2], i32[4, 2])");
  EXPECT_EQ(meta(choose, {input(kF32, {3, 8}), "ASYMMETRIC", ArgumentList{3, 8}, ScalarType::Byte}), "(f32[], i32[])");
  EXPECT_EQ(meta(choose, {input(kF32, {3, 8}), "SYMMETRIC", ArgumentList{3, 8}, kI8}, {{"keepdim", true}}),
            "(f32[1, 1], f32[1, 1])");
  EXPECT_EQ(meta(choose, {input(kF32, {1, 8}), "SYMMETRIC", ArgumentList{1, 8}, kI8, None{}, None{}, None{}, kF64}),
            "(f64[1], f32[1])");
  Node* scale = input(kF32, {4, 2});
  EXPECT_EQ(meta(q, {input(kF32, {4, 64}), per_group, scale, input(kI8, {8}), kI8, -8, 7}), "i8[4, 64]");
  EXPECT_EQ(meta(dq, {input(kI8, {4, 64}), per_group, scale, None{}, kI8, -8, 7}), "f32[4, 64]");
  EXPECT_EQ(meta(dq, {input(kI8, {4, 64}), per_group, scale, None{}, kI8}, {{"output_dtype", ScalarType::BFloat16}}), "bf16[4, 64]");
  // Every inconsistent argument is refused with the node named.
  expect_fails(q, {input(kF32, {4, 64}), ArgumentList{1, 24}, scale, None{}, kI8}, "block_size[1] = 24 does not divide dim 1 of size 64");
  expect_fails(q, {input(kF32, {4, 64}), ArgumentList{32}, scale, None{}, kI8}, "argument 'block_size' has 1 entries but the input has 2 dims");
  expect_fails(q, {input(kF32, {4, 64}), ArgumentList{1, 0}, scale, None{}, kI8}, "block_size[1] = 0 must be at least 1");
  expect_fails(q, {input(kF32, {4, 64}), ArgumentList{1, 16}, scale, None{}, kI8}, "argument 'scale' has 8 elements but the input has 16 blocks");
  expect_fails(q, {input(kF32, {4, 64}), per_group, scale, input(kI8, {3}), kI8}, "argument 'zero_point' has 3 elements but the input has 8 blocks");
  expect_fails(q, {input(kF32, {4, 64}), per_group, scale, None{}, kI8, -129, 7}, "quant_min -129 is below int8's lowest value -128");
  expect_fails(q, {input(kF32, {4, 64}), per_group, scale, None{}, ScalarType::UInt16}, "is not one of torchao's quantized dtypes");
  expect_fails(q, {input(kI32, {4, 64}), per_group, scale, None{}, kI8}, "must be float32, float16 or bfloat16");
  expect_fails(dq, {input(ScalarType::Byte, {4, 64}), per_group, scale, None{}, kI8}, "argument 'input' is uint8 but argument 'input_dtype' says int8");
  expect_fails(dq, {input(kI8, {4, 64}), per_group, scale, None{}, kI8}, "argument 'output_dtype' must be float32, float16 or bfloat16",
               {{"output_dtype", ScalarType::Int}});
  expect_fails(choose, {input(kF32, {4, 64}), "AFFINE", per_group, kI8}, "argument 'mapping_type' must be SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC");
  expect_fails(choose, {input(kF32, {1, s0, 32}), "ASYMMETRIC", ArgumentList{1, 2, 32}, kI8}, "a dynamic dim takes a block of 1 or of its whole size");
  expect_fails(choose, {None{}, "ASYMMETRIC", per_group, kI8}, "argument 'input' must be a tensor, got None");
}

TEST_F(InferMetaRulesTest, InPlaceOpsKeepSelf) {
  Node* x = input(kF32, {2, 3});
  EXPECT_EQ(meta("aten::add_.Tensor", {x, input(kF64, {3})}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::masked_fill_.Scalar", {x, input(kBool, {3}), 1.0}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::hardtanh_", {x}), "f32[2, 3]");
  expect_fails("aten::mul_.Tensor", {x, input(kF32, {4, 2, 3})}, "does not broadcast to self f32[2, 3]");
  // Each in-place op of the table is checked by its functional op's rule.
  EXPECT_EQ(meta("aten::sigmoid_", {x}), "f32[2, 3]");
  EXPECT_EQ(meta("aten::copy_", {x, input(kI64, {3})}), "f32[2, 3]");
  expect_fails("aten::copy_", {x, input(kF32, {2, 1, 3})}, "src f32[2, 1, 3] does not broadcast to self f32[2, 3]");
  expect_fails("aten::div_.Tensor", {input(kI64, {3}), input(kI64, {3})},
               "node 'div_' (aten::div_.Tensor): the result type Float cannot be written into self i64[3]");
}

}  // namespace
}  // namespace kiln::aot
