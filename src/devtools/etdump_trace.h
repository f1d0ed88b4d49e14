// An ETDump read back on the host: the events a device recorded (`kiln run
// --etdump`, runtime/devtools/etdump_recorder.h), or ExecuTorch's runtime,
// as the TraceRecorder the profile and the comparison attribute, so that a
// run made elsewhere is attributed exactly as a run made here.
//
//   - each RunData holding an instruction's event is one run;
//   - a ProfileEvent with a delegate debug identifier is a backend's event
//     inside the delegate call of its instruction; one without is an
//     instruction (events of no instruction, such as ExecuTorch's
//     "Method::execute", are left out); a "DELEGATE_CALL" is a delegate call,
//     the delegates numbered in the order of their instructions;
//   - a DebugEvent's tensor (the first of a list) is the output of the event
//     it follows, its bytes read from the debug buffer;
//   - a run named "<method> [kiln-program N bytes fnv1a64 H]" says which
//     .pte and method the events come from.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "devtools/debug_record.h"
#include "devtools/trace_recorder.h"

namespace kiln::devtools {

/// Reads `etdump` (`label` names it in messages) and, if not empty,
/// `debug_buffer` (the tensors' bytes; `debug_label`). Throws AotError naming
/// what is wrong: too short or truncated, not an ETDump (its identifier), a
/// FlatBuffer that does not verify, a version this build does not read, runs
/// of different programs, a tensor outside the debug buffer.
TraceRecorder read_etdump(std::span<const uint8_t> etdump, const std::string& label,
                          std::span<const uint8_t> debug_buffer = {}, const std::string& debug_label = "");

/// The files at `path` and, if not empty, `debug_buffer_path`, read as above.
TraceRecorder read_etdump_file(const std::string& path, const std::string& debug_buffer_path = "");

/// Throws AotError unless `trace` (read from `trace_label`) can be the run of
/// the program and method `record` (read from `record_label`) describes: the
/// same program id and method when the trace names them; when it does not
/// (an ETDump of ExecuTorch's runtime), every instruction it logged must be
/// one the record knows.
void check_trace_matches(const TraceRecorder& trace, const std::string& trace_label, const DebugRecord& record,
                         const std::string& record_label);

}  // namespace kiln::devtools
