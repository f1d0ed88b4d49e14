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
// outputs); getitems and allocs emit no instruction. A .pte may hold several
// program methods, each emitted from its own program and plan, and constant
// methods (constant_methods.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "aot/emit/constant_methods.h"
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

/// One program method's maps from instructions to nodes.
struct MethodDebugMaps {
  /// Instruction index -> the debug handles of the node(s) it came from (one
  /// for a kernel call; every node lowered into it for a delegate call).
  std::map<size_t, std::vector<int64_t>> debug_handle_map;
  /// Instruction index of each delegate call -> its delegate's debug map.
  std::map<size_t, DelegateDebugInfo> delegate_map;
};

struct EmitterOutput {
  pte::PteProgram program;
  /// Each program method's maps, by method name (ExecuTorch's
  /// debug_handle_map[method]); constant methods have no instructions and no maps.
  std::map<std::string, MethodDebugMaps> debug_maps;
  /// The tensors and blobs whose bytes `program` points into.
  std::vector<HostTensor> kept_tensors;
  std::vector<std::shared_ptr<const ModuleAttribute>> kept_modules;

  EmitterOutput() = default;
  EmitterOutput(EmitterOutput&&) = default;
  EmitterOutput& operator=(EmitterOutput&&) = default;

  /// The maps of program method `method`; throws AotError if there is none.
  const MethodDebugMaps& debug_maps_of(const std::string& method) const;
};

/// One program method to emit: its name, its program in executable form and
/// the memory plan of that program (each method has arenas of its own).
struct MethodToEmit {
  std::string name;
  const ExportedProgram* program = nullptr;
  const EmitterMemoryPlan* plan = nullptr;
};

/// Emits `program` (in executable form) as the method `method_name`. Throws
/// AotError naming the node for anything the form does not allow (an op
/// without schema, a view, a planned tensor the plan does not place).
EmitterOutput emit_program(const ExportedProgram& program, const EmitterMemoryPlan& plan,
                           const std::string& method_name = "forward");

/// Emits several methods into one program, as ExecuTorch's emit_program does
/// with a dict of programs and prim getters: the program methods in name
/// order, then the constant methods (constant_methods.h) in name order.
/// Constant tensors are shared between methods (deduplicated by content), as
/// are identical delegate blobs (by serialize_pte). Throws AotError for an
/// empty or repeated method name (a constant method's included), or as the
/// one-program form does, naming the method when there are several.
EmitterOutput emit_program(const std::vector<MethodToEmit>& methods, const ConstantMethods& constant_methods = {});

}  // namespace kiln::aot
