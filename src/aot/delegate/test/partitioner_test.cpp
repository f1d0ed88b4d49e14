// Partitioned lowering: what a partitioner may tag, what moves into a
// delegate and what the program keeps (ExecuTorch's test_partitioner.py and
// the partitioner cases of test_backends.py).
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using testing::expect_same_behaviour;
using testing::filled;
using testing::FunctionPartitioner;
using testing::ramp;
using testing::tag_nodes;
using testing::tag_ops;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const DelegationSpec kSpec{testing::kAllOps, {CompileSpec::from_string("path", "/a/b/c/d")}};
const std::vector<std::pair<std::string, DelegationSpec>> kTag0 = {{"tag0", kSpec}};

std::vector<LoweredSubmodule> delegates(const ExportedProgram& program) { return get_lowered_submodules(program); }

// x + const1 (a lifted constant) + const2 (a non-persistent buffer) + const3 (a parameter).
ExportedProgram add_const_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  Node* const1 = b.constant("const1", filled({2, 2}, 1.0f));
  Node* const2 = b.buffer("const2", filled({2, 2}, 2.0f), /*persistent=*/false);
  Node* const3 = b.parameter("const3", filled({2, 2}, 3.0f));
  Node* sum = b.call("aten::add.Tensor", {x, const1});
  sum = b.call("aten::add.Tensor", {sum, const2});
  b.output({b.call("aten::add.Tensor", {sum, const3})});
  return std::move(b).build();
}

void tag_adds(ExportedProgram& p) { tag_ops(p, {"aten::add.Tensor"}, "tag0"); }

void tag_lifted(ExportedProgram& p, bool params_only) {
  for (Node* node : p.graph().placeholders()) {
    const InputSpec* spec = input_spec_of(p, *node);
    if (spec->kind == InputKind::Parameter || (!params_only && is_lifted_tensor(p, *node))) {
      node->meta.delegation_tag = "tag0";
    }
  }
}

TEST(PartitionerTest, ThePartitionersCompileSpecsReachTheLoweredModule) {
  const ExportedProgram program = add_const_program();
  const ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag_adds, kTag0));
  const auto lowered_modules = delegates(lowered);
  ASSERT_EQ(lowered_modules.size(), 1u);
  EXPECT_EQ(lowered_modules[0].module->compile_specs(), kSpec.compile_specs);
  EXPECT_EQ(lowered_modules[0].module->backend_id(), testing::kAllOps);
}

TEST(PartitionerTest, UntaggedDataStaysWithTheProgramAndIsPassedIn) {
  ExportedProgram program = add_const_program();
  ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag_adds, kTag0));
  EXPECT_EQ(lowered.state_dict().size() + lowered.constants().size(), 3u);
  EXPECT_EQ(lowered.graph_signature().parameters().size(), 1u);
  const auto lowered_modules = delegates(lowered);
  ASSERT_EQ(lowered_modules.size(), 1u);
  // The module, x, const1, const2, const3.
  EXPECT_EQ(lowered_modules[0].call_node->args().size(), 5u);
  const ExportedProgram& delegated = lowered_modules[0].module->original_module();
  EXPECT_THAT(delegated.state_dict(), IsEmpty());
  EXPECT_THAT(delegated.graph_signature().parameters(), IsEmpty());
  EXPECT_THAT(delegated.graph_signature().buffers(), IsEmpty());
  expect_same_behaviour(program, lowered, {ramp({2, 2})});
}

TEST(PartitionerTest, TaggedDataMovesIntoTheDelegate) {
  ExportedProgram program = add_const_program();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_lifted(p, false);
  };
  ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag, kTag0));
  EXPECT_THAT(lowered.state_dict(), IsEmpty());
  EXPECT_THAT(lowered.constants(), IsEmpty());
  EXPECT_EQ(lowered.graph_signature().to_string(),
            "# inputs\nx: USER_INPUT\n\n# outputs\ngetitem: USER_OUTPUT\n");
  const auto lowered_modules = delegates(lowered);
  ASSERT_EQ(lowered_modules.size(), 1u);
  EXPECT_EQ(lowered_modules[0].call_node->args().size(), 2u);
  const ExportedProgram& delegated = lowered_modules[0].module->original_module();
  EXPECT_EQ(delegated.state_dict().size() + delegated.constants().size(), 3u);
  // Parameters, buffers, constants, then the user input.
  EXPECT_EQ(delegated.graph_signature().to_string(),
            "# inputs\np_const3: PARAMETER target='const3'\nb_const2: BUFFER target='const2' persistent=False\n"
            "c_const1: CONSTANT_TENSOR target='const1'\nx: USER_INPUT\n\n# outputs\nadd_2: USER_OUTPUT\n");
  expect_same_behaviour(program, lowered, {ramp({2, 2})});
}

TEST(PartitionerTest, OnlyTaggedParametersMoveIntoTheDelegate) {
  ExportedProgram program = add_const_program();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_lifted(p, true);
  };
  ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag, kTag0));
  EXPECT_EQ(lowered.state_dict().size() + lowered.constants().size(), 2u);
  EXPECT_THAT(lowered.graph_signature().parameters(), IsEmpty());
  const auto lowered_modules = delegates(lowered);
  EXPECT_EQ(lowered_modules[0].call_node->args().size(), 4u);  // the module, x, const1, const2
  const ExportedProgram& delegated = lowered_modules[0].module->original_module();
  EXPECT_EQ(delegated.state_dict().size(), 1u);
  EXPECT_EQ(delegated.graph_signature().parameters(), std::vector<std::string>{"const3"});
  EXPECT_THAT(delegated.graph_signature().buffers(), IsEmpty());
  expect_same_behaviour(program, lowered, {ramp({2, 2})});
}

TEST(PartitionerTest, ATaggedOutputIsRejected) {
  const ExportedProgram program = add_const_program();
  auto tag = [](ExportedProgram& p) { p.graph().output_node()->meta.delegation_tag = "tag0"; };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, kTag0)); }, "output node output should not be tagged");
}

TEST(PartitionerTest, ATaggedUserInputIsRejected) {
  const ExportedProgram program = add_const_program();
  auto tag = [](ExportedProgram& p) { p.graph().node("x")->meta.delegation_tag = "tag_x"; };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, {{"tag_x", kSpec}})); },
               "placeholder node for non-params, non-buffer, and non-tensor constants should not be tagged: x");
}

TEST(PartitionerTest, APartitionerThatChangesTheGraphIsRejected) {
  const ExportedProgram program = add_const_program();
  auto rename = [](ExportedProgram& p) { p.graph().rename(p.graph().node("add_1"), "renamed"); };
  expect_error([&] { to_backend(program, FunctionPartitioner(rename, kTag0)); },
               "partitioner FunctionPartitioner must only tag nodes, but it changed the program: node 5 is 'renamed = "
               "call_function[target=aten::add.Tensor](add, b_const2)' instead of 'add_1 = ");
  auto rewire = [](ExportedProgram& p) { p.graph().node("add_2")->set_arg(0, p.graph().node("x")); };
  expect_error([&] { to_backend(program, FunctionPartitioner(rewire, kTag0)); }, "it changed the program: node 6 is");
  auto add_node = [](ExportedProgram& p) {
    p.graph().call_function("aten::neg.default", {p.graph().node("x")});
  };
  expect_error([&] { to_backend(program, FunctionPartitioner(add_node, kTag0)); }, "it changed the program");
}

TEST(PartitionerTest, AnUndeclaredTagOrBackendIsRejected) {
  const ExportedProgram program = add_const_program();
  expect_error([&] { to_backend(program, FunctionPartitioner(tag_adds, {})); },
               "partitioner FunctionPartitioner tagged node 'add' with 'tag0', which its partition tags do not declare");
  expect_error([&] { to_backend(program, FunctionPartitioner(tag_adds, {{"tag0", {"NoSuchBackend", {}}}})); },
               "backend 'NoSuchBackend' was not found");
}

TEST(PartitionerTest, StaleTagsOfTheInputProgramAreIgnored) {
  ExportedProgram program = add_const_program();
  program.graph().node("add")->meta.delegation_tag = "old";
  const ExportedProgram lowered = to_backend(program, FunctionPartitioner([](ExportedProgram&) {}, kTag0));
  EXPECT_THAT(delegates(lowered), IsEmpty());
  for (const Node* node : lowered.graph()) EXPECT_EQ(node->meta.delegation_tag, "") << node->name();
}

// y = x + const; z = x - const.
ExportedProgram reuse_const_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  Node* c = b.constant("const", ramp({2, 2}, 1.0f));
  Node* y = b.call("aten::add.Tensor", {x, c});
  Node* z = b.call("aten::sub.Tensor", {x, c});
  b.output({y, z});
  return std::move(b).build();
}

TEST(PartitionerTest, AConstantSharedWithTheProgramIsDuplicated) {
  ExportedProgram program = reuse_const_program();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_lifted(p, false);
  };
  ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag, kTag0));
  // The program keeps a copy of the placeholder for sub; the data is shared.
  EXPECT_EQ(lowered.graph_signature().to_string(),
            "# inputs\nc_const_copy_0: CONSTANT_TENSOR target='const'\nx: USER_INPUT\n\n"
            "# outputs\ngetitem: USER_OUTPUT\nsub: USER_OUTPUT\n");
  EXPECT_TRUE(lowered.constants().count("const"));
  const ExportedProgram& delegated = delegates(lowered)[0].module->original_module();
  EXPECT_EQ(delegated.graph_signature().lifted_tensor_constants(), std::vector<std::string>{"const"});
  expect_same_behaviour(program, lowered, {ramp({2, 2})});
}

TEST(PartitionerTest, AConstantSharedBetweenTwoPartitionsIsDuplicated) {
  ExportedProgram program = reuse_const_program();
  auto tag = [](ExportedProgram& p) {
    tag_nodes(p, {"add"}, "tag0");
    tag_nodes(p, {"sub"}, "tag1");
    tag_constant_data(p);
  };
  ExportedProgram lowered = to_backend(program, FunctionPartitioner(tag, {{"tag0", kSpec}, {"tag1", kSpec}}));
  EXPECT_THAT(lowered.constants(), IsEmpty());
  const auto lowered_modules = delegates(lowered);
  ASSERT_EQ(lowered_modules.size(), 2u);
  for (const auto& submodule : lowered_modules) {
    EXPECT_EQ(submodule.module->original_module().graph_signature().lifted_tensor_constants(),
              std::vector<std::string>{"const"});
  }
  expect_same_behaviour(program, lowered, {ramp({2, 2})});
}

TEST(PartitionerTest, AConstantMarkedNoCopyMayNotBeShared) {
  const ExportedProgram program = reuse_const_program();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_lifted(p, false);
    p.graph().node("c_const")->meta.no_copy = true;
  };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, kTag0)); },
               "constant data node (c_const) is tagged with (tag0) but has user (sub) which has tag (None), and it is "
               "marked no_copy");
}

// y = x + my_state; my_state += 1.
ExportedProgram mutable_state_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({1}));
  Node* state = b.buffer("my_state", filled({1}, 0.0f));
  Node* y = b.call("aten::add.Tensor", {x, state});
  b.mutate_buffer("my_state", b.call("aten::add.Tensor", {state, 1.0}));
  b.output({y});
  return std::move(b).build();
}

TEST(PartitionerTest, MutableBuffersAreNotTaggedAsConstantData) {
  ExportedProgram program = mutable_state_program();
  EXPECT_EQ(program.graph_signature().buffers_to_mutate().at("add_1"), "my_state");
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_constant_data(p);
  };
  ExportedProgram lowered = to_backend(program.deep_copy(), FunctionPartitioner(tag, kTag0));
  // The delegate returns the new value; the program writes it back.
  EXPECT_EQ(lowered.graph_signature().buffers_to_mutate(),
            (std::map<std::string, std::string>{{"getitem_1", "my_state"}}));
  const ExportedProgram& delegated = delegates(lowered)[0].module->original_module();
  EXPECT_THAT(delegated.graph_signature().buffers(), IsEmpty());
  EXPECT_EQ(delegated.graph_signature().to_string(),
            "# inputs\nx: USER_INPUT\nb_my_state: USER_INPUT\n\n# outputs\nadd: USER_OUTPUT\nadd_1: USER_OUTPUT\n");
  expect_same_behaviour(program, lowered, {filled({1}, 5.0f)}, 3);
}

// b += x; return x + b.
ExportedProgram buffer_mutation_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 3}));
  Node* buffer = b.buffer("b", filled({3, 3}, 1.0f));
  Node* updated = b.call("aten::add.Tensor", {buffer, x});
  b.mutate_buffer("b", updated);
  b.output({b.call("aten::add.Tensor", {x, updated})});
  return std::move(b).build();
}

TEST(PartitionerTest, ADelegateThatOwnsABufferOwnsItsMutation) {
  ExportedProgram program = buffer_mutation_program();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_lifted(p, false);
  };
  ExportedProgram lowered = to_backend(program.deep_copy(), FunctionPartitioner(tag, kTag0));
  EXPECT_THAT(lowered.graph_signature().buffers_to_mutate(), IsEmpty());
  EXPECT_THAT(lowered.graph_signature().buffers(), IsEmpty());
  const auto lowered_modules = delegates(lowered);
  EXPECT_EQ(lowered_modules[0].call_node->args().size(), 2u);
  const ExportedProgram& delegated = lowered_modules[0].module->original_module();
  EXPECT_EQ(delegated.state_dict().size(), 1u);
  EXPECT_EQ(delegated.graph_signature().buffers_to_mutate().size(), 1u);
  EXPECT_EQ(delegated.graph_signature().buffers(), std::vector<std::string>{"b"});
  expect_same_behaviour(program, lowered, {ramp({3, 3})}, 3);
}

TEST(PartitionerTest, AnOwnedBuffersNewValueThatIsAlsoReturnedIsReturnedTwice) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* state = b.buffer("state_1", filled({2, 3}, 0.0f));
  Node* updated = b.call("aten::add.Tensor", {state, x});
  b.mutate_buffer("state_1", updated);
  b.output({updated});
  ExportedProgram program = std::move(b).build();
  auto tag = [](ExportedProgram& p) {
    tag_adds(p);
    tag_mutated_buffer(p);
  };
  ExportedProgram lowered = to_backend(program.deep_copy(), FunctionPartitioner(tag, kTag0));
  EXPECT_EQ(lowered.graph_signature().to_string(), "# inputs\nx: USER_INPUT\n\n# outputs\ngetitem_1: USER_OUTPUT\n");
  const ExportedProgram& delegated = delegates(lowered)[0].module->original_module();
  EXPECT_EQ(delegated.graph_signature().to_string(),
            "# inputs\nb_state_1: BUFFER target='state_1' persistent=True\nx: USER_INPUT\n\n"
            "# outputs\nadd: BUFFER_MUTATION target='state_1'\nadd: USER_OUTPUT\n");
  EXPECT_THAT(lowered.to_string(), HasSubstr("getitem_1: \"f32[2, 3]\" = executorch_call_delegate[0]"));
  expect_same_behaviour(program, lowered, {ramp({2, 3})}, 3);
}

TEST(PartitionerTest, AnOwnedBufferMustBeMutatedInsideItsDelegate) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* count = b.buffer("count", filled({3}, 1.0f));
  Node* scaled = b.call("aten::mul.Tensor", {count, 2.0});
  b.mutate_buffer("count", b.call("aten::add.Tensor", {scaled, x}));
  b.output({scaled});
  const ExportedProgram program = std::move(b).build();
  auto tag = [](ExportedProgram& p) {
    tag_nodes(p, {"mul", "b_count"}, "tag0");
  };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, kTag0)); },
               "buffer 'count' moves into the delegate of partition 'tag0', but its new value 'add' is computed "
               "outside the partition");
  // tag_mutated_buffer leaves such a buffer with the program.
  auto safe = [](ExportedProgram& p) {
    tag_nodes(p, {"mul"}, "tag0");
    tag_mutated_buffer(p);
  };
  const ExportedProgram lowered = to_backend(program, FunctionPartitioner(safe, kTag0));
  EXPECT_EQ(lowered.graph_signature().buffers(), std::vector<std::string>{"count"});
}

TEST(PartitionerTest, AMutatedBufferIsNeverCopied) {
  const ExportedProgram program = mutable_state_program();
  auto tag = [](ExportedProgram& p) { tag_nodes(p, {"add", "b_my_state"}, "tag0"); };
  expect_error([&] { to_backend(program, FunctionPartitioner(tag, kTag0)); },
               "constant data node (b_my_state) is tagged with (tag0) but has user (add_1) which has tag (None); it "
               "is a mutated buffer, which cannot be copied");
}

// The partition returns sin, the consumed mutation and cos: the mutation
// moves first and its getitem goes, so the others become 0 and 1.
TEST(PartitionerTest, GetitemsAreRenumberedAfterTheConsumedMutationGoes) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  Node* buffer = b.buffer("total", filled({4}, 0.5f));
  Node* sine = b.call("aten::sin", {x});
  Node* updated = b.call("aten::add.Tensor", {buffer, sine});
  b.mutate_buffer("total", updated);
  Node* cosine = b.call("aten::cos", {x});
  b.output({b.call("aten::mul.Tensor", {sine, cosine}), b.call("aten::relu", {cosine})});
  ExportedProgram program = std::move(b).build();
  auto tag = [](ExportedProgram& p) {
    tag_nodes(p, {"sin", "add", "cos"}, "tag0");
    tag_mutated_buffer(p);
  };
  ExportedProgram lowered = to_backend(program.deep_copy(), FunctionPartitioner(tag, kTag0));
  const ExportedProgram& delegated = delegates(lowered)[0].module->original_module();
  EXPECT_EQ(delegated.graph_signature().to_string(),
            "# inputs\nb_total: BUFFER target='total' persistent=True\nx: USER_INPUT\n\n"
            "# outputs\nadd: BUFFER_MUTATION target='total'\nsin: USER_OUTPUT\ncos: USER_OUTPUT\n");
  std::vector<int64_t> indices;
  for (const Node* node : lowered.graph()) {
    if (node->target() == "getitem") indices.push_back(node->args()[1].to_int());
  }
  EXPECT_THAT(indices, ElementsAre(0, 1));
  // getitem_1 took the mutation out and is gone.
  EXPECT_THAT(lowered.to_string(), HasSubstr("getitem: \"f32[4]\" = executorch_call_delegate[0]"));
  EXPECT_THAT(lowered.to_string(), HasSubstr("getitem_2: \"f32[4]\" = executorch_call_delegate[1]"));
  expect_same_behaviour(program, lowered, {ramp({4}, -1.0f, 0.5f)}, 2);
}

TEST(PartitionerTest, TheCallGetsTheNextDebugHandle) {
  ExportedProgram program = add_const_program();
  int64_t handle = 1;
  for (Node* node : program.graph()) {
    if (node->is_call_function()) node->meta.debug_handle = handle++;
  }
  const ExportedProgram lowered = to_backend(program, FunctionPartitioner([](ExportedProgram& p) {
    tag_nodes(p, {"add", "add_1"}, "tag0");
  }, kTag0));
  EXPECT_EQ(delegates(lowered)[0].call_node->meta.debug_handle, 4);
  EXPECT_EQ(lowered.graph().node("add_2")->meta.debug_handle, 3);
  EXPECT_EQ(delegates(lowered)[0].module->meta.debug_handle_map.size(), 2u);
}

}  // namespace
}  // namespace kiln::aot
