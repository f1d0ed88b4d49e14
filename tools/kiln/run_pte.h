// kiln run MODEL.pte (run_pte.cpp): a program run on the runtime's
// MethodSession, in both builds of the tool. What only the full build has
// (--trace and --chrome-trace: the devtools' TraceRecorder, on host tensors)
// plugs in through RunTrace.
#pragma once

#include <memory>
#include <string>

#include "command_line.h"
#include "runtime/core/event_tracer.h"
#include "runtime/npz/npz.h"

namespace kiln::cli {

/// The events of the timed calls of `kiln run` on a .pte as --trace and
/// --chrome-trace write them.
class RunTrace {
 public:
  virtual ~RunTrace() = default;
  /// The tracer the method reports the timed calls to.
  virtual runtime::EventTracer& tracer() = 0;
  /// After each timed call.
  virtual void end_run() = 0;
  /// Writes the files asked for, one line on each.
  virtual void write() = 0;
};

/// The trace `flags` ask for, or null when they ask for none. The full build
/// makes it (run_trace.cpp); the device build throws HostError saying the
/// flag needs the full build (without_compiler.cpp).
std::unique_ptr<RunTrace> make_run_trace(const RunFlags& flags);

/// Prints "label: f32[2, 3]  min=.. max=.. mean=.." and the first values (a
/// complex array's statistics and values over its (re, im) parts): how
/// `kiln run` prints a tensor output, in both builds, for both kinds of file.
void print_array(const std::string& label, const runtime::NpyArray& array);

}  // namespace kiln::cli
