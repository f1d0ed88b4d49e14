// The emitter: turns a program in executable form (aot/ir/memory_ops.h) and
// its memory plan into an ExecuTorch execution plan, ready for serialize_pte.
//
// It decides nothing about lowering: every node maps to values and at most one
// instruction exactly as the executable form says. Placeholders become input
// tensors (planned or supplied at run time), constant tensors (deduplicated by
// content into the constant segment) or mutable buffers (planned, with their
// initial value in the mutable data segment); memory.alloc nodes become
// planned tensors; out-variant and other op calls become KernelCalls with
// ExecuTorch's boxed convention (every schema argument, defaults filled in,
// then one return slot); delegate calls become DelegateCalls (inputs, then
// outputs); getitems and allocs emit no instruction.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "aot/emit/pte_writer.h"
#include "aot/ir/exported_program.h"
#include "aot/passes/memory_planning.h"

namespace kiln::aot {

/// What the devtools need to map instructions back to nodes.
struct DelegateDebugInfo {
  std::string backend_id;
  /// The backend's identifiers -> debug handles of the nodes inside the delegate.
  std::map<std::string, std::vector<int64_t>> delegate_map;
};

struct EmitterOutput {
  pte::PteProgram program;
  /// Instruction index -> the debug handles of the node(s) it came from (one
  /// for a kernel call; every node lowered into it for a delegate call).
  std::map<size_t, std::vector<int64_t>> debug_handle_map;
  /// Instruction index of each delegate call -> its delegate's debug map.
  std::map<size_t, DelegateDebugInfo> delegate_map;
  /// The tensors and blobs whose bytes `program` points into.
  std::vector<HostTensor> kept_tensors;
  std::vector<std::shared_ptr<const ModuleAttribute>> kept_modules;

  EmitterOutput() = default;
  EmitterOutput(EmitterOutput&&) = default;
  EmitterOutput& operator=(EmitterOutput&&) = default;
};

/// Emits `program` (in executable form) as the method `method_name`. Throws
/// AotError naming the node for anything the form does not allow (an op
/// without schema, a view, a planned tensor the plan does not place).
EmitterOutput emit_program(const ExportedProgram& program, const EmitterMemoryPlan& plan,
                           const std::string& method_name = "forward");

}  // namespace kiln::aot
