// TraceRecorder: an EventTracer that keeps every event of the executes it
// sees, and writes them as a Chrome / Perfetto trace (the trace-event JSON
// that chrome://tracing and ui.perfetto.dev open): the kernel and delegate
// calls on one track, each delegate's own events on a track of its own,
// named by the delegate debug identifiers its backend logged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/event_tracer.h"

namespace kiln::devtools {

class TraceRecorder final : public runtime::EventTracer {
 public:
  struct Instruction {
    size_t chain = 0, instruction = 0;
    std::string name;    ///< the operator, or the delegate's backend id
    int64_t delegate = -1;  ///< the delegate's index for a delegate call, else -1
    uint64_t start_ns = 0, end_ns = 0;
  };
  struct DelegateEvent {
    size_t chain = 0, instruction = 0, delegate = 0;
    std::string debug_id;  ///< the identifier as logged: "3", or the backend's name
    uint64_t start_ns = 0, end_ns = 0;
  };

  void log_instruction(const runtime::InstructionEvent& event) override;
  void log_delegate_event(const runtime::DelegateEvent& event) override;

  const std::vector<Instruction>& instructions() const { return instructions_; }
  const std::vector<DelegateEvent>& delegate_events() const { return delegate_events_; }

  /// The events as Chrome trace-event JSON: complete ("X") events in
  /// microseconds from the first event, track 0 the method's calls, track
  /// 1 + d the events of delegate d, each track named by a metadata event.
  std::string chrome_trace_json() const;

 private:
  std::vector<Instruction> instructions_;
  std::vector<DelegateEvent> delegate_events_;
};

}  // namespace kiln::devtools
