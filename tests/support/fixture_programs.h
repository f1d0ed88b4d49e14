// The .pte programs the runtime's robustness checks sweep over: every
// ExecuTorch-written fixture of tests/fixtures/pte, and every .pt2 fixture
// (both IR levels) lowered by Kiln to a .pte three ways — portable kernels
// only, with DemoBackend taking what it supports, and with the test backend
// EveryOtherBackend taking every other op (its runtime half is
// test_backends.h; it can load but not compute, so those programs are for the
// load sweeps only). The test target defines KILN_SOURCE_DIR.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::runtime::testing {

enum class ProgramSource {
  ExecuTorch,          ///< tests/fixtures/pte/<name>.pte
  Kiln,                ///< <fixture>/<file> lowered to portable kernels
  KilnDemoBackend,     ///< ... with DemoBackend's partitions delegated
  KilnEveryOther,      ///< ... with every other op on EveryOtherBackend (load only)
};

struct FixtureProgram {
  ProgramSource source;
  std::string fixture;  ///< "add" (ExecuTorch) or "mlp" (Kiln)
  std::string file;     ///< "add.pte" or "model.core.pt2"
};

/// e.g. "kiln_demo/mlp/model.core.pt2"; also a valid gtest parameter name once
/// sanitized (see test_name).
std::string describe(const FixtureProgram& program);
/// describe() with every character outside [A-Za-z0-9_] replaced by '_'.
std::string test_name(const FixtureProgram& program);
inline void PrintTo(const FixtureProgram& program, std::ostream* out) { *out << describe(program); }

/// Every program of the given sources, in a fixed order.
std::vector<FixtureProgram> fixture_programs(const std::vector<ProgramSource>& sources);

/// The .pte bytes of `program` (read or lowered once, then cached). Throws
/// (a test failure) if a fixture cannot be read or lowered.
const std::vector<uint8_t>& program_bytes(const FixtureProgram& program);

}  // namespace kiln::runtime::testing
