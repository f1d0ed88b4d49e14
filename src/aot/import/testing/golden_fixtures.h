// The golden fixtures of tests/fixtures (tools/fixtures/generate.py), for
// tests: the manifest, and running one case of a fixture through a program
// with the results compared against PyTorch's. Header-only; the including
// test target defines KILN_SOURCE_DIR.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "aot/import/npz.h"
#include "aot/interpreter/interpreter.h"

namespace kiln::aot::testing {

inline const std::string kFixtures = KILN_SOURCE_DIR "/tests/fixtures/";

inline const nlohmann::json& fixture_manifest() {
  static const nlohmann::json parsed = [] {
    std::ifstream file(kFixtures + "manifest.json");
    if (!file.good()) throw std::runtime_error("cannot read " + kFixtures + "manifest.json");
    return nlohmann::json::parse(file);
  }();
  return parsed;
}

/// Max |actual - expected| must stay within 1e-4 of the expected values' scale.
inline void expect_close(const HostTensor& actual, const HostTensor& expected, const std::string& what) {
  ASSERT_EQ(actual.describe(), expected.describe()) << what;
  const auto a = actual.to_doubles();
  const auto e = expected.to_doubles();
  double scale = 1.0;
  for (double v : e) scale = std::max(scale, std::fabs(v));
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - e[i]));
  EXPECT_LE(worst, 1e-4 * scale) << what << ": max abs error " << worst << " at scale " << scale;
}

/// Calls `program` on case `name` of `fixture` and compares its outputs, the
/// user inputs after the call and every buffer after the call with PyTorch's.
inline void expect_case_matches_pytorch(ExportedProgram& program, const std::string& fixture, const std::string& name) {
  const std::string where = fixture + " " + name;
  std::vector<Value> leaves;
  for (auto& [key, tensor] : read_npz(kFixtures + fixture + "/" + name + ".inputs.npz")) leaves.emplace_back(tensor);
  std::map<std::string, HostTensor> expected;
  for (auto& [key, tensor] : read_npz(kFixtures + fixture + "/" + name + ".expected.npz")) expected[key] = tensor;

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

}  // namespace kiln::aot::testing
