// lower(): the chain of `kiln lower` as one call. The .pte of a training-IR
// fixture runs on the runtime with PyTorch's results; the call makes no
// decision of its own (its bytes are the steps' bytes, taken one by one);
// backends split the program in priority order; every refusal names what was
// wrong.
#include "aot/pipeline/lower.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/debug_handles.h"
#include "aot/passes/decompose.h"
#include "aot/passes/fuse_ops.h"
#include "aot/pipeline/fold_constants.h"
#include "runtime/core/random.h"
#include "tests/support/method_test_util.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
namespace mt = runtime::method_testing;

ExportedProgram fixture(const std::string& name, const std::string& file) {
  return load_pt2(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/" + name + "/" + file);
}

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const AotError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no AotError";
  return "";
}

TEST(Lower, TheTrainingIrRunsOnTheRuntimeAsPyTorchDid) {
  const LoweredProgram lowered = lower(fixture("mlp", "model.pt2"));
  EXPECT_EQ(lowered.edge.dialect(), kAtenDialect);
  const auto program = mt::load_program(lowered.buffer());
  ASSERT_NE(program, nullptr);
  mt::Memory memory(*program);
  runtime::Result<runtime::Method> method = mt::load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  const auto outputs = mt::run(method.get(), mt::tensors_of(testing::read_case_inputs("mlp", "case0")));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const auto expected = testing::read_case_expected("mlp", "case0");
  ASSERT_EQ(outputs.size(), 1u);
  mt::expect_matches(outputs[0], expected.at("output_0"), "output_0");
}

// x + randn_like(x), rand([3]) and torch.empty(2, 2).uniform_(-1, 1), as
// export writes them: the draws are made when the program runs, in its
// order, from the seeded generator (not folded into constants at lowering),
// so the runtime draws what the interpreter draws after the same seed.
ExportedProgram sampling_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 5}));
  Node* noisy = b.call("aten::add.Tensor", {x, b.call("aten::randn_like", {x})});
  Node* draws = b.call("aten::rand", {testing::ints({3})});
  Node* filled = b.call("aten::uniform", {b.call("aten::empty.memory_format", {testing::ints({2, 2})}), -1.0, 1.0});
  b.output({noisy, draws, filled});
  return std::move(b).build();
}

std::vector<HostTensor> interpret(ExportedProgram& program, const HostTensor& x) {
  const PyTree result = call_program(program, PyTree::tuple({PyTree::make_leaf(x.clone())}));
  std::vector<HostTensor> outputs;
  for (const PyTree& leaf : result.children) outputs.push_back(std::get<HostTensor>(leaf.leaf));
  return outputs;
}

TEST(Lower, SamplingDrawsAtRunTimeWhatTheInterpreterDrawsAfterTheSameSeed) {
  HostTensor x = HostTensor::zeros(ScalarType::Float, {4, 5});
  ExportedProgram reference = sampling_program();
  runtime::manual_seed(11);
  const std::vector<HostTensor> expected = interpret(reference, x);
  const LoweredProgram lowered = lower(sampling_program());
  const auto program = mt::load_program(lowered.buffer());
  ASSERT_NE(program, nullptr);
  mt::Memory memory(*program);
  runtime::Result<runtime::Method> method = mt::load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  runtime::manual_seed(11);
  const std::vector<HostTensor> first = mt::run(method.get(), {x.clone()});
  ASSERT_EQ(first.size(), expected.size());
  for (size_t i = 0; i < first.size(); ++i) mt::expect_matches(first[i], expected[i], "output_" + std::to_string(i));
  // The next call draws on; the same seed again draws the same.
  const std::vector<HostTensor> second = mt::run(method.get(), {x.clone()});
  EXPECT_NE(std::vector<float>(second[1].data<float>(), second[1].data<float>() + 3),
            std::vector<float>(first[1].data<float>(), first[1].data<float>() + 3));
  runtime::manual_seed(11);
  const std::vector<HostTensor> again = mt::run(method.get(), {x.clone()});
  for (size_t i = 0; i < again.size(); ++i) mt::expect_matches(again[i], first[i], "output_" + std::to_string(i));
}

TEST(Lower, MakesNoDecisionOfItsOwn) {
  ExportedProgram by_hand = fixture("small_cnn", "model.pt2");
  generate_debug_handles(by_hand);
  // With no backend asked for, the classifier (static rows) is Kiln's packed
  // linear: the one decision lower() takes from its options.
  EXPECT_TRUE(fuse_kiln_ops(by_hand, KilnOpsOptions{}));
  decompose_to_core_aten(by_hand);
  ExportedProgram unfolded = by_hand.copy_of_verified();
  fold_constants(by_hand);
  EXPECT_EQ(lower(fixture("small_cnn", "model.pt2")).buffer(), to_executorch(by_hand).buffer);
  LowerOptions options;
  options.fold_constants = false;
  EXPECT_EQ(lower(fixture("small_cnn", "model.pt2"), options).buffer(), to_executorch(unfolded).buffer);
}

TEST(Lower, SplitsTheProgramAcrossBackendsInPriorityOrder) {
  LowerOptions options;
  options.backends = {testing::kEveryOther, testing::kAllOps};
  const LoweredProgram lowered = lower(fixture("conv_relu_tan", "model.core.pt2"), options);
  ASSERT_EQ(lowered.reports.size(), 2u);
  EXPECT_EQ(lowered.reports[0].partitioner, std::string("CapabilityPartitioner(") + testing::kEveryOther + ")");
  EXPECT_TRUE(get_lowered_submodules(lowered.edge).empty());
  std::vector<std::string> backends;
  for (const auto& delegate : get_lowered_submodules(lowered.delegated)) {
    backends.push_back(delegate.module->backend_id());
  }
  // conv, relu, conv, relu, tan: the first backend takes every other op (the
  // convolutions and tan, each a delegate of its own, as a relu lies between
  // them); the second what is left, each relu.
  EXPECT_THAT(backends, ::testing::UnorderedElementsAre(testing::kEveryOther, testing::kEveryOther,
                                                        testing::kEveryOther, testing::kAllOps, testing::kAllOps));
  EXPECT_FALSE(lowered.buffer().empty());
}

// With a backend asked for, a split read part by part reaches the
// partitioners as slices, which a backend runs as crops (split_as_slices);
// with none, the portable kernels split it (split.Tensor has no kernel of
// its own: the core program gets its decomposition, split_with_sizes_copy).
TEST(Lower, ABackendSeesASplitAsSlices) {
  const auto program = [] {
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 6}));
    Node* split = b.call("aten::split.Tensor", {x, 3, 1});
    b.output({b.call("aten::add.Tensor", {b.getitem(split, 0), b.getitem(split, 1)})});
    return std::move(b).build();
  };
  const auto count = [](const ExportedProgram& p, const std::string& target) {
    int n = 0;
    for (const Node* node : p.graph()) n += node->is_call_function() && node->target() == target;
    return n;
  };
  const LoweredProgram portable = lower(program());
  EXPECT_EQ(count(portable.edge, "aten::split.Tensor"), 0);
  EXPECT_EQ(count(portable.edge, "aten::split_with_sizes_copy.default"), 1);
  LowerOptions options;
  options.backends = {testing::kAllOps};
  const LoweredProgram delegated = lower(program(), options);
  EXPECT_EQ(count(delegated.edge, "aten::split.Tensor"), 0);
  EXPECT_EQ(count(delegated.edge, "aten::slice_copy.Tensor"), 2);
  EXPECT_EQ(get_lowered_submodules(delegated.delegated).size(), 1u);
}

TEST(Lower, PassesEachBackendItsCompileSpecs) {
  LowerOptions options;
  options.backends = {testing::kAllOps};
  options.compile_specs[testing::kAllOps] = {CompileSpec::from_string("mode", "fast")};
  const LoweredProgram lowered = lower(fixture("mlp", "model.core.pt2"), options);
  const auto delegates = get_lowered_submodules(lowered.delegated);
  ASSERT_EQ(delegates.size(), 1u);
  EXPECT_EQ(delegates[0].module->compile_specs(), options.compile_specs[testing::kAllOps]);

  options.compile_specs["DemoBackend"] = {};
  EXPECT_THAT(error_of([&] { lower(fixture("mlp", "model.core.pt2"), options); }),
              HasSubstr("compile specs for backend 'DemoBackend', which is not among the backends"));
}

TEST(Lower, AnUnknownBackendIsNamedWithTheRegisteredOnes) {
  LowerOptions options;
  options.backends = {"NoSuchBackend"};
  const std::string error = error_of([&] { lower(fixture("mlp", "model.core.pt2"), options); });
  EXPECT_THAT(error, HasSubstr("NoSuchBackend"));
  EXPECT_THAT(error, HasSubstr(testing::kAllOps));
}

TEST(Lower, RefusesOpsTheKernelsLackNamingEveryNode) {
  LowerOptions options;
  options.has_kernel = [](const std::string& name) { return name.rfind("aten::tan", 0) != 0; };
  options.kernels_name = "the device's kernels";
  const std::string error = error_of([&] { lower(fixture("conv_relu_tan", "model.core.pt2"), options); });
  EXPECT_THAT(error, HasSubstr("the device's kernels"));
  EXPECT_THAT(error, HasSubstr("1 node calls an op"));
  EXPECT_THAT(error, HasSubstr("tan: aten::tan.default"));
}

TEST(Lower, DelegateOnlyStopsBeforeThePte) {
  LowerOptions options;
  options.backends = {testing::kAllOps};
  options.delegate_only = true;
  options.has_kernel = [](const std::string&) { return false; };  // not asked: no kernel check either
  const LoweredProgram lowered = lower(fixture("mlp", "model.core.pt2"), options);
  EXPECT_FALSE(lowered.executorch.has_value());
  EXPECT_EQ(get_lowered_submodules(lowered.delegated).size(), 1u);
  EXPECT_THAT(error_of([&] { (void)lowered.buffer(); }), HasSubstr("only delegated"));
  options.debug_record = true;
  EXPECT_THAT(error_of([&] { lower(fixture("mlp", "model.core.pt2"), options); }), HasSubstr("delegate_only"));
}

TEST(Lower, KeepsTheNodesAsImportedForTheDebugRecord) {
  LowerOptions options;
  options.debug_record = true;
  const LoweredProgram lowered = lower(fixture("mlp", "model.pt2"), options);
  ASSERT_TRUE(lowered.source_nodes.has_value());
  std::vector<std::string> ops;
  for (const auto& [handle, node] : *lowered.source_nodes) {
    EXPECT_EQ(handle, node.handle);
    ops.push_back(node.op);
  }
  // The training IR's linear, before decomposition made it addmm and permute.
  EXPECT_THAT(ops, ::testing::Contains("aten::linear.default"));
  EXPECT_FALSE(lowered.executorch->emitted.debug_maps_of("forward").debug_handle_map.empty());
  EXPECT_FALSE(lower(fixture("mlp", "model.pt2")).source_nodes.has_value());
}

TEST(Lower, ToEdgeGivesHandlesAndCoreAten) {
  ExportedProgram program = fixture("mlp", "model.pt2");
  to_edge(program);
  EXPECT_EQ(program.dialect(), kAtenDialect);
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) {
      EXPECT_TRUE(node->meta.debug_handle.has_value()) << node->name();
    }
  }
  ExportedProgram core = fixture("mlp", "model.core.pt2");
  const std::string before = core.to_string();
  to_core_aten(core);
  EXPECT_EQ(core.to_string(), before);  // already core ATen: left as it is
}

}  // namespace
}  // namespace kiln::aot
