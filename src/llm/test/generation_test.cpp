// A language model end to end: the tiny random-weight Llama of
// tests/fixtures/llm/tiny_llama (tools/llm/export.py: transformers' export
// recipe, a static KV cache in mutable buffers, seq dynamic up to 32, cache 64)
// lowered as `kiln lower` does, then generated from greedily on Kiln's runtime.
// Its tokens must equal PyTorch's (reference.json: the exported program's own
// greedy continuation), through a prompt longer than one call takes (run in
// two calls) and up to the cache's end. The same for the model exported
// non-strict (tiny_llama_nonstrict: the cache's tensors are lifted constants
// the program writes) and quantized with torchao (tests/fixtures/manifest.json's
// "language_models": int8 and int4 weight-only, 8da4w, 8da4w with an int8
// embedding), whose linears run on Kiln's own kernels.
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

// How many calls of ops whose name starts with `prefix` `program` makes.
size_t calls_of(const aot::ExportedProgram& program, const std::string& prefix) {
  size_t count = 0;
  for (const aot::Node* node : program.graph()) count += node->is_call_function() && node->target().rfind(prefix, 0) == 0;
  return count;
}

// The matrix products of `program`'s graph (as core ATen spells them).
size_t matmuls_in(const aot::ExportedProgram& program) {
  return calls_of(program, "aten::mm.") + calls_of(program, "aten::addmm.") + calls_of(program, "aten::bmm.");
}

// The float model (strict and non-strict exports) and every quantized one,
// each on the portable kernels and on each backend built.
struct GenerationCase {
  std::string fixture;
  std::vector<std::string> backends;
};

void PrintTo(const GenerationCase& c, std::ostream* out) {
  *out << c.fixture << (c.backends.empty() ? "" : " on " + c.backends[0]);
}

std::vector<GenerationCase> generation_cases() {
  std::vector<std::string> fixtures{kFloatModel, "llm/tiny_llama_nonstrict"};
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
  const std::vector<std::string>& backends = GetParam().backends;
  const aot::LoweredProgram program = lower(GetParam().fixture, backends);
  if (!backends.empty()) {
    // The backend really runs what is left for it: every matmul that did not
    // become Kiln's own linear (the float model's projection to the
    // vocabulary, of one row) went into one of its delegate calls.
    const auto modules = aot::get_lowered_backend_modules(program.delegated);
    size_t delegated = 0;
    for (const auto& module : modules) {
      EXPECT_EQ(module->backend_id(), backends[0]);
      delegated += matmuls_in(module->original_module());
    }
    EXPECT_EQ(delegated, matmuls_in(program.edge));
    EXPECT_EQ(matmuls_in(program.delegated), 0u) << "a matmul stayed on the portable kernels";
    if (GetParam().fixture == kFloatModel) {
      EXPECT_GT(delegated, 0u) << "nothing was delegated to " << backends[0];
    }
  }
  LanguageModel model(runtime::testing::write_temp_file(program.buffer(), backends.empty() ? "tiny_llama" : backends[0]));
  const std::vector<Reference> expected = references(GetParam().fixture);
  ASSERT_FALSE(expected.empty());
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

// Every linear of a quantized model becomes Kiln's own (the weights packed
// at lowering), a quantized embedding ExecuTorch's lookup: no torchao op is left.
TEST_P(GenerationTest, QuantizedLinearsRunOnKilnsOwnKernels) {
  if (GetParam().fixture == kFloatModel || GetParam().fixture == "llm/tiny_llama_nonstrict") GTEST_SKIP() << "float";
  const aot::LoweredProgram program = lower(GetParam().fixture, GetParam().backends);
  EXPECT_EQ(calls_of(program.delegated, "kiln::linear."), 15u);  // 7 per layer and the vocabulary's
  EXPECT_EQ(calls_of(program.delegated, "torchao::quantize_affine."), 0u);
  EXPECT_EQ(calls_of(program.delegated, "torchao::choose_qparams_affine."), 0u);
  EXPECT_EQ(calls_of(program.delegated, "torchao::dequantize_affine."), 0u);
  // An int8 embedding table is looked up without dequantizing it whole.
  EXPECT_EQ(calls_of(program.delegated, "quantized_decomposed::embedding_byte."),
            GetParam().fixture.find("emb8") != std::string::npos ? 1u : 0u);
  EXPECT_EQ(matmuls_in(program.edge), 0u);
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

// A conversation runs each turn where the last one ended, on the same cache:
// only the turn's ids and the last turn's final token (chosen, never run) are
// prefilled, and the tokens it generates equal those of prefilling the whole
// conversation from scratch: through a turn longer than one call takes, up to
// a turn the cache has no room for, and again from position 0 after reset().
TEST(GenerationTest, AConversationKeepsTheCacheAcrossTurns) {
  const std::string path = lowered({});
  LanguageModel model(path);
  LanguageModel fresh(path);
  Conversation chat(model);
  GenerationOptions options;
  options.max_new_tokens = 6;
  options.stop_at_eos = false;
  const Reference reference = references().at(0);
  const GenerationResult first = chat.add_turn(reference.prompt, options);
  const std::vector<int64_t> first_greedy(reference.greedy.begin(), reference.greedy.begin() + 6);
  EXPECT_EQ(first.tokens, first_greedy);
  EXPECT_EQ(chat.position(), 10);

  std::vector<int64_t> long_turn;
  for (int64_t i = 0; i < 33; ++i) long_turn.push_back((i * 37 + 11) % 256);
  for (const std::vector<int64_t>& turn : {std::vector<int64_t>{33, 12, 250, 9}, long_turn}) {
    std::vector<int64_t> conversation = chat.tokens();
    conversation.insert(conversation.end(), turn.begin(), turn.end());
    const GenerationResult result = chat.add_turn(turn, options);
    EXPECT_EQ(result.prompt_tokens, static_cast<int64_t>(turn.size()) + 1) << "the conversation was prefilled again";
    const GenerationResult from_scratch = generate(fresh, conversation, options);
    EXPECT_EQ(from_scratch.prompt_tokens, static_cast<int64_t>(conversation.size()));
    EXPECT_EQ(result.tokens, from_scratch.tokens) << "turn of " << turn.size() << " tokens";
    conversation.insert(conversation.end(), result.tokens.begin(), result.tokens.end());
    EXPECT_EQ(chat.tokens(), conversation);
    EXPECT_EQ(chat.position(), static_cast<int64_t>(conversation.size()) - 1);
  }

  // 60 ids said, 59 run: ten more do not fit in 64 positions.
  try {
    chat.add_turn(std::vector<int64_t>(10, 3), options);
    ADD_FAILURE() << "a turn past the cache's end was run";
  } catch (const LlmError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the conversation would hold 70 tokens with this turn's 10; the model's cache holds 64"));
  }
  EXPECT_EQ(chat.position(), 59);

  chat.reset();
  EXPECT_EQ(chat.add_turn(reference.prompt, options).tokens, first_greedy);
  EXPECT_EQ(chat.position(), 10);
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
