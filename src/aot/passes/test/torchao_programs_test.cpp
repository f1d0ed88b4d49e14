// The language models quantized with torchao (tests/fixtures/manifest.json's
// "language_models": the tiny Llama of tools/llm/export.py --quantize ...):
// decompose_to_core_aten keeps torchao's ops (they have portable kernels) and
// lowering makes them their out variants; the decomposed training IR and the
// core-ATen program torch decomposed run as PyTorch ran them (logits and KV
// cache, a prefill then a decode step), which is what `kiln run` does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/test/decompose_testing.h"
#include "kernels/prim/register.h"

namespace kiln::aot {
namespace {

using testing::kFixtures;

struct LanguageModel {
  std::string name;      ///< "llm/tiny_llama_int4wo"
  std::string quantize;  ///< tools/llm/export.py's --quantize form
  std::vector<std::string> programs;
  std::vector<std::string> cases;
};

void PrintTo(const LanguageModel& m, std::ostream* out) { *out << m.name; }

std::vector<LanguageModel> language_models() {
  std::vector<LanguageModel> models;
  for (const auto& entry : testing::fixture_manifest().at("language_models")) {
    LanguageModel m{entry.at("name"), entry.at("quantize"), {}, testing::manifest_cases(entry)};
    for (const auto& [file, ops] : entry.at("programs").items()) m.programs.push_back(file);
    models.push_back(m);
  }
  return models;
}

// Calls of the torchao namespace by target.
std::map<std::string, int> torchao_calls(const ExportedProgram& program) {
  std::map<std::string, int> calls;
  for (const Node* node : program.graph()) {
    if (node->is_call_function() && node->target().rfind("torchao::", 0) == 0) ++calls[node->target()];
  }
  return calls;
}

std::map<std::string, int> out_variants_of(const std::map<std::string, int>& calls) {
  std::map<std::string, int> outs;
  for (const auto& [target, count] : calls) outs[get_op_schema(target).out_variant] = count;
  return outs;
}

class TorchaoProgramTest : public ::testing::TestWithParam<LanguageModel> {
 protected:
  // The core-ATen program torch decomposed writes its KV cache with
  // aten::copy, whose kernel is a prim kernel.
  static void SetUpTestSuite() { ASSERT_EQ(kernels::prim::register_prim_kernels(), runtime::Error::Ok); }

  ExportedProgram training() const { return load_pt2(kFixtures + GetParam().name + "/model.pt2"); }
};

// What each --quantize form leaves in the training IR: int8 weight-only is
// plain ATen ops on an int8 weight; the others dequantize int4 (and int8
// embedding) weights, 8da4w quantizes each linear's input per token too.
TEST_P(TorchaoProgramTest, TheTrainingIrHoldsTheFormsOps) {
  const std::map<std::string, int> calls = torchao_calls(training());
  const std::string& form = GetParam().quantize;
  if (form == "int8wo") {
    EXPECT_THAT(calls, ::testing::IsEmpty());
    return;
  }
  const int linears = 2 * 7 + 1;  // q, k, v, o, gate, up, down per layer, and the output projection
  const int embeddings = form == "8da4w-emb8" ? 1 : 0;
  const int dynamic = form == "int4wo" ? 0 : linears;
  std::map<std::string, int> expected{{"torchao::dequantize_affine.default", linears + embeddings + dynamic}};
  if (dynamic > 0) {
    expected["torchao::choose_qparams_affine.default"] = dynamic;
    expected["torchao::quantize_affine.default"] = dynamic;
  }
  EXPECT_EQ(calls, expected);
}

TEST_P(TorchaoProgramTest, DecompositionKeepsTorchaosOpsAndLoweringCallsTheirKernels) {
  const ExportedProgram program = training();
  const ExportedProgram decomposed = transform(program, {decompose_to_core_aten()});
  EXPECT_EQ(torchao_calls(decomposed), torchao_calls(program));
  EXPECT_THAT(testing::ops_without_kernels(decomposed), ::testing::IsEmpty());
  EXPECT_NO_THROW(verifier_for("ATEN").check(decomposed));
  const ExportedProgram lowered = lower_to_executable(decomposed);
  EXPECT_EQ(torchao_calls(lowered), out_variants_of(torchao_calls(program)));
}

TEST_P(TorchaoProgramTest, RunsAsPyTorchDid) {
  for (const std::string& file : GetParam().programs) {
    SCOPED_TRACE(file);
    ExportedProgram program = load_pt2(kFixtures + GetParam().name + "/" + file);
    if (program.dialect() == kTrainingDialect) program = transform(program, {decompose_to_core_aten()});
    testing::expect_cases_match_pytorch(program, GetParam().name, GetParam().cases);
  }
}

INSTANTIATE_TEST_SUITE_P(LanguageModels, TorchaoProgramTest, ::testing::ValuesIn(language_models()),
                         [](const auto& info) {
                           std::string name = info.param.name.substr(info.param.name.find('/') + 1);
                           for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// torch's run_decompositions() turns torchao's ops into ATen ones: the core
// program (int4 weight-only's) holds none, and runs on the ATen kernels alone.
TEST(TorchaoProgramTest, TheCoreProgramHoldsNoTorchaoOps) {
  size_t core_programs = 0;
  for (const LanguageModel& m : language_models()) {
    for (const std::string& file : m.programs) {
      if (file != "model.core.pt2") continue;
      ++core_programs;
      const ExportedProgram program = load_pt2(kFixtures + m.name + "/" + file);
      EXPECT_EQ(program.dialect(), kAtenDialect);
      EXPECT_THAT(torchao_calls(program), ::testing::IsEmpty()) << m.name;
    }
  }
  EXPECT_GE(core_programs, 1u);
}

}  // namespace
}  // namespace kiln::aot
