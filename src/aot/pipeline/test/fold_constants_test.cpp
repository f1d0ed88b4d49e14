// fold_constants on hand-built programs: what depends on weights and
// constants alone becomes a lifted constant with the value the interpreter
// computes, the program's results unchanged; random ops, mutated buffers,
// input-dependent nodes, growing expands and returned values stay; weights
// read by nothing any more go; the new constant keeps the provenance.
#include "aot/pipeline/fold_constants.h"

#include <gtest/gtest.h>

#include <cmath>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {
namespace {

using testing::ints;

HostTensor ramp(const std::vector<int64_t>& sizes, float scale = 0.25f) {
  HostTensor t = HostTensor::zeros(ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = scale * static_cast<float>(i % 7) - 0.5f;
  return t;
}

HostTensor call(ExportedProgram& program, const HostTensor& x) {
  return std::get<HostTensor>(call_program(program, PyTree::tuple({PyTree::make_leaf(x.clone())})).leaf);
}

void expect_same(const HostTensor& a, const HostTensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  for (int64_t i = 0; i < a.numel(); ++i) {
    const float x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isinf(x) || std::isinf(y)) {
      EXPECT_EQ(x, y) << "at " << i;
    } else {
      EXPECT_FLOAT_EQ(x, y) << "at " << i;
    }
  }
}

size_t calls_of(const ExportedProgram& program, const std::string& target) {
  size_t n = 0;
  for (const Node* node : program.graph()) n += node->is_call_function() && node->target() == target;
  return n;
}

// A causal mask as a language model builds it: from arange, a comparison and
// where, added to the scores. It depends on no input: it folds to one constant.
ExportedProgram masked_scores() {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 4}));
  Node* rows = b.call("aten::arange.start_step", {0, 4}, {{"dtype", ScalarType::Long}});
  Node* cols = b.call("aten::view", {rows, ints({4, 1})});
  Node* future = b.call("aten::gt.Tensor", {rows, cols});
  Node* minus_inf = b.constant("minus_inf", HostTensor::from_vector<float>({}, {-INFINITY}));
  Node* mask = b.call("aten::where.self", {future, minus_inf, b.constant("zero", HostTensor::zeros(ScalarType::Float, {}))});
  Node* scaled = b.call("aten::mul.Tensor", {b.parameter("w", ramp({4, 4})), 2.0});
  b.output({b.call("aten::add.Tensor", {b.call("aten::mm", {x, scaled}), mask})});
  return std::move(b).build();
}

TEST(FoldConstantsTest, AMaskAndAScaledWeightBecomeConstants) {
  ExportedProgram original = masked_scores();
  ExportedProgram folded = masked_scores();
  for (Node* node : folded.graph()) {
    if (node->is_call_function()) node->meta.debug_handle = 7;
  }
  ASSERT_TRUE(fold_constants(folded));
  EXPECT_EQ(calls_of(folded, "aten::arange.start_step"), 0u);
  EXPECT_EQ(calls_of(folded, "aten::where.self"), 0u);
  EXPECT_EQ(calls_of(folded, "aten::mul.Tensor"), 0u);
  EXPECT_EQ(calls_of(folded, "aten::mm.default"), 1u);
  EXPECT_EQ(calls_of(folded, "aten::add.Tensor"), 1u);
  // The weight only the folded mul read is gone; two folded constants are in.
  EXPECT_EQ(folded.state_dict().count("w"), 0u);
  size_t lifted = 0;
  for (const InputSpec& spec : folded.graph_signature().input_specs) {
    if (spec.kind == InputKind::ConstantTensor && spec.target.rfind("_folded_", 0) == 0) ++lifted;
  }
  EXPECT_EQ(lifted, 2u);
  for (const Node* node : folded.graph().placeholders()) {
    if (node->name().rfind("c__folded_", 0) == 0) {
      EXPECT_EQ(node->meta.debug_handle, 7) << node->name();
    }
  }
  const HostTensor x = ramp({4, 4}, 0.5f);
  expect_same(call(folded, x), call(original, x));
}

TEST(FoldConstantsTest, WhatReadsTheInputOrChangesStays) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* state = b.buffer("state", ramp({2, 3}));
  Node* bumped = b.call("aten::add.Tensor", {state, 1.0});  // a mutated buffer is no constant
  b.mutate_buffer("state", bumped);
  // random: never folded (no meta rule: the node is made by hand)
  Node* noise = b.graph().call_function("aten::rand_like.default", {b.parameter("p", ramp({2, 3}))});
  noise->meta.val = f32({2, 3});
  Node* y = b.call("aten::relu", {x});
  b.output({b.call("aten::add.Tensor", {b.call("aten::add.Tensor", {y, bumped}), b.call("aten::mul.Tensor", {noise, 0.0})})});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(fold_constants(program));
  EXPECT_EQ(calls_of(program, "aten::rand_like.default"), 1u);
  EXPECT_EQ(program.state_dict().count("p"), 1u);
}

TEST(FoldConstantsTest, AGrowingExpandAndAReturnedConstantStay) {
  GraphBuilder b;
  Node* x = b.input("x", f32({512, 64}));
  Node* row = b.call("aten::mul.Tensor", {b.parameter("bias", ramp({64})), 3.0});           // folded: 256 bytes
  Node* big = b.call("aten::expand", {b.call("aten::relu", {row}), ints({512, 64})});  // 128 KiB from 256 bytes: stays
  Node* returned = b.call("aten::neg", {b.parameter("c", ramp({3}))});                        // returned as is: stays
  b.output({b.call("aten::add.Tensor", {x, big}), returned});
  ExportedProgram program = std::move(b).build();
  ASSERT_TRUE(fold_constants(program));
  EXPECT_EQ(calls_of(program, "aten::expand.default"), 1u);
  EXPECT_EQ(calls_of(program, "aten::neg.default"), 1u);
  EXPECT_EQ(calls_of(program, "aten::relu.default"), 0u);  // relu(3 * bias) is the constant the expand reads
  EXPECT_EQ(calls_of(program, "aten::mul.Tensor"), 0u);
}

// torchao's int4 weights (IntxWeightOnlyConfig): dequantize_affine of an int8
// weight with its scales stays, so the weight stays int8 (a fold would store
// it as float, and hide it from the backends that compute with it); the
// transpose after it reads a non-constant and stays too.
TEST(FoldConstantsTest, ATorchaoDequantizedWeightStays) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 32}));
  HostTensor weight = HostTensor::zeros(ScalarType::Char, {4, 32});
  for (int64_t i = 0; i < weight.numel(); ++i) weight.data<int8_t>()[i] = static_cast<int8_t>(i % 15 - 8);
  Node* dequantized = b.call("torchao::dequantize_affine", {b.parameter("w", weight), ints({1, 32}),
                                                            b.parameter("scale", HostTensor::from_vector<float>({4, 1}, {0.01f, 0.02f, 0.03f, 0.04f})), None{},
                                                            ScalarType::Char, -8, 7});
  b.output({b.call("aten::mm", {x, b.call("aten::permute", {dequantized, ints({1, 0})})})});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(fold_constants(program));
  EXPECT_EQ(calls_of(program, "torchao::dequantize_affine.default"), 1u);
  EXPECT_EQ(program.state_dict().at("w").dtype(), ScalarType::Char);
}

// A large weight's transpose is folded when nothing else reads the weight
// (it is stored transposed instead), not when the weight stays (a tied
// embedding: the program would hold it twice).
TEST(FoldConstantsTest, ALargeWeightIsNotStoredTwice) {
  for (const bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "alone");
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 256}));
    Node* w = b.parameter("w", ramp({128, 256}));  // 128 KiB
    Node* y = b.call("aten::mm", {x, b.call("aten::permute", {w, ints({1, 0})})});
    if (tied) {
      b.output({y, b.call("aten::mm", {b.input("h", f32({2, 128})), w})});
    } else {
      b.output({y});
    }
    ExportedProgram program = std::move(b).build();
    EXPECT_EQ(fold_constants(program), !tied);
    EXPECT_EQ(calls_of(program, "aten::permute.default"), tied ? 1u : 0u);
    EXPECT_EQ(program.state_dict().count("w"), tied ? 1u : 0u);
  }
}

TEST(FoldConstantsTest, AProgramWithNothingConstantIsLeftAlone) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  b.output({b.call("aten::mm", {x, b.parameter("w", ramp({3, 2}))})});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(fold_constants(program));
  EXPECT_EQ(program.state_dict().count("w"), 1u);
}

}  // namespace
}  // namespace kiln::aot
