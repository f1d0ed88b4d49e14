#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "llm/sampler.h"

namespace kiln::llm {
namespace {

using ::testing::HasSubstr;

TEST(SamplerTest, GreedyTakesTheFirstOfEqualMaxima) {
  Sampler sampler({});
  const std::vector<float> logits = {0.5f, 3.0f, -1.0f, 3.0f};
  EXPECT_EQ(sampler.sample(logits), 1);
}

TEST(SamplerTest, TopKOfOneAndATinyTopPAreGreedy) {
  const std::vector<float> logits = {0.1f, 0.2f, 2.0f, 1.9f};
  Sampler top_k({.temperature = 1.0, .top_k = 1, .seed = 7});
  Sampler top_p({.temperature = 1.0, .top_p = 1e-6, .seed = 7});
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(top_k.sample(logits), 2);
    EXPECT_EQ(top_p.sample(logits), 2);
  }
}

TEST(SamplerTest, TheSameSeedDrawsTheSameTokens) {
  const std::vector<float> logits = {1.0f, 1.1f, 0.9f, 1.2f, 0.8f};
  Sampler a({.temperature = 0.8, .seed = 42});
  Sampler b({.temperature = 0.8, .seed = 42});
  Sampler c({.temperature = 0.8, .seed = 43});
  std::vector<int64_t> from_a, from_b, from_c;
  for (int i = 0; i < 64; ++i) {
    from_a.push_back(a.sample(logits));
    from_b.push_back(b.sample(logits));
    from_c.push_back(c.sample(logits));
  }
  EXPECT_EQ(from_a, from_b);
  EXPECT_NE(from_a, from_c);
}

// A share of n draws from probability p has the standard deviation of a
// binomial's share, sqrt(p (1 - p) / n); five of them hold for the fixed
// seed's draws (a miss would be a one-in-a-million draw), and are small
// beside the smallest probability checked, so a tail drawn too rarely or
// never fails.
double tolerance(double p, int draws) { return 5.0 * std::sqrt(p * (1.0 - p) / draws); }

// Drawn often enough, each token's share approaches its softmax probability
// at the temperature; top-p drops the tail that lies beyond it.
TEST(SamplerTest, DrawsFollowTheSoftmaxAndTopPCutsTheTail) {
  const std::vector<float> logits = {2.0f, 1.0f, 0.0f, -1.0f};
  const double temperature = 0.5;
  std::vector<double> expected;
  double total = 0;
  for (float l : logits) total += std::exp(l / temperature);
  for (float l : logits) expected.push_back(std::exp(l / temperature) / total);  // 0.867, 0.117, 0.016, 0.002

  const int draws = 200000;
  ASSERT_LT(tolerance(expected[3], draws), expected[3] / 4) << "too few draws to tell the tail's share";
  Sampler sampler({.temperature = temperature, .seed = 1});
  std::vector<int> counts(logits.size());
  for (int i = 0; i < draws; ++i) ++counts[static_cast<size_t>(sampler.sample(logits))];
  for (size_t i = 0; i < logits.size(); ++i) {
    EXPECT_NEAR(counts[i] / double(draws), expected[i], tolerance(expected[i], draws)) << i;
  }

  // top_p 0.9: tokens 0 and 1 (0.867 + 0.117 reaches it), renormalized.
  Sampler nucleus({.temperature = temperature, .top_p = 0.9, .seed = 1});
  std::vector<int> kept(logits.size());
  for (int i = 0; i < draws; ++i) ++kept[static_cast<size_t>(nucleus.sample(logits))];
  EXPECT_EQ(kept[2] + kept[3], 0);
  const double second = expected[1] / (expected[0] + expected[1]);
  EXPECT_NEAR(kept[1] / double(draws), second, tolerance(second, draws));
}

TEST(SamplerTest, BadSettingsAreRefusedByName) {
  auto message = [](const SamplingOptions& options) {
    try {
      Sampler sampler(options);
    } catch (const LlmError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({.top_p = 0.0}), HasSubstr("top-p 0.000000 must be in (0, 1]"));
  EXPECT_THAT(message({.top_p = 1.5}), HasSubstr("top-p 1.500000 must be in (0, 1]"));
  EXPECT_THAT(message({.temperature = -0.1}), HasSubstr("temperature -0.100000 must be 0"));
  EXPECT_THAT(message({.temperature = NAN}), HasSubstr("temperature nan must be 0"));
  EXPECT_THAT(message({.top_k = -2}), HasSubstr("top-k -2 must be 0"));
  Sampler sampler({});
  EXPECT_THROW(sampler.sample({}), LlmError);
}

}  // namespace
}  // namespace kiln::llm
