// Fusing partitions and grouping supported nodes: create_submodule_from_nodes,
// cycle rejection, group_acyclic_partitions, the canonical partitioners and
// several backends in priority order (ExecuTorch's test_graph_partition.py,
// test_group_partitioner.py's cycle cases, and test_backends.py's
// multi-backend and nested cases).
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using testing::expect_same_behaviour;
using testing::FunctionPartitioner;
using testing::names_of;
using testing::ramp;
using testing::tag_nodes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// max_pool2d_with_indices(x, [2, 2]) on f32[1, 2, 4, 4], its meta set by hand.
Node* max_pool(GraphBuilder& b, Node* x) {
  Node* pool = b.graph().call_function("aten::max_pool2d_with_indices.default", {x, ArgumentList{int64_t{2}, int64_t{2}}});
  pool->meta.val = std::vector<TensorMeta>{f32({1, 2, 2, 2}), i64({1, 2, 2, 2})};
  return pool;
}

std::set<const Node*> nodes_named(const ExportedProgram& program, const std::vector<std::string>& names) {
  std::set<const Node*> nodes;
  for (const std::string& name : names) nodes.insert(program.graph().node(name));
  return nodes;
}

// a = sin(x); b = relu(a); c = add(a, b): {sin, add} would need relu both
// before and after it.
ExportedProgram cycle_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* a = b.call("aten::sin", {x});
  Node* negated = b.call("aten::relu", {a});
  b.output({b.call("aten::add.Tensor", {a, negated})});
  return std::move(b).build();
}

TEST(CreateSubmoduleTest, CutsTheNodesOutAndCallsThemOnce) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* y = b.input("y", f32({3}));
  Node* s = b.call("aten::sin", {x});
  Node* m = b.call("aten::mul.Tensor", {s, y});
  Node* c = b.call("aten::cos", {m});
  b.output({b.call("aten::relu", {c}), m});
  ExportedProgram program = std::move(b).build();
  Graph& graph = program.graph();
  SubmoduleCall fused = create_submodule_from_nodes(graph, {graph.node("cos"), graph.node("sin"), graph.node("mul")}, "t");
  std::vector<std::string> inner;
  for (const Node* node : *fused.submodule) inner.push_back(node->format());
  EXPECT_THAT(inner, ElementsAre("x = placeholder[target=x]()", "y = placeholder[target=y]()",
                                 "sin = call_function[target=aten::sin.default](x)",
                                 "mul = call_function[target=aten::mul.Tensor](sin, y)",
                                 "cos = call_function[target=aten::cos.default](mul)",
                                 "output = output[target=output]([mul, cos])"));
  std::vector<std::string> outer;
  for (const Node* node : graph) outer.push_back(node->format());
  EXPECT_THAT(outer, ElementsAre("x = placeholder[target=x]()", "y = placeholder[target=y]()",
                                 "fused_t = call_function[target=fused_t](x, y)",
                                 "getitem = call_function[target=getitem](fused_t, 0)",
                                 "getitem_1 = call_function[target=getitem](fused_t, 1)",
                                 "relu = call_function[target=aten::relu.default](getitem_1)",
                                 "output = output[target=output]([relu, getitem])"));
  EXPECT_EQ(fused.call_module_node, graph.node("fused_t"));
}

TEST(CreateSubmoduleTest, APartitionThatWouldFormACycleIsRejectedNamingThePath) {
  ExportedProgram program = cycle_program();
  Graph& graph = program.graph();
  expect_error([&] { create_submodule_from_nodes(graph, {graph.node("sin"), graph.node("add")}, "tag0"); },
               "Invalid partition 'tag0', found dependency cycles: sin -> relu -> add ('relu' outside the partition "
               "would have to run both after and before it; partition nodes: sin, add)");
  // Nothing changed.
  EXPECT_THAT(testing::node_names(program), ElementsAre("x", "sin", "relu", "add", "output"));
}

TEST(CreateSubmoduleTest, ToBackendRejectsACyclicPartition) {
  const ExportedProgram program = cycle_program();
  auto tag = [](ExportedProgram& p) { tag_nodes(p, {"sin", "add"}, "tag0"); };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, {{"tag0", {testing::kAllOps, {}}}})); },
               "found dependency cycles: sin -> relu -> add");
}

TEST(CreateSubmoduleTest, AMultiOutputValueUsedOutsideMustBeTakenApartInside) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4, 4}));
  Node* pool = max_pool(b, x);
  b.output({b.getitem(pool, 0)});
  ExportedProgram program = std::move(b).build();
  Graph& graph = program.graph();
  expect_error([&] { create_submodule_from_nodes(graph, {graph.node("max_pool2d_with_indices")}, "t"); },
               "partition 't': 'getitem', outside the partition, uses 'max_pool2d_with_indices', which is not a tensor");
}

TEST(GroupPartitionsTest, ANodeOnAPathBetweenSupportedNodesSplitsThem) {
  const ExportedProgram program = cycle_program();
  EXPECT_EQ(names_of(group_acyclic_partitions(program.graph(), nodes_named(program, {"sin", "add"}))),
            (std::vector<std::vector<std::string>>{{"sin"}, {"add"}}));
}

TEST(GroupPartitionsTest, IndependentBranchesShareAPartition) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* s = b.call("aten::sin", {x});
  Node* c = b.call("aten::cos", {x});
  Node* n = b.call("aten::relu", {s});
  b.output({n, c});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(names_of(group_acyclic_partitions(program.graph(), nodes_named(program, {"sin", "cos"}))),
            (std::vector<std::vector<std::string>>{{"sin", "cos"}}));
}

// a -> b (unsupported) -> d and a -> c -> d: d cannot join {a, c}.
TEST(GroupPartitionsTest, ADiamondAroundAnUnsupportedNodeKeepsItsJoinApart) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* a = b.call("aten::sin", {x});
  Node* u = b.call("aten::relu", {a});
  Node* c = b.call("aten::cos", {a});
  b.output({b.call("aten::mul.Tensor", {u, c})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(names_of(group_acyclic_partitions(program.graph(), nodes_named(program, {"sin", "cos", "mul"}))),
            (std::vector<std::vector<std::string>>{{"sin", "cos"}, {"mul"}}));
}

TEST(GroupPartitionsTest, AChainOfSupportedNodesIsOnePartition) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* n = b.call("aten::sin", {x});
  for (int i = 0; i < 5; ++i) n = b.call("aten::cos", {n});
  b.output({n});
  const ExportedProgram program = std::move(b).build();
  std::set<const Node*> all;
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) all.insert(node);
  }
  const auto groups = group_acyclic_partitions(program.graph(), all);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].size(), 6u);
}

TEST(CapabilityPartitionerTest, TagsWhatTheBackendSupportsAndSaysWhyTheRestStayed) {
  const ExportedProgram program = cycle_program();
  const PartitionResult result = CapabilityPartitioner(testing::kSinCos).partition(program);
  EXPECT_EQ(result.tagged_exported_program.graph().node("sin")->meta.delegation_tag, "tag0");
  EXPECT_EQ(result.tagged_exported_program.graph().node("add")->meta.delegation_tag, "");
  ASSERT_EQ(result.partition_tags.size(), 1u);
  EXPECT_EQ(result.partition_tags[0].second.backend_id, testing::kSinCos);
  ASSERT_EQ(result.unsupported.size(), 2u);
  EXPECT_EQ(result.unsupported[0].node, "relu");
  EXPECT_EQ(result.unsupported[0].reason, "aten::relu.default is not supported by SinCosBackend");
  // The partitioner tagged its own copy.
  EXPECT_EQ(program.graph().node("sin")->meta.delegation_tag, "");
}

TEST(CapabilityPartitionerTest, GetitemsFollowTheNodeTheyTakeApart) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 2, 4, 4}));
  Node* pool = max_pool(b, x);
  b.output({b.call("aten::relu", {b.getitem(pool, 0)})});
  ExportedProgram program = std::move(b).build();
  ExportedProgram lowered = to_backend(program, CapabilityPartitioner(testing::kAllOps));
  EXPECT_THAT(testing::call_targets(lowered), ElementsAre("executorch_call_delegate", "getitem"));
  expect_same_behaviour(program, lowered, {ramp({1, 2, 4, 4}, -2.0f)});
}

TEST(CapabilityPartitionerTest, ParametersMoveInUnlessAskedNotTo) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* w = b.parameter("w", ramp({2}, 1.0f));
  b.output({b.call("aten::mul.Tensor", {x, w})});
  ExportedProgram program = std::move(b).build();
  EXPECT_THAT(to_backend(program, CapabilityPartitioner(testing::kAddMul)).state_dict(), IsEmpty());
  CapabilityPartitionerOptions keep;
  keep.tag_constant_data = false;
  keep.ops_to_not_decompose = {"aten::linear.default"};
  const CapabilityPartitioner partitioner(testing::kAddMul, {}, keep);
  EXPECT_EQ(to_backend(program, partitioner).state_dict().size(), 1u);
  EXPECT_EQ(partitioner.ops_to_not_decompose(program), std::vector<std::string>{"aten::linear.default"});
}

// y = x * w; z = x - w: w (kAddMul takes mul, not sub) is read inside and
// outside the delegate. Small, it is copied in (the seeds' behaviour); past
// max_shared_constant_copy_bytes it is passed in, so it is stored once.
TEST(CapabilityPartitionerTest, ALargeConstantAlsoReadOutsideIsPassedIn) {
  for (const size_t limit : {size_t{1} << 20, size_t{4}}) {
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 3}));
    Node* w = b.parameter("w", ramp({2, 3}, 1.0f));
    b.output({b.call("aten::mul.Tensor", {x, w}), b.call("aten::sub.Tensor", {x, w})});
    ExportedProgram program = std::move(b).build();
    CapabilityPartitionerOptions options;
    options.max_shared_constant_copy_bytes = limit;
    ExportedProgram lowered = to_backend(program, CapabilityPartitioner(testing::kAddMul, {}, options));
    const auto modules = get_lowered_backend_modules(lowered);
    ASSERT_EQ(modules.size(), 1u);
    const bool passed = limit < 6 * sizeof(float);
    EXPECT_EQ(modules[0]->original_module().state_dict().empty(), passed) << limit;
    EXPECT_EQ(lowered.state_dict().size() + lowered.constants().size(), 1u) << limit;
    expect_same_behaviour(program, lowered, {ramp({2, 3})});
  }
}

// A dynamic batch: the size stays outside and is passed in as a SymInt.
TEST(CapabilityPartitionerTest, SizesStayOutAndArePassedToTheDelegate) {
  GraphBuilder b;
  Node* x = b.input("x", f32({SymExpr::symbol("s0"), SymExpr::constant(3)}));
  b.set_range("s0", ValueRange{1, 16});
  Node* size = b.call("aten::sym_size.int", {x, int64_t{0}});
  Node* flat = b.call("aten::view_copy", {b.call("aten::sin", {x}), ArgumentList{size, int64_t{3}}});
  b.output({b.call("aten::mul.Tensor", {flat, x})});
  ExportedProgram program = std::move(b).build();
  ExportedProgram lowered = to_backend(program, CapabilityPartitioner(testing::kAllOps));
  EXPECT_THAT(testing::call_targets(lowered), ElementsAre("aten::sym_size.int", kCallDelegate, "getitem"));
  const ExportedProgram& delegated = get_lowered_backend_modules(lowered)[0]->original_module();
  EXPECT_EQ(delegated.graph_signature().input_specs[1].arg, ArgumentSpec::sym_int("sym_size"));
  expect_same_behaviour(program, lowered, {ramp({2, 3})});
  expect_same_behaviour(program, lowered, {ramp({5, 3}, -1.0f)});
}

// sin, add, mul, cos, relu: sin and cos go to SinCosBackend, add and mul to
// AddMulBackend, relu stays.
ExportedProgram two_backend_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  Node* y = b.input("y", f32({2, 2}));
  Node* s = b.call("aten::sin", {x});
  Node* a = b.call("aten::add.Tensor", {s, y});
  Node* m = b.call("aten::mul.Tensor", {a, y});
  Node* c = b.call("aten::cos", {m});
  b.output({b.call("aten::relu", {c})});
  return std::move(b).build();
}

TEST(MultiBackendTest, TwoBackendsShareOneProgram) {
  ExportedProgram program = two_backend_program();
  const CapabilityPartitioner sin_cos(testing::kSinCos);
  const CapabilityPartitioner add_mul(testing::kAddMul);
  std::vector<ToBackendReport> reports;
  ExportedProgram lowered = to_backend(program, {&sin_cos, &add_mul}, &reports);
  std::vector<std::string> backends;
  for (const auto& module : get_lowered_backend_modules(lowered)) backends.push_back(module->backend_id());
  EXPECT_THAT(backends, ElementsAre("SinCosBackend", "AddMulBackend", "SinCosBackend"));
  EXPECT_THAT(testing::call_targets(lowered),
              ElementsAre("executorch_call_delegate", "getitem", "executorch_call_delegate", "getitem",
                          "executorch_call_delegate", "getitem", "aten::relu.default"));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].partitioner, "CapabilityPartitioner(SinCosBackend)");
  EXPECT_THAT(reports[0].lowered_modules, ElementsAre("lowered_module_0", "lowered_module_1"));
  EXPECT_THAT(reports[1].lowered_modules, ElementsAre("lowered_module_2"));
  expect_same_behaviour(program, lowered, {ramp({2, 2}), ramp({2, 2}, 1.0f)});
}

TEST(MultiBackendTest, ALaterBackendCannotTakeWhatAnEarlierOneTook) {
  ExportedProgram program = two_backend_program();
  const CapabilityPartitioner sin_cos(testing::kSinCos);
  const CapabilityPartitioner everything(testing::kAllOps);
  std::vector<ToBackendReport> reports;
  ExportedProgram lowered = to_backend(program, {&sin_cos, &everything}, &reports);
  for (const auto& module : get_lowered_backend_modules(lowered)) {
    for (const Node* node : module->original_module().graph()) {
      EXPECT_NE(node->target(), kCallDelegate) << module->backend_id() << " took a delegate call";
    }
  }
  ASSERT_EQ(reports.size(), 2u);
  std::vector<std::string> refused;
  for (const auto& item : reports[1].unsupported) refused.push_back(item.node + ": " + item.reason);
  EXPECT_THAT(refused, ElementsAre("executorch_call_delegate: already delegated",
                                   "executorch_call_delegate_1: already delegated"));
  expect_same_behaviour(program, lowered, {ramp({2, 2}), ramp({2, 2}, 1.0f)});
}

TEST(MultiBackendTest, AllNodesOfALoweredProgramNestItsDelegates) {
  ExportedProgram program = two_backend_program();
  ExportedProgram first = to_backend(program, CapabilityPartitioner(testing::kSinCos));
  ExportedProgram nested = to_backend(first, AllNodePartitioner(testing::kAllOps));
  const auto outer = get_lowered_submodules(nested);
  ASSERT_EQ(outer.size(), 1u);
  const auto inner = get_lowered_submodules(outer[0].module->original_module());
  EXPECT_EQ(inner.size(), 2u);
  for (const auto& module : inner) EXPECT_EQ(module.module->backend_id(), "SinCosBackend");
  EXPECT_EQ(nested.attributes().size(), 1u);
  expect_same_behaviour(program, nested, {ramp({2, 2}), ramp({2, 2}, 1.0f)});
}

}  // namespace
}  // namespace kiln::aot
