#include "tests/golden/expected_skips.h"

#include <fstream>
#include <sstream>

#include "aot/ir/error.h"

namespace kiln::kernels::golden {

namespace {

constexpr const char* kListName = "expected_skips.txt";

std::string entry_text(const OpDtype& entry) { return entry.first + " " + runtime::to_string(entry.second); }

}  // namespace

ExpectedSkips parse_expected_skips(std::istream& text, const std::string& where) {
  ExpectedSkips skips;
  std::string line;
  for (int number = 1; std::getline(text, line); ++number) {
    const std::string at = where + ":" + std::to_string(number);
    std::istringstream words(line.substr(0, line.find('#')));
    std::string op;
    std::string dtype;
    std::string extra;
    if (!(words >> op)) continue;
    if (!(words >> dtype) || (words >> extra)) throw aot::AotError(at + ": expected \"op dtype\", got \"" + line + "\"");
    OpDtype entry;
    try {
      entry = {op, scalar_type_named(dtype)};
    } catch (const aot::AotError& error) {
      throw aot::AotError(at + ": " + error.what());
    }
    if (!skips.insert(entry).second) throw aot::AotError(at + ": " + entry_text(entry) + " is listed twice");
  }
  return skips;
}

ExpectedSkips load_expected_skips(const std::string& path) {
  std::ifstream file(path);
  if (!file.good()) throw aot::AotError("cannot read " + path);
  return parse_expected_skips(file, path);
}

Verdict judge_case(const GoldenCase& c, const CaseOutcome& outcome, bool declared, const ExpectedSkips& skips) {
  using Status = CaseOutcome::Status;
  const OpDtype entry{c.op, c.dtype};
  const std::string dtype = runtime::to_string(c.dtype);
  switch (outcome.status) {
    case Status::Passed: return {};
    case Status::NotRegistered: return {Verdict::Kind::Fail, outcome.message};
    case Status::KernelFailed:
      if (declared) {
        return {Verdict::Kind::Fail, c.op + " failed on case " + c.id + " (" + dtype + "): " + outcome.message};
      }
      if (skips.count(entry)) {
        return {Verdict::Kind::Skip, c.op + " does not declare " + dtype + " and rejects it, as " + kListName +
                                         " expects (" + outcome.message + ")"};
      }
      return {Verdict::Kind::Fail, c.op + " does not declare " + dtype + " and rejects case " + c.id + " (" +
                                       outcome.message + "), but " + kListName + " does not list \"" +
                                       entry_text(entry) + "\": declare the dtype again, or list it if dropping it "
                                       "was meant"};
    case Status::Mismatch:
      return {Verdict::Kind::Fail, c.op + " case " + c.id + " (" + dtype + ") differs from PyTorch:\n" + outcome.message};
  }
  return {Verdict::Kind::Fail, "unknown outcome"};
}

std::vector<std::string> expected_skips_to_remove(const ExpectedSkips& skips,
                                                  const std::map<OpDtype, OpDtypeRecord>& suite) {
  std::vector<std::string> lines;
  for (const OpDtype& entry : skips) {
    const auto it = suite.find(entry);
    const std::string text = entry_text(entry) + ": remove it from " + kListName;
    if (it == suite.end() || it->second.cases == 0) {
      lines.push_back(text + " (the suite has no case of it)");
    } else if (it->second.declared) {
      lines.push_back(text + " (the kernel declares the dtype now)");
    } else if (it->second.passed > 0) {
      lines.push_back(text + " (" + std::to_string(it->second.passed) + " of its " + std::to_string(it->second.cases) +
                      " cases pass now)");
    }
  }
  return lines;
}

}  // namespace kiln::kernels::golden
