// The load-time check that no two planned tensor arguments of a kernel call
// overlap in part. Kernels assume an out shares no byte with an input unless
// it is the very same memory (ExecuTorch runs in-place elementwise ops with
// out == self); a partial overlap lets a kernel overwrite input elements it
// has not read yet (embedding over its indices reads out of bounds).
//
// Internal to the executor: Method::load calls it for each kernel call.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
struct KernelCall;
}

namespace kiln::runtime {

/// Checks the planned tensors among `call`'s arguments, and the planned
/// tensors inside its tensor lists: two of them in the same planned buffer
/// must either share no byte or be exactly the same bytes (same offset and
/// byte count). `values` are the plan's parsed values (argument indices
/// already checked); `op_name` names the operator in the log.
/// @retval InvalidProgram a partial overlap, logged with the instruction,
///   the operator and both values.
/// Costs no allocation: up to kSortedOverlapRanges planned tensors are sorted
/// on the stack, a call with more is compared pairwise.
[[nodiscard]] Error check_argument_overlap(const executorch_flatbuffer::ExecutionPlan* plan, const EValue* values,
                                           const executorch_flatbuffer::KernelCall* call, size_t chain,
                                           size_t instruction, const char* op_name);

/// How many planned tensor arguments of one call are sorted on the stack.
inline constexpr size_t kSortedOverlapRanges = 64;

}  // namespace kiln::runtime
