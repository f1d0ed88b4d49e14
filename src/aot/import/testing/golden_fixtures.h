// The golden fixtures of tests/fixtures (tools/fixtures/generate.py), for
// tests: the manifest, the element-wise comparison with PyTorch's tensors,
// and running one case of a fixture through a program with everything
// PyTorch recorded (outputs, user inputs and buffers after the call)
// compared. Header-only; the including test target defines KILN_SOURCE_DIR.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aot/import/npz.h"
#include "aot/import/testing/tolerance.h"
#include "aot/interpreter/interpreter.h"

namespace kiln::aot::testing {

inline const std::string kFixtures = KILN_SOURCE_DIR "/tests/fixtures/";

inline nlohmann::json read_fixture_manifest(const std::string& path) {
  std::ifstream file(kFixtures + path);
  if (!file.good()) throw std::runtime_error("cannot read " + kFixtures + path);
  return nlohmann::json::parse(file);
}

inline const nlohmann::json& fixture_manifest() {
  static const nlohmann::json parsed = read_fixture_manifest("manifest.json");
  return parsed;
}

/// The fixtures of the training IR alone (tests/fixtures/training_ir/, named
/// "training_ir/<name>"): programs as torch.export.export leaves them, whose
/// ops only Kiln's decompositions lower. The decomposition tests read them;
/// the suites that run a fixture's core program do not.
inline const nlohmann::json& training_ir_manifest() {
  static const nlohmann::json parsed = read_fixture_manifest("training_ir/manifest.json");
  return parsed;
}

/// The case names of one fixture of the manifest (expect_cases_match_pytorch
/// and the loops over them fail when there are none).
inline std::vector<std::string> manifest_cases(const nlohmann::json& fixture) {
  return fixture.at("cases").get<std::vector<std::string>>();
}

/// One program file of a fixture (model.pt2, the training IR, or
/// model.core.pt2, core ATen) with the fixture's cases.
struct FixtureFile {
  std::string fixture;
  std::string file;
  std::vector<std::string> cases;

  std::string path() const { return kFixtures + fixture + "/" + file; }
  /// "mlp_model_core_pt2": a gtest name.
  std::string test_name() const {
    std::string name = fixture + "_" + file;
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
  }
};
inline void PrintTo(const FixtureFile& f, std::ostream* out) { *out << f.fixture << "/" << f.file; }

inline std::vector<FixtureFile> files_of(const nlohmann::json& manifest) {
  std::vector<FixtureFile> files;
  for (const auto& fixture : manifest.at("fixtures")) {
    for (const auto& [file, ops] : fixture.at("programs").items()) {
      files.push_back({fixture.at("name"), file, manifest_cases(fixture)});
    }
  }
  return files;
}

/// Every program file of every fixture of the manifest, in its order.
inline std::vector<FixtureFile> fixture_files() { return files_of(fixture_manifest()); }

/// fixture_files(), then the training-IR fixtures' programs.
inline std::vector<FixtureFile> fixture_files_with_training_ir() {
  std::vector<FixtureFile> files = fixture_files();
  for (FixtureFile& file : files_of(training_ir_manifest())) files.push_back(std::move(file));
  return files;
}

/// Expects `actual` to match `expected` (see tensor_mismatch); `what` names it.
inline void expect_close(const HostTensor& actual, const HostTensor& expected, const std::string& what,
                         Tolerance tolerance = kFixtureTolerance) {
  const std::string mismatch = tensor_mismatch(actual, expected, tolerance);
  EXPECT_TRUE(mismatch.empty()) << what << ": " << mismatch;
}

/// What a program left after one call of a case.
struct CaseResult {
  std::vector<HostTensor> outputs;             ///< the flattened user outputs
  std::vector<HostTensor> inputs_after;        ///< the flattened user inputs after the call
  std::map<std::string, HostTensor> buffers;   ///< every buffer after the call, by fully qualified name
};

/// The flattened user inputs of case `name` of `fixture`.
inline std::vector<Value> read_case_inputs(const std::string& fixture, const std::string& name) {
  std::vector<Value> leaves;
  for (auto& [key, tensor] : read_npz(kFixtures + fixture + "/" + name + ".inputs.npz")) leaves.emplace_back(tensor);
  return leaves;
}

/// What PyTorch recorded for case `name` of `fixture`, by key: output_<i>,
/// input_<i> (after the call) and buffer:<fqn>.
inline std::map<std::string, HostTensor> read_case_expected(const std::string& fixture, const std::string& name) {
  std::map<std::string, HostTensor> expected;
  for (auto& [key, tensor] : read_npz(kFixtures + fixture + "/" + name + ".expected.npz")) expected[key] = tensor;
  return expected;
}

/// Compares the tensors of `actual` (named `prefix` + index) with the
/// entries `prefix`<i> of `expected`, in both directions.
inline void compare_numbered(const std::vector<HostTensor>& actual, const std::map<std::string, HostTensor>& expected,
                             const std::string& prefix, const std::string& suffix, Tolerance tolerance,
                             std::vector<std::string>& mismatches) {
  for (size_t i = 0; i < actual.size(); ++i) {
    const std::string key = prefix + std::to_string(i);
    const auto it = expected.find(key);
    if (it == expected.end()) {
      mismatches.push_back(key + ": PyTorch has no " + key + " (Kiln gave " + std::to_string(actual.size()) + ")");
      continue;
    }
    const std::string mismatch = tensor_mismatch(actual[i], it->second, tolerance);
    if (!mismatch.empty()) mismatches.push_back(key + suffix + " " + mismatch);
  }
  if (expected.count(prefix + std::to_string(actual.size()))) {
    mismatches.push_back(prefix + std::to_string(actual.size()) + ": PyTorch has it, Kiln gave only " +
                         std::to_string(actual.size()));
  }
}

/// Every difference between `result` and what PyTorch recorded: each output,
/// each user input after the call and each buffer PyTorch has must be there
/// and match, and Kiln must have no output, input or buffer more.
inline std::vector<std::string> case_mismatches(const CaseResult& result,
                                                const std::map<std::string, HostTensor>& expected,
                                                Tolerance tolerance = kFixtureTolerance) {
  std::vector<std::string> mismatches;
  compare_numbered(result.outputs, expected, "output_", "", tolerance, mismatches);
  compare_numbered(result.inputs_after, expected, "input_", " after the call", tolerance, mismatches);
  const std::string buffer_prefix = "buffer:";
  for (const auto& [key, tensor] : expected) {
    if (key.rfind(buffer_prefix, 0) != 0) continue;
    const std::string fqn = key.substr(buffer_prefix.size());
    const auto it = result.buffers.find(fqn);
    if (it == result.buffers.end()) {
      mismatches.push_back("buffer " + fqn + ": PyTorch has it, Kiln's program has none of that name");
      continue;
    }
    const std::string mismatch = tensor_mismatch(it->second, tensor, tolerance);
    if (!mismatch.empty()) mismatches.push_back("buffer " + fqn + " after the call " + mismatch);
  }
  for (const auto& [fqn, tensor] : result.buffers) {
    if (!expected.count(buffer_prefix + fqn)) mismatches.push_back("buffer " + fqn + ": PyTorch has no such buffer");
  }
  return mismatches;
}

/// Calls `program` on case `name` of `fixture`.
inline CaseResult run_case(ExportedProgram& program, const std::string& fixture, const std::string& name) {
  const std::vector<Value> leaves = read_case_inputs(fixture, name);
  const PyTree call = tree_unflatten(leaves, *program.in_spec());
  const PyTree result = call_program(program, call.children[0], call.children[1]);
  CaseResult out;
  for (const Value& value : tree_flatten(result).first) out.outputs.push_back(std::get<HostTensor>(value));
  // call_program writes input mutations into the tensors of `call`, which share storage with `leaves`.
  for (const Value& value : leaves) out.inputs_after.push_back(std::get<HostTensor>(value).clone());
  for (const auto& [buffer, tensor] : program.named_buffers()) out.buffers[buffer] = tensor.clone();
  return out;
}

/// Calls `program` on case `name` of `fixture` and expects everything PyTorch
/// recorded to match (case_mismatches).
inline void expect_case_matches_pytorch(ExportedProgram& program, const std::string& fixture, const std::string& name) {
  const std::vector<std::string> mismatches = case_mismatches(run_case(program, fixture, name),
                                                              read_case_expected(fixture, name));
  for (const std::string& mismatch : mismatches) ADD_FAILURE() << fixture << " " << name << ": " << mismatch;
}

/// expect_case_matches_pytorch on each of `cases`, which must not be empty.
inline void expect_cases_match_pytorch(ExportedProgram& program, const std::string& fixture,
                                       const std::vector<std::string>& cases) {
  ASSERT_FALSE(cases.empty()) << fixture << ": no case to run";
  for (const std::string& name : cases) expect_case_matches_pytorch(program, fixture, name);
}

}  // namespace kiln::aot::testing
