// The op-conformance cases (tests only): small programs around one op
// OneDnnBackend accepts, each with its inputs and the float32 tolerance the
// runtime's result must keep from the reference interpreter's. The harness
// (onednn_conformance_test.cpp) lowers, runs and compares them, and fails
// when an op of the partitioner's table has no case.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/graph_builder.h"

namespace kiln::backends::onednn::testing {

/// The harness's default: |oneDNN - portable| <= 1e-4 + 1e-4 * |portable|.
/// Both compute in float32 but sum in other orders (oneDNN's blocked
/// convolutions and matmuls split K; its eltwise kernels use their own
/// polynomial exp/tanh), which costs a few ulps on values of order 10; 1e-4
/// is about 100 ulps at 1, far below any wrong result on inputs in [-2, 2].
/// Measured (1 and 2 threads): at most 2.5e-5 (0.05 of the tolerance, the
/// dilated 19-channel convolution); gelu with erf, where oneDNN's erf is its
/// own polynomial, 1.2e-7, so no op needs a looser tolerance.
inline constexpr aot::testing::Tolerance kConformanceTolerance{1e-4, 1e-4};

/// A program around the op, with one tensor per user input.
struct ConformanceProgram {
  aot::ExportedProgram program;
  std::vector<aot::HostTensor> inputs;
};

struct ConformanceCase {
  /// The op as OneDnnBackend's table names it ("aten::convolution.default").
  std::string op;
  /// What the case varies: "stride2_c3_7x5".
  std::string name;
  std::function<ConformanceProgram()> build;
  aot::testing::Tolerance tolerance = kConformanceTolerance;
  /// Where the portable kernels lack the op's form (3-D convolution): a
  /// program computing the same from ops they have, on the same inputs. Empty:
  /// the reference interpreter runs the case's own program.
  std::function<aot::ExportedProgram()> reference = {};
};

/// Every case, grouped by op family.
std::vector<ConformanceCase> conformance_cases();

/// The case as a test name: "convolution_default_stride_2" (op without its
/// namespace, the case's name, every other character an underscore).
std::string test_name(const ConformanceCase& c);

}  // namespace kiln::backends::onednn::testing
