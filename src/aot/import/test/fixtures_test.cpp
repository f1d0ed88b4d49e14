// Every golden fixture of tests/fixtures (made by tools/fixtures/generate.py
// with PyTorch) read, and run through the interpreter with PyTorch's results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/op_schema.h"

namespace kiln::aot {
namespace {

const std::string kFixtures = KILN_SOURCE_DIR "/tests/fixtures/";

const nlohmann::json& manifest() {
  static const nlohmann::json parsed = [] {
    std::ifstream file(kFixtures + "manifest.json");
    if (!file.good()) throw std::runtime_error("cannot read " + kFixtures + "manifest.json");
    return nlohmann::json::parse(file);
  }();
  return parsed;
}

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
      result.push_back({fixture.at("name"), program, fixture.at("cases").get<std::vector<std::string>>()});
    }
  }
  return result;
}

// The program to run for each fixture: the core-ATen one where there is one
// (the training IR needs decompositions Kiln applies in a later pass).
bool is_runnable(const Case& c) {
  for (const auto& fixture : manifest().at("fixtures")) {
    if (fixture.at("name") != c.fixture) continue;
    const auto& programs = fixture.at("programs");
    return c.program == "model.core.pt2" || !programs.contains("model.core.pt2");
  }
  return false;
}

// Max |actual - expected| must stay within 1e-4 of the expected values' scale.
void expect_close(const HostTensor& actual, const HostTensor& expected, const std::string& what) {
  ASSERT_EQ(actual.describe(), expected.describe()) << what;
  const auto a = actual.to_doubles();
  const auto e = expected.to_doubles();
  double scale = 1.0;
  for (double v : e) scale = std::max(scale, std::fabs(v));
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - e[i]));
  EXPECT_LE(worst, 1e-4 * scale) << what << ": max abs error " << worst << " at scale " << scale;
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
  // Weights are views of the mapped file, not copies: tied weights share storage.
  EXPECT_FALSE(program.state_dict().empty() && program.graph_signature().parameters().size() > 0);
}

TEST_P(FixtureTest, RunsAsPyTorchDid) {
  const Case& c = GetParam();
  if (!is_runnable(c)) GTEST_SKIP() << c.to_string() << " is the training IR; its core-ATen twin runs";
  ExportedProgram program = load_pt2(kFixtures + c.fixture + "/" + c.program);
  const std::vector<std::string> buffers = program.graph_signature().buffers();
  for (const std::string& name : c.cases) {
    const std::string where = c.to_string() + " " + name;
    auto inputs = read_npz(kFixtures + c.fixture + "/" + name + ".inputs.npz");
    std::map<std::string, HostTensor> expected;
    for (auto& [key, tensor] : read_npz(kFixtures + c.fixture + "/" + name + ".expected.npz")) expected[key] = tensor;

    std::vector<Value> leaves;
    for (auto& [key, tensor] : inputs) leaves.emplace_back(tensor);
    const PyTree call = tree_unflatten(leaves, *program.in_spec());
    const PyTree result = call_program(program, call.children[0], call.children[1]);
    const auto [outputs, spec] = tree_flatten(result);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string key = "output_" + std::to_string(i);
      ASSERT_TRUE(expected.count(key)) << where << ": PyTorch gave fewer outputs";
      expect_close(std::get<HostTensor>(outputs[i]), expected.at(key), where + " " + key);
    }
    EXPECT_FALSE(expected.count("output_" + std::to_string(outputs.size()))) << where << ": PyTorch gave more outputs";
    for (size_t i = 0; i < leaves.size(); ++i) {
      expect_close(std::get<HostTensor>(leaves[i]), expected.at("input_" + std::to_string(i)),
                   where + " input_" + std::to_string(i) + " after the call");
    }
    for (const auto& [buffer, tensor] : program.named_buffers()) {
      expect_close(tensor, expected.at("buffer:" + buffer), where + " buffer " + buffer + " after the call");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(all_programs()),
                         [](const auto& info) {
                           std::string name = info.param.fixture + "_" + info.param.program;
                           for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(FixtureManifestTest, RecordsTheTorchVersion) {
  const std::string version = manifest().at("torch_version");
  EXPECT_THAT(version, ::testing::StartsWith("2."));
}

}  // namespace
}  // namespace kiln::aot
