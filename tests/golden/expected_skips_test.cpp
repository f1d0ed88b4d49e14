// The expected-skip list of the golden suite: a rejected dtype the list does
// not name fails, one it names is skipped, and entries that no longer hold
// are reported; the list's own format errors name the line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "aot/ir/error.h"
#include "tests/golden/expected_skips.h"

namespace kiln::kernels::golden {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Kind = Verdict::Kind;
using Status = CaseOutcome::Status;

ExpectedSkips parse(const std::string& text) {
  std::istringstream in(text);
  return parse_expected_skips(in, "skips.txt");
}

GoldenCase mm_half() {
  GoldenCase c;
  c.op = "aten::mm.out";
  c.id = "f16";
  c.dtype = ScalarType::Half;
  return c;
}

const CaseOutcome kRejected{Status::KernelFailed, "InvalidArgument: 'self' has unsupported dtype Half"};

TEST(ExpectedSkipsTest, ParsesEntriesAndComments) {
  EXPECT_EQ(parse("# a comment\n\naten::mm.out Half  # trailing\naten::bmm.out BFloat16\n"),
            (ExpectedSkips{{"aten::mm.out", ScalarType::Half}, {"aten::bmm.out", ScalarType::BFloat16}}));
}

TEST(ExpectedSkipsTest, NamesTheLineOfABadEntry) {
  try {
    parse("aten::mm.out Half\naten::mm.out\n");
    FAIL() << "no error";
  } catch (const aot::AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("skips.txt:2: expected \"op dtype\""));
  }
  EXPECT_THROW(parse("aten::mm.out Half extra\n"), aot::AotError);
  try {
    parse("aten::mm.out Halff\n");
    FAIL() << "no error";
  } catch (const aot::AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("skips.txt:1: unknown dtype 'Halff'"));
  }
  try {
    parse("aten::mm.out Half\naten::mm.out Half\n");
    FAIL() << "no error";
  } catch (const aot::AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("skips.txt:2: aten::mm.out Half is listed twice"));
  }
}

// A kernel that dropped a dtype: its cases fail unless the list names them.
TEST(JudgeCaseTest, AnUnlistedRejectedDtypeFails) {
  const Verdict verdict = judge_case(mm_half(), kRejected, /*declared=*/false, ExpectedSkips{});
  EXPECT_EQ(verdict.kind, Kind::Fail);
  EXPECT_THAT(verdict.message, HasSubstr("expected_skips.txt does not list \"aten::mm.out Half\""));
}

TEST(JudgeCaseTest, AListedRejectedDtypeIsSkipped) {
  const ExpectedSkips skips{{"aten::mm.out", ScalarType::Half}};
  EXPECT_EQ(judge_case(mm_half(), kRejected, false, skips).kind, Kind::Skip);
  // Another dtype of the same op is not covered by the entry.
  GoldenCase bf16 = mm_half();
  bf16.dtype = ScalarType::BFloat16;
  EXPECT_EQ(judge_case(bf16, kRejected, false, skips).kind, Kind::Fail);
}

TEST(JudgeCaseTest, ListingNeverExcusesAWrongAnswerOrADeclaredDtype) {
  const ExpectedSkips skips{{"aten::mm.out", ScalarType::Half}};
  EXPECT_EQ(judge_case(mm_half(), {Status::Mismatch, "'out'[0] is 1, expected 2"}, false, skips).kind, Kind::Fail);
  EXPECT_EQ(judge_case(mm_half(), kRejected, /*declared=*/true, skips).kind, Kind::Fail);
  EXPECT_EQ(judge_case(mm_half(), {Status::NotRegistered, "no kernel"}, false, skips).kind, Kind::Fail);
  EXPECT_EQ(judge_case(mm_half(), {}, false, skips).kind, Kind::Pass);
}

TEST(ExpectedSkipsToRemoveTest, ReportsEntriesThatNoLongerHold) {
  const ExpectedSkips skips{{"aten::mm.out", ScalarType::Half},
                            {"aten::bmm.out", ScalarType::Half},
                            {"aten::addmm.out", ScalarType::Half},
                            {"aten::gone.out", ScalarType::Half}};
  std::map<OpDtype, OpDtypeRecord> suite;
  suite[{"aten::mm.out", ScalarType::Half}] = {false, 2, 0};    // still rejected
  suite[{"aten::bmm.out", ScalarType::Half}] = {false, 2, 1};   // one case passes now
  suite[{"aten::addmm.out", ScalarType::Half}] = {true, 1, 1};  // the kernel declares it now
  EXPECT_THAT(expected_skips_to_remove(skips, suite),
              ElementsAre("aten::addmm.out Half: remove it from expected_skips.txt (the kernel declares the dtype now)",
                          "aten::bmm.out Half: remove it from expected_skips.txt (1 of its 2 cases pass now)",
                          "aten::gone.out Half: remove it from expected_skips.txt (the suite has no case of it)"));
  EXPECT_THAT(expected_skips_to_remove({{"aten::mm.out", ScalarType::Half}}, suite), IsEmpty());
}

}  // namespace
}  // namespace kiln::kernels::golden
