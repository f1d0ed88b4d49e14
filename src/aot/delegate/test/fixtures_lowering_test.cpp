// Every golden fixture (tests/fixtures, made with PyTorch) lowered with the
// canonical partitioners, then run through the interpreter: outputs, inputs
// after the call and buffers (wherever they now live) must equal the
// unlowered program's and PyTorch's.
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/decompose.h"

namespace kiln::aot {
namespace {

using testing::all_buffers;
using testing::expect_close;
using testing::kFixtures;

constexpr testing::Tolerance kExact{0.0, 0.0};

struct Lowering {
  std::string name;
  std::function<ExportedProgram(const ExportedProgram&)> lower;
  bool delegates_every_fixture = true;  // false: some fixtures have no op it takes
};

CapabilityPartitionerOptions with_mutated_buffers() {
  CapabilityPartitionerOptions options;
  options.tag_mutated_buffers = true;
  return options;
}

const std::vector<Lowering>& lowerings() {
  static const std::vector<Lowering> all = {
      {"all_nodes", [](const ExportedProgram& p) { return to_backend(p, AllNodePartitioner(testing::kAllOps)); }},
      {"capability_add_mul", [](const ExportedProgram& p) { return to_backend(p, CapabilityPartitioner(testing::kAddMul)); },
       false},
      {"capability_every_other",
       [](const ExportedProgram& p) { return to_backend(p, CapabilityPartitioner(testing::kEveryOther)); }},
      {"capability_all_owning_buffers",
       [](const ExportedProgram& p) {
         return to_backend(p, CapabilityPartitioner(testing::kAllOps, {}, with_mutated_buffers()));
       }},
      {"three_backends_nested",
       [](const ExportedProgram& p) {
         const CapabilityPartitioner sin_cos(testing::kSinCos);
         const CapabilityPartitioner add_mul(testing::kAddMul, {}, with_mutated_buffers());
         const AllNodePartitioner rest(testing::kAllOps);
         return to_backend(p, {&sin_cos, &add_mul, &rest});
       }},
  };
  return all;
}

struct Case {
  std::string fixture;
  std::string program;  // model.core.pt2, or model.pt2 (decomposed) when there is no core program
  std::vector<std::string> cases;
  const Lowering* lowering;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.fixture << "/" << c.program << " " << c.lowering->name; }

std::vector<Case> all_cases() {
  std::vector<Case> result;
  for (const auto& fixture : testing::fixture_manifest().at("fixtures")) {
    const auto& programs = fixture.at("programs");
    const std::string program = programs.contains("model.core.pt2") ? "model.core.pt2" : "model.pt2";
    for (const Lowering& lowering : lowerings()) {
      result.push_back({fixture.at("name"), program, testing::manifest_cases(fixture), &lowering});
    }
  }
  return result;
}

ExportedProgram load(const Case& c) {
  ExportedProgram program = load_pt2(kFixtures + c.fixture + "/" + c.program);
  if (program.dialect() == kTrainingDialect) program = transform(program, {decompose_to_core_aten()});
  generate_debug_handles(program);
  return program;
}

// Calls `program` on case `name` of `fixture`; the buffers are collected
// wherever they now live (the program or its delegates).
testing::CaseResult call_case(ExportedProgram& program, const std::string& fixture, const std::string& name) {
  testing::CaseResult out = testing::run_case(program, fixture, name);
  out.buffers.clear();
  for (const auto& [target, tensor] : all_buffers(program)) out.buffers[target] = tensor.clone();
  return out;
}

class FixtureLoweringTest : public ::testing::TestWithParam<Case> {};

TEST_P(FixtureLoweringTest, RunsAsTheUnloweredProgramAndPyTorchDid) {
  const Case& c = GetParam();
  ExportedProgram original = load(c);
  ExportedProgram lowered = c.lowering->lower(load(c));
  lowered.verify();
  if (c.lowering->name == "all_nodes") {
    // One delegate call; the program keeps no data of its own.
    for (const Node* node : lowered.graph()) {
      if (node->is_call_function()) {
        EXPECT_THAT(node->target(), ::testing::AnyOf(kCallDelegate, "getitem"));
      }
    }
    EXPECT_EQ(get_lowered_submodules(lowered).size(), 1u);
    EXPECT_TRUE(lowered.state_dict().empty());
  }
  if (c.lowering->delegates_every_fixture) {
    EXPECT_FALSE(get_lowered_submodules(lowered).empty()) << "nothing was delegated";
  }

  ASSERT_FALSE(c.cases.empty()) << c.fixture << ": no case to run";
  for (const std::string& name : c.cases) {
    const std::string where = c.fixture + " " + name + " " + c.lowering->name;
    const testing::CaseResult before = call_case(original, c.fixture, name);
    const testing::CaseResult after = call_case(lowered, c.fixture, name);
    ASSERT_EQ(after.outputs.size(), before.outputs.size()) << where;
    // The interpreter runs each delegate's program on the same portable
    // kernels in the same order as the unlowered program: the same bits.
    for (size_t i = 0; i < after.outputs.size(); ++i) {
      expect_close(after.outputs[i], before.outputs[i],
                   where + " output_" + std::to_string(i) + " against the unlowered program", kExact);
    }
    for (const std::string& mismatch : testing::case_mismatches(after, testing::read_case_expected(c.fixture, name))) {
      ADD_FAILURE() << where << " against PyTorch: " << mismatch;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureLoweringTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.fixture + "_" + info.param.lowering->name;
                         });

}  // namespace
}  // namespace kiln::aot
