#include "devtools/profile_session.h"

#include <string>

#include "aot/ir/error.h"
#include "devtools/trace_recorder.h"

namespace kiln::devtools {

void check_session_method(const RuntimeSession& session, const DebugRecord& record) {
  if (session.method_name() != record.method) {
    throw aot::AotError("the debug record describes the method '" + record.method + "', but the session runs '" +
                        session.method_name() + "'");
  }
}

Profile profile_session(RuntimeSession& session, const DebugRecord& record, int iterations, int warmup,
                        size_t module_depth) {
  if (iterations < 1) throw aot::AotError("a profile needs at least 1 iteration, got " + std::to_string(iterations));
  if (warmup < 0) throw aot::AotError("the warmup cannot be negative, got " + std::to_string(warmup));
  check_session_method(session, record);
  for (int i = 0; i < warmup; ++i) session.execute();
  TraceRecorder trace;
  {
    ScopedEventTracer traced(session, trace);
    for (int i = 0; i < iterations; ++i) {
      session.execute();
      trace.end_run();
    }
  }
  if (trace.instructions().empty()) throw aot::AotError("the trace holds no events");
  return attribute(record, trace, module_depth);
}

}  // namespace kiln::devtools
