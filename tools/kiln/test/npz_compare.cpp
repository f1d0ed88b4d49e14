// npz_compare: the CLI test's check that `kiln run --output` wrote what a
// fixture expects (no Python in `make test`).
//
//   npz_compare ACTUAL.npz EXPECTED.npz [--tolerance T] [ACTUAL_KEY=EXPECTED_KEY ...]
//
// Without pairs, every array of EXPECTED must be in ACTUAL under its name.
// Arrays must have equal shapes and dtypes; values may differ by at most
// T * max(1, largest |expected|) (default T = 1e-5). Prints one line per pair
// and exits 0 when all match, 1 otherwise, 2 on a usage error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aot/import/npz.h"

namespace {

using Arrays = std::map<std::string, kiln::aot::HostTensor>;

Arrays load(const std::string& path) {
  Arrays arrays;
  for (auto& [name, tensor] : kiln::aot::read_npz(path)) arrays.emplace(name, std::move(tensor));
  return arrays;
}

/// Empty when `got` matches `want`; else what differs.
std::string compare(const kiln::aot::HostTensor& got, const kiln::aot::HostTensor& want, double tolerance,
                    double* max_difference) {
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    return "got " + got.describe() + ", expected " + want.describe();
  }
  const std::vector<double> a = got.to_doubles();
  const std::vector<double> b = want.to_doubles();
  double scale = 1;
  for (double v : b) scale = std::max(scale, std::fabs(v));
  double worst = 0;
  size_t worst_index = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double difference = std::isnan(a[i]) != std::isnan(b[i]) ? INFINITY
                              : std::isnan(a[i])                    ? 0
                                                                    : std::fabs(a[i] - b[i]);
    if (difference > worst) worst = difference, worst_index = i;
  }
  *max_difference = worst;
  if (worst > tolerance * scale) {
    char text[160];
    std::snprintf(text, sizeof text, "element %zu is %.9g, expected %.9g (difference %.3g > %.3g)", worst_index,
                  a[worst_index], b[worst_index], worst, tolerance * scale);
    return text;
  }
  return "";
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
      double difference = 0;
      const std::string problem = compare(got->second, want->second, tolerance, &difference);
      if (problem.empty()) {
        std::printf("ok %s=%s: max abs difference %.3g\n", got_key.c_str(), want_key.c_str(), difference);
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
