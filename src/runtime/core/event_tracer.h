// EventTracer: what a running Method reports for profiling and debugging. One
// event per instruction it executes (a kernel call or a delegate call, with
// its chain and instruction index), and the events a backend logs inside its
// own delegate call, each under the delegate debug identifier its preprocess
// put in the debug-handle map (an int, or a string), optionally with an
// intermediate output. The devtools (debug record, profile, compare) map both
// back to the user's ops through the handles the program was lowered with.
//
// Off by default: a Method without a tracer checks one pointer per
// instruction and reads no clock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::runtime {

/// Nanoseconds on a monotonic clock, for the events' times.
uint64_t trace_clock_ns();

/// One executed instruction.
struct InstructionEvent {
  size_t chain = 0;
  size_t instruction = 0;
  /// The operator's name ("aten::add.out") or, for a delegate call, the backend's id.
  const char* name = "";
  /// For a delegate call: the index of the delegate in the method; -1 otherwise.
  int64_t delegate = -1;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  /// For a kernel call: what it returned (its out tensor, or the list of
  /// them), valid during the call to log_instruction only; null otherwise.
  const EValue* output = nullptr;
};

/// One event a backend logs inside a delegate call.
struct DelegateEvent {
  size_t chain = 0;
  size_t instruction = 0;  ///< the delegate call's instruction
  size_t delegate = 0;     ///< the delegate's index in the method
  /// The delegate debug identifier: an int, or a name when `debug_name` is set.
  int64_t debug_id = -1;
  const char* debug_name = nullptr;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  /// An intermediate output the backend shows (valid during the call only), or null.
  const Tensor* output = nullptr;
};

class EventTracer {
 public:
  virtual ~EventTracer() = default;
  /// A method starts an execute (`name`: the method's): the events up to the
  /// next call belong to this run (ExecuTorch's event block).
  virtual void create_event_block(const char* name) { (void)name; }
  virtual void log_instruction(const InstructionEvent& event) = 0;
  virtual void log_delegate_event(const DelegateEvent& event) = 0;
  /// Whether the tracer keeps intermediate outputs: a backend whose tensors
  /// need work to show (a reorder out of a blocked layout) does it only then.
  virtual bool wants_outputs() const { return false; }
};

}  // namespace kiln::runtime
