// A lowered program's numbers against the program it was lowered from: what
// `kiln compare` and the Python package's kiln.compare do.
//   1. the reference (the .pt2's program) is numbered as lowering numbered
//      it (generate_debug_handles) and checked to be the program the debug
//      record was written from (each of the record's handles names the same
//      node and op);
//   2. it runs on the reference interpreter (after to_core_aten, as lower
//      does) on the user's flattened inputs, and the result of each source op
//      is kept: the last node carrying its handle, with a quantize or
//      dequantize op's grid;
//   3. the .pte runs once on its RuntimeSession with every intermediate
//      output logged (or a run recorded elsewhere is read: an ETDump with its
//      debug buffer), and compare_outputs compares the two.
// The devtools sit above the compiler: this calls the interpreter and
// to_core_aten, and no backend (the session ran whatever the .pte delegates).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"
#include "aot/ir/value.h"
#include "devtools/compare.h"
#include "devtools/debug_record.h"
#include "devtools/runtime_session.h"
#include "devtools/trace_recorder.h"

namespace kiln::devtools {

using aot::ExportedProgram;
using aot::Value;

/// Ones for each user input of `program`, in flattened order. Throws
/// AotError naming the first input that is not a tensor or has a dynamic
/// size (those need inputs given).
std::vector<Value> ones_user_inputs(const ExportedProgram& program);

/// Compares the run of `session` (loaded from the .pte `record` describes,
/// its method the record's) with `reference`, the program it was lowered
/// from (`reference_label` names it in messages), on `inputs`, the user's
/// flattened inputs (order_inputs), or ones_user_inputs when absent. The
/// session's inputs are replaced with copies of those. Throws AotError when
/// the reference is another program, an input is not a tensor (the runtime's
/// inputs are tensors here), or a run fails.
Comparison compare_program(const DebugRecord& record, RuntimeSession& session, ExportedProgram reference,
                           const std::string& reference_label, std::optional<std::vector<Value>> inputs = std::nullopt);

/// Compares a run recorded elsewhere (`run`: its first run, with the outputs
/// logged, e.g. read_etdump with its debug buffer) with `reference` on
/// `inputs` (or ones_user_inputs), as compare_program does without running
/// the .pte. Throws AotError as compare_program does, and when `run` logged
/// no output.
Comparison compare_recorded_run(const DebugRecord& record, const TraceRecorder& run, ExportedProgram reference,
                                const std::string& reference_label,
                                std::optional<std::vector<Value>> inputs = std::nullopt);

}  // namespace kiln::devtools
