// A program's run profiled: what `kiln profile MODEL.pte` and the Python
// package's kiln.profile do between loading the program and printing the
// table. The session runs `warmup` times untraced (caches, a backend's first
// call), then `iterations` times with a TraceRecorder on, one trace run per
// execute, and the events are attributed to the user's ops through the debug
// record (attribute, profile.h).
#pragma once

#include <cstddef>

#include "devtools/debug_record.h"
#include "devtools/profile.h"
#include "devtools/runtime_session.h"

namespace kiln::devtools {

/// Profiles `session` (its inputs set) on the record of its program: the
/// session must run the record's method. `module_depth` cuts module paths
/// for the per-module totals (attribute). The session's event tracer is off
/// again on return. Throws AotError for another method, an iteration count
/// below 1 or a negative warmup, a failed execute (as RuntimeSession::execute
/// does), and a run that logged no event.
Profile profile_session(RuntimeSession& session, const DebugRecord& record, int iterations, int warmup,
                        size_t module_depth = 1);

/// Reports `session`'s executes to `tracer` while it lives, then turns
/// tracing off (also when a run throws), so that no session is left pointing
/// at a tracer that is gone.
class ScopedEventTracer {
 public:
  ScopedEventTracer(RuntimeSession& session, runtime::EventTracer& tracer) : session_(session) {
    session_.set_event_tracer(&tracer);
  }
  ~ScopedEventTracer() { session_.set_event_tracer(nullptr); }
  ScopedEventTracer(const ScopedEventTracer&) = delete;
  ScopedEventTracer& operator=(const ScopedEventTracer&) = delete;

 private:
  RuntimeSession& session_;
};

/// Throws AotError unless `session` runs the method `record` describes.
void check_session_method(const RuntimeSession& session, const DebugRecord& record);

}  // namespace kiln::devtools
