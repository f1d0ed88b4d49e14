// The fixture checker itself (testing/golden_fixtures.h) can fail: NaN and
// infinities where PyTorch has other values, an error on a small element
// beside a huge one, a buffer, output or input Kiln dropped or added, and a
// fixture without cases.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <limits>

#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::CaseResult;
using testing::case_mismatches;
using testing::tensor_mismatch;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor f32(const std::vector<double>& values) {
  std::vector<float> floats(values.begin(), values.end());
  return HostTensor::from_vector<float>({static_cast<int64_t>(values.size())}, floats);
}

TEST(TensorMismatchTest, AcceptsFloat32RoundingDifferences) {
  EXPECT_EQ(tensor_mismatch(f32({1.0 + 1e-6, -2e4 + 0.05, 1e-7}), f32({1.0, -2e4, 0.0})), "");
}

TEST(TensorMismatchTest, NanMatchesOnlyNan) {
  EXPECT_EQ(tensor_mismatch(f32({kNan, 1.0}), f32({kNan, 1.0})), "");
  EXPECT_THAT(tensor_mismatch(f32({kNan, 1.0}), f32({0.5, 1.0})), HasSubstr("[0] is nan, expected 0.5"));
  EXPECT_THAT(tensor_mismatch(f32({0.5, 1.0}), f32({kNan, 1.0})), HasSubstr("[0] is 0.5, expected nan"));
}

// A program that outputs NaN everywhere passes no fixture.
TEST(TensorMismatchTest, AnAllNanResultFails) {
  EXPECT_THAT(tensor_mismatch(f32({kNan, kNan, kNan}), f32({0.0, 1e-3, -7.0})), HasSubstr("[2] is nan"));
}

TEST(TensorMismatchTest, InfinityMatchesOnlyTheSameInfinity) {
  EXPECT_EQ(tensor_mismatch(f32({kInf, -kInf}), f32({kInf, -kInf})), "");
  EXPECT_THAT(tensor_mismatch(f32({-kInf}), f32({kInf})), HasSubstr("[0] is -inf, expected inf"));
  EXPECT_THAT(tensor_mismatch(f32({kInf}), f32({3.0e38})), HasSubstr("[0] is inf"));
  EXPECT_THAT(tensor_mismatch(f32({3.0e38}), f32({kInf})), HasSubstr("expected inf"));
}

// Each element has its own tolerance: a huge one beside it (text_model's
// -1e4 padding) does not widen it.
TEST(TensorMismatchTest, ComparesEachElementAtItsOwnScale) {
  EXPECT_THAT(tensor_mismatch(f32({-1e4, 1.01}), f32({-1e4, 1.0})), HasSubstr("[1] is 1.00999999, expected 1"));
  EXPECT_NE(tensor_mismatch(f32({-1e4, 0.0101}), f32({-1e4, 0.01})), "");
  EXPECT_NE(tensor_mismatch(f32({-1e4, 1e-4}), f32({-1e4, 0.0})), "");
}

TEST(TensorMismatchTest, NamesTheIndexAndCountsTheMismatches) {
  const HostTensor expected = HostTensor::from_vector<float>({2, 4}, std::vector<float>(8, 0.0f));
  const HostTensor actual = HostTensor::from_vector<float>({2, 4}, std::vector<float>(8, 1.0f));
  const std::string text = tensor_mismatch(actual, expected);
  EXPECT_THAT(text, HasSubstr("[0, 0] is 1, expected 0; [0, 1] is 1"));
  EXPECT_THAT(text, HasSubstr("8 of 8 elements differ"));
}

TEST(TensorMismatchTest, IntegersMustBeExact) {
  const auto longs = [](int64_t v) { return HostTensor::from_vector<int64_t>({1}, {v}); };
  EXPECT_EQ(tensor_mismatch(longs(100000), longs(100000)), "");
  EXPECT_THAT(tensor_mismatch(longs(100001), longs(100000)), HasSubstr("[0] is 100001, expected 100000"));
}

TEST(TensorMismatchTest, DtypeAndShapeMustBeEqual) {
  EXPECT_EQ(tensor_mismatch(HostTensor::from_vector<double>({1}, {1.0}), f32({1.0})), "is f64[1], expected f32[1]");
  EXPECT_EQ(tensor_mismatch(f32({1.0, 2.0}), f32({1.0})), "is f32[2], expected f32[1]");
}

// What PyTorch recorded for a program with one input, one output and buffer "b".
std::map<std::string, HostTensor> recorded() {
  return {{"output_0", f32({1.0})}, {"input_0", f32({2.0})}, {"buffer:b", f32({3.0})}};
}

CaseResult matching_result() { return {{f32({1.0})}, {f32({2.0})}, {{"b", f32({3.0})}}}; }

TEST(CaseMismatchesTest, AcceptsAMatchingCall) { EXPECT_THAT(case_mismatches(matching_result(), recorded()), IsEmpty()); }

TEST(CaseMismatchesTest, ADroppedBufferFails) {
  CaseResult result = matching_result();
  result.buffers.clear();
  EXPECT_THAT(case_mismatches(result, recorded()),
              ::testing::ElementsAre("buffer b: PyTorch has it, Kiln's program has none of that name"));
}

TEST(CaseMismatchesTest, AnExtraBufferFails) {
  CaseResult result = matching_result();
  result.buffers["c"] = f32({0.0});
  EXPECT_THAT(case_mismatches(result, recorded()), ::testing::ElementsAre("buffer c: PyTorch has no such buffer"));
}

TEST(CaseMismatchesTest, AWrongBufferFails) {
  CaseResult result = matching_result();
  result.buffers["b"] = f32({kNan});
  EXPECT_THAT(case_mismatches(result, recorded()), ::testing::ElementsAre(HasSubstr("buffer b after the call [0] is nan")));
}

TEST(CaseMismatchesTest, AMissingOrExtraOutputFails) {
  CaseResult fewer = matching_result();
  fewer.outputs.clear();
  EXPECT_THAT(case_mismatches(fewer, recorded()), ::testing::ElementsAre("output_0: PyTorch has it, Kiln gave only 0"));
  CaseResult more = matching_result();
  more.outputs.push_back(f32({1.0}));
  EXPECT_THAT(case_mismatches(more, recorded()), ::testing::ElementsAre(HasSubstr("PyTorch has no output_1")));
}

TEST(CaseMismatchesTest, AnInputWrittenWronglyFails) {
  CaseResult result = matching_result();
  result.inputs_after[0] = f32({2.5});
  EXPECT_THAT(case_mismatches(result, recorded()),
              ::testing::ElementsAre("input_0 after the call [0] is 2.5, expected 2"));
}

// On a real fixture: text_model's log-probabilities sit beside the -1e4
// padding logits' ones; one of them off by 1e-2 fails.
TEST(CaseMismatchesTest, FindsASmallErrorInARealFixture) {
  ExportedProgram program = load_pt2(testing::kFixtures + "text_model/model.core.pt2");
  const CaseResult result = testing::run_case(program, "text_model", "case0");
  auto expected = testing::read_case_expected("text_model", "case0");
  ASSERT_THAT(case_mismatches(result, expected), IsEmpty());
  HostTensor changed = expected.at("output_0").clone();
  changed.data<float>()[3] += 0.01f;
  expected["output_0"] = changed;
  EXPECT_THAT(case_mismatches(result, expected), ::testing::ElementsAre(HasSubstr("output_0 [0, 0, 3] is")));
}

// And buffer_mutation's program without its running_mean fails.
TEST(CaseMismatchesTest, FindsABufferDroppedFromARealFixture) {
  ExportedProgram program = load_pt2(testing::kFixtures + "buffer_mutation/model.core.pt2");
  CaseResult result = testing::run_case(program, "buffer_mutation", "case0");
  ASSERT_EQ(result.buffers.erase("running_mean"), 1u);
  EXPECT_THAT(case_mismatches(result, testing::read_case_expected("buffer_mutation", "case0")),
              ::testing::ElementsAre(HasSubstr("buffer running_mean: PyTorch has it")));
}

// A loop over no case fails instead of passing by running nothing.
TEST(ExpectCasesMatchPytorchTest, FailsWithoutCases) {
  EXPECT_FATAL_FAILURE(
      {
        static ExportedProgram program = load_pt2(testing::kFixtures + "mlp/model.core.pt2");
        testing::expect_cases_match_pytorch(program, "mlp", {});
      },
      "mlp: no case to run");
}

}  // namespace
}  // namespace kiln::aot
