// The fusions into Kiln's own ops (fuse_ops.h): each pattern on a small built
// graph becomes its one op and computes what the pattern computed (the
// interpreter runs both, on the portable kernels); a pattern that differs
// stays as it is; the tiny Llama fixture's layers fuse whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/passes/decompose.h"
#include "aot/passes/fuse_ops.h"
#include "aot/passes/lowering.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using testing::ints;
using testing::ramp;

// How many calls of each op the program makes ("kiln::rms_norm.default": 2).
std::map<std::string, int> op_counts(const ExportedProgram& program) {
  std::map<std::string, int> counts;
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) ++counts[node->target()];
  }
  return counts;
}

// The program's one output on `inputs`.
std::vector<double> run(ExportedProgram& program, const std::vector<HostTensor>& inputs) {
  std::vector<PyTree> leaves;
  for (const HostTensor& input : inputs) leaves.push_back(PyTree::make_leaf(input));
  const PyTree result = call_program(program, PyTree::tuple(leaves));
  return std::get<HostTensor>(tree_flatten(result).first.at(0)).to_doubles();
}

void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

// transformers' LlamaRMSNorm in core ATen: weight * (x * rsqrt(mean(x ** 2) + eps)).
ExportedProgram rms_norm_program(bool with_weight, double exponent = 2) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 8}));
  Node* pow = b.call("aten::pow.Tensor_Scalar", {x, exponent});
  Node* mean = b.call("aten::mean.dim", {pow, ArgumentList{-1}, true});
  Node* add = b.call("aten::add.Tensor", {mean, 1e-6});
  Node* rsqrt = b.call("aten::rsqrt", {add});
  Node* normalized = b.call("aten::mul.Tensor", {x, rsqrt});
  if (with_weight) {
    Node* weight = b.parameter("norm.weight", ramp({8}, 0.3f));
    normalized = b.call("aten::mul.Tensor", {weight, normalized});
  }
  b.output({normalized});
  return std::move(b).build();
}

TEST(FuseRmsNormTest, ThePatternWithItsWeightIsOneCall) {
  ExportedProgram program = rms_norm_program(true);
  const HostTensor x = ramp({2, 3, 8}, 0.7f);
  const std::vector<double> expected = run(program, {x});
  EXPECT_TRUE(fuse_rms_norm(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts, (std::map<std::string, int>{{"kiln::rms_norm.default", 1}})) << program.to_string();
  EXPECT_THAT(program.to_string(), ::testing::HasSubstr("kiln.rms_norm.default(x, p_norm_weight, 1e-06)"));
  expect_close(run(program, {x}), expected, 1e-6);
}

TEST(FuseRmsNormTest, WithoutAWeight) {
  ExportedProgram program = rms_norm_program(false);
  const HostTensor x = ramp({2, 3, 8}, 0.7f);
  const std::vector<double> expected = run(program, {x});
  EXPECT_TRUE(fuse_rms_norm(program));
  EXPECT_EQ(op_counts(program), (std::map<std::string, int>{{"kiln::rms_norm.default", 1}}));
  expect_close(run(program, {x}), expected, 1e-6);
}

TEST(FuseRmsNormTest, OtherNormsStayAsTheyAre) {
  for (double exponent : {3.0, 1.0}) {
    ExportedProgram program = rms_norm_program(true, exponent);
    const std::string before = program.to_string();
    EXPECT_FALSE(fuse_rms_norm(program));
    EXPECT_EQ(program.to_string(), before);
  }
}

// x * cos + cat(-x[..., 4:], x[..., :4]) * sin over a [1, 2, 3, 8] input (or,
// `swapped`, cat(-x[..., :4], x[..., 4:]): another rotation).
ExportedProgram rotary_program(bool swapped = false) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3, 8}));
  Node* cos = b.input("cos", f32({1, 1, 3, 8}));
  Node* sin = b.input("sin", f32({1, 1, 3, 8}));
  Node* straight = b.call("aten::mul.Tensor", {x, cos});
  Node* low = b.call("aten::slice.Tensor", {x, 3, 0, 4, 1});
  Node* high = b.call("aten::slice.Tensor", {x, 3, 4, std::numeric_limits<int64_t>::max(), 1});
  if (swapped) std::swap(low, high);
  Node* neg = b.call("aten::neg", {high});
  Node* rotated = b.call("aten::cat", {ArgumentList{neg, low}, -1});
  Node* turned = b.call("aten::mul.Tensor", {rotated, sin});
  b.output({b.call("aten::add.Tensor", {straight, turned})});
  return std::move(b).build();
}

TEST(FuseRotaryEmbeddingTest, TheHalfRotationIsOneCall) {
  ExportedProgram program = rotary_program();
  const std::vector<HostTensor> inputs = {ramp({1, 2, 3, 8}, 0.5f), ramp({1, 1, 3, 8}, 0.2f), ramp({1, 1, 3, 8}, 0.3f)};
  const std::vector<double> expected = run(program, inputs);
  EXPECT_TRUE(fuse_rotary_embedding(program));
  EXPECT_EQ(op_counts(program), (std::map<std::string, int>{{"kiln::rotary_embedding.default", 1}}));
  expect_close(run(program, inputs), expected, 1e-6);
}

TEST(FuseRotaryEmbeddingTest, AnotherSplitStaysAsItIs) {
  ExportedProgram program = rotary_program(true);
  EXPECT_FALSE(fuse_rotary_embedding(program));
}

// scaled_dot_product_attention with keys and values repeated for 2 query
// heads per key head, as transformers' repeat_kv writes it, and a bool mask.
// `queries` rows of queries (3, or a run-time size).
ExportedProgram attention_program(const SymExpr& queries = SymExpr::constant(3)) {
  GraphBuilder b;
  Node* q = b.input("q", f32({1, 4, queries, 8}));
  Node* k = b.input("k", f32({1, 2, 5, 8}));
  Node* v = b.input("v", f32({1, 2, 5, 8}));
  TensorMeta mask_meta = f32({1, 1, queries, 5});
  mask_meta.dtype = ScalarType::Bool;
  Node* mask = b.input("mask", mask_meta);
  auto repeat = [&](Node* x) {
    Node* u = b.call("aten::unsqueeze", {x, 2});
    Node* e = b.call("aten::expand", {u, ArgumentList{1, 2, 2, 5, 8}});
    return b.call("aten::reshape", {e, ArgumentList{1, 4, 5, 8}});
  };
  b.output({b.call("aten::scaled_dot_product_attention", {q, repeat(k), repeat(v), mask})});
  ExportedProgram program = std::move(b).build();
  program.set_dialect(kTrainingDialect);
  return program;
}

HostTensor causal_mask() {
  HostTensor mask = HostTensor::zeros(ScalarType::Bool, {1, 1, 3, 5});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j <= i + 1; ++j) mask.data<bool>()[i * 5 + j] = true;
  }
  return mask;
}

TEST(FuseAttentionTest, RepeatedKeyHeadsAreReadInPlace) {
  ExportedProgram program = attention_program();
  const std::vector<HostTensor> inputs = {ramp({1, 4, 3, 8}, 0.3f), ramp({1, 2, 5, 8}, 0.2f), ramp({1, 2, 5, 8}, 0.4f),
                                          causal_mask()};
  ExportedProgram reference = transform(program, {decompose_to_core_aten()});
  const std::vector<double> expected = run(reference, inputs);
  EXPECT_TRUE(fuse_attention(program));
  EXPECT_EQ(op_counts(program), (std::map<std::string, int>{{"kiln::sdpa.default", 1}})) << program.to_string();
  EXPECT_THAT(program.to_string(), ::testing::HasSubstr("kiln.sdpa.default(q, k, v, mask, False, 0.35355"));
  ExportedProgram fused = transform(program, {decompose_to_core_aten()});
  expect_close(run(fused, inputs), expected, 1e-6);
}

// A row the mask hides entirely gives zeros (torch's safe softmax).
TEST(FuseAttentionTest, AHiddenRowIsZeros) {
  ExportedProgram program = attention_program();
  EXPECT_TRUE(fuse_attention(program));
  ExportedProgram fused = transform(program, {decompose_to_core_aten()});
  HostTensor mask = causal_mask();
  for (int j = 0; j < 5; ++j) mask.data<bool>()[5 + j] = false;  // row 1
  const std::vector<double> out = run(fused, {ramp({1, 4, 3, 8}, 0.3f), ramp({1, 2, 5, 8}, 0.2f), ramp({1, 2, 5, 8}, 0.4f), mask});
  for (int h = 0; h < 4; ++h) {
    for (int e = 0; e < 8; ++e) EXPECT_EQ(out[(h * 3 + 1) * 8 + e], 0.0);
  }
}

// Where a backend is asked for, attention of static sizes is left for it
// (oneDNN runs it as matmuls in its graph); attention over a run-time number
// of queries (a language model's sequence) is Kiln's either way.
TEST(FuseAttentionTest, StaticSizesAreLeftForABackend) {
  KilnOpsOptions for_a_backend;
  for_a_backend.static_shapes = false;
  ExportedProgram fixed = attention_program();
  EXPECT_FALSE(fuse_attention(fixed, for_a_backend));
  EXPECT_EQ(op_counts(fixed).count("kiln::sdpa.default"), 0u);
  ExportedProgram sequence = attention_program(SymExpr::symbol("s0"));
  EXPECT_TRUE(fuse_attention(sequence, for_a_backend));
  EXPECT_EQ(op_counts(sequence), (std::map<std::string, int>{{"kiln::sdpa.default", 1}})) << sequence.to_string();
}

// The tiny Llama of the LLM tests: every layer's norms, rotations and
// attention fuse, and nothing of their patterns is left.
TEST(FuseKilnOpsTest, TheTinyLlamasLayersFuseWhole) {
  ExportedProgram program = load_pt2(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/llm/tiny_llama/model.pt2");
  EXPECT_TRUE(fuse_kiln_ops(program));
  decompose_to_core_aten(program);
  EXPECT_TRUE(fuse_kiln_ops(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("kiln::sdpa.default"), 2);
  EXPECT_EQ(counts.at("kiln::rms_norm.default"), 5);  // two per layer, and the final norm
  EXPECT_EQ(counts.at("kiln::rotary_embedding.default"), 4);
  EXPECT_EQ(counts.at("kiln::gated_activation.default"), 2);
  for (const char* gone : {"aten::rsqrt.default", "aten::pow.Tensor_Scalar", "aten::neg.default", "aten::bmm.default",
                           "aten::_softmax.default", "aten::sigmoid.default"}) {
    EXPECT_EQ(counts.count(gone), 0u) << gone << " is left:\n" << program.to_string();
  }
  for (const Node* node : program.graph()) {
    if (node->target() != "kiln::rms_norm.default") continue;
    EXPECT_TRUE(node->args().at(1).is_node()) << node->format() << ": its weight was not taken in\n" << program.to_string();
  }
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

// The same pure call twice is one call; an input merged makes its users
// match too; a call of other arguments stays.
TEST(EliminateCommonSubexpressionsTest, RepeatedPureCallsAreComputedOnce) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* a1 = b.call("aten::unsqueeze", {x, 0});
  Node* a2 = b.call("aten::unsqueeze", {x, 0});
  Node* r1 = b.call("aten::relu", {a1});
  Node* r2 = b.call("aten::relu", {a2});
  Node* other = b.call("aten::unsqueeze", {x, 1});
  b.output({b.call("aten::add.Tensor", {r1, r2}), other});
  ExportedProgram program = std::move(b).build();
  const HostTensor xv = ramp({2, 3}, 0.3f);
  const std::vector<double> before = run(program, {xv});
  EXPECT_TRUE(eliminate_common_subexpressions(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("aten::unsqueeze.default"), 2);
  EXPECT_EQ(counts.at("aten::relu.default"), 1);
  EXPECT_EQ(run(program, {xv}), before);
  EXPECT_FALSE(eliminate_common_subexpressions(program));
}

// Two draws of the same arguments are two draws (is_random).
TEST(EliminateCommonSubexpressionsTest, RandomCallsAreNeverMerged) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* n1 = b.call("aten::randn_like", {x});
  Node* n2 = b.call("aten::randn_like", {x});
  Node* u1 = b.call("aten::rand", {ints({2, 3})});
  Node* u2 = b.call("aten::rand", {ints({2, 3})});
  b.output({b.call("aten::sub.Tensor", {n1, n2}), b.call("aten::sub.Tensor", {u1, u2})});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(eliminate_common_subexpressions(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("aten::randn_like.default"), 2);
  EXPECT_EQ(counts.at("aten::rand.default"), 2);
}

// The tiny Llama's per-layer cache bookkeeping and rotary views collapse.
TEST(EliminateCommonSubexpressionsTest, TheTinyLlamasLayersShareWhatTheyRecompute) {
  ExportedProgram program = load_pt2(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/llm/tiny_llama/model.pt2");
  decompose_to_core_aten(program);
  const auto before = op_counts(program);
  EXPECT_TRUE(eliminate_common_subexpressions(program));
  const auto after = op_counts(program);
  EXPECT_LT(after.at("aten::unsqueeze.default"), before.at("aten::unsqueeze.default"));
  EXPECT_LT(after.at("aten::arange.start_step"), before.at("aten::arange.start_step"));
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

// An embedding table tied to a projection (`tied`, its weight the table)
// beside a projection on a weight of its own (`untied`), on x of `x_sizes`.
struct TiedAndUntied {
  Node* looked_up;
  Node* tied;
  Node* untied;
};

TiedAndUntied tied_and_untied(GraphBuilder& b, const std::vector<SymExpr>& x_sizes) {
  TensorMeta ids_meta = f32({2});
  ids_meta.dtype = ScalarType::Long;
  Node* ids = b.input("ids", ids_meta);
  Node* x = b.input("x", f32(x_sizes));
  Node* table = b.parameter("table", ramp({16, 8}, 0.2f));
  Node* own = b.parameter("own", ramp({4, 8}, 0.3f));
  return {b.call("aten::embedding", {table, ids}), b.call("aten::linear", {x, table}),
          b.call("aten::linear", {x, own})};
}

// A float linear whose weight another op reads too (an embedding table tied
// to the projection to the vocabulary) reads that weight in place; one of
// static rows on a weight of its own stays for the backends.
TEST(FuseLinearTest, ATiedWeightIsReadInPlaceAndAnOwnStaticOneStays) {
  GraphBuilder b;
  const TiedAndUntied linears = tied_and_untied(b, {1, 8});
  b.output({linears.looked_up, linears.tied, linears.untied});
  ExportedProgram program = std::move(b).build();
  program.set_dialect(kTrainingDialect);
  KilnOpsOptions for_a_backend;
  for_a_backend.static_shapes = false;
  EXPECT_TRUE(fuse_linear(program, for_a_backend));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("kiln::linear.default"), 1);
  EXPECT_EQ(counts.at("aten::linear.default"), 1);
  for (const Node* node : program.graph()) {
    if (node->target() != "kiln::linear.default") continue;
    EXPECT_EQ(node->args().at(1).node()->name(), "p_table") << node->format();
    EXPECT_EQ(to_string(node->args().at(4)), "'f32_rows'") << node->format();
  }
  EXPECT_EQ(program.state_dict().size(), 2u);  // nothing packed, nothing dropped
}

// A tied weight the partitioner would copy into the delegate (at most
// max_shared_weight_copy_bytes) leaves its linear of static rows to the
// backends too; one byte over, the linear reads it in place.
TEST(FuseLinearTest, ASharedWeightSmallEnoughToCopyStaysForTheBackends) {
  for (const size_t limit : {size_t{16 * 8 * 4}, size_t{16 * 8 * 4 - 1}}) {
    GraphBuilder b;
    const TiedAndUntied linears = tied_and_untied(b, {1, 8});
    b.output({linears.looked_up, linears.tied, linears.untied});
    ExportedProgram program = std::move(b).build();
    program.set_dialect(kTrainingDialect);
    KilnOpsOptions for_a_backend;
    for_a_backend.static_shapes = false;
    for_a_backend.max_shared_weight_copy_bytes = limit;
    const bool copied = limit >= 16 * 8 * 4;
    EXPECT_EQ(fuse_linear(program, for_a_backend), !copied) << limit;
    const auto counts = op_counts(program);
    EXPECT_EQ(counts.count("kiln::linear.default"), copied ? 0u : 1u) << limit;
    EXPECT_EQ(counts.at("aten::linear.default"), copied ? 2 : 1) << limit;
  }
}

// For the portable kernels, a float linear of static rows on a weight of its
// own (an untied projection of the last position to the vocabulary) is
// packed too; the tied one is still read in place.
TEST(FuseLinearTest, StaticRowsOnAWeightOfTheirOwnArePackedForThePortableKernels) {
  GraphBuilder b;
  const TiedAndUntied linears = tied_and_untied(b, {1, 1, 8});
  b.output({linears.untied, linears.looked_up, linears.tied});
  ExportedProgram program = std::move(b).build();
  program.set_dialect(kTrainingDialect);
  const std::vector<HostTensor> inputs{HostTensor::zeros(ScalarType::Long, {2}), ramp({1, 1, 8}, 0.1f)};
  ExportedProgram unfused = program.copy_of_verified();
  decompose_to_core_aten(unfused);  // the interpreter runs no training-IR linear
  const std::vector<double> expected = run(unfused, inputs);
  EXPECT_TRUE(fuse_linear(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("kiln::linear.default"), 2);
  EXPECT_EQ(counts.count("aten::linear.default"), 0u);
  std::vector<std::string> formats;
  for (const Node* node : program.graph()) {
    if (node->target() == "kiln::linear.default") formats.push_back(to_string(node->args().at(4)));
  }
  EXPECT_THAT(formats, ::testing::UnorderedElementsAre("'f32_rows'", "'f32'"));
  EXPECT_EQ(program.state_dict().count("own"), 0u);  // replaced by its packed bytes
  expect_close(run(program, inputs), expected, 1e-5);
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

// silu(a) * b and gelu(a) * b, each one call computing the same bits.
TEST(FuseGatedActivationTest, SiluAndGeluGatesAreOneCall) {
  for (const char* activation : {"silu", "gelu", "gelu_tanh"}) {
    SCOPED_TRACE(activation);
    GraphBuilder b;
    Node* a = b.input("a", f32({2, 24}));
    Node* up = b.input("up", f32({2, 24}));
    Node* gated = nullptr;
    if (std::string(activation) == "silu") {
      gated = b.call("aten::mul.Tensor", {a, b.call("aten::sigmoid", {a})});
    } else {
      gated = b.call("aten::gelu", {a}, {{"approximate", std::string(activation) == "gelu" ? "none" : "tanh"}});
    }
    b.output({b.call("aten::mul.Tensor", {up, gated})});
    ExportedProgram program = std::move(b).build();
    const std::vector<HostTensor> inputs = {ramp({2, 24}, 0.9f), ramp({2, 24}, 0.4f)};
    const std::vector<double> expected = run(program, inputs);
    KilnOpsOptions for_a_backend;
    for_a_backend.static_shapes = false;
    EXPECT_FALSE(fuse_gated_activation(program, for_a_backend));  // static sizes: the backend's
    EXPECT_TRUE(fuse_gated_activation(program));
    EXPECT_EQ(op_counts(program), (std::map<std::string, int>{{"kiln::gated_activation.default", 1}}));
    EXPECT_EQ(run(program, inputs), expected);
  }
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

// A split read part by part is one slice per part read, with the split's debug
// handle, computing the same parts; a split something else reads whole, or
// of sizes known only at run time, stays.
TEST(SplitAsSlicesTest, ASplitReadByItsPartsIsOneSlicePerPart) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 9, 3}));
  Node* split = b.call("aten::split_with_sizes_copy", {x, ints({2, 3, 4}), 1});
  split->meta.debug_handle = 7;
  Node* first = b.getitem(split, 0);
  Node* last = b.getitem(split, 2);
  b.output({b.call("aten::relu", {first}), b.call("aten::neg", {last})});
  ExportedProgram program = std::move(b).build();
  const HostTensor xv = ramp({2, 9, 3}, 0.7f);
  const std::vector<double> before = run(program, {xv});
  EXPECT_TRUE(split_as_slices(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.count("aten::split_with_sizes_copy.default"), 0u);
  EXPECT_EQ(counts.at("aten::slice_copy.Tensor"), 2);  // the part no one reads is not sliced
  for (const Node* node : program.graph()) {
    if (node->is_call_function() && node->target() == "aten::slice_copy.Tensor") {
      EXPECT_EQ(node->meta.debug_handle, 7) << node->name();
    }
  }
  EXPECT_EQ(run(program, {xv}), before);
  EXPECT_FALSE(split_as_slices(program));
}

TEST(SplitAsSlicesTest, ASplitReadWholeStays) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 2}));
  Node* split = b.call("aten::split_with_sizes_copy", {x, ints({1, 3})});
  b.output({split});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(split_as_slices(program));
  EXPECT_EQ(op_counts(program).at("aten::split_with_sizes_copy.default"), 1);
}

// A norm expanded to the values' sizes and divided into them (F.normalize,
// Swin V2's cosine attention): the division broadcasts the norm itself.
TEST(ExpandIntoBroadcastTest, APointwiseOpReadsTheExpandsInput) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3, 5}));
  Node* norm = b.call("aten::sum.dim_IntList", {x, ints({2}), true});
  Node* expanded = b.call("aten::expand", {norm, ints({4, 3, 5})});
  b.output({b.call("aten::div.Tensor", {x, expanded})});
  ExportedProgram program = std::move(b).build();
  const HostTensor xv = ramp({4, 3, 5}, 0.3f);
  const std::vector<double> before = run(program, {xv});
  EXPECT_TRUE(expand_into_broadcast(program));
  EXPECT_EQ(op_counts(program).count("aten::expand.default"), 0u);
  EXPECT_EQ(run(program, {xv}), before);
  EXPECT_FALSE(expand_into_broadcast(program));
}

// Kept: read by a pointwise op whose result takes its sizes from the expand
// (relu of it, or an add whose other operand is as small), by an op that is
// not pointwise, or returned.
TEST(ExpandIntoBroadcastTest, AnExpandThatGivesItsReaderItsSizesStays) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 5}));
  Node* expanded = b.call("aten::expand", {x, ints({3, 5})});
  b.output({b.call("aten::relu", {expanded}), b.call("aten::add.Tensor", {expanded, x}),
            b.call("aten::sum.dim_IntList", {expanded, ints({0})}), expanded});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(expand_into_broadcast(program));
  EXPECT_EQ(op_counts(program).at("aten::expand.default"), 1);
}

// Swin's patch merging: x[:, 1::2, 0::2, :] on an 8 x 6 image.
TEST(StepSlicesAsCropsTest, AStepSliceIsAViewTwoCropsAndAView) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 8, 6, 4}));
  Node* rows = b.call("aten::slice.Tensor", {x, 1, 1, int64_t{9223372036854775807}, 2});
  rows->meta.debug_handle = 5;
  Node* cols = b.call("aten::slice.Tensor", {rows, 2, 0, int64_t{9223372036854775807}, 2});
  b.output({cols, b.call("aten::slice.Tensor", {x, 3, 1, 3})});  // step 1: stays
  ExportedProgram program = std::move(b).build();
  const HostTensor xv = ramp({1, 8, 6, 4}, 0.1f);
  const std::vector<double> before = run(program, {xv});
  EXPECT_TRUE(step_slices_as_crops(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.at("aten::slice.Tensor"), 1);
  EXPECT_EQ(counts.at("aten::slice_copy.Tensor"), 4);
  EXPECT_EQ(counts.at("aten::view.default"), 4);
  size_t kept_provenance = 0;
  for (const Node* node : program.graph()) kept_provenance += node->meta.debug_handle == 5;
  EXPECT_EQ(kept_provenance, 4u);  // the first slice's view, crops and view back
  EXPECT_EQ(run(program, {xv}), before);
  EXPECT_FALSE(step_slices_as_crops(program));
}

// A step that does not divide the dimension stays a step slice.
TEST(StepSlicesAsCropsTest, AStepThatDoesNotDivideTheDimensionStays) {
  GraphBuilder b;
  Node* x = b.input("x", f32({7, 3}));
  b.output({b.call("aten::slice.Tensor", {x, 0, 0, 7, 2})});
  ExportedProgram program = std::move(b).build();
  EXPECT_FALSE(step_slices_as_crops(program));
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

// MobileFaceNet's PReLU, a slope per channel, as decompositions spell it:
// where(x > 0, x, w * x) becomes relu(x) + w * clamp(x, max=0) with the
// where's debug handle, computing the same; a slope of one element stays.
ExportedProgram prelu_program(const std::vector<int64_t>& slope_sizes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4, 5}));
  Node* slope = b.parameter("slope", ramp(slope_sizes, 0.1f));
  Node* negative = b.call("aten::mul.Tensor", {slope, x});
  Node* where = b.call("aten::where.self", {b.call("aten::gt.Scalar", {x, 0}), x, negative});
  where->meta.debug_handle = 9;
  b.output({where});
  return std::move(b).build();
}

TEST(PReluAsRelusTest, ASlopePerChannelBecomesAReluAndAScaledClamp) {
  ExportedProgram program = prelu_program({3, 1, 1});
  const HostTensor xv = ramp({2, 3, 4, 5}, -0.45f);
  const std::vector<double> before = run(program, {xv});
  EXPECT_TRUE(prelu_as_relus(program));
  const auto counts = op_counts(program);
  EXPECT_EQ(counts.count("aten::where.self"), 0u);
  EXPECT_EQ(counts.count("aten::gt.Scalar"), 0u);
  EXPECT_EQ(counts.at("aten::relu.default"), 1);
  EXPECT_EQ(counts.at("aten::clamp.default"), 1);
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) {
      EXPECT_EQ(node->meta.debug_handle, 9) << node->name();
    }
  }
  const std::vector<double> after = run(program, {xv});
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-6) << i;
  EXPECT_FALSE(prelu_as_relus(program));
}

TEST(PReluAsRelusTest, ASlopeOfOneElementStays) {
  ExportedProgram program = prelu_program({1});
  EXPECT_FALSE(prelu_as_relus(program));
  EXPECT_EQ(op_counts(program).at("aten::where.self"), 1);
}

}  // namespace
}  // namespace kiln::aot
