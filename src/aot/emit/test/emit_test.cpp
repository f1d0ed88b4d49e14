// Emission: golden `kiln inspect` text of small programs lowered to .pte,
// and every golden fixture (both IR levels, with and without the demo
// delegate) lowered, planned, emitted, serialized and read back with every
// index in range, every planned tensor inside its arena and every constant's
// bytes those of its weight.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_text.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/decompose.h"

namespace kiln::aot {
namespace {

namespace fb = executorch_flatbuffer;
using ::testing::HasSubstr;

HostTensor ramp(const std::vector<int64_t>& sizes) {
  HostTensor t = HostTensor::zeros(ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.5f * static_cast<float>(i);
  return t;
}

// y = relu(x @ w.T).view(6) + 2; count += 1 (a buffer the program mutates).
ExportedProgram small_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* w = b.parameter("w", ramp({3, 3}));
  Node* count = b.buffer("count", ramp({3}));
  Node* mm = b.call("aten::mm", {x, b.call("aten::permute", {w, ArgumentList{1, 0}})});
  Node* flat = b.call("aten::view", {b.call("aten::relu", {mm}), ArgumentList{6}});
  b.mutate_buffer("count", b.call("aten::add.Tensor", {count, 1.0}));
  b.output({b.call("aten::add.Tensor", {flat, 2.0})});
  return std::move(b).build();
}

TEST(Emit, GoldenSmallProgram) {
  const ExecutorchProgram result = to_executorch(small_program());
  EXPECT_EQ(pte::describe_pte(pte::read_pte(result.buffer)), R"golden(.pte program: 2444 bytes, identifier ET12, schema version 0
extended header: program_size 2216, segment_base_offset 2304, segment_data_size 140
segments: 2
  #0 offset 0, 68 bytes (constants)
  #1 offset 128, 12 bytes (mutable data)
constants: 3 tensors in segment 0
methods (1):
  forward: 1 inputs, 1 outputs, 6 instructions

method 'forward': 15 values, 1 inputs, 1 outputs
  inputs:  [v4]
  outputs: [v13]
  values:
    v0: tensor Float[3, 3] constant[1]
    v1: tensor Float[3] planned(arena 1 @ 112) initial=mutable[1] 'count'
    v2: tensor Float[] constant[2]
    v3: tensor Float[] constant[3]
    v4: tensor Float[2, 3] planned(arena 1 @ 48)
    v5: tensor Float[3, 3] planned(arena 1 @ 0)
    v6: int 1
    v7: int 0
    v8: int_list[v6, v7]
    v9: tensor Float[2, 3] planned(arena 1 @ 80)
    v10: tensor Float[2, 3] planned(arena 1 @ 0)
    v11: tensor Float[6] planned(arena 1 @ 0)
    v12: tensor Float[3] planned(arena 1 @ 80)
    v13: tensor Float[6] planned(arena 1 @ 48)
    v14: bool false
  operators:
    #0 aten::permute_copy.out
    #1 aten::mm.out
    #2 aten::relu.out
    #3 aten::add.out
    #4 aten::copy_
  chain 0: 6 instructions
    0: aten::permute_copy.out [v0, v8, v5, v5]
    1: aten::mm.out [v4, v5, v9, v9]
    2: aten::relu.out [v9, v10, v10]
    3: aten::add.out [v1, v2, v6, v12, v12]
    4: aten::add.out [v11, v3, v6, v13, v13]
    5: aten::copy_ [v1, v12, v14, v1]
  memory plan: 1 arenas: arena 1 = 128 bytes (128 bytes, 8 planned tensors)
)golden");
}

TEST(Emit, KeepsTheDebugHandleOfEachInstruction) {
  ExportedProgram program = small_program();
  int64_t handle = 10;
  for (Node* node : program.graph()) node->meta.debug_handle = handle++;
  const ExecutorchProgram result = to_executorch(program);
  const auto& instructions = result.emitted.program.program.execution_plan[0]->chains[0]->instructions;
  const auto& debug_handle_map = result.emitted.debug_maps_of("forward").debug_handle_map;
  ASSERT_EQ(debug_handle_map.size(), instructions.size());
  // Instruction 1 is the mm, the graph's fifth node (x, w, count, permute, mm).
  EXPECT_EQ(debug_handle_map.at(1), std::vector<int64_t>{14});
}

TEST(Emit, RefusesAProgramNotInExecutableForm) {
  GraphBuilder b;
  b.output({b.call("aten::relu", {b.input("x", f32({2, 3}))})});
  const ExportedProgram program = std::move(b).build();  // a functional op, not lowered
  MemoryPlan plan;
  try {
    emit_program(program, emitter_allocations({}, plan_memory({})));
    FAIL() << "expected an error";
  } catch (const AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("functional op in the executable form"));
  }
}

TEST(Emit, OneErrorListsEveryNodeWithoutAnOutVariant) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* flat = b.call("aten::flatten.using_ints", {x});
  b.output({b.call("aten::relu", {flat}), b.call("aten::flatten.using_ints", {x})});
  try {
    to_executorch(std::move(b).build());
    FAIL() << "expected an error";
  } catch (const AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("2 nodes call ops without an out variant"));
    EXPECT_THAT(error.what(), HasSubstr("flatten_1"));
  }
}

// The seed's LoweredBackendModule.buffer(): the standalone program of one
// delegate call, with the alignments asked for.
TEST(Emit, BufferOfALoweredModuleIsItsStandaloneProgram) {
  const LoweredBackendModule lowered = to_backend(testing::kAllOps, small_program(), {});
  ExecutorchBackendConfig config;
  config.serialize.segment_alignment = 256;
  const pte::PteFile file = pte::read_pte(buffer(lowered, config));
  const fb::ExecutionPlanT& plan = *file.program->execution_plan.at(0);
  ASSERT_EQ(plan.delegates.size(), 1u);
  EXPECT_EQ(plan.delegates[0]->id, testing::kAllOps);
  ASSERT_EQ(plan.chains[0]->instructions.size(), 1u);
  const auto* call = plan.chains[0]->instructions[0]->instr_args.AsDelegateCall();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args.size(), 2u);  // x, then the one user output (the buffer is the delegate's own)
  EXPECT_EQ(file.header->segment_base_offset % 256, 0u);
  const auto blob = file.segment(plan.delegates[0]->processed->index);
  EXPECT_TRUE(std::equal(blob.begin(), blob.end(), lowered.processed_bytes().begin(), lowered.processed_bytes().end()));
}

// --- every fixture -----------------------------------------------------------

// How a fixture is delegated before emission: not at all, in part (the
// every-other-op test backend: portable ops and delegate calls interleaved),
// or whole (every op to one test backend).
enum class Delegation { None, Partial, Whole };
const char* to_string(Delegation d) { return d == Delegation::None ? "" : d == Delegation::Partial ? "_partial" : "_whole"; }

struct FixtureProgram {
  std::string fixture;
  std::string file;
  Delegation delegation;
};

void PrintTo(const FixtureProgram& p, std::ostream* out) { *out << p.fixture << "/" << p.file << to_string(p.delegation); }

std::vector<FixtureProgram> fixture_programs() {
  std::vector<FixtureProgram> result;
  for (const auto& fixture : testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) {
      for (Delegation d : {Delegation::None, Delegation::Partial, Delegation::Whole}) {
        result.push_back({fixture.at("name"), file, d});
      }
    }
  }
  return result;
}

ExportedProgram load_for_emission(const FixtureProgram& p) {
  ExportedProgram program = load_pt2(testing::kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == kTrainingDialect) program = transform(program, {decompose_to_core_aten()});
  if (p.delegation == Delegation::Partial) program = to_backend(program, CapabilityPartitioner(testing::kEveryOther));
  if (p.delegation == Delegation::Whole) program = to_backend(program, AllNodePartitioner(testing::kAllOps));
  return program;
}

// What a runtime checks before it trusts a file, read off Kiln's reader.
void expect_consistent(const pte::PteFile& file) {
  const fb::ExecutionPlanT& plan = *file.program->execution_plan.at(0);
  const auto in_range = [&](int64_t index) { return index >= 0 && static_cast<size_t>(index) < plan.values.size(); };
  const auto is = [&](int64_t index, fb::KernelTypes type) { return in_range(index) && plan.values[index]->val.type == type; };
  for (int32_t index : plan.inputs) EXPECT_TRUE(in_range(index));
  for (int32_t index : plan.outputs) EXPECT_TRUE(in_range(index));
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const auto& val = plan.values[v]->val;
    if (const auto* list = val.AsIntList()) {
      for (int64_t item : list->items) EXPECT_TRUE(is(item, fb::KernelTypes::Int)) << "v" << v;
    }
    if (const auto* list = val.AsTensorList()) {
      for (int32_t item : list->items) EXPECT_TRUE(is(item, fb::KernelTypes::Tensor)) << "v" << v;
    }
    if (const auto* tensor = val.AsTensor(); tensor && tensor->allocation_info) {
      const auto& info = *tensor->allocation_info;
      ASSERT_GE(info.memory_id, 1u);
      ASSERT_LT(info.memory_id, plan.non_const_buffer_sizes.size());
      int64_t bytes = static_cast<int64_t>(runtime::element_size(static_cast<runtime::ScalarType>(tensor->scalar_type)));
      for (int32_t size : tensor->sizes) bytes *= size;
      EXPECT_LE(static_cast<int64_t>(info.memory_offset_low) + bytes, plan.non_const_buffer_sizes[info.memory_id]) << "v" << v;
    } else if (tensor && tensor->data_buffer_idx != 0) {
      EXPECT_NO_THROW(file.constant(tensor->data_buffer_idx, 1)) << "v" << v;
    }
  }
  for (const auto& instruction : plan.chains.at(0)->instructions) {
    if (const auto* call = instruction->instr_args.AsKernelCall()) {
      ASSERT_LT(static_cast<size_t>(call->op_index), plan.operators.size());
      const auto& op = *plan.operators[static_cast<size_t>(call->op_index)];
      const OpSchema* schema = find_op_schema(op.name + "." + (op.overload.empty() ? "default" : op.overload));
      ASSERT_NE(schema, nullptr) << op.name << "." << op.overload;
      EXPECT_EQ(call->args.size(), schema->arguments.size() + 1) << schema->qualified_name();  // + the return slot
      for (int32_t arg : call->args) EXPECT_TRUE(in_range(arg));
    } else if (const auto* call = instruction->instr_args.AsDelegateCall()) {
      ASSERT_LT(static_cast<size_t>(call->delegate_index), plan.delegates.size());
      for (int32_t arg : call->args) EXPECT_TRUE(is(arg, fb::KernelTypes::Tensor) || in_range(arg));
    }
  }
}

template <typename T>
bool same_items(const std::vector<std::unique_ptr<T>>& a, const std::vector<std::unique_ptr<T>>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) { return *x == *y; });
}

class EmitFixtureTest : public ::testing::TestWithParam<FixtureProgram> {};

TEST_P(EmitFixtureTest, WritesAConsistentProgram) {
  const FixtureProgram& p = GetParam();
  const ExportedProgram program = load_for_emission(p);
  const ExecutorchProgram result = to_executorch(program);
  const pte::PteFile file = pte::read_pte(result.buffer);
  expect_consistent(file);
  const fb::ExecutionPlanT& plan = *file.program->execution_plan.at(0);
  // The file holds what the emitter made, delegates moved to segments.
  const fb::ExecutionPlanT& emitted = *result.emitted.program.program.execution_plan.at(0);
  EXPECT_TRUE(same_items(plan.values, emitted.values));
  EXPECT_TRUE(same_items(plan.chains, emitted.chains));
  EXPECT_EQ(plan.non_const_buffer_sizes[1], result.memory_plan.total_bytes());
  size_t user_inputs = 0;
  for (const InputSpec& spec : program.graph_signature().input_specs) user_inputs += spec.kind == InputKind::UserInput;
  EXPECT_EQ(plan.inputs.size(), user_inputs);
  EXPECT_EQ(plan.delegates.size(), get_lowered_submodules(program).size());
  if (p.delegation != Delegation::None) {
    EXPECT_GT(plan.delegates.size(), 0u);
  }
  // Each weight's bytes are in the file, once.
  std::set<uint32_t> constants;
  for (const auto& value : plan.values) {
    const auto* tensor = value->val.AsTensor();
    if (tensor != nullptr && tensor->data_buffer_idx != 0 && !tensor->allocation_info) constants.insert(tensor->data_buffer_idx);
  }
  EXPECT_EQ(constants.size() + 1, file.program->constant_segment->offsets.size());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EmitFixtureTest, ::testing::ValuesIn(fixture_programs()), [](const auto& info) {
  std::string name = info.param.fixture + "_" + info.param.file + to_string(info.param.delegation);
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
}  // namespace kiln::aot
