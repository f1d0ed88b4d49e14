// Whole-program lowering and LoweredBackendModule (ExecuTorch's
// test_backends.py whole-program cases and test_lowered_backend_module.py):
// the module's parts, its standalone program, copies, nesting in a larger
// graph, and how the IR prints, verifies and interprets a delegate call.
#include <cmath>

#include "aot/delegate/debug_handle.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/ir/verifier.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using testing::filled;
using testing::ramp;
using testing::run;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// out = a * w + a, with w a parameter: the smallest program with data.
ExportedProgram mul_add_program() {
  GraphBuilder b;
  Node* a = b.input("a", f32({2, 3}));
  Node* w = b.parameter("w", ramp({2, 3}, 1.0f, 0.5f));
  Node* product = b.call("aten::mul.Tensor", {a, w});
  b.output({b.call("aten::add.Tensor", {product, a})});
  return std::move(b).build();
}

// A counter buffer: count += x; returns x * count (the new count).
ExportedProgram counter_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* count = b.buffer("count", filled({3}, 1.0f));
  Node* next = b.call("aten::add.Tensor", {count, x});
  b.mutate_buffer("count", next);
  b.output({b.call("aten::mul.Tensor", {x, next})});
  return std::move(b).build();
}

TEST(LoweredBackendModuleTest, WholeProgramLoweringKeepsTheBackendsResult) {
  ExportedProgram program = mul_add_program();
  generate_debug_handles(program);
  const std::vector<CompileSpec> specs = {CompileSpec::from_string("level", "3")};
  LoweredBackendModule lowered = to_backend(testing::kAllOps, program, specs);
  EXPECT_EQ(lowered.backend_id(), "AllOpsBackend");
  EXPECT_EQ(testing::blob_text(lowered), "aten::mul.Tensor;aten::add.Tensor;");
  EXPECT_EQ(lowered.compile_specs(), specs);
  EXPECT_EQ(to_string(lowered.meta.debug_handle_map), "{0: (1,), 1: (2,)}");
  EXPECT_EQ(lowered.original_module().to_string(), program.to_string());
  // The module shares the program's data rather than copying it.
  EXPECT_EQ(lowered.original_module().state_dict().at("w").storage(), program.state_dict().at("w").storage());
  EXPECT_EQ(lowered.describe(), "backend_id='AllOpsBackend', 34 bytes, 2 ops, compile_specs=[level]");
}

TEST(LoweredBackendModuleTest, WholeProgramLoweringNamesAMissingBackendAndAFailure) {
  const ExportedProgram program = mul_add_program();
  expect_error([&] { to_backend("NoSuchBackend", program, {}); },
               "backend 'NoSuchBackend' was not found (registered backends: ");
  expect_error([&] { to_backend(testing::kAllOps, program, {CompileSpec::from_string("fail", "")}); },
               "backend 'AllOpsBackend' cannot lower the program: asked to fail");
}

TEST(LoweredBackendModuleTest, TheStandaloneProgramCallsTheDelegateOnce) {
  ExportedProgram program = mul_add_program();
  const LoweredBackendModule lowered = to_backend(testing::kAllOps, program, {});
  ExportedProgram standalone = lowered.program();
  EXPECT_THAT(testing::node_names(standalone),
              ElementsAre("a", "lowered_module_0", "executorch_call_delegate", "getitem", "output"));
  EXPECT_TRUE(standalone.state_dict().empty());
  EXPECT_EQ(standalone.graph_signature().to_string(), "# inputs\na: USER_INPUT\n\n# outputs\ngetitem: USER_OUTPUT\n");
  const std::string text = standalone.to_string();
  EXPECT_THAT(text, HasSubstr("lowered_module_0 = self.lowered_module_0\n"));
  EXPECT_THAT(text, HasSubstr("executorch_call_delegate = torch.ops.higher_order.executorch_call_delegate("
                              "lowered_module_0, a);  lowered_module_0 = a = None\n"));
  EXPECT_THAT(text, HasSubstr("getitem: \"f32[2, 3]\" = executorch_call_delegate[0]"));
  EXPECT_THAT(text, HasSubstr("Module attributes:\n    lowered_module_0: LoweredBackendModule(backend_id='AllOpsBackend'"));
  // a * w + a, with w = 1 + 0.5 i and a = 0.25 i.
  const auto out = run(standalone, {ramp({2, 3})})[0].to_doubles();
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out[i], 0.25 * i * (1.0 + 0.5 * i) + 0.25 * i);
  testing::expect_same_behaviour(program, standalone, {ramp({2, 3})});
}

TEST(LoweredBackendModuleTest, TheStandaloneProgramKeepsBufferMutationsInsideTheDelegate) {
  ExportedProgram program = counter_program();
  ExportedProgram reference = program.deep_copy();
  const LoweredBackendModule lowered = to_backend(testing::kAllOps, program.deep_copy(), {});
  ExportedProgram standalone = lowered.program();
  EXPECT_EQ(standalone.graph_signature().output_specs.size(), 1u);  // the mutation stays inside
  EXPECT_TRUE(standalone.graph_signature().buffers().empty());
  const HostTensor x = ramp({3}, 1.0f, 1.0f);
  testing::expect_same_behaviour(reference, standalone, {x}, 3);
  // count = 1 + 3x after three calls, kept by the delegate.
  EXPECT_THAT(testing::all_buffers(standalone).at("count").to_doubles(), ElementsAre(4.0, 7.0, 10.0));
}

TEST(LoweredBackendModuleTest, TheStandaloneProgramKeepsUserInputMutations) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* doubled = b.call("aten::mul.Tensor", {x, 2.0});
  b.mutate_input(x, doubled);
  b.output({b.call("aten::sin", {doubled})});
  ExportedProgram program = std::move(b).build();
  ExportedProgram standalone = to_backend(testing::kAllOps, program, {}).program();
  EXPECT_EQ(standalone.graph_signature().to_string(),
            "# inputs\nx: USER_INPUT\n\n# outputs\ngetitem: USER_INPUT_MUTATION target='x'\n"
            "getitem_1: USER_OUTPUT\n");
  testing::expect_same_behaviour(program, standalone, {ramp({2}, 1.0f)});
}

TEST(LoweredBackendModuleTest, DeepCopySharesDataAndCloneDoesNot) {
  LoweredBackendModule lowered = to_backend(testing::kAllOps, mul_add_program(), {});
  lowered.meta.debug_handle_map[int64_t{0}] = {1};
  const LoweredBackendModule copy = lowered.deep_copy();
  EXPECT_NE(&copy.original_module().graph(), &lowered.original_module().graph());
  EXPECT_NE(copy.original_module().graph().node("mul"), lowered.original_module().graph().node("mul"));
  EXPECT_EQ(copy.original_module().state_dict().at("w").storage(), lowered.original_module().state_dict().at("w").storage());
  EXPECT_EQ(copy.processed_bytes(), lowered.processed_bytes());
  EXPECT_EQ(copy.meta.debug_handle_map, lowered.meta.debug_handle_map);

  const auto cloned = std::dynamic_pointer_cast<LoweredBackendModule>(lowered.clone());
  ASSERT_NE(cloned, nullptr);
  EXPECT_NE(cloned->original_module().state_dict().at("w").storage(), lowered.original_module().state_dict().at("w").storage());
  EXPECT_EQ(cloned->original_module().state_dict().at("w").to_doubles(), lowered.original_module().state_dict().at("w").to_doubles());
  EXPECT_EQ(cloned->meta.debug_handle_map, lowered.meta.debug_handle_map);
}

// x -> relu -> [lowered a * w + a, called on relu] -> sin: a lowered module
// used as one step of a larger graph.
TEST(LoweredBackendModuleTest, ALoweredModuleRunsNestedInALargerGraph) {
  auto lowered = std::make_shared<LoweredBackendModule>(to_backend(testing::kAddMul, mul_add_program(), {}));
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* rectified = b.call("aten::relu", {x});
  Node* sine = b.call("aten::sin", {rectified});
  b.output({sine});
  ExportedProgram outer = std::move(b).build();
  outer.graph().set_insert_point(outer.graph().node("sin"));
  const std::vector<Node*> results = call_lowered_module(outer, lowered, {outer.graph().node("relu")});
  outer.graph().set_insert_point(nullptr);
  ASSERT_EQ(results.size(), 1u);
  outer.graph().node("sin")->set_arg(0, results[0]);
  outer.verify();
  verifier_for(kEdgeDialect).check(outer);

  const auto submodules = get_lowered_submodules(outer);
  ASSERT_EQ(submodules.size(), 1u);
  EXPECT_EQ(submodules[0].name, "lowered_module_0");
  EXPECT_EQ(submodules[0].module, lowered);
  EXPECT_EQ(submodules[0].call_node->name(), "executorch_call_delegate");
  EXPECT_EQ(get_lowered_backend_modules(outer), std::vector<std::shared_ptr<LoweredBackendModule>>{lowered});

  const auto out = run(outer, {ramp({2, 3}, -0.5f)})[0].to_doubles();
  for (int i = 0; i < 6; ++i) {
    const double a = std::max(0.0, -0.5 + 0.25 * i), w = 1.0 + 0.5 * i;
    EXPECT_NEAR(out[i], std::sin(a * w + a), 1e-6) << i;
  }
}

TEST(LoweredBackendModuleTest, TheVerifierChecksGetAttrAndDelegateCalls) {
  auto lowered = std::make_shared<LoweredBackendModule>(to_backend(testing::kAllOps, mul_add_program(), {}));
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  b.output({b.call("aten::sin", {x})});
  ExportedProgram outer = std::move(b).build();
  outer.graph().set_insert_point(outer.graph().node("sin"));
  Node* call = call_lowered_module(outer, lowered, {outer.graph().node("x")})[0]->args()[0].node();
  outer.verify();

  call->set_args({call->args()[0], outer.graph().node("x"), outer.graph().node("x")});
  expect_error([&] { outer.verify(); },
               "node 'executorch_call_delegate' (executorch_call_delegate) passes 2 inputs to 'lowered_module_0', "
               "which takes 1");
  call->set_args({call->args()[0], outer.graph().node("x")});
  outer.erase_attribute("lowered_module_0");
  expect_error([&] { outer.verify(); },
               "get_attr node 'lowered_module_0' fetches 'lowered_module_0', which the program does not hold "
               "(its attributes: none)");
  outer.set_attribute("lowered_module_0", lowered);
  call->set_args({outer.graph().node("x")});
  expect_error([&] { verifier_for(kEdgeDialect).check(outer); },
               "its first argument must be a get_attr of a lowered module");
}

TEST(LoweredBackendModuleTest, AFailureInsideADelegateNamesTheCallAndTheModule) {
  auto lowered = std::make_shared<LoweredBackendModule>(to_backend(testing::kAllOps, mul_add_program(), {}));
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 3}));
  b.output({b.call("aten::sin", {x})});
  ExportedProgram outer = std::move(b).build();
  outer.graph().set_insert_point(outer.graph().node("sin"));
  Node* result = call_lowered_module(outer, lowered, {outer.graph().node("x")})[0];
  outer.graph().node("sin")->set_arg(0, result);
  outer.verify();  // the verifier counts inputs; shapes are checked when the call runs
  expect_error([&] { run(outer, {ramp({3, 3})}); },
               "node 'executorch_call_delegate' (lowered module 'lowered_module_0'): input 'a' (args[0]) dim 0 must "
               "be 2 (f32[2, 3]), got 3 (f32[3, 3])");
}

TEST(LoweredBackendModuleTest, ProgramDeepCopyClonesModuleAttributesAndTransformSharesThem) {
  ExportedProgram standalone = to_backend(testing::kAllOps, mul_add_program(), {}).program();
  const ExportedProgram copy = standalone.deep_copy();
  EXPECT_NE(copy.find_attribute("lowered_module_0"), standalone.find_attribute("lowered_module_0"));
  EXPECT_EQ(copy.attribute("lowered_module_0").describe(), standalone.attribute("lowered_module_0").describe());
  const ExportedProgram shared = transform(standalone, {});
  EXPECT_EQ(shared.find_attribute("lowered_module_0"), standalone.find_attribute("lowered_module_0"));
  expect_error([&] { standalone.attribute("lowered_module_9"); },
               "the program has no attribute 'lowered_module_9' (it has: lowered_module_0)");
}

}  // namespace
}  // namespace kiln::aot
