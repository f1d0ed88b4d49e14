// The profile: a run's events attributed to the user's ops through the debug
// record. A pure function of (record, events), so it is tested on hand-built
// events as well as real runs.
//
// Each row is one group of source ops, keyed by the handles an event maps to:
//   - a kernel call maps to its instruction's handles, so the pieces of a
//     decomposed op (which all carry its handle) sum into one row;
//   - a backend event maps through its delegate's identifier -> handles, so a
//     fused backend op's time is shown against all the handles it fused, and
//     a source op a backend split into several ops sums them;
//   - a delegate call's time outside its backend's events is a row of its own
//     ("delegate N: outside its ops"), as are calls with no handle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devtools/debug_record.h"
#include "devtools/trace_recorder.h"

namespace kiln::devtools {

struct ProfileRow {
  std::vector<int64_t> handles;  ///< sorted; empty for the rows below that have none
  std::string label;             ///< the source ops' names, or what the row is when it has no handle
  std::string ops;               ///< their ops, short ("convolution + relu")
  std::string module;            ///< the module path its ops share
  std::string where;             ///< "portable", or the backend id(s) that ran it
  double calls = 0;              ///< events per run
  double median_ms = 0;          ///< median over runs of the row's time in a run
  double total_ms = 0;           ///< over all runs
  double share = 0;              ///< of all calls' time, 0..1
};

struct ProfileTotal {
  std::string name;
  double median_ms = 0;
  double share = 0;
};

struct Profile {
  size_t runs = 0;
  double median_run_ms = 0;              ///< median over runs of all calls' time
  std::vector<ProfileRow> rows;          ///< most time first
  std::vector<ProfileTotal> delegates;   ///< per delegate call: backend, time
  std::vector<ProfileTotal> modules;     ///< per module path, cut at module_depth
};

/// Attributes `trace`'s events (runs 0 .. trace.runs()-1; at least one) to
/// the record's source ops. `module_depth` cuts module paths for the
/// per-module totals ("layer1.0.conv1" at depth 1 is "layer1").
Profile attribute(const DebugRecord& record, const TraceRecorder& trace, size_t module_depth = 1);

/// The profile as text: the first `top` rows (0: all), then the totals.
std::string format_profile(const Profile& profile, size_t top);

}  // namespace kiln::devtools
