// Every golden fixture (the training IR decomposed, and the core-ATen program)
// lowered to the executable form: only out-variant calls with their allocs,
// getitems, dynamic sym_sizes, delegate calls and copy_ write-backs remain,
// and the interpreter running the lowered program gives PyTorch's outputs,
// inputs and buffers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/decompose.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {
namespace {

using testing::expect_case_matches_pytorch;
using testing::kFixtures;

using testing::FixtureFile;

ExportedProgram lowered(const FixtureFile& p) {
  ExportedProgram program = load_pt2(p.path());
  if (program.dialect() == kTrainingDialect) program = transform(program, {decompose_to_core_aten()});
  return lower_to_executable(program);
}

class LoweredFixtureTest : public ::testing::TestWithParam<FixtureFile> {};

TEST_P(LoweredFixtureTest, IsInExecutableForm) {
  const ExportedProgram program = lowered(GetParam());
  EXPECT_THAT(executable_form_violations(program), ::testing::IsEmpty()) << program.to_string();
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    switch (exec_kind(*node)) {
      case ExecKind::GetItem:
      case ExecKind::DelegateCall:
      case ExecKind::Alloc:
      case ExecKind::CopyInPlace: continue;
      case ExecKind::View:  // only static reshapes of planned tensors alias
        EXPECT_TRUE(node->meta.tensor().is_static()) << node->format();
        EXPECT_TRUE(node->args().at(0).node()->is_call_function()) << node->format();
        continue;
      case ExecKind::SymSize: {  // only dynamic sizes are asked for at run time
        const auto& meta = std::get<TensorMeta>(node->args().at(0).node()->meta.val);
        EXPECT_FALSE(meta.sizes.at(static_cast<size_t>(node->args().at(1).to_int())).is_constant()) << node->format();
        continue;
      }
      case ExecKind::KernelCall: break;
    }
    const std::string& target = node->target();
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

INSTANTIATE_TEST_SUITE_P(Fixtures, LoweredFixtureTest, ::testing::ValuesIn(testing::fixture_files_with_training_ir()),
                         [](const auto& info) { return info.param.test_name(); });

}  // namespace
}  // namespace kiln::aot
