// The golden cases the portable kernels are expected to reject, as a
// committed list (expected_skips.txt): each entry is an op and a dtype its
// kernel does not declare. A case the kernel rejects for a dtype it does not
// declare is skipped only if the list names it, so dropping a dtype from a
// kernel fails the suite; an entry whose cases pass, or whose dtype the kernel
// declares again, is reported so that the list shrinks.
#pragma once

#include <istream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/golden/golden_cases.h"

namespace kiln::kernels::golden {

/// An op and a dtype: ("aten::mm.out", Half).
using OpDtype = std::pair<std::string, ScalarType>;
using ExpectedSkips = std::set<OpDtype>;

/// Reads the list: one "op dtype" per line ("aten::mm.out Half", the dtype as
/// runtime::to_string names it); '#' starts a comment. Throws AotError naming
/// `where` and the line of a malformed, unknown-dtype or repeated entry.
ExpectedSkips parse_expected_skips(std::istream& text, const std::string& where);
/// The list in the file at `path`; throws AotError if it cannot be read.
ExpectedSkips load_expected_skips(const std::string& path);

/// How the golden test treats one case.
struct Verdict {
  enum class Kind { Pass, Skip, Fail };
  Kind kind = Kind::Pass;
  std::string message;  ///< why it is skipped or fails
};

/// The verdict on case `c` given its `outcome` and whether its kernel
/// declares the case's dtype: a kernel that rejects a dtype it does not
/// declare is skipped when `skips` lists the pair and fails otherwise; a
/// wrong answer, a failure on a declared dtype or a missing kernel fails.
Verdict judge_case(const GoldenCase& c, const CaseOutcome& outcome, bool declared, const ExpectedSkips& skips);

/// What the suite shows of one op and dtype.
struct OpDtypeRecord {
  bool declared = false;  ///< the kernel declares the dtype
  size_t cases = 0;       ///< golden cases of the op with the dtype
  size_t passed = 0;      ///< of which pass
};

/// One line per entry of `skips` that should leave the list: its kernel
/// declares the dtype, one of its cases passes, or the suite has no case of it.
std::vector<std::string> expected_skips_to_remove(const ExpectedSkips& skips,
                                                  const std::map<OpDtype, OpDtypeRecord>& suite);

}  // namespace kiln::kernels::golden
