#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/pass_manager.h"
#include "aot/ir/verifier.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using testing::filled;

using ::testing::HasSubstr;

// x + weight, relu: the smallest program with a parameter.
ExportedProgram add_relu_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* w = b.parameter("linear.weight", filled({2, 3}, 1.0f));
  Node* sum = b.call("aten::add.Tensor", {x, w});
  b.output({b.call("aten::relu", {sum})});
  return std::move(b).build();
}

// The text torch 2.15 prints for the same module (minus its "# No stacktrace
// found" comment, which only marks nodes without a stack trace).
TEST(ExportedProgramTest, PrintsLikeTorch) {
  const std::string expected =
      "ExportedProgram:\n"
      "    class GraphModule(torch.nn.Module):\n"
      "        def forward(self, p_linear_weight: \"f32[2, 3]\", x: \"f32[2, 3]\"):\n"
      "            add: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, p_linear_weight);  x = p_linear_weight = None\n"
      "            relu: \"f32[2, 3]\" = torch.ops.aten.relu.default(add);  add = None\n"
      "            return (relu,)\n"
      "    \n"
      "Graph signature:\n"
      "    # inputs\n"
      "    p_linear_weight: PARAMETER target='linear.weight'\n"
      "    x: USER_INPUT\n"
      "    \n"
      "    # outputs\n"
      "    relu: USER_OUTPUT\n"
      "    \n"
      "Range constraints: {}\n";
  EXPECT_EQ(add_relu_program().to_string(), expected);
}

TEST(ExportedProgramTest, PrintsKwargsGetitemSymbolsAndRanges) {
  GraphBuilder b;
  Node* x = b.input("x", f32({SymExpr::symbol("s0"), SymExpr::constant(3)}));
  b.set_range("s0", ValueRange{1, 8});
  Node* sum = b.call("aten::add.Tensor", {x, x}, {{"alpha", int64_t{2}}});
  Node* size = b.call("aten::sym_size.int", {x, int64_t{0}});
  Node* flat = b.call("aten::view_copy", {sum, ArgumentList{size, int64_t{3}}});
  b.output({flat});
  const std::string text = std::move(b).build().to_string();
  EXPECT_THAT(text, HasSubstr("def forward(self, x: \"f32[s0, 3]\"):"));
  EXPECT_THAT(text, HasSubstr("add: \"f32[s0, 3]\" = torch.ops.aten.add.Tensor(x, x, alpha = 2)"));
  EXPECT_THAT(text, HasSubstr("sym_size: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0);  x = None"));
  EXPECT_THAT(text, HasSubstr("view_copy: \"f32[s0, 3]\" = torch.ops.aten.view_copy.default(add, [sym_size, 3])"));
  EXPECT_THAT(text, HasSubstr("Range constraints: {s0: VR[1, 8]}"));
}

TEST(ExportedProgramTest, BuilderOrdersPlaceholdersAsTorchExportDoes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* c = b.constant("scale", filled({3}, 2.0f));
  Node* buf = b.buffer("running", filled({3}, 0.0f));
  Node* p = b.parameter("weight", filled({3}, 1.0f));
  Node* y = b.call("aten::mul.Tensor", {b.call("aten::add.Tensor", {x, p}), c});
  b.mutate_buffer("running", b.call("aten::add.Tensor", {buf, y}));
  b.output({y});
  ExportedProgram program = std::move(b).build();

  std::vector<std::string> names;
  for (Node* node : program.graph().placeholders()) names.push_back(node->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p_weight", "b_running", "c_scale", "x"}));
  const GraphSignature& sig = program.graph_signature();
  EXPECT_EQ(sig.parameters(), std::vector<std::string>{"weight"});
  EXPECT_EQ(sig.buffers(), std::vector<std::string>{"running"});
  EXPECT_EQ(sig.lifted_tensor_constants(), std::vector<std::string>{"scale"});
  EXPECT_EQ(sig.buffers_to_mutate(), (std::map<std::string, std::string>{{"add_1", "running"}}));
  EXPECT_EQ(sig.user_outputs(), std::vector<std::string>{"mul"});
  // Mutations come before user outputs, as torch.export orders them.
  EXPECT_EQ(sig.output_specs[0].kind, OutputKind::BufferMutation);
  EXPECT_EQ(program.in_spec()->to_string(), "TreeSpec(tuple, None, [TreeSpec(tuple, None, [*]), TreeSpec(dict, [], [])])");
  EXPECT_EQ(program.out_spec()->to_string(), "*");
}

TEST(ExportedProgramTest, NamedParametersAndBuffersComeFromStateDictAndConstants) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* p = b.parameter("w", filled({3}, 1.0f));
  Node* kept = b.buffer("kept", filled({3}, 2.0f), true);
  Node* scratch = b.buffer("scratch", filled({3}, 3.0f), false);
  b.output({b.call("aten::add.Tensor", {b.call("aten::add.Tensor", {x, p}), b.call("aten::mul.Tensor", {kept, scratch})})});
  ExportedProgram program = std::move(b).build();

  auto params = program.named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].first, "w");
  auto buffers = program.named_buffers();
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].first, "kept");
  EXPECT_EQ(buffers[0].second.data<float>()[0], 2.0f);
  EXPECT_EQ(buffers[1].first, "scratch");
  EXPECT_EQ(buffers[1].second.data<float>()[0], 3.0f);
  EXPECT_EQ(program.graph_signature().non_persistent_buffers(), std::vector<std::string>{"scratch"});
  EXPECT_EQ(program.state_dict().count("scratch"), 0u);
  EXPECT_EQ(program.constants().count("scratch"), 1u);
}

TEST(ExportedProgramTest, VerifierRejectsAMissingOrMisshapenWeight) {
  ExportedProgram good = add_relu_program();
  StateDict missing;
  expect_error([&] {
    ExportedProgram(good.graph().clone(), good.graph_signature(), missing, {}, good.module_call_graph());
  }, "placeholder 'p_linear_weight' (PARAMETER 'linear.weight') has no tensor in the state dict");

  StateDict misshapen{{"linear.weight", filled({3, 2}, 1.0f)}};
  expect_error([&] {
    ExportedProgram(good.graph().clone(), good.graph_signature(), misshapen, {}, good.module_call_graph());
  }, "is f32[2, 3] but the state dict holds f32[3, 2]");
}

TEST(ExportedProgramTest, VerifierRejectsASignatureOutOfStepWithTheGraph) {
  ExportedProgram good = add_relu_program();
  GraphSignature extra_input = good.graph_signature();
  extra_input.input_specs.push_back({InputKind::UserInput, ArgumentSpec::tensor("y"), "", std::nullopt});
  expect_error([&] {
    ExportedProgram(good.graph().clone(), extra_input, good.state_dict(), {}, good.module_call_graph());
  }, "the graph has 2 placeholders but the signature has 3 input specs");

  GraphSignature renamed = good.graph_signature();
  renamed.output_specs[0].arg.name = "add";
  expect_error([&] {
    ExportedProgram(good.graph().clone(), renamed, good.state_dict(), {}, good.module_call_graph());
  }, "output spec 0 names 'add' but the graph returns 'relu' there");
}

TEST(ExportedProgramTest, VerifierNamesAnUnknownOpAndTheEdgeDialectWantsCoreOps) {
  ExportedProgram good = add_relu_program();
  auto graph = good.graph().clone();
  graph->node("relu")->set_target("aten::not_an_op.default");
  expect_error([&] {
    ExportedProgram(std::move(graph), good.graph_signature(), good.state_dict(), {}, good.module_call_graph());
  }, "node 'relu' calls unknown op 'aten::not_an_op.default'");

  auto training = good.graph().clone();
  training->node("relu")->set_target("aten::relu_.default");
  expect_error([&] {
    ExportedProgram(std::move(training), good.graph_signature(), good.state_dict(), {}, good.module_call_graph(), {},
                    kEdgeDialect);
  }, "not a core ATen op");
  expect_error([&] { verifier_for("CORE"); }, "unknown dialect 'CORE' (known: TRAINING, ATEN, EDGE)");
}

TEST(ExportedProgramTest, DeepCopySharesNothingButKeepsTiedWeightsTied) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  HostTensor shared = filled({3}, 1.0f);
  Node* a = b.parameter("encoder.weight", shared);
  Node* d = b.parameter("decoder.weight", shared);  // tied: one storage
  b.output({b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {x, a}), d})});
  ExportedProgram original = std::move(b).build();

  ExportedProgram copy = original.deep_copy();
  copy.state_dict().at("encoder.weight").data<float>()[0] = 5.0f;
  EXPECT_EQ(original.state_dict().at("encoder.weight").data<float>()[0], 1.0f);
  EXPECT_EQ(copy.state_dict().at("decoder.weight").data<float>()[0], 5.0f);  // still tied in the copy
  copy.graph().rename(copy.graph().node("add"), "renamed");
  EXPECT_NE(original.graph().find_node("add"), nullptr);
  EXPECT_EQ(copy.to_string().find("p_encoder_weight"), original.to_string().find("p_encoder_weight"));
}

TEST(PassManagerTest, TransformKeepsTheSignatureInStepWithTheGraph) {
  ExportedProgram program = add_relu_program();
  // Replace relu(add) by clone(add) under a new name, and rename the input.
  Pass rewrite = graph_pass("relu_to_clone", [](Graph& graph) {
    Node* relu = graph.node("relu");
    graph.set_insert_point(relu);
    Node* clone = graph.call_function("aten::clone.default", {relu->args()[0]}, {}, "copied");
    clone->meta = relu->meta;
    relu->replace_all_uses_with(clone);
    graph.erase_node(relu);
    graph.set_insert_point(nullptr);
    graph.rename(graph.node("x"), "input");
    return true;
  });
  ExportedProgram result = transform(program, {rewrite});
  EXPECT_EQ(result.graph_signature().user_outputs(), std::vector<std::string>{"copied"});
  EXPECT_EQ(result.graph_signature().user_inputs(), std::vector<std::string>{"input"});
  // The original is untouched; the weights are shared, as torch shares the state dict.
  EXPECT_NE(program.graph().find_node("relu"), nullptr);
  EXPECT_EQ(result.state_dict().at("linear.weight").storage(), program.state_dict().at("linear.weight").storage());
}

TEST(PassManagerTest, FollowsARenamedUserInputInItsMutation) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* bumped = b.call("aten::add.Tensor", {x, x});
  b.mutate_input(x, bumped);
  b.output({bumped});
  ExportedProgram program = std::move(b).build();
  ExportedProgram result = transform(program, {graph_pass("rename", [](Graph& g) {
                                       g.rename(g.node("x"), "state");
                                       return true;
                                     })});
  EXPECT_EQ(result.graph_signature().user_inputs_to_mutate(),
            (std::map<std::string, std::string>{{"add", "state"}}));
}

TEST(PassManagerTest, NamesThePassThatBrokeTheProgram) {
  ExportedProgram program = add_relu_program();
  Pass breaks = graph_pass("drops_a_placeholder", [](Graph& graph) {
    Node* x = graph.node("x");
    x->replace_all_uses_with(graph.node("p_linear_weight"));
    graph.erase_node(x);
    return true;
  });
  expect_error([&] { transform(program, {breaks}); },
               "pass 'drops_a_placeholder': the number of placeholders changed from 2 to 1");

  PassManager manager({graph_pass("noop", [](Graph&) { return false; }),
                       graph_pass("touch", [](Graph&) { return true; })});
  ExportedProgram copy = program.deep_copy();
  manager.run(copy);
  EXPECT_EQ(manager.modified_by(), std::vector<std::string>{"touch"});
}

TEST(InferMetaTest, ConvolutionShapesFollowPyTorchsFormula) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 4, 10, 9}));
  Node* w = b.parameter("w", filled({6, 2, 3, 3}, 0.0f));
  Node* y = b.call("aten::convolution",
                   {x, w, None{}, ArgumentList{2, 1}, ArgumentList{1, 0}, ArgumentList{1, 2}, false,
                    ArgumentList{0, 0}, 2});
  // H: (10 + 2 - 3) // 2 + 1 = 5; W: (9 + 0 - 5) // 1 + 1 = 5.
  EXPECT_EQ(y->meta.tensor().to_string(), "f32[2, 6, 5, 5]");
}

TEST(InferMetaTest, BroadcastPromotionAndTrueDivision) {
  GraphBuilder b;
  Node* a = b.input("a", f32({2, 1, 3}));
  Node* i = b.input("i", i64({4, 1}));
  EXPECT_EQ(b.call("aten::add.Tensor", {a, i})->meta.tensor().to_string(), "f32[2, 4, 3]");
  EXPECT_EQ(b.call("aten::div.Tensor", {i, i})->meta.tensor().to_string(), "f32[4, 1]");
  EXPECT_EQ(b.call("aten::mul.Tensor", {i, i})->meta.tensor().to_string(), "i64[4, 1]");
}

TEST(InferMetaTest, BadCallsNameTheNodeAndTheProblem) {
  GraphBuilder b;
  Node* a = b.input("a", f32({2, 3}));
  Node* c = b.input("c", f32({4, 5}));
  expect_error([&] { b.call("aten::mm", {a, c}); }, "node 'mm' (aten::mm.default): cannot multiply f32[2, 3] by f32[4, 5]");
  expect_error([&] { b.call("aten::add.Tensor", {a, c}); }, "sizes 2 and 4 do not broadcast");
  expect_error([&] { b.call("aten::view_copy", {a, ArgumentList{-1, 4}}); }, "cannot view f32[2, 3] (6 elements)");
  expect_error([&] { b.call("aten::permute_copy", {a, ArgumentList{0, 0}}); }, "dim 0 appears twice");
  expect_error([&] { b.call("aten::add.Tensor", {a}); }, "is missing argument 'other'");
  expect_error([&] { b.call("aten::relu", {a}, {{"inplace", true}}); }, "has no argument named 'inplace'");
  expect_error([&] { b.call("aten::frobnicate", {a}); }, "aten::frobnicate");
  Node* image = b.input("image", f32({1, 2, 5, 5}));
  Node* weight = b.parameter("w", filled({1, 5, 3, 3}, 0.0f));
  const ArgumentList one = {1, 1}, zero = {0, 0};
  expect_error([&] { b.call("aten::convolution", {image, weight, None{}, one, zero, one, false, zero, 1}); },
               "input f32[1, 2, 5, 5] has 2 channels, but weight f32[1, 5, 3, 3] with groups=1 expects 5");
  Node* narrow = b.parameter("w2", filled({1, 2, 3, 3}, 0.0f));
  expect_error([&] { b.call("aten::convolution", {image, narrow, None{}, ArgumentList{0, 1}, zero, one, false, zero, 1}); },
               "stride must be positive, got [0, 1]");
  Node* flags = b.input("flags", TensorMeta(ScalarType::Bool, std::vector<int64_t>{2}));
  expect_error([&] { b.call("aten::sub.Tensor", {flags, flags}); }, "subtraction of bool tensors is not supported");
  // A failed call leaves no node behind.
  EXPECT_EQ(b.graph().find_node("mm"), nullptr);
}

}  // namespace
}  // namespace kiln::aot
