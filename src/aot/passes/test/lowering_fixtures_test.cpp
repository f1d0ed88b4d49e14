// Every golden fixture (the training IR decomposed, and the core-ATen program)
// lowered to the executable form: only out-variant calls with their allocs,
// getitems, dynamic sym_sizes, delegate calls and copy_ write-backs remain,
// and the interpreter running the lowered program gives PyTorch's outputs,
// inputs and buffers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/memory_ops.h"
#include "aot/ir/op_schema.h"
#include "aot/passes/decompose.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {
namespace {

using testing::expect_case_matches_pytorch;
using testing::kFixtures;

struct Program {
  std::string fixture;
  std::string file;  // model.pt2 or model.core.pt2
  std::vector<std::string> cases;
};

void PrintTo(const Program& p, std::ostream* out) { *out << p.fixture << "/" << p.file; }

std::vector<Program> all_programs() {
  std::vector<Program> result;
  for (const auto& fixture : testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, ops] : fixture.at("programs").items()) {
      result.push_back({fixture.at("name"), file, fixture.at("cases").get<std::vector<std::string>>()});
    }
  }
  return result;
}

ExportedProgram lowered(const Program& p) {
  ExportedProgram program = load_pt2(kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == kTrainingDialect) program = transform(program, {decompose_to_core_aten()});
  return lower_to_executable(program);
}

class LoweredFixtureTest : public ::testing::TestWithParam<Program> {};

TEST_P(LoweredFixtureTest, IsInExecutableForm) {
  const ExportedProgram program = lowered(GetParam());
  EXPECT_THAT(executable_form_violations(program), ::testing::IsEmpty()) << program.to_string();
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    const std::string& target = node->target();
    if (target == "getitem" || target == kCallDelegate || target == kMemoryAlloc || target == kCopyInPlace) continue;
    if (target == kMemoryView) {  // only static reshapes of planned tensors alias
      EXPECT_TRUE(node->meta.tensor().is_static()) << node->format();
      EXPECT_TRUE(node->args().at(0).node()->is_call_function()) << node->format();
      continue;
    }
    if (target == kSymSize) {  // only dynamic sizes are asked for at run time
      const auto& meta = std::get<TensorMeta>(node->args().at(0).node()->meta.val);
      EXPECT_FALSE(meta.sizes.at(static_cast<size_t>(node->args().at(1).to_int())).is_constant()) << node->format();
      continue;
    }
    const OpSchema& schema = get_op_schema(target);
    EXPECT_TRUE(schema.is_out_variant()) << node->format();
    EXPECT_EQ(view_copy_twin(schema), nullptr) << node->format();
    EXPECT_FALSE(is_graph_assert(target)) << node->format();
  }
}

TEST_P(LoweredFixtureTest, RunsAsPyTorchDid) {
  ExportedProgram program = lowered(GetParam());
  ASSERT_TRUE(is_executable_form(program));
  for (const std::string& name : GetParam().cases) expect_case_matches_pytorch(program, GetParam().fixture, name);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LoweredFixtureTest, ::testing::ValuesIn(all_programs()), [](const auto& info) {
  std::string name = info.param.fixture + "_" + info.param.file;
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
}  // namespace kiln::aot
