// The portable kernels against PyTorch: one test per golden case of
// tests/fixtures/ops (tools/fixtures/generate_op_cases.py), and the coverage
// checks that tie the cases, the op table and the registered kernels with
// their declared dtypes together. A case is skipped only where
// expected_skips.txt expects its kernel to reject its dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "aot/ir/op_table/op_schema.h"
#include "tests/golden/expected_skips.h"
#include "tests/golden/golden_cases.h"
#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::golden {
namespace {

using Status = CaseOutcome::Status;

const std::string kCaseDirectory = KILN_SOURCE_DIR "/tests/fixtures/ops";
const std::string kExpectedSkips = KILN_SOURCE_DIR "/tests/golden/expected_skips.txt";

// The suite is read while the tests are registered, so a load error is kept
// and reported by a test instead of aborting the binary.
struct LoadedSuite {
  GoldenSuite suite;
  std::string error;
};

const LoadedSuite& loaded() {
  static const LoadedSuite result = [] {
    LoadedSuite s;
    try {
      s.suite = load_golden_suite(kCaseDirectory);
    } catch (const std::exception& error) {
      s.error = error.what();
    }
    return s;
  }();
  return result;
}

const std::vector<GoldenCase>& cases() { return loaded().suite.cases; }

// Each case's outcome, computed once and shared by the per-case test and the
// coverage tests.
const CaseOutcome& outcome(size_t index) {
  static std::map<size_t, CaseOutcome> outcomes;
  auto it = outcomes.find(index);
  if (it == outcomes.end()) {
    CaseOutcome result;
    try {
      result = run_golden_case(loaded().suite, cases()[index]);
    } catch (const std::exception& error) {
      result = {Status::Mismatch, std::string("malformed case: ") + error.what()};
    }
    it = outcomes.emplace(index, std::move(result)).first;
  }
  return it->second;
}

const portable::PortableKernel* find_kernel(const std::string& op) {
  for (const portable::PortableKernel& kernel : portable::portable_kernels()) {
    if (op == kernel.kernel.name) return &kernel;
  }
  return nullptr;
}

// Whether the portable kernel of `op` declares `dtype`.
bool declares(const std::string& op, ScalarType dtype) {
  const portable::PortableKernel* kernel = find_kernel(op);
  return kernel != nullptr && portable::contains(kernel->dtypes, dtype);
}

const ExpectedSkips& expected_skips() {
  static const ExpectedSkips skips = [] {
    try {
      return load_expected_skips(kExpectedSkips);
    } catch (const std::exception& error) {
      ADD_FAILURE() << error.what();
      return ExpectedSkips{};
    }
  }();
  return skips;
}

TEST(GoldenSuite, Loads) {
  ASSERT_EQ(loaded().error, "");
  EXPECT_GT(cases().size(), 1000u);
  EXPECT_FALSE(loaded().suite.torch_version.empty());
}

class GoldenCaseTest : public ::testing::TestWithParam<size_t> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenCaseTest);

TEST_P(GoldenCaseTest, MatchesPyTorch) {
  const GoldenCase& c = cases()[GetParam()];
  const Verdict verdict = judge_case(c, outcome(GetParam()), declares(c.op, c.dtype), expected_skips());
  switch (verdict.kind) {
    case Verdict::Kind::Pass: return;
    case Verdict::Kind::Skip: GTEST_SKIP() << verdict.message;
    case Verdict::Kind::Fail: FAIL() << verdict.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GoldenCaseTest, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return cases()[info.param].test_name(); });

TEST(GoldenCoverage, EveryCaseIsOfAnOutVariantOfTheOpTable) {
  for (const GoldenCase& c : cases()) {
    const aot::OpSchema* schema = aot::find_op_schema(c.op);
    ASSERT_NE(schema, nullptr) << c.op << " (case " << c.id << ") is not in ops.def";
    EXPECT_TRUE(schema->is_out_variant()) << c.op << " is not an out variant";
  }
}

TEST(GoldenCoverage, EveryCaseOpIsRegistered) {
  ASSERT_EQ(portable::register_portable_kernels(), runtime::Error::Ok);
  std::set<std::string> missing;
  for (const GoldenCase& c : cases()) {
    if (!runtime::registry_has_op_function(c.op.c_str())) missing.insert(c.op);
  }
  for (const std::string& op : missing) ADD_FAILURE() << "no portable kernel for " << op;
}

// Kiln's own ops (kiln_ops.def) have no torch op to compute golden cases
// with: kernels/portable/test/llm_ops_test.cpp checks them against
// references, and the language-model tests against PyTorch's models.
bool is_kiln_op(const char* name) { return std::string(name).rfind("kiln::", 0) == 0; }

// Kernels whose values no golden case can hold: the sampling ops draw from
// the seeded generator (kernels/portable/test/random_test.cpp checks them
// against PyTorch's values after the same seed), and empty's values are
// unspecified (factory_test.cpp: zeros).
bool draws_or_leaves_unspecified(const char* name) {
  static const std::set<std::string> ops = {"aten::rand.out",      "aten::randn.out",   "aten::rand_like.out",
                                            "aten::randn_like.out", "aten::uniform.out", "aten::randint.out",
                                            "aten::randint.low_out", "aten::randperm.out", "aten::normal.float_float_out", "aten::empty.out",  "aten::empty_strided.out"};
  return ops.count(name) > 0;
}

bool has_no_golden_cases(const char* name) { return is_kiln_op(name) || draws_or_leaves_unspecified(name); }

TEST(GoldenCoverage, EveryRegisteredKernelHasCases) {
  std::set<std::string> ops;
  for (const GoldenCase& c : cases()) ops.insert(c.op);
  for (const portable::PortableKernel& kernel : portable::portable_kernels()) {
    if (has_no_golden_cases(kernel.kernel.name)) continue;
    EXPECT_TRUE(ops.count(kernel.kernel.name)) << kernel.kernel.name << " has no golden cases";
  }
}

TEST(GoldenCoverage, EveryDeclaredDtypeHasAPassingCase) {
  for (const portable::PortableKernel& kernel : portable::portable_kernels()) {
    if (has_no_golden_cases(kernel.kernel.name)) continue;
    for (int code = 0; code < 64; ++code) {
      const auto dtype = static_cast<ScalarType>(code);
      if (!portable::contains(kernel.dtypes, dtype)) continue;
      size_t of_dtype = 0;
      size_t passing = 0;
      for (size_t i = 0; i < cases().size(); ++i) {
        if (cases()[i].op != kernel.kernel.name || cases()[i].dtype != dtype) continue;
        ++of_dtype;
        if (outcome(i).status == Status::Passed) ++passing;
      }
      EXPECT_GT(passing, 0u) << kernel.kernel.name << " declares " << runtime::to_string(dtype) << ", but "
                             << (of_dtype == 0 ? "no golden case has that dtype"
                                               : "none of its " + std::to_string(of_dtype) + " golden cases passes");
    }
  }
}

// Every entry of expected_skips.txt still names cases that are skipped: a
// kernel that gained the dtype shrinks the list.
TEST(GoldenCoverage, ExpectedSkipsAreAllStillSkipped) {
  std::map<OpDtype, OpDtypeRecord> suite;
  for (size_t i = 0; i < cases().size(); ++i) {
    OpDtypeRecord& record = suite[{cases()[i].op, cases()[i].dtype}];
    record.declared = declares(cases()[i].op, cases()[i].dtype);
    ++record.cases;
    if (outcome(i).status == Status::Passed) ++record.passed;
  }
  for (const std::string& line : expected_skips_to_remove(expected_skips(), suite)) ADD_FAILURE() << line;
  EXPECT_FALSE(expected_skips().empty());
}

// The comparison itself can fail: a case whose expected values are changed
// by a little more than its tolerance no longer passes.

// A copy of the suite holding only the first case of `op` with dtype `dtype`.
GoldenSuite one_case(const std::string& op, ScalarType dtype) {
  GoldenSuite suite = loaded().suite;
  for (const GoldenCase& c : cases()) {
    if (c.op == op && c.dtype == dtype && c.outputs.size() == 1 && c.id == runtime::short_name(dtype)) {
      suite.cases = {c};
      return suite;
    }
  }
  ADD_FAILURE() << "no case of " << op << " for " << runtime::to_string(dtype);
  suite.cases.clear();
  return suite;
}

// Replaces the expected tensor of the suite's only case by a copy that
// `change` edits.
template <typename T, typename F>
void change_expected(GoldenSuite& suite, F change) {
  const std::string key = suite.cases[0].outputs[0].at("expected");
  aot::HostTensor changed = suite.tensors.at(key).clone();
  change(changed.data<T>());
  suite.tensors[key] = changed;
}

TEST(GoldenHarness, PassesTheUnchangedCase) {
  const GoldenSuite suite = one_case("aten::add.out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  EXPECT_EQ(run_golden_case(suite, suite.cases[0]).status, Status::Passed);
}

TEST(GoldenHarness, DetectsAFloatBeyondTolerance) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  const GoldenCase& c = suite.cases[0];
  change_expected<float>(suite, [&](float* v) { v[1] += static_cast<float>(2 * (c.atol + c.rtol * std::fabs(v[1]))); });
  const CaseOutcome result = run_golden_case(suite, c);
  EXPECT_EQ(result.status, Status::Mismatch);
  EXPECT_NE(result.message.find("'out'[0, 1]"), std::string::npos) << result.message;
}

TEST(GoldenHarness, AcceptsAFloatWithinTolerance) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  const GoldenCase& c = suite.cases[0];
  change_expected<float>(suite, [&](float* v) { v[1] += static_cast<float>(0.5 * c.atol); });
  EXPECT_EQ(run_golden_case(suite, c).status, Status::Passed);
}

TEST(GoldenHarness, NanMatchesOnlyNan) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Double);
  ASSERT_EQ(suite.cases.size(), 1u);
  change_expected<double>(suite, [](double* v) { v[0] = std::numeric_limits<double>::quiet_NaN(); });
  EXPECT_EQ(run_golden_case(suite, suite.cases[0]).status, Status::Mismatch);
}

TEST(GoldenHarness, IntegersMustBeExact) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Long);
  ASSERT_EQ(suite.cases.size(), 1u);
  change_expected<int64_t>(suite, [](int64_t* v) { v[2] += 1; });
  const CaseOutcome result = run_golden_case(suite, suite.cases[0]);
  EXPECT_EQ(result.status, Status::Mismatch);
  EXPECT_NE(result.message.find("'out'[0, 2]"), std::string::npos) << result.message;
}

TEST(GoldenHarness, BoolsMustBeExact) {
  GoldenSuite suite = one_case("aten::eq.Scalar_out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  change_expected<bool>(suite, [](bool* v) { v[0] = !v[0]; });
  EXPECT_EQ(run_golden_case(suite, suite.cases[0]).status, Status::Mismatch);
}

TEST(GoldenHarness, ReportsAnUnregisteredOp) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  suite.cases[0].op = "aten::no_such_op.out";
  EXPECT_EQ(run_golden_case(suite, suite.cases[0]).status, Status::NotRegistered);
}

TEST(GoldenHarness, RejectsArgumentsThatDoNotFollowTheSchema) {
  GoldenSuite suite = one_case("aten::add.out", ScalarType::Float);
  ASSERT_EQ(suite.cases.size(), 1u);
  suite.cases[0].args.erase(suite.cases[0].args.begin() + 1);  // drop 'other'
  EXPECT_THROW(run_golden_case(suite, suite.cases[0]), aot::AotError);
}

}  // namespace
}  // namespace kiln::kernels::golden
