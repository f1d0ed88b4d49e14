// npz_compare: the CLI tests' check that `kiln run --output` wrote what a
// fixture expects (no Python in `make test`). Built on the runtime's .npz
// reader alone, so the runtime-only (device) tree has it too.
//
//   npz_compare ACTUAL.npz EXPECTED.npz [--tolerance T] [ACTUAL_KEY=EXPECTED_KEY ...]
//
// Without pairs, every array of EXPECTED must be in ACTUAL under its name.
// Arrays must have equal shapes and dtypes; each element must match its
// expected one as the fixture tests require (runtime/npz/testing/array_mismatch.h):
// |actual - expected| <= T + T * |expected| for floats (default T = 1e-5),
// NaN only with NaN, an infinity only with itself, other dtypes exactly;
// complex arrays part by part. Prints one line per pair and exits 0 when all
// match, 1 otherwise, 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/module/logged_errors.h"
#include "runtime/npz/npz.h"
#include "runtime/npz/testing/array_mismatch.h"

namespace {

using Arrays = std::map<std::string, kiln::runtime::NpyArray>;

Arrays load(const std::string& path) {
  kiln::runtime::LoggedErrors capture;
  kiln::runtime::Result<std::vector<kiln::runtime::NamedArray>> read = kiln::runtime::read_npz(path);
  if (!read.ok()) throw std::runtime_error(kiln::runtime::LoggedErrors::message("", read.error()));
  Arrays arrays;
  for (auto& named : *read) arrays.emplace(named.name, std::move(named.array));
  return arrays;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: npz_compare ACTUAL.npz EXPECTED.npz [--tolerance T] [ACTUAL_KEY=EXPECTED_KEY ...]\n");
    return 2;
  }
  double tolerance = 1e-5;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tolerance" && i + 1 < argc) {
      tolerance = std::atof(argv[++i]);
    } else if (const size_t equals = arg.find('='); equals != std::string::npos) {
      pairs.emplace_back(arg.substr(0, equals), arg.substr(equals + 1));
    } else {
      std::fprintf(stderr, "npz_compare: unexpected argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  try {
    const Arrays actual = load(argv[1]);
    const Arrays expected = load(argv[2]);
    if (pairs.empty()) {
      for (const auto& [name, tensor] : expected) pairs.emplace_back(name, name);
    }
    int failures = 0;
    for (const auto& [got_key, want_key] : pairs) {
      const auto got = actual.find(got_key);
      const auto want = expected.find(want_key);
      if (got == actual.end() || want == expected.end()) {
        std::printf("FAIL %s=%s: no array '%s' in %s\n", got_key.c_str(), want_key.c_str(),
                    (got == actual.end() ? got_key : want_key).c_str(), got == actual.end() ? argv[1] : argv[2]);
        ++failures;
        continue;
      }
      const std::string problem =
          kiln::runtime::testing::array_mismatch(got->second, want->second, {tolerance, tolerance});
      if (problem.empty()) {
        std::printf("ok %s=%s\n", got_key.c_str(), want_key.c_str());
      } else {
        std::printf("FAIL %s=%s: %s\n", got_key.c_str(), want_key.c_str(), problem.c_str());
        ++failures;
      }
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::printf("FAIL %s\n", error.what());
    return 1;
  }
}
