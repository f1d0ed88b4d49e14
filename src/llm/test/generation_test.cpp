// A language model end to end: the tiny random-weight Llama of
// tests/fixtures/llm/tiny_llama (tools/llm/export.py: transformers' export
// recipe, a static KV cache in mutable buffers, seq dynamic up to 32, cache 64)
// lowered as `kiln lower` does, then generated from greedily on Kiln's runtime.
// Its tokens must equal PyTorch's (reference.json: the exported program's own
// greedy continuation), through a prompt longer than one call takes (run in
// two calls) and up to the cache's end. The same for the model quantized with
// torchao (tests/fixtures/manifest.json's "language_models": int8 and int4
// weight-only, 8da4w, 8da4w with an int8 embedding), whose torchao ops run on
// the portable kernels whatever backend takes the rest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aot/import/pt2_reader.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/program_methods.h"
#include "llm/generate.h"
#include "llm/language_model.h"
#include "tests/support/program_test_util.h"

namespace kiln::llm {
namespace {

using ::testing::HasSubstr;

const std::string kFixtures = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/";
const std::string kFloatModel = "llm/tiny_llama";

struct Reference {
  std::vector<int64_t> prompt;
  std::vector<int64_t> greedy;
};

std::vector<Reference> references(const std::string& fixture = kFloatModel) {
  std::ifstream file(kFixtures + fixture + "/reference.json");
  const nlohmann::json json = nlohmann::json::parse(file);
  std::vector<Reference> out;
  for (const auto& entry : json) out.push_back({entry["prompt_ids"], entry["greedy_ids"]});
  return out;
}

// The fixture lowered as `kiln lower` does: with the constant methods its
// archive carries (kiln/constant_methods.json), and `extra` besides.
aot::LoweredProgram lower(const std::string& fixture, const std::vector<std::string>& backends,
                          const aot::ConstantMethods& extra = {}) {
  aot::LowerOptions options;
  options.backends = backends;
  aot::MethodSources sources;
  sources.path = kFixtures + fixture + "/model.pt2";
  aot::ProgramMethods methods = aot::load_program_methods(sources);
  for (const auto& [name, value] : extra) methods.constants[name] = value;
  return aot::lower(std::move(methods), options);
}

std::string lowered(const std::vector<std::string>& backends, const aot::ConstantMethods& extra = {},
                    const std::string& fixture = kFloatModel) {
  const aot::LoweredProgram program = lower(fixture, backends, extra);
  return runtime::testing::write_temp_file(program.buffer(), backends.empty() ? "tiny_llama" : backends[0]);
}

// The float model and every quantized one, each on the portable kernels and
// on each backend built.
struct GenerationCase {
  std::string fixture;
  std::vector<std::string> backends;
};

void PrintTo(const GenerationCase& c, std::ostream* out) {
  *out << c.fixture << (c.backends.empty() ? "" : " on " + c.backends[0]);
}

std::vector<GenerationCase> generation_cases() {
  std::vector<std::string> fixtures{kFloatModel};
  std::ifstream file(kFixtures + "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(file);
  for (const auto& model : manifest.at("language_models")) fixtures.push_back(model.at("name"));
  std::vector<std::vector<std::string>> backends{{}};
#ifdef KILN_WITH_ONEDNN_TEST
  backends.push_back({"OneDnnBackend"});
#endif
  std::vector<GenerationCase> cases;
  for (const std::string& fixture : fixtures) {
    for (const auto& b : backends) cases.push_back({fixture, b});
  }
  return cases;
}

class GenerationTest : public ::testing::TestWithParam<GenerationCase> {};

TEST_P(GenerationTest, GreedyTokensEqualPyTorchsToTheCachesEnd) {
  LanguageModel model(lowered(GetParam().backends, {}, GetParam().fixture));
  EXPECT_EQ(model.info().max_context, 64);  // get_max_seq_len
  EXPECT_EQ(model.info().eos_ids, std::vector<int64_t>{2});
  EXPECT_EQ(model.info().bos_id, 1);
  EXPECT_EQ(model.info().max_tokens_per_call, 32);
  EXPECT_EQ(model.info().vocab_size, 256);
  for (const Reference& reference : references(GetParam().fixture)) {
    GenerationOptions options;
    options.max_new_tokens = 64;
    options.stop_at_eos = false;
    const GenerationResult result = generate(model, reference.prompt, options);
    EXPECT_EQ(result.tokens, reference.greedy) << "prompt of " << reference.prompt.size() << " tokens";
    EXPECT_EQ(result.stop, StopReason::ContextFull);
    EXPECT_EQ(result.prompt_tokens + result.decode_calls, 64);
  }
}

// torchao's ops are no backend's yet: each stays a call of its portable
// kernel in the delegated program, as many as the program had.
TEST_P(GenerationTest, TorchaoOpsStayOnThePortableKernels) {
  const aot::LoweredProgram program = lower(GetParam().fixture, GetParam().backends);
  auto torchao_calls = [](const aot::ExportedProgram& p) {
    size_t n = 0;
    for (const aot::Node* node : p.graph()) n += node->is_call_function() && node->target().rfind("torchao::", 0) == 0;
    return n;
  };
  EXPECT_EQ(torchao_calls(program.delegated), torchao_calls(program.edge));
  // Int8 weight-only leaves plain ATen ops on an int8 weight; the other forms call torchao's.
  const bool calls_torchao = GetParam().fixture != kFloatModel && GetParam().fixture.find("int8wo") == std::string::npos;
  EXPECT_EQ(torchao_calls(program.edge) > 0, calls_torchao);
}

INSTANTIATE_TEST_SUITE_P(Models, GenerationTest, ::testing::ValuesIn(generation_cases()), [](const auto& info) {
  std::string name = info.param.fixture.substr(info.param.fixture.find('/') + 1) + "_" +
                     (info.param.backends.empty() ? std::string("Portable") : info.param.backends[0]);
  for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
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
