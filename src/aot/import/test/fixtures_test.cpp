// Every golden fixture of tests/fixtures (made by tools/fixtures/generate.py
// with PyTorch) read, and run through the interpreter with PyTorch's results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "aot/import/testing/golden_fixtures.h"
#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {
namespace {

using testing::expect_cases_match_pytorch;
using testing::kFixtures;

const nlohmann::json& manifest() { return testing::fixture_manifest(); }

struct Case {
  std::string fixture;
  std::string program;  // model.pt2 or model.core.pt2
  std::vector<std::string> cases;
  std::string to_string() const { return fixture + "/" + program; }
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.to_string(); }

std::vector<Case> all_programs() {
  std::vector<Case> result;
  for (const auto& fixture : manifest().at("fixtures")) {
    for (const auto& [program, ops] : fixture.at("programs").items()) {
      result.push_back({fixture.at("name"), program, testing::manifest_cases(fixture)});
    }
  }
  return result;
}

// The program to run for each fixture: the core-ATen one where there is one
// (the training IR needs decompositions Kiln applies in a later pass).
bool is_runnable(const Case& c) {
  for (const auto& fixture : manifest().at("fixtures")) {
    if (fixture.at("name") != c.fixture) continue;
    // A training-IR program runs here only when it is core ATen already
    // (no model.core.pt2 beside it), not when torch refused to decompose it.
    const auto& programs = fixture.at("programs");
    if (fixture.contains("no_core_program")) return false;
    return c.program == "model.core.pt2" || !programs.contains("model.core.pt2");
  }
  return false;
}

class FixtureTest : public ::testing::TestWithParam<Case> {};

TEST_P(FixtureTest, ImportsAndVerifies) {
  const Case& c = GetParam();
  ExportedProgram program = load_pt2(kFixtures + c.fixture + "/" + c.program);
  EXPECT_EQ(program.dialect(), c.program == "model.pt2" ? "TRAINING" : "ATEN");
  // The printed program names every op the manifest lists.
  const std::string text = program.to_string();
  for (const auto& fixture : manifest().at("fixtures")) {
    if (fixture.at("name") != c.fixture) continue;
    for (const std::string op : fixture.at("programs").at(c.program)) {
      if (op.find("getitem") != std::string::npos) continue;
      EXPECT_THAT(text, ::testing::HasSubstr("torch.ops." + op + "(")) << c.to_string();
    }
  }
  // Every lifted input (parameter, buffer, constant) has its tensor, of the
  // placeholder's dtype and sizes.
  const auto& specs = program.graph_signature().input_specs;
  const auto placeholders = program.graph().placeholders();
  ASSERT_EQ(specs.size(), placeholders.size()) << c.to_string();
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == InputKind::UserInput) continue;
    const HostTensor* tensor = program.find_lifted_tensor(specs[i]);
    ASSERT_NE(tensor, nullptr) << c.to_string() << ": no tensor for " << specs[i].target;
    EXPECT_EQ(tensor->sizes(), placeholders[i]->meta.tensor().static_sizes()) << c.to_string() << " " << specs[i].target;
  }
}

// Tied weights stay one storage (a write through one name shows in the other).
TEST(FixtureTiedWeightsTest, ShareOneStorage) {
  for (const char* file : {"model.pt2", "model.core.pt2"}) {
    const ExportedProgram program = load_pt2(kFixtures + "tied_weights/" + file);
    const HostTensor& encoder = program.state_dict().at("encoder.weight");
    const HostTensor& decoder = program.state_dict().at("decoder.weight");
    EXPECT_EQ(encoder.data(), decoder.data()) << file;
  }
}

// torch.export.save(..., extra_files={...}) stores each under extra/ in the
// archive (generate.py's EXTRA_FILES); an archive without any has none.
TEST(FixtureExtraFilesTest, AreReadAsSaved) {
  for (const char* file : {"model.pt2", "model.core.pt2"}) {
    const auto extra = load_pt2_extra_files(kFixtures + "kv_cache_index_copy/" + file);
    ASSERT_EQ(extra.size(), 1u) << file;
    const nlohmann::json methods = nlohmann::json::parse(extra.at("kiln/constant_methods.json"));
    EXPECT_EQ(methods.at("get_max_seq_len"), 6) << file;
    EXPECT_EQ(methods.at("get_eos_ids"), nlohmann::json::array({2, 3})) << file;
  }
  EXPECT_TRUE(load_pt2_extra_files(kFixtures + "mlp/model.pt2").empty());
  try {
    load_pt2_extra_files(kFixtures + "no_such_fixture/model.pt2");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const AotError& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("no_such_fixture/model.pt2: cannot open"));
  }
}

TEST_P(FixtureTest, RunsAsPyTorchDid) {
  const Case& c = GetParam();
  if (!is_runnable(c)) GTEST_SKIP() << c.to_string() << " is the training IR: aot_passes_test runs it after decomposition";
  ExportedProgram program = load_pt2(kFixtures + c.fixture + "/" + c.program);
  expect_cases_match_pytorch(program, c.fixture, c.cases);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(all_programs()),
                         [](const auto& info) {
                           std::string name = info.param.fixture + "_" + info.param.program;
                           for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// The manifest lists every case on disk, so that no loop over its cases
// leaves one out, and every case it lists has both files.
TEST(FixtureManifestTest, ListsEveryCaseOnDisk) {
  size_t fixtures = 0;
  for (const auto& fixture : manifest().at("fixtures")) {
    const std::string name = fixture.at("name");
    const std::vector<std::string> listed = testing::manifest_cases(fixture);
    EXPECT_FALSE(listed.empty()) << name << " lists no cases";
    std::vector<std::string> on_disk;
    for (const auto& entry : std::filesystem::directory_iterator(kFixtures + name)) {
      const std::string file = entry.path().filename().string();
      const std::string suffix = ".expected.npz";
      if (file.size() > suffix.size() && file.ends_with(suffix)) on_disk.push_back(file.substr(0, file.size() - suffix.size()));
    }
    EXPECT_THAT(on_disk, ::testing::UnorderedElementsAreArray(listed)) << name;
    for (const std::string& c : listed) {
      EXPECT_TRUE(std::filesystem::exists(kFixtures + name + "/" + c + ".inputs.npz")) << name << " " << c;
    }
    ++fixtures;
  }
  EXPECT_GE(fixtures, 13u);
}

TEST(FixtureManifestTest, RecordsTheTorchVersion) {
  const std::string version = manifest().at("torch_version");
  EXPECT_THAT(version, ::testing::StartsWith("2."));
}

}  // namespace
}  // namespace kiln::aot
