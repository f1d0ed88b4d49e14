// Meta inference against the metas torch recorded: every call of every
// golden fixture program (training IR and core ATen) re-inferred from its
// inputs' metas must give torch's dtype and (symbolic) sizes. And the
// programs the decomposition makes must be consistent under re-inference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/passes/decompose.h"

namespace kiln::aot {
namespace {

using testing::kFixtures;

using testing::FixtureFile;

// dtype and sizes of a meta, for comparison (dim order and requires_grad are
// not part of inference).
std::string shape_text(const ValueMeta& meta) { return to_string(meta); }

// Re-infers every call node of `graph` in place; returns one line per node
// whose inferred meta differs from the one it had, and counts the nodes.
std::vector<std::string> reinfer(Graph& graph, size_t* checked, std::vector<std::string>* without_rule) {
  std::vector<std::string> mismatches;
  for (Node* node : graph) {
    if (!node->is_call_function()) continue;
    if (!has_meta_rule(node->target())) {
      // A training-IR op Kiln decomposes keeps torch's meta; its
      // decomposition must agree with it (Rewriter::replace_with).
      if (!has_decomposition(node->target())) without_rule->push_back(node->name() + ": " + node->target());
      continue;
    }
    const ValueMeta recorded = node->meta.val;
    try {
      infer_meta(*node);
    } catch (const AotError& error) {
      mismatches.push_back(node->name() + ": " + error.what());
      node->meta.val = recorded;
      continue;
    }
    if (shape_text(node->meta.val) != shape_text(recorded)) {
      mismatches.push_back(node->format() + ": inferred " + shape_text(node->meta.val) + ", torch recorded " + shape_text(recorded));
    }
    node->meta.val = recorded;  // later nodes infer from torch's metas
    ++*checked;
  }
  return mismatches;
}

class FixtureMetaTest : public ::testing::TestWithParam<FixtureFile> {};

TEST_P(FixtureMetaTest, InferredMetasAreTorchs) {
  const FixtureFile& p = GetParam();
  ExportedProgram program = load_pt2(p.path());
  size_t checked = 0;
  std::vector<std::string> without_rule;
  EXPECT_THAT(reinfer(program.graph(), &checked, &without_rule), ::testing::IsEmpty());
  EXPECT_THAT(without_rule, ::testing::IsEmpty());
  EXPECT_GT(checked, 0u);
}

std::string test_name(const ::testing::TestParamInfo<FixtureFile>& info) {
  std::string name = info.param.fixture + "_" + info.param.file;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureMetaTest, ::testing::ValuesIn(testing::fixture_files_with_training_ir()), test_name);

class DecomposedMetaTest : public ::testing::TestWithParam<FixtureFile> {};

// The decomposed training IR: its new nodes' metas were inferred, its
// replaced nodes' metas taken from torch; both must agree with re-inference.
TEST_P(DecomposedMetaTest, ReinferringChangesNothing) {
  const FixtureFile& p = GetParam();
  const ExportedProgram training = load_pt2(p.path());
  ExportedProgram program = transform(training, {decompose_to_core_aten()});
  size_t checked = 0;
  std::vector<std::string> without_rule;
  EXPECT_THAT(reinfer(program.graph(), &checked, &without_rule), ::testing::IsEmpty()) << program.to_string();
  EXPECT_THAT(without_rule, ::testing::IsEmpty());
}

std::vector<FixtureFile> training_programs() {
  std::vector<FixtureFile> result;
  for (const FixtureFile& p : testing::fixture_files_with_training_ir()) {
    if (p.file == "model.pt2") result.push_back(p);
  }
  return result;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DecomposedMetaTest, ::testing::ValuesIn(training_programs()), test_name);

}  // namespace
}  // namespace kiln::aot
