// Every golden fixture (both IR levels) partitioned to OneDnnBackend: the
// partitioner's decisions hold at preprocess (nothing it accepted is refused
// there), each delegate's blob parses, its values match the call (inputs and
// outputs numbered as the call passes and returns them, every constant in
// the delegate's named data), and the program is written as a .pte. The
// blobs are not run here (the runtime half has its own tests).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/module_attribute.h"
#include "aot/passes/decompose.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/test/blob_reference.h"

namespace kiln::backends::onednn {
namespace {

namespace fb = ::kiln::onednn;
using aot::ExportedProgram;

struct FixtureFile {
  std::string fixture;
  std::string file;
};

void PrintTo(const FixtureFile& f, std::ostream* out) { *out << f.fixture << "/" << f.file; }

std::vector<FixtureFile> fixture_files() {
  std::vector<FixtureFile> result;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) result.push_back({fixture.at("name"), file});
  }
  return result;
}

// The delegate's values agree with the call that runs it.
void check_delegate(const aot::LoweredSubmodule& delegate) {
  const aot::LoweredBackendModule& module = *delegate.module;
  EXPECT_EQ(module.backend_id(), kBackendId);
  const auto graph = parse_onednn_blob(module.processed_bytes());
  std::set<uint32_t> inputs, outputs;
  for (const auto& value : graph->values) {
    if (value->kind == fb::ValueKind::Input) {
      EXPECT_TRUE(inputs.insert(value->index).second) << "input " << value->index << " twice";
    } else if (value->kind == fb::ValueKind::Output) {
      EXPECT_TRUE(outputs.insert(value->index).second) << "output " << value->index << " twice";
    } else if (value->kind == fb::ValueKind::Constant) {
      EXPECT_NO_THROW(module.named_data_store_output().get(value->constant_key)) << value->constant_key;
    }
  }
  const size_t call_inputs = delegate.call_node->args().size() - 1;  // after the lowered module
  const size_t call_outputs = aot::delegate_call_output_indices(module.original_module()).size();
  EXPECT_EQ(inputs.size(), call_inputs);
  EXPECT_EQ(outputs.size(), call_outputs);
  if (!inputs.empty()) {
    EXPECT_EQ(*inputs.rbegin(), call_inputs - 1);
  }
  if (!outputs.empty()) {
    EXPECT_EQ(*outputs.rbegin(), call_outputs - 1);
  }
  EXPECT_FALSE(graph->operations.empty());
  EXPECT_NO_THROW(describe_onednn_blob(module.processed_bytes()));
}

bool has_symbolic_input(const ExportedProgram& program) {
  for (const aot::Node* node : program.graph().placeholders()) {
    const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
    if (meta != nullptr && !meta->is_static()) return true;
  }
  return false;
}

class OneDnnFixturesTest : public ::testing::TestWithParam<FixtureFile> {};

TEST_P(OneDnnFixturesTest, PartitionsPreprocessesAndWritesAPte) {
  const FixtureFile& p = GetParam();
  ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  aot::generate_debug_handles(program);
  std::vector<aot::ToBackendReport> reports;
  const aot::CapabilityPartitioner partitioner(kBackendId);
  ExportedProgram lowered = aot::to_backend(program, {&partitioner}, &reports);
  const auto delegates = aot::get_lowered_submodules(lowered);
  for (const auto& delegate : delegates) {
    SCOPED_TRACE(delegate.name);
    check_delegate(delegate);
    testing::expect_blob_computes_the_delegated_program(*delegate.module);
  }
  const aot::ExecutorchProgram pte = aot::to_executorch(lowered);
  EXPECT_GT(pte.buffer.size(), 0u);
  EXPECT_EQ(pte.emitted.program.program.execution_plan.at(0)->delegates.size(), delegates.size());

  // Every fixture has ops oneDNN runs; those with a symbolic batch size
  // (dynamic_batch, conv1d_net) have them refused for their sizes.
  if (has_symbolic_input(program)) {
    ASSERT_EQ(reports.size(), 1u);
    std::string reasons;
    for (const aot::UnsupportedNode& node : reports[0].unsupported) reasons += node.node + ": " + node.reason + "\n";
    EXPECT_THAT(reasons, ::testing::HasSubstr("needs static sizes"));
  } else {
    EXPECT_FALSE(delegates.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, OneDnnFixturesTest, ::testing::ValuesIn(fixture_files()),
                         [](const auto& info) {
                           std::string name = info.param.fixture + "_" + info.param.file;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// small_cnn (conv, batch norm, relu, max pool, mean, linear) runs whole on
// OneDnnBackend as one delegate, its batch norm folded away.
TEST(OneDnnFixturesTest, SmallCnnIsOneDelegateWithTheBatchNormFolded) {
  ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + "small_cnn/model.core.pt2");
  std::vector<aot::ToBackendReport> reports;
  const aot::CapabilityPartitioner partitioner(kBackendId);
  ExportedProgram lowered = aot::to_backend(program, {&partitioner}, &reports);
  const auto delegates = aot::get_lowered_submodules(lowered);
  ASSERT_EQ(delegates.size(), 1u);
  EXPECT_TRUE(reports.at(0).unsupported.empty()) << reports[0].unsupported[0].node << ": " << reports[0].unsupported[0].reason;
  const std::string text = describe_onednn_blob(delegates[0].module->processed_bytes());
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("BatchNorm")));
  EXPECT_THAT(text, ::testing::HasSubstr("post-ops [Eltwise Relu(alpha=0)]"));
  EXPECT_THAT(text, ::testing::HasSubstr("MatMul transpose_b"));
}

}  // namespace
}  // namespace kiln::backends::onednn
