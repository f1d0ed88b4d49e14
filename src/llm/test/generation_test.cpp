// A language model end to end: the tiny random-weight Llama of
// tests/fixtures/llm/tiny_llama (tools/llm/export.py: transformers' export
// recipe, a static KV cache in mutable buffers, seq dynamic up to 32, cache 64)
// lowered as `kiln lower` does, then generated from greedily on Kiln's runtime;
// and the same model exported non-strict (tiny_llama_nonstrict: the cache's
// tensors are lifted constants the program writes, program state).
// Its tokens must equal PyTorch's (reference.json: the exported program's own
// greedy continuation), through a prompt longer than one call takes (run in
// two calls) and up to the cache's end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/import/pt2_reader.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/program_methods.h"
#include "llm/generate.h"
#include "llm/language_model.h"
#include "tests/support/program_test_util.h"

namespace kiln::llm {
namespace {

using ::testing::HasSubstr;

const std::string kFixtures = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/llm/";
const std::string kFixture = kFixtures + "tiny_llama/";

struct Reference {
  std::vector<int64_t> prompt;
  std::vector<int64_t> greedy;
};

std::vector<Reference> references(const std::string& fixture = kFixture) {
  std::ifstream file(fixture + "reference.json");
  const nlohmann::json json = nlohmann::json::parse(file);
  std::vector<Reference> out;
  for (const auto& entry : json) out.push_back({entry["prompt_ids"], entry["greedy_ids"]});
  return out;
}

// The fixture lowered as `kiln lower` does: with the constant methods its
// archive carries (kiln/constant_methods.json), and `extra` besides.
aot::LoweredProgram lower_fixture(const std::vector<std::string>& backends, const aot::ConstantMethods& extra = {},
                                  const std::string& fixture = kFixture) {
  aot::LowerOptions options;
  options.backends = backends;
  aot::MethodSources sources;
  sources.path = fixture + "model.pt2";
  aot::ProgramMethods methods = aot::load_program_methods(sources);
  for (const auto& [name, value] : extra) methods.constants[name] = value;
  return aot::lower(std::move(methods), options);
}

// `program` as a .pte file.
std::string pte_file(const aot::LoweredProgram& program, const std::vector<std::string>& backends) {
  return runtime::testing::write_temp_file(program.buffer(), backends.empty() ? "tiny_llama" : backends[0]);
}

std::string lowered(const std::vector<std::string>& backends, const aot::ConstantMethods& extra = {}) {
  return pte_file(lower_fixture(backends, extra), backends);
}

// The matrix products of `program`'s graph (as core ATen spells them) that
// the lowering did not make Kiln's own linears.
size_t matmuls_in(const aot::ExportedProgram& program) {
  size_t count = 0;
  for (const aot::Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    const std::string op = node->target().substr(0, node->target().find('.'));
    count += op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" || op == "aten::matmul" ? 1 : 0;
  }
  return count;
}

struct GenerationCase {
  std::string fixture;  ///< a directory of tests/fixtures/llm
  std::vector<std::string> backends;
};

class GenerationTest : public ::testing::TestWithParam<GenerationCase> {};

TEST_P(GenerationTest, GreedyTokensEqualPyTorchsToTheCachesEnd) {
  const std::string fixture = kFixtures + GetParam().fixture + "/";
  const std::vector<std::string>& backends = GetParam().backends;
  const aot::LoweredProgram program = lower_fixture(backends, {}, fixture);
  if (!backends.empty()) {
    // The backend really runs the model: its delegate calls are in the
    // program, and every matmul that did not become Kiln's own linear (the
    // projection to the vocabulary, of one row) went into one of them.
    const auto modules = aot::get_lowered_backend_modules(program.delegated);
    ASSERT_FALSE(modules.empty()) << "nothing was delegated to " << backends[0];
    size_t delegated = 0;
    for (const auto& module : modules) {
      EXPECT_EQ(module->backend_id(), backends[0]);
      delegated += matmuls_in(module->original_module());
    }
    EXPECT_GT(delegated, 0u);
    EXPECT_EQ(delegated, matmuls_in(program.edge));
    EXPECT_EQ(matmuls_in(program.delegated), 0u) << "a matmul stayed on the portable kernels";
  }
  LanguageModel model(pte_file(program, backends));
  EXPECT_EQ(model.info().max_context, 64);  // get_max_seq_len
  EXPECT_EQ(model.info().eos_ids, std::vector<int64_t>{2});
  EXPECT_EQ(model.info().bos_id, 1);
  EXPECT_EQ(model.info().max_tokens_per_call, 32);
  EXPECT_EQ(model.info().vocab_size, 256);
  const std::vector<Reference> expected = references(fixture);
  ASSERT_EQ(expected.size(), 2u);
  for (const Reference& reference : expected) {
    GenerationOptions options;
    options.max_new_tokens = 64;
    options.stop_at_eos = false;
    const GenerationResult result = generate(model, reference.prompt, options);
    EXPECT_EQ(result.tokens, reference.greedy) << "prompt of " << reference.prompt.size() << " tokens";
    EXPECT_EQ(result.stop, StopReason::ContextFull);
    EXPECT_EQ(result.prompt_tokens + result.decode_calls, 64);
  }
}

std::vector<GenerationCase> generation_cases() {
  std::vector<GenerationCase> cases;
  for (const char* fixture : {"tiny_llama", "tiny_llama_nonstrict"}) {
    cases.push_back({fixture, {}});
#ifdef KILN_WITH_ONEDNN_TEST
    cases.push_back({fixture, {"OneDnnBackend"}});
#endif
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Backends, GenerationTest, ::testing::ValuesIn(generation_cases()), [](const auto& info) {
  return info.param.fixture + "_" + (info.param.backends.empty() ? std::string("Portable") : info.param.backends[0]);
});

// ExecuTorch writes a list constant as one output per item; several EOS ids
// all stop generation.
TEST(GenerationTest, EveryEosIdOfTheProgramStopsGeneration) {
  const Reference reference = references().at(0);
  const int64_t third = reference.greedy.at(2);
  LanguageModel model(lowered({}, {{"get_eos_ids", std::vector<int64_t>{250, third}}}));
  EXPECT_EQ(model.info().eos_ids, (std::vector<int64_t>{250, third}));
  const GenerationResult result = generate(model, reference.prompt, {});
  EXPECT_EQ(result.stop, StopReason::Eos);
  EXPECT_EQ(result.tokens, std::vector<int64_t>(reference.greedy.begin(), reference.greedy.begin() + 3));
}

TEST(GenerationTest, BadPromptsAreRefusedByName) {
  LanguageModel model(lowered({}));
  model.set_max_context(64);
  auto message = [&](std::vector<int64_t> prompt) {
    try {
      generate(model, prompt, {});
    } catch (const LlmError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({}), HasSubstr("the prompt has no tokens"));
  EXPECT_THAT(message(std::vector<int64_t>(65, 3)), HasSubstr("the prompt has 65 tokens; the model's cache holds 64"));
  EXPECT_THAT(message({1, 256}), HasSubstr("prompt token id 256 is outside the vocabulary (0 to 255)"));
}

TEST(GenerationTest, AProgramThatIsNotALanguageModelIsRefused) {
  aot::LowerOptions options;
  const aot::LoweredProgram program =
      aot::lower(aot::load_pt2(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/mlp/model.pt2"), options);
  const std::string path = runtime::testing::write_temp_file(program.buffer(), "mlp");
  try {
    LanguageModel model(path);
    FAIL() << "loaded";
  } catch (const LlmError& e) {
    EXPECT_THAT(e.what(), HasSubstr("method 'forward' is not a language model's (token ids [1, seq], cache positions [seq]) -> logits"));
  }
  EXPECT_THROW(LanguageModel("/nonexistent.pte"), LlmError);
}

}  // namespace
}  // namespace kiln::llm
