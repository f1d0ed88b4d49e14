// The numeric comparison (`kiln compare`): the intermediate outputs a run
// logged (kernel calls' results and the tensors backends logged under their
// identifiers) against the reference interpreter's value of the same source
// op, mapped through the debug record. A pure function of its inputs.
//
// A group of source ops (the handles an event maps to) is compared by its
// last logged output against the reference value of its last op in program
// order: for a decomposed op that is the last piece, the op's own result;
// for a fused backend op, the last op it fused.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "devtools/debug_record.h"
#include "devtools/trace_recorder.h"

namespace kiln::devtools {

/// The reference interpreter's result of one source op.
struct ReferenceOutput {
  size_t order = 0;  ///< position in the reference program's execution
  aot::HostTensor value;
  /// A quantize or dequantize op's grid (0: none): an integer tensor (a
  /// quantize op's, or a logged one) stands for scale * (q - zero_point),
  /// compared as such, and errors are also counted in quanta (of `scale`).
  double scale = 0;
  int64_t zero_point = 0;
};

struct CompareRow {
  std::vector<int64_t> handles;
  std::string label;   ///< the source ops' names
  std::string ops;     ///< short op names
  std::string module;  ///< the module path its ops share
  std::string where;   ///< "portable", or the backend
  size_t order = 0;    ///< the reference op's position (program order)
  size_t numel = 0;
  double max_abs_error = 0;
  double max_abs_reference = 0;
  double snr_db = 0;  ///< 10 log10(sum ref^2 / sum err^2); +inf when equal
  /// max_abs_error in quanta of the op's grid; negative for an op without one.
  double max_error_quanta = -1;
  std::string note;   ///< why it was not compared (empty when it was)
};

struct Comparison {
  std::vector<CompareRow> rows;  ///< worst first (lowest SNR); rows with a note last
};

/// Compares the first run of `run` (recorded with keep_outputs) with
/// `reference` (handle -> its op's reference result).
Comparison compare_outputs(const DebugRecord& record, const TraceRecorder& run,
                           const std::map<int64_t, ReferenceOutput>& reference);

/// The first `top` rows (0: all), then the earliest op in program order whose
/// SNR is below `threshold_db`.
std::string format_comparison(const Comparison& comparison, size_t top, double threshold_db);

}  // namespace kiln::devtools
