// TraceRecorder: an EventTracer that keeps every event of the executes it
// sees (numbered by run: end_run() after each execute), optionally with a
// host copy of each intermediate output (for `kiln compare`), and writes
// them as a Chrome / Perfetto trace (the trace-event JSON that
// chrome://tracing and ui.perfetto.dev open): the kernel and delegate calls
// on one track, each delegate's own events on a track of its own, named by
// the delegate debug identifiers its backend logged; or as a Kiln trace
// (`kiln run --trace run.kdump`, JSON: docs/devtools.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "devtools/program_id.h"
#include "runtime/core/event_tracer.h"

namespace kiln::devtools {

/// A contiguous host copy of a runtime tensor.
aot::HostTensor host_copy(const runtime::Tensor& tensor);

class TraceRecorder final : public runtime::EventTracer {
 public:
  /// With `keep_outputs`, each event keeps a copy of the tensor it logged.
  explicit TraceRecorder(bool keep_outputs = false) : keep_outputs_(keep_outputs) {}

  struct Instruction {
    size_t run = 0;
    size_t chain = 0, instruction = 0;
    std::string name;    ///< the operator, or the delegate's backend id
    int64_t delegate = -1;  ///< the delegate's index for a delegate call, else -1
    uint64_t start_ns = 0, end_ns = 0;
    aot::HostTensor output;  ///< with keep_outputs: the (first) tensor the kernel returned
  };
  struct DelegateEvent {
    size_t run = 0;
    size_t chain = 0, instruction = 0, delegate = 0;
    std::string debug_id;  ///< the identifier as logged: "3", or the backend's name
    uint64_t start_ns = 0, end_ns = 0;
    aot::HostTensor output;  ///< with keep_outputs: the output the backend logged, if any
  };

  void log_instruction(const runtime::InstructionEvent& event) override;
  void log_delegate_event(const runtime::DelegateEvent& event) override;
  bool wants_outputs() const override { return keep_outputs_; }

  /// Ends a run: the following events belong to the next.
  void end_run() { ++run_; }
  /// The runs ended so far.
  size_t runs() const { return run_; }
  /// The .pte the events come from, written into a Kiln trace (unknown by default).
  void set_program(ProgramId program) { program_ = program; }
  const ProgramId& program() const { return program_; }
  /// The method the events come from, when the trace says ("" otherwise).
  void set_method(std::string method) { method_ = std::move(method); }
  const std::string& method() const { return method_; }

  /// For readers of traces written elsewhere (read_etdump): the events as
  /// read, and the number of runs they span.
  Instruction& add_instruction(Instruction event) { return instructions_.emplace_back(std::move(event)); }
  DelegateEvent& add_delegate_event(DelegateEvent event) { return delegate_events_.emplace_back(std::move(event)); }
  void set_runs(size_t runs) { run_ = runs; }

  const std::vector<Instruction>& instructions() const { return instructions_; }
  const std::vector<DelegateEvent>& delegate_events() const { return delegate_events_; }

  /// The events as Chrome trace-event JSON: complete ("X") events in
  /// microseconds from the first event, track 0 the method's calls, track
  /// 1 + d the events of delegate d, each track named by a metadata event.
  std::string chrome_trace_json() const;
  /// The events as a Kiln trace: JSON with "format": "kiln-trace".
  std::string kiln_trace_json() const;
  /// Reads a Kiln trace back; throws AotError naming `label` and what is wrong.
  static TraceRecorder parse_kiln_trace(const std::string& text, const std::string& label);

 private:
  bool keep_outputs_ = false;
  size_t run_ = 0;
  ProgramId program_;
  std::string method_;
  std::vector<Instruction> instructions_;
  std::vector<DelegateEvent> delegate_events_;
};

}  // namespace kiln::devtools
