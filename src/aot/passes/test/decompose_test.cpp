// decompose_to_core_aten: every training-IR fixture decomposed and run as
// PyTorch ran it, and the individual rewrites on small built graphs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/debug_handles.h"
#include "aot/passes/decompose.h"
#include "aot/passes/lowering.h"
#include "aot/passes/op_support.h"
#include "aot/interpreter/kernel_call.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::call_with_meta;
using testing::expect_error;
using testing::decomposed;
using testing::expect_cases_match_pytorch;
using testing::kFixtures;
using testing::ops_without_kernels;
using testing::ramp;

const nlohmann::json& manifest() { return testing::fixture_manifest(); }

struct Fixture {
  std::string name;
  std::vector<std::string> cases;
};

void PrintTo(const Fixture& f, std::ostream* out) { *out << f.name; }

std::vector<Fixture> training_ir_fixtures() {
  std::vector<Fixture> result;
  for (const nlohmann::json* list : {&manifest(), &testing::training_ir_manifest()}) {
    for (const auto& fixture : list->at("fixtures")) {
      if (!fixture.at("programs").contains("model.pt2")) continue;
      result.push_back({fixture.at("name"), testing::manifest_cases(fixture)});
    }
  }
  return result;
}

class TrainingIrFixtureTest : public ::testing::TestWithParam<Fixture> {};

// Every op left has a portable kernel (an out variant), and the ATEN verifier
// accepts the result.
TEST_P(TrainingIrFixtureTest, DecomposesToOpsWithKernels) {
  const Fixture& f = GetParam();
  const ExportedProgram training = load_pt2(kFixtures + f.name + "/model.pt2");
  const ExportedProgram program = transform(training, {decompose_to_core_aten()});
  EXPECT_EQ(program.dialect(), "ATEN");
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty()) << program.to_string();
  for (const Node* node : program.graph()) {
    EXPECT_FALSE(node->is_call_function() && has_decomposition(node->target())) << node->format();
  }
  EXPECT_NO_THROW(verifier_for("ATEN").check(program));
}

// The user outputs keep torch's metas through the decomposition.
TEST_P(TrainingIrFixtureTest, KeepsTheOutputMetas) {
  const Fixture& f = GetParam();
  const ExportedProgram training = load_pt2(kFixtures + f.name + "/model.pt2");
  const ExportedProgram program = transform(training, {decompose_to_core_aten()});
  const ArgumentList& before = training.graph().output_node()->args().at(0).list();
  const ArgumentList& after = program.graph().output_node()->args().at(0).list();
  // Functionalization puts mutation outputs first; the others follow in order.
  ASSERT_GE(after.size(), before.size());
  const size_t added = after.size() - before.size();
  for (size_t i = 0; i < before.size(); ++i) {
    if (!before[i].is_node()) continue;
    EXPECT_EQ(to_string(after[i + added].node()->meta.val), to_string(before[i].node()->meta.val)) << "output " << i;
  }
}

// Needs every kernel the decomposed program calls (the new fixtures' kernels
// come with the kernel families).
TEST_P(TrainingIrFixtureTest, RunsAsPyTorchDid) {
  const Fixture& f = GetParam();
  const ExportedProgram training = load_pt2(kFixtures + f.name + "/model.pt2");
  ExportedProgram program = transform(training, {decompose_to_core_aten()});
  expect_cases_match_pytorch(program, f.name, f.cases);
}

// Handles given to the program as imported survive decomposition: every node
// a decomposition makes carries the handle of the op it came from, so the
// devtools map time and numbers back to the user's op.
TEST_P(TrainingIrFixtureTest, EveryDecomposedNodeCarriesItsSourceOpsHandle) {
  const Fixture& f = GetParam();
  ExportedProgram training = load_pt2(kFixtures + f.name + "/model.pt2");
  generate_debug_handles(training);
  std::set<int64_t> imported;
  for (const Node* node : training.graph()) {
    if (node->meta.debug_handle) imported.insert(*node->meta.debug_handle);
  }
  const ExportedProgram program = transform(training, {decompose_to_core_aten()});
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    ASSERT_TRUE(node->meta.debug_handle.has_value()) << node->format();
    EXPECT_TRUE(imported.count(*node->meta.debug_handle)) << node->format();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TrainingIrFixtureTest, ::testing::ValuesIn(training_ir_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param.name;  // "training_ir/ops": a gtest name has no '/'
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The mutation outputs match the ones torch's run_decompositions() adds.
TEST(DecomposeFixtureTest, MutationOutputsMatchTheCoreProgram) {
  for (const char* name : {"buffer_mutation", "input_mutation"}) {
    const ExportedProgram training = load_pt2(kFixtures + name + "/model.pt2");
    const ExportedProgram core = load_pt2(kFixtures + name + "/model.core.pt2");
    const ExportedProgram program = transform(training, {decompose_to_core_aten()});
    const auto& ours = program.graph_signature().output_specs;
    const auto& theirs = core.graph_signature().output_specs;
    ASSERT_EQ(ours.size(), theirs.size()) << name << "\n" << program.to_string();
    for (size_t i = 0; i < ours.size(); ++i) {
      EXPECT_EQ(ours[i].kind, theirs[i].kind) << name << " output " << i;
      EXPECT_EQ(ours[i].target, theirs[i].target) << name << " output " << i;
    }
  }
}

// layer_norm decomposes (here through native_layer_norm and its getitem,
// then in lowering) into several nodes: each carries layer_norm's handle.
TEST(DecomposeTest, TheNodesOfADecomposedOpCarryItsDebugHandle) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4}));
  Node* relu = b.call("aten::relu", {x});
  Node* norm = call_with_meta(b, "aten::layer_norm", {relu, ArgumentList{4}}, f32({2, 4}));
  Node* flat = call_with_meta(b, "aten::flatten.using_ints", {norm}, f32({8}));
  Node* varied = call_with_meta(b, "aten::var.dim", {flat, ArgumentList{0}}, f32({}));
  b.output({varied});
  ExportedProgram program = std::move(b).build();
  generate_debug_handles(program);
  std::map<std::string, int64_t> handle_of_op;
  for (const Node* node : program.graph()) {
    if (node->meta.debug_handle) handle_of_op[node->target()] = *node->meta.debug_handle;
  }
  ExportedProgram decomposed_program = transform(program, {decompose_to_core_aten()});
  const int64_t layer_norm = handle_of_op.at("aten::layer_norm.default");
  size_t pieces = 0;
  for (const Node* node : decomposed_program.graph()) {
    if (!node->is_call_function() || node->target() == "aten::relu.default") continue;
    ASSERT_TRUE(node->meta.debug_handle.has_value()) << node->format();
    if (node->meta.debug_handle == layer_norm) {
      ++pieces;
    } else {
      EXPECT_TRUE(*node->meta.debug_handle == handle_of_op.at("aten::flatten.using_ints") ||
                  *node->meta.debug_handle == handle_of_op.at("aten::var.dim"))
          << node->format();
    }
  }
  EXPECT_EQ(pieces, 2u);  // native_layer_norm and the getitem of its output
  EXPECT_THAT(decomposed_program.to_string(), HasSubstr("native_layer_norm"));
}

TEST(DecomposeTest, LinearOn2dBecomesPermuteAndAddmm) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  Node* w = b.parameter("fc.weight", ramp({2, 3}));
  Node* bias = b.parameter("fc.bias", ramp({2}));
  b.output({b.call("aten::linear", {x, w, bias})});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("permute: \"f32[3, 2]\" = torch.ops.aten.permute.default(p_fc_weight, [1, 0])"));
  EXPECT_THAT(text, HasSubstr("addmm: \"f32[4, 2]\" = torch.ops.aten.addmm.default(p_fc_bias, x, permute)"));
  EXPECT_THAT(text, Not(HasSubstr("linear")));
}

TEST(DecomposeTest, LinearWithoutBiasBecomesMm) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  Node* w = b.parameter("fc.weight", ramp({2, 3}));
  b.output({b.call("aten::linear", {x, w})});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("mm: \"f32[4, 2]\" = torch.ops.aten.mm.default(x, permute)"));
}

TEST(DecomposeTest, LinearOnSymbolic3dViewsAroundAddmmAndRuns) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0, 5, 3}));
  Node* w = b.parameter("fc.weight", ramp({2, 3}));
  Node* bias = b.parameter("fc.bias", ramp({2}));
  b.output({b.call("aten::linear", {x, w, bias})});
  b.set_range("s0", {1, 8});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("view: \"f32[5*s0, 3]\" = torch.ops.aten.view.default(x, [-1, 3])"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.sym_size.int(x, 0)"));
  EXPECT_THAT(text, HasSubstr("view_1: \"f32[s0, 5, 2]\" = torch.ops.aten.view.default(addmm, [sym_size, 5, 2])"));

  const HostTensor input = ramp({2, 5, 3}, 0.3f);
  const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(input)}));
  const auto flat = tree_flatten(result);
  const HostTensor& out = std::get<HostTensor>(flat.first.at(0));
  ASSERT_EQ(out.describe(), HostTensor::zeros(ScalarType::Float, {2, 5, 2}).describe());
  const HostTensor weight = ramp({2, 3});
  const HostTensor b_ = ramp({2});
  for (int64_t row = 0; row < 10; ++row) {
    for (int64_t o = 0; o < 2; ++o) {
      double sum = b_.data<float>()[o];
      for (int64_t i = 0; i < 3; ++i) sum += input.data<float>()[row * 3 + i] * weight.data<float>()[o * 3 + i];
      EXPECT_NEAR(out.data<float>()[row * 2 + o], sum, 1e-5) << "row " << row << " out " << o;
    }
  }
}

// transformers' masks take diff along a sequence of symbolic length (a
// Llama exported with a dynamic sequence): two slices of symbolic ends.
TEST(DecomposeTest, DiffAlongASymbolicDimensionRuns) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({2, s0}));
  b.output({call_with_meta(b, "aten::diff", {x}, f32({2, s0 - 1}))});
  b.set_range("s0", {2, 16});
  ExportedProgram program = decomposed(std::move(b));
  const HostTensor input = HostTensor::from_vector<float>({2, 4}, {1, 4, 2, 7, 0, 1, 3, 6});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(input)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{3, -2, 5, 1, 2, 3}));
}

// nn.LSTM and nn.GRU in the training IR (aten::lstm.input, aten::gru.input),
// unrolled over their steps, against the cells computed here step by step:
// two layers, both directions, batch first.
struct RecurrentCase {
  bool lstm;
  int64_t steps = 3, batch = 2, inputs = 2, hidden = 2, layers = 2;
};

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// One direction of one layer: x [T][B][I] -> outputs [T][B][H], h and c updated.
using Sequence = std::vector<std::vector<std::vector<double>>>;
Sequence run_cell(const RecurrentCase& c, const Sequence& x, const std::vector<const HostTensor*>& w, bool reverse,
                  std::vector<std::vector<double>>& h, std::vector<std::vector<double>>& cell) {
  const int64_t gates = (c.lstm ? 4 : 3) * c.hidden, in = static_cast<int64_t>(x[0][0].size());
  const auto at = [](const HostTensor* t, int64_t i) { return static_cast<double>(t->data<float>()[i]); };
  Sequence out(x.size(), std::vector<std::vector<double>>(static_cast<size_t>(c.batch)));
  for (int64_t i = 0; i < c.steps; ++i) {
    const auto t = static_cast<size_t>(reverse ? c.steps - 1 - i : i);
    for (size_t b = 0; b < static_cast<size_t>(c.batch); ++b) {
      std::vector<double> gi(static_cast<size_t>(gates)), gh(static_cast<size_t>(gates));
      for (int64_t g = 0; g < gates; ++g) {
        gi[g] = at(w[2], g);
        gh[g] = at(w[3], g);
        for (int64_t k = 0; k < in; ++k) gi[g] += at(w[0], g * in + k) * x[t][b][static_cast<size_t>(k)];
        for (int64_t k = 0; k < c.hidden; ++k) gh[g] += at(w[1], g * c.hidden + k) * h[b][static_cast<size_t>(k)];
      }
      for (int64_t k = 0; k < c.hidden; ++k) {
        const auto H = static_cast<size_t>(c.hidden), j = static_cast<size_t>(k);
        if (c.lstm) {
          cell[b][j] = sigmoid(gi[H + j] + gh[H + j]) * cell[b][j] +
                       sigmoid(gi[j] + gh[j]) * std::tanh(gi[2 * H + j] + gh[2 * H + j]);
          h[b][j] = sigmoid(gi[3 * H + j] + gh[3 * H + j]) * std::tanh(cell[b][j]);
        } else {
          const double r = sigmoid(gi[j] + gh[j]), z = sigmoid(gi[H + j] + gh[H + j]);
          const double n = std::tanh(gi[2 * H + j] + r * gh[2 * H + j]);
          h[b][j] = (1 - z) * n + z * h[b][j];
        }
      }
      out[t][b] = h[b];
    }
  }
  return out;
}

TEST(DecomposeTest, LstmAndGruLayersUnrollAsTheirCellsCompute) {
  for (const bool lstm : {true, false}) {
    const RecurrentCase c{lstm};
    const int64_t gates = (lstm ? 4 : 3) * c.hidden;
    GraphBuilder b;
    Node* x = b.input("x", f32({c.batch, c.steps, c.inputs}));
    Node* h0 = b.input("h0", f32({c.layers * 2, c.batch, c.hidden}));
    Node* c0 = lstm ? b.input("c0", f32({c.layers * 2, c.batch, c.hidden})) : nullptr;
    std::vector<HostTensor> weights;
    ArgumentList params;
    for (int64_t layer = 0; layer < c.layers; ++layer) {
      for (int64_t d = 0; d < 2; ++d) {
        const int64_t in = layer == 0 ? c.inputs : 2 * c.hidden;
        const std::string name = "l" + std::to_string(layer) + "d" + std::to_string(d);
        int k = 0;
        for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{gates, in}, {gates, c.hidden}, {gates}, {gates}}) {
          HostTensor w = ramp(sizes, 0.05f * static_cast<float>(layer * 4 + d * 2 + k) - 0.3f);
          for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = std::sin(w.data<float>()[i] * 3.0f + static_cast<float>(i));
          weights.push_back(w);
          params.emplace_back(b.parameter(name + "_" + std::to_string(k++), std::move(w)));
        }
      }
    }
    const std::vector<TensorMeta> metas = {f32({c.batch, c.steps, 2 * c.hidden}), f32({c.layers * 2, c.batch, c.hidden}),
                                           f32({c.layers * 2, c.batch, c.hidden})};
    Node* layer = lstm ? call_with_meta(b, "aten::lstm.input",
                                        {x, ArgumentList{h0, c0}, params, true, c.layers, 0.0, false, true, true}, metas)
                       : call_with_meta(b, "aten::gru.input", {x, h0, params, true, c.layers, 0.0, false, true, true},
                                        std::vector<TensorMeta>{metas[0], metas[1]});
    std::vector<Node*> outputs = {b.getitem(layer, 0), b.getitem(layer, 1)};
    if (lstm) outputs.push_back(b.getitem(layer, 2));
    b.output(outputs);
    ExportedProgram program = decomposed(std::move(b));

    const HostTensor xv = ramp({c.batch, c.steps, c.inputs}, -0.4f);
    const HostTensor hv = ramp({c.layers * 2, c.batch, c.hidden}, -0.2f);
    const HostTensor cv = ramp({c.layers * 2, c.batch, c.hidden}, 0.1f);
    std::vector<PyTree> leaves = {PyTree::make_leaf(xv), PyTree::make_leaf(hv)};
    if (lstm) leaves.push_back(PyTree::make_leaf(cv));
    const auto flat = tree_flatten(call_program(program, PyTree::tuple(leaves)));

    // The reference: x as [T][B][I], each layer's directions joined.
    Sequence sequence(static_cast<size_t>(c.steps), std::vector<std::vector<double>>(static_cast<size_t>(c.batch)));
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      for (int64_t t = 0; t < c.steps; ++t) {
        for (int64_t i = 0; i < c.inputs; ++i) {
          sequence[t][bi].push_back(xv.data<float>()[(bi * c.steps + t) * c.inputs + i]);
        }
      }
    }
    std::vector<double> last_h, last_c;
    for (int64_t l = 0; l < c.layers; ++l) {
      Sequence joined(sequence.size(), std::vector<std::vector<double>>(static_cast<size_t>(c.batch)));
      for (int64_t d = 0; d < 2; ++d) {
        const int64_t index = l * 2 + d;
        std::vector<std::vector<double>> h(static_cast<size_t>(c.batch)), cell(static_cast<size_t>(c.batch));
        for (int64_t bi = 0; bi < c.batch; ++bi) {
          for (int64_t k = 0; k < c.hidden; ++k) {
            h[bi].push_back(hv.data<float>()[(index * c.batch + bi) * c.hidden + k]);
            cell[bi].push_back(cv.data<float>()[(index * c.batch + bi) * c.hidden + k]);
          }
        }
        const std::vector<const HostTensor*> w = {&weights[index * 4], &weights[index * 4 + 1], &weights[index * 4 + 2],
                                                  &weights[index * 4 + 3]};
        const Sequence out = run_cell(c, sequence, w, d == 1, h, cell);
        for (size_t t = 0; t < out.size(); ++t) {
          for (size_t bi = 0; bi < out[t].size(); ++bi) joined[t][bi].insert(joined[t][bi].end(), out[t][bi].begin(), out[t][bi].end());
        }
        for (const auto& row : h) last_h.insert(last_h.end(), row.begin(), row.end());
        for (const auto& row : cell) last_c.insert(last_c.end(), row.begin(), row.end());
      }
      sequence = joined;
    }
    std::vector<double> expected_output;  // batch first
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      for (int64_t t = 0; t < c.steps; ++t) expected_output.insert(expected_output.end(), sequence[t][bi].begin(), sequence[t][bi].end());
    }
    const auto near = [](const std::vector<double>& actual, const std::vector<double>& expected) {
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-5) << "element " << i;
    };
    near(std::get<HostTensor>(flat.first.at(0)).to_doubles(), expected_output);
    near(std::get<HostTensor>(flat.first.at(1)).to_doubles(), last_h);
    if (lstm) near(std::get<HostTensor>(flat.first.at(2)).to_doubles(), last_c);
  }
}

TEST(DecomposeTest, EvalDropoutDisappears) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  Node* dropped = b.call("aten::dropout", {x, 0.5, false});
  b.output({b.call("aten::relu", {dropped})});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("relu: \"f32[4, 3]\" = torch.ops.aten.relu.default(x)"));
  EXPECT_THAT(text, Not(HasSubstr("dropout")));
}

TEST(DecomposeTest, TrainingDropoutIsAnErrorNamingTheNode) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  b.output({b.call("aten::dropout", {x, 0.5, true})});
  ExportedProgram program = std::move(b).build();
  try {
    decompose_to_core_aten(program);
    FAIL() << "expected AotError";
  } catch (const AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("node 'dropout' (aten::dropout.default)"));
  }
}

// What the zoo's transformers leave in the training IR: GPT-2's mask cast
// (to.dtype_layout) and new_ones, T5's min.other, Swin-V2's zero_ and clamp_min.
TEST(DecomposeTest, CastsMinMaxOtherAndZeroBecomeCoreOps) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* y = b.input("y", f32({3}));
  Node* as_int = call_with_meta(b, "aten::to.dtype_layout", {x}, TensorMeta(ScalarType::Long, std::vector<int64_t>{3}), {{"dtype", ScalarType::Long}});
  Node* low = call_with_meta(b, "aten::min.other", {x, y}, f32({3}));
  Node* high = call_with_meta(b, "aten::max.other", {x, y}, f32({3}));
  Node* zeroed = call_with_meta(b, "aten::zero", {low}, f32({3}));
  Node* ones = call_with_meta(b, "aten::new_ones", {x, ArgumentList{3}}, f32({3}));
  Node* floor = call_with_meta(b, "aten::clamp_min", {b.call("aten::add.Tensor", {high, zeroed}), 2.0}, f32({3}));
  Node* ceiling = call_with_meta(b, "aten::clamp_max", {floor, 3.5}, f32({3}));
  Node* both = call_with_meta(b, "aten::__and__.Tensor", {b.call("aten::gt.Scalar", {x, 0}), b.call("aten::lt.Scalar", {y, 4})},
                              TensorMeta(ScalarType::Bool, std::vector<int64_t>{3}));
  Node* wide = call_with_meta(b, "aten::expand_as", {b.call("aten::view", {both, ArgumentList{1, 3}}), b.input("z", f32({2, 3}))},
                              TensorMeta(ScalarType::Bool, std::vector<int64_t>{2, 3}));
  b.output({as_int, b.call("aten::add.Tensor", {ceiling, ones}), wide});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  for (const char* gone : {"aten.to.", "aten.min.other", "aten.max.other", "aten.zero.", "new_ones", "clamp_m", "__and__", "expand_as"}) {
    EXPECT_THAT(text, Not(HasSubstr(gone)));
  }
  HostTensor xv = HostTensor::from_vector<float>({3}, {1.5f, -2, 3});
  HostTensor yv = HostTensor::from_vector<float>({3}, {0, 4, 3});
  HostTensor zv = HostTensor::from_vector<float>({2, 3}, std::vector<float>(6, 0.0f));
  const auto flat = tree_flatten(
      call_program(program, PyTree::tuple({PyTree::make_leaf(xv), PyTree::make_leaf(yv), PyTree::make_leaf(zv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(2)).to_doubles(), (std::vector<double>{1, 0, 1, 1, 0, 1}));
  // max(x, y) clamped to [2, 3.5], plus one.
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(1)).to_doubles(), (std::vector<double>{3, 4.5, 4}));
}

// More of the zoo's training IR: GPT-2's diff, T5's where with a scalar,
// Swin-V2's vector norms, R(2+1)D's adaptive 3-D pool to one value.
TEST(DecomposeTest, DiffWhereScalarVectorNormAndAdaptivePool3dBecomeCoreOps) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* mask = b.call("aten::gt.Scalar", {x, 2});
  Node* first = b.input("first", f32({2, 1}));
  Node* diff = call_with_meta(b, "aten::diff", {x, 2, -1, first}, f32({2, 2}));
  Node* where = call_with_meta(b, "aten::where.ScalarOther", {mask, x, -1.0}, f32({2, 3}));
  Node* norm2 = call_with_meta(b, "aten::linalg_vector_norm", {x, 2, ArgumentList{1}}, f32({2}));
  Node* norm_inf = call_with_meta(b, "aten::linalg_vector_norm", {x, std::numeric_limits<double>::infinity()}, f32({}));
  Node* norm3 = call_with_meta(b, "aten::linalg_vector_norm", {x, 3, ArgumentList{0}, true}, f32({1, 3}));
  Node* volume = b.call("aten::view", {x, ArgumentList{1, 1, 2, 3, 1}});
  Node* pooled = call_with_meta(b, "aten::adaptive_avg_pool3d", {volume, ArgumentList{1, 1, 1}}, f32({1, 1, 1, 1, 1}));
  b.output({diff, where, norm2, norm_inf, norm3, pooled});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  HostTensor xv = HostTensor::from_vector<float>({2, 3}, {1, 4, 2, -3, 0, 4});
  HostTensor fv = HostTensor::from_vector<float>({2, 1}, {0, 1});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv), PyTree::make_leaf(fv)})));
  const auto values = [&](size_t i) { return std::get<HostTensor>(flat.first.at(i)).to_doubles(); };
  // [0, 1, 4, 2] -> [1, 3, -2] -> [2, -5]; [1, -3, 0, 4] -> [-4, 3, 4] -> [7, 1].
  EXPECT_EQ(values(0), (std::vector<double>{2, -5, 7, 1}));
  EXPECT_EQ(values(1), (std::vector<double>{-1, 4, -1, -1, -1, 4}));
  EXPECT_NEAR(values(2).at(0), std::sqrt(21.0), 1e-5);
  EXPECT_NEAR(values(2).at(1), 5.0, 1e-5);
  EXPECT_EQ(values(3), (std::vector<double>{4}));
  EXPECT_NEAR(values(4).at(0), std::cbrt(28.0), 1e-5);
  EXPECT_NEAR(values(4).at(2), std::cbrt(72.0), 1e-5);
  EXPECT_NEAR(values(5).at(0), 8.0 / 6.0, 1e-6);
}

// einsum by brute force: every assignment of the operands' subscripts, the
// product of their elements added into the output's (row-major, sizes in `size`).
std::vector<double> einsum_reference(const std::vector<std::string>& inputs, const std::string& output,
                                     const std::vector<std::vector<double>>& values, const std::map<char, int64_t>& size) {
  std::string all;  // the subscripts the operands use
  for (const std::string& input : inputs) {
    for (char c : input) {
      if (all.find(c) == std::string::npos) all += c;
    }
  }
  const auto offset = [&](const std::string& subscripts, const std::map<char, int64_t>& at) {
    int64_t flat = 0;
    for (char c : subscripts) flat = flat * size.at(c) + at.at(c);
    return flat;
  };
  int64_t out_numel = 1;
  for (char c : output) out_numel *= size.at(c);
  std::vector<double> result(static_cast<size_t>(out_numel), 0.0);
  std::map<char, int64_t> at;
  for (char c : all) at[c] = 0;
  while (true) {
    double term = 1;
    for (size_t i = 0; i < inputs.size(); ++i) term *= values[i].at(static_cast<size_t>(offset(inputs[i], at)));
    result.at(static_cast<size_t>(offset(output, at))) += term;
    size_t k = all.size();
    while (k > 0 && ++at[all[k - 1]] == size.at(all[k - 1])) at[all[--k]] = 0;
    if (k == 0) break;
  }
  return result;
}

TEST(DecomposeTest, EinsumBecomesPermutesSumsAndMatmulsThatMatchTheDefinition) {
  struct Case {
    std::string equation, output;
    std::vector<std::string> inputs;
  };
  const std::map<char, int64_t> size = {{'b', 2}, {'h', 3}, {'i', 2}, {'j', 4}, {'d', 3}};
  const std::vector<Case> cases = {
      {"bhid,bhjd->bhij", "bhij", {"bhid", "bhjd"}},  // attention scores
      {"bhij,bhjd->bhid", "bhid", {"bhij", "bhjd"}},  // attention times values
      {"ij,jd", "di", {"ij", "jd"}},                  // implicit output: alphabetical
      {"hij->jh", "jh", {"hij"}},                     // a sum and a transpose
      {"bi,hj->bhij", "bhij", {"bi", "hj"}},          // an outer product
  };
  for (const Case& c : cases) {
    GraphBuilder b;
    ArgumentList tensors;
    std::vector<HostTensor> inputs;
    std::vector<std::vector<double>> values;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      std::vector<int64_t> shape;
      for (char s : c.inputs[i]) shape.push_back(size.at(s));
      int64_t numel = 1;
      for (int64_t n : shape) numel *= n;
      std::vector<float> data(static_cast<size_t>(numel));
      for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<float>((static_cast<int>(k * 7 + i * 3) % 11) - 5);
      inputs.push_back(HostTensor::from_vector<float>(shape, data));
      values.push_back(inputs.back().to_doubles());
      tensors.emplace_back(b.input("x" + std::to_string(i), f32(std::vector<SymExpr>(shape.begin(), shape.end()))));
    }
    std::vector<SymExpr> out_shape;
    for (char s : c.output) out_shape.push_back(size.at(s));
    b.output({call_with_meta(b, "aten::einsum", {c.equation, tensors}, f32(out_shape))});
    ExportedProgram program = decomposed(std::move(b));
    EXPECT_THAT(program.to_string(), Not(HasSubstr("einsum"))) << c.equation;
    std::vector<PyTree> leaves;
    for (const HostTensor& input : inputs) leaves.push_back(PyTree::make_leaf(input));
    const auto flat = tree_flatten(call_program(program, PyTree::tuple(std::move(leaves))));
    EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), einsum_reference(c.inputs, c.output, values, size))
        << c.equation;
  }
}

TEST(DecomposeTest, EinsumWithADiagonalOrAnEllipsisIsAnErrorNamingIt) {
  for (const auto& [equation, message] : std::vector<std::pair<std::string, std::string>>{
           {"ii->i", "subscript 'i' repeats in 'ii' (a diagonal)"}, {"...i->i", "ellipsis"}}) {
    GraphBuilder b;
    Node* x = b.input("x", f32({3, 3}));
    b.output({call_with_meta(b, "aten::einsum", {equation, ArgumentList{x}}, f32({3}))});
    ExportedProgram program = std::move(b).build();
    expect_error([&] { decompose_to_core_aten(program); }, message);
  }
}

// InstanceNorm's core form: each channel normalized by its own statistics
// over the batch and the spatial dims; the mean and rstd come out per channel.
TEST(DecomposeTest, BatchNormWithoutRunningStatsUsesTheBatchStatistics) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2, 2}));
  Node* weight = b.parameter("weight", HostTensor::from_vector<float>({2}, {1, 10}));
  Node* bias = b.parameter("bias", HostTensor::from_vector<float>({2}, {0, 1}));
  Node* norm = call_with_meta(b, "aten::_native_batch_norm_legit.no_stats", {x, weight, bias, true, 0.1, 0.0},
                              std::vector<TensorMeta>{f32({2, 2, 2}), f32({2}), f32({2})});
  b.output({b.getitem(norm, 0), b.getitem(norm, 1), b.getitem(norm, 2)});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), Not(HasSubstr("_native_batch_norm_legit")));
  HostTensor xv = HostTensor::from_vector<float>({2, 2, 2}, {1, 3, 0, 0, 5, 7, 4, 4});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  const double s = 1 / std::sqrt(5.0);
  const std::vector<std::vector<double>> expected = {{-3 * s, -1 * s, -9, -9, s, 3 * s, 11, 11}, {4, 2}, {s, 0.5}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::vector<double> got = std::get<HostTensor>(flat.first.at(i)).to_doubles();
    ASSERT_EQ(got.size(), expected[i].size()) << "output " << i;
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], expected[i][j], 1e-6) << "output " << i << " at " << j;
  }
}

TEST(DecomposeTest, LegitBatchNormInEvalModeUsesTheRunningStatsAndRefusesTrainingMode) {
  auto build = [](bool training) {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 2, 2}));
    Node* mean = b.buffer("running_mean", ramp({2}));
    Node* var = b.buffer("running_var", ramp({2}, 1.0f));
    Node* norm = call_with_meta(b, "aten::_native_batch_norm_legit", {x, None{}, None{}, mean, var, training, 0.1, 0.0},
                                std::vector<TensorMeta>{f32({1, 2, 2}), f32({0}), f32({0})});
    b.output({b.getitem(norm, 0)});
    return b;
  };
  ExportedProgram program = decomposed(build(false));
  EXPECT_THAT(program.to_string(), HasSubstr("_native_batch_norm_legit_no_training.default(x, None, None"));
  ExportedProgram training = std::move(build(true)).build();
  expect_error([&] { decompose_to_core_aten(training); },
               "training-mode batch norm updates its running statistics (export the model in eval mode)");
}

// empty's values are unspecified: zeros; the layout queries are ints known
// ahead of time for Kiln's dense tensors.
TEST(DecomposeTest, EmptyAndLayoutQueriesBecomeConstants) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* stride = call_with_meta(b, "aten::sym_stride.int", {x, 1}, SymExpr(4));
  Node* offset = call_with_meta(b, "aten::sym_storage_offset", {x}, SymExpr(0));
  Node* empty = call_with_meta(b, "aten::empty.memory_format", {Argument(ArgumentList{stride, 2})}, f32({4, 2}));
  Node* strided = call_with_meta(b, "aten::empty_strided", {ArgumentList{2}, ArgumentList{offset}}, f32({2}));
  b.output({empty, strided});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.full.default([4, 2], 0"));
  EXPECT_THAT(text, Not(HasSubstr("sym_stride")));
  EXPECT_THAT(text, Not(HasSubstr("empty")));
  HostTensor xv = HostTensor::from_vector<float>({2, 3, 4}, std::vector<float>(24, 1.0f));
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), std::vector<double>(8, 0.0));
}

// A program already in core ATen keeps its ops but those without a kernel
// (mean.default: its out variant mean.dtype_out has none), which their rules
// rewrite; sampling as torch spells it (normal_functional, bernoulli.p) too.
TEST(DecomposeTest, ACoreProgramLosesOnlyTheOpsWithoutKernels) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* mean = call_with_meta(b, "aten::mean", {x}, f32({}));
  Node* relu = b.call("aten::relu", {x});
  Node* noise = b.call("aten::normal_functional", {x, 0.5, 2.0});
  Node* coin = b.call("aten::bernoulli.p", {x, 0.25});
  b.output({mean, relu, noise, coin});
  ExportedProgram program = std::move(b).build();
  program.set_dialect(kAtenDialect);
  const auto registered = [](const std::string& name) { return interpreter_has_kernel(name); };
  EXPECT_TRUE(decompose_ops_without_kernels(program, registered));
  const std::string text = program.to_string();
  EXPECT_THAT(text, Not(HasSubstr("aten.mean.default")));
  EXPECT_THAT(text, HasSubstr("aten.relu.default"));
  EXPECT_THAT(text, HasSubstr("aten.normal.float_float(0.5, 2.0, [2, 3]"));
  EXPECT_THAT(text, HasSubstr("aten.lt.Scalar"));
  EXPECT_NO_THROW(check_ops_supported(program, registered, "the portable kernels"));
  HostTensor xv = HostTensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), std::vector<double>{3.5});
  EXPECT_FALSE(decompose_ops_without_kernels(program, registered));
}

// resize_ keeps the first elements in the new shape; a later read of the
// resized tensor sees them.
TEST(DecomposeTest, ResizeKeepsTheFirstElementsAndRefusesToGrow) {
  auto build = [](int64_t size) {
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 3}));
    Node* relu = b.call("aten::relu", {x});
    call_with_meta(b, "aten::resize_", {relu, ArgumentList{size}}, f32({size}));
    b.output({call_with_meta(b, "aten::neg", {relu}, f32({size}))});
    return b;
  };
  ExportedProgram program = decomposed(build(4));
  HostTensor xv = HostTensor::from_vector<float>({2, 3}, {1, -2, 3, 4, 5, 6});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{-1, 0, -3, -4}));
  ExportedProgram grows = std::move(build(7)).build();
  expect_error([&] { decompose_to_core_aten(grows); }, "grows 'relu' from 6 to 7 elements");
}

TEST(DecomposeTest, EvalBatchNormBecomesTheLegitOpAndGetitem) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3, 3}));
  Node* weight = b.parameter("bn.weight", ramp({2}));
  Node* bias = b.parameter("bn.bias", ramp({2}));
  Node* mean = b.buffer("bn.running_mean", ramp({2}));
  Node* var = b.buffer("bn.running_var", ramp({2}, 0.0f));
  b.output({call_with_meta(b, "aten::batch_norm", {x, weight, bias, mean, var, false, 0.1, 1e-5, false}, f32({1, 2, 3, 3}))});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("_native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training"
                              ".default(x, p_bn_weight, p_bn_bias, b_bn_running_mean, b_bn_running_var, 0.1, 1e-05)"));
  EXPECT_THAT(text, HasSubstr("getitem: \"f32[1, 2, 3, 3]\" = _native_batch_norm_legit_no_training[0]"));
  EXPECT_THAT(text, Not(HasSubstr("aten.batch_norm")));
}

TEST(DecomposeTest, TransposeSwapaxesAndTBecomePermute) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* y = call_with_meta(b, "aten::transpose.int", {x, -1, 0}, f32({4, 3, 2}));
  Node* z = call_with_meta(b, "aten::select.int", {y, 1, 0}, f32({4, 2}));
  Node* transposed = call_with_meta(b, "aten::t", {z}, f32({2, 4}));
  Node* swapped = call_with_meta(b, "aten::swapaxes", {x, 0, 1}, f32({3, 2, 4}));
  Node* swapped_back = call_with_meta(b, "aten::swapdims", {swapped, 1, 0}, f32({2, 3, 4}));
  b.output({transposed, swapped_back});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("permute: \"f32[4, 3, 2]\" = torch.ops.aten.permute.default(x, [2, 1, 0])"));
  EXPECT_THAT(text, HasSubstr("permute_1: \"f32[2, 4]\" = torch.ops.aten.permute.default(select, [1, 0])"));
  EXPECT_THAT(text, HasSubstr("permute_2: \"f32[3, 2, 4]\" = torch.ops.aten.permute.default(x, [1, 0, 2])"));
  EXPECT_THAT(text, HasSubstr("permute_3: \"f32[2, 3, 4]\" = torch.ops.aten.permute.default(permute_2, [1, 0, 2])"));
}

TEST(DecomposeTest, AdaptiveAvgPoolToOneBecomesMean) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 3, 3}));
  b.output({call_with_meta(b, "aten::adaptive_avg_pool2d", {x, ArgumentList{1, 1}}, f32({1, 2, 1, 1}))});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("mean: \"f32[1, 2, 1, 1]\" = torch.ops.aten.mean.dim(x, [-1, -2], True)"));
}

TEST(DecomposeTest, AdaptiveAvgPoolToOtherSizesBecomesTheCoreOp) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 5, 4}));
  b.output({b.call("aten::adaptive_avg_pool2d", {x, ArgumentList{2, 3}})});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("_adaptive_avg_pool2d: \"f32[1, 2, 2, 3]\" = torch.ops.aten._adaptive_avg_pool2d.default(x, [2, 3])"));
}

TEST(DecomposeTest, InPlaceAddOnAUserInputBecomesAMutationOutput) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* y = b.input("y", f32({3}));
  Node* added = call_with_meta(b, "aten::add_.Tensor", {x, y}, f32({3}));
  b.output({b.call("aten::mul.Tensor", {x, added})});
  ExportedProgram program = decomposed(std::move(b));
  const auto& outputs = program.graph_signature().output_specs;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].kind, OutputKind::UserInputMutation);
  EXPECT_EQ(outputs[0].target, "x");
  EXPECT_EQ(outputs[0].arg.name, "add");
  EXPECT_EQ(outputs[1].kind, OutputKind::UserOutput);
  // The later use of x reads the new value.
  EXPECT_THAT(program.to_string(), HasSubstr("torch.ops.aten.mul.Tensor(add, add)"));

  HostTensor xv = HostTensor::from_vector<float>({3}, {1, 2, 3});
  HostTensor yv = HostTensor::from_vector<float>({3}, {10, 20, 30});
  const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(xv), PyTree::make_leaf(yv)}));
  const auto flat = tree_flatten(result);
  const HostTensor& out = std::get<HostTensor>(flat.first.at(0));
  EXPECT_EQ(out.to_doubles(), (std::vector<double>{121, 484, 1089}));
  EXPECT_EQ(xv.to_doubles(), (std::vector<double>{11, 22, 33}));
}

// nn.Dropout(inplace=True) in eval mode, as torch.export.export leaves it
// (EfficientNet, MNASNet, MobileNetV3): functionalized by the op table's
// in-place rule, then decomposed away.
TEST(DecomposeTest, InPlaceDropoutInEvalModeVanishes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  Node* relu = b.call("aten::relu", {x});
  Node* dropped = call_with_meta(b, "aten::dropout_", {relu, 0.2, false}, f32({4}));
  b.output({b.call("aten::neg", {dropped})});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), ::testing::Not(HasSubstr("dropout")));
  EXPECT_EQ(program.graph_signature().output_specs.size(), 1u);  // an intermediate: no mutation output
  HostTensor xv = HostTensor::from_vector<float>({4}, {-1, 2, -3, 4});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{0, -2, 0, -4}));
}

// EfficientNet's classifier: Dropout(inplace=True) on a flattened view. A
// write through a reshape is a write of the whole tensor, reshaped back: here
// of a user input, which becomes a mutation output.
TEST(DecomposeTest, InPlaceWriteThroughAReshapeWritesTheWholeTensor) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  Node* flat = b.call("aten::flatten.using_ints", {x, 0});
  Node* added = call_with_meta(b, "aten::add_.Tensor", {flat, b.input("y", f32({4}))}, f32({4}));
  Node* dropped = call_with_meta(b, "aten::dropout_", {added, 0.2, false}, f32({4}));
  b.output({b.call("aten::neg", {dropped}), b.call("aten::mul.Tensor", {x, 2})});
  ExportedProgram program = decomposed(std::move(b));
  const auto& outputs = program.graph_signature().output_specs;
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].kind, OutputKind::UserInputMutation);
  EXPECT_EQ(outputs[0].target, "x");
  HostTensor xv = HostTensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  HostTensor yv = HostTensor::from_vector<float>({4}, {10, 20, 30, 40});
  const auto flat_out = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv), PyTree::make_leaf(yv)})));
  EXPECT_EQ(std::get<HostTensor>(flat_out.first.at(0)).to_doubles(), (std::vector<double>{-11, -22, -33, -44}));
  // x read after the write sees it: (x + y) * 2.
  EXPECT_EQ(std::get<HostTensor>(flat_out.first.at(1)).to_doubles(), (std::vector<double>{22, 44, 66, 88}));
  EXPECT_EQ(xv.to_doubles(), (std::vector<double>{11, 22, 33, 44}));
}

// Swin's attention mask: fill_ on slices of slices of a tensor, as torch
// leaves `mask[h, w] = cnt` in the training IR. Each write becomes the
// scatter inverse to its views (slice_scatter, select_scatter); a view taken
// before a write and read after it reads the new value, as it would in torch.
TEST(DecomposeTest, InPlaceWritesThroughSlicesAndSelectsWriteTheirBase) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  Node* y = b.input("y", f32({3}));
  Node* mask = b.call("aten::relu", {x});
  Node* lower = b.call("aten::slice.Tensor", {mask, 0, 2, 4});  // taken before the writes
  Node* rows = b.call("aten::slice.Tensor", {mask, 0, 1, 3});
  Node* block = b.call("aten::slice.Tensor", {rows, 1, 1, 3});
  Node* filled = call_with_meta(b, "aten::fill_.Scalar", {block, 5.0}, f32({2, 2}));
  call_with_meta(b, "aten::mul_.Tensor", {filled, 2.0}, f32({2, 2}));  // through the fill's result
  Node* last = b.call("aten::select.int", {mask, 0, 3});
  call_with_meta(b, "aten::copy_.default", {last, y}, f32({3}));
  b.output({mask, b.call("aten::neg", {lower})});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("slice_scatter"));
  EXPECT_THAT(text, HasSubstr("select_scatter"));
  EXPECT_EQ(program.graph_signature().output_specs.size(), 2u);  // an intermediate: no mutation output

  HostTensor xv = HostTensor::from_vector<float>({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  HostTensor yv = HostTensor::from_vector<float>({3}, {-1, -2, -3});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv), PyTree::make_leaf(yv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(),
            (std::vector<double>{1, 2, 3, 4, 10, 10, 7, 10, 10, -1, -2, -3}));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(1)).to_doubles(), (std::vector<double>{-7, -10, -10, 1, 2, 3}));
}

// A write through a view with no inverse scatter yet is refused, naming the
// view, rather than silently leaving the base as it was.
TEST(DecomposeTest, InPlaceWriteThroughAnAsStridedViewIsAnErrorNamingTheView) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 3}));
  Node* mask = b.call("aten::relu", {x});
  Node* window = b.call("aten::as_strided", {mask, ArgumentList{2, 2}, ArgumentList{3, 1}});
  call_with_meta(b, "aten::fill_.Scalar", {window, 1.0}, f32({2, 2}));
  b.output({mask});
  ExportedProgram program = std::move(b).build();
  expect_error([&] { decompose_to_core_aten(program); },
               "writes in place into 'as_strided', a view (aten::as_strided.default) of another tensor; writing through "
               "this kind of view is not supported yet");
}

// transformers' static KV cache: `cumulative_length.copy_(pos)`, then
// `.to(...)` of it with nothing to change (which returns the tensor itself),
// then `add_` on that. The write lands in the buffer; a `to` that does change
// the dtype returns a new tensor, whose writes stay in it.
TEST(DecomposeTest, InPlaceWriteThroughAToThatChangesNothingWritesItsTensor) {
  GraphBuilder b;
  const TensorMeta i64({ScalarType::Long, std::vector<int64_t>{1}});
  const TensorMeta f64({ScalarType::Double, std::vector<int64_t>{1}});
  Node* pos = b.input("pos", i64);
  Node* length = b.buffer("length", HostTensor::from_vector<int64_t>({1}, {0}));
  Node* copied = call_with_meta(b, "aten::copy_", {length, pos}, i64);
  Node* same = call_with_meta(b, "aten::to.dtype_layout", {copied}, i64, {{"dtype", ScalarType::Long}});
  Node* advanced = call_with_meta(b, "aten::add_.Tensor", {same, 3}, i64);
  Node* widened = call_with_meta(b, "aten::to.dtype", {length, ScalarType::Double}, f64);
  Node* doubled = call_with_meta(b, "aten::mul_.Tensor", {widened, 2}, f64);
  b.output({b.call("aten::mul.Tensor", {advanced, 10}), doubled});
  ExportedProgram program = decomposed(std::move(b));
  const auto& outputs = program.graph_signature().output_specs;
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].kind, OutputKind::BufferMutation);
  EXPECT_EQ(outputs[0].target, "length");

  HostTensor posv = HostTensor::from_vector<int64_t>({1}, {4});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(posv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), std::vector<double>{70});  // read through `to`
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(1)).to_doubles(), std::vector<double>{14});  // a copy, doubled
  EXPECT_EQ(program.named_buffers().at(0).second.to_doubles(), std::vector<double>{7});      // 4 + 3
}

// BEiT's relative position index: `.permute(1, 2, 0).contiguous()`, then
// `index[:, :, 0] += 7` on it. contiguous copies a tensor laid out otherwise
// (a permute's result, in another dim order), so the write stays in the
// copy; of a contiguous tensor it returns the tensor itself, and the write
// lands there.
TEST(DecomposeTest, InPlaceWriteThroughContiguousWritesItsTensorOnlyWhenItIsOne) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* permuted = b.call("aten::permute", {x, ArgumentList{1, 0}});
  TensorMeta permuted_meta = f32({3, 2});
  permuted_meta.dim_order = {1, 0};
  permuted->meta.val = permuted_meta;
  Node* copy = call_with_meta(b, "aten::contiguous", {permuted}, f32({3, 2}));
  call_with_meta(b, "aten::add_.Tensor", {b.call("aten::select.int", {copy, 1, 0}), 7}, f32({3}));
  Node* fresh = b.call("aten::relu", {x});
  Node* same = call_with_meta(b, "aten::contiguous", {fresh}, f32({2, 3}));
  call_with_meta(b, "aten::mul_.Tensor", {same, 10}, f32({2, 3}));
  b.output({copy, b.call("aten::neg", {permuted}), fresh});
  ExportedProgram program = decomposed(std::move(b));

  HostTensor xv = HostTensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(xv)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{8, 4, 9, 5, 10, 6}));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(1)).to_doubles(), (std::vector<double>{-1, -4, -2, -5, -3, -6}));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(2)).to_doubles(), (std::vector<double>{10, 20, 30, 40, 50, 60}));
}

TEST(DecomposeTest, InPlaceOpOnAParameterIsAnError) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* w = b.parameter("w", ramp({3}));
  b.output({call_with_meta(b, "aten::mul_.Tensor", {w, x}, f32({3}))});
  ExportedProgram program = std::move(b).build();
  EXPECT_THROW(decompose_to_core_aten(program), AotError);
}

TEST(DecomposeTest, InPlaceReluOnATemporaryBecomesRelu) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* doubled = b.call("aten::mul.Tensor", {x, 2});
  Node* relu = b.call("aten::relu_", {doubled});
  b.output({b.call("aten::add.Tensor", {doubled, relu})});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_EQ(program.graph_signature().output_specs.size(), 1u);
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("relu: \"f32[3]\" = torch.ops.aten.relu.default(mul)"));
  // The later use of the mutated temporary reads the new value.
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.add.Tensor(relu, relu)"));
}

TEST(DecomposeTest, CopyIntoABufferBecomesABufferMutation) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* state = b.buffer("state", ramp({3}));
  Node* copied = call_with_meta(b, "aten::copy_", {state, x}, f32({3}));
  b.output({b.call("aten::mul.Tensor", {copied, 2})});
  ExportedProgram program = decomposed(std::move(b));
  const auto& outputs = program.graph_signature().output_specs;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].kind, OutputKind::BufferMutation);
  EXPECT_EQ(outputs[0].target, "state");
  EXPECT_THAT(program.to_string(), HasSubstr("clone: \"f32[3]\" = torch.ops.aten.clone.default(x)"));

  HostTensor xv = HostTensor::from_vector<float>({3}, {1, 2, 3});
  const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(xv)}));
  const auto flat = tree_flatten(result);
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(program.named_buffers().at(0).second.to_doubles(), (std::vector<double>{1, 2, 3}));
}

// A non-strict export lifts a plain tensor attribute that forward writes as
// a constant: it becomes program state, a non-persistent buffer kept between
// calls, as torch's module() keeps it.
TEST(DecomposeTest, AWrittenLiftedConstantBecomesANonPersistentBuffer) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* count = b.constant("count", HostTensor::from_vector<float>({1}, {5}));
  Node* added = call_with_meta(b, "aten::add_.Tensor", {count, 1}, f32({1}));
  b.output({b.call("aten::mul.Tensor", {x, added})});
  ExportedProgram program = decomposed(std::move(b));
  const InputSpec& spec = program.graph_signature().input_specs.at(0);
  EXPECT_EQ(spec.kind, InputKind::Buffer);
  EXPECT_EQ(spec.target, "count");
  EXPECT_EQ(spec.persistent, std::optional<bool>(false));
  const auto& outputs = program.graph_signature().output_specs;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].kind, OutputKind::BufferMutation);
  EXPECT_EQ(outputs[0].target, "count");

  HostTensor xv = HostTensor::from_vector<float>({3}, {1, 2, 3});
  for (double expected_count : {6.0, 7.0}) {
    const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(xv)}));
    const auto flat = tree_flatten(result);
    EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(),
              (std::vector<double>{expected_count, 2 * expected_count, 3 * expected_count}));
    EXPECT_EQ(program.named_buffers().at(0).second.to_doubles(), std::vector<double>{expected_count});
  }
}

// softmax(q k^T / sqrt(E) + mask) v, computed directly, for [B, L, E] inputs.
std::vector<double> reference_attention(const HostTensor& q, const HostTensor& k, const HostTensor& v,
                                        const std::vector<bool>& allowed) {
  const int64_t batch = q.sizes()[0], len = q.sizes()[1], embed = q.sizes()[2];
  const auto qd = q.to_doubles(), kd = k.to_doubles(), vd = v.to_doubles();
  std::vector<double> out(static_cast<size_t>(batch * len * embed), 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < len; ++i) {
      std::vector<double> scores(static_cast<size_t>(len));
      double top = -1e300, total = 0.0;
      for (int64_t j = 0; j < len; ++j) {
        double dot = 0.0;
        for (int64_t e = 0; e < embed; ++e) dot += qd[(b * len + i) * embed + e] * kd[(b * len + j) * embed + e];
        scores[j] = allowed[i * len + j] ? dot / std::sqrt(static_cast<double>(embed)) : -1e300;
        top = std::max(top, scores[j]);
      }
      for (auto& s : scores) total += (s = std::exp(s - top));
      for (int64_t j = 0; j < len; ++j) {
        for (int64_t e = 0; e < embed; ++e) out[(b * len + i) * embed + e] += scores[j] / total * vd[(b * len + j) * embed + e];
      }
    }
  }
  return out;
}

TEST(DecomposeTest, AttentionWithABoolMaskBecomesBmmSoftmaxBmmAndRuns) {
  GraphBuilder b;
  Node* q = b.input("q", f32({1, 2, 3, 4}));
  Node* k = b.input("k", f32({1, 2, 3, 4}));
  Node* v = b.input("v", f32({1, 2, 3, 4}));
  TensorMeta mask_meta(ScalarType::Bool, std::vector<int64_t>{3, 3});
  Node* mask = b.input("mask", mask_meta);
  b.output({call_with_meta(b, "aten::scaled_dot_product_attention", {q, k, v, mask}, f32({1, 2, 3, 4}))});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.mul.Tensor(q, 0.5)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.permute.default(k, [0, 1, 3, 2])"));
  // The mask as PyTorch's math attention reads it: an additive bias.
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.where.self(mask, full_like, -inf)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.add.Tensor(view_2, where)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._softmax.default(add, -1, False)"));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());

  const HostTensor qv = ramp({1, 2, 3, 4}, 0.3f), kv = ramp({1, 2, 3, 4}, 0.2f), vv = ramp({1, 2, 3, 4}, 0.5f);
  const std::vector<bool> allowed = {true, false, false, true, true, false, true, true, true};
  HostTensor mv = HostTensor::zeros(ScalarType::Bool, {3, 3});
  for (size_t i = 0; i < allowed.size(); ++i) mv.data<bool>()[i] = allowed[i];
  const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(qv), PyTree::make_leaf(kv),
                                                             PyTree::make_leaf(vv), PyTree::make_leaf(mv)}));
  const auto flat = tree_flatten(result);
  const auto actual = std::get<HostTensor>(flat.first.at(0)).to_doubles();
  auto as3d = [](const HostTensor& t) {
    HostTensor copy = HostTensor::zeros(ScalarType::Float, {2, 3, 4});
    std::copy_n(t.data<float>(), 24, copy.data<float>());
    return copy;
  };
  const auto expected = reference_attention(as3d(qv), as3d(kv), as3d(vv), allowed);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-5) << "element " << i;
}

}  // namespace
}  // namespace kiln::aot
