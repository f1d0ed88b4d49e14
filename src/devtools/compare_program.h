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
//      output logged, and devtools::compare_outputs compares the two.
// It lives above the devtools (which the interpreter and to_core_aten are not
// below) and calls no backend: the session ran whatever the .pte delegates.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"
#include "aot/ir/value.h"
#include "devtools/compare.h"
#include "devtools/debug_record.h"
#include "devtools/runtime_session.h"

namespace kiln::aot {

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
devtools::Comparison compare_program(const devtools::DebugRecord& record, devtools::RuntimeSession& session,
                                     ExportedProgram reference, const std::string& reference_label,
                                     std::optional<std::vector<Value>> inputs = std::nullopt);

}  // namespace kiln::aot
