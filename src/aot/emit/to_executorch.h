// From an edge program (core ATen, maybe with delegates) to .pte bytes: the
// lowering passes, memory planning, emission and serialization, in the order
// ExecuTorch's to_executorch runs them. Used by `kiln lower -o`, the demo,
// the tests and LoweredBackendModule's buffer().
#pragma once

#include <cstdint>
#include <vector>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/emit/emitter.h"
#include "aot/emit/pte_writer.h"
#include "aot/passes/memory_planning.h"

namespace kiln::aot {

/// ExecuTorch's ExecutorchBackendConfig, the parts Kiln has.
struct ExecutorchBackendConfig {
  MemoryPlanOptions memory_planning;
  pte::SerializeOptions serialize;
};

/// Each stage's result, kept for inspection (kiln lower prints the plan; the
/// devtools read the debug maps).
struct ExecutorchProgram {
  ExportedProgram executable;               ///< the program in executable form
  std::vector<TensorLifetime> lifetimes;    ///< the planner's records
  MemoryPlan memory_plan;
  EmitterOutput emitted;
  std::vector<uint8_t> buffer;              ///< the .pte bytes
};

/// Lowers, plans (verifying the plan), emits and serializes `program`.
/// Throws AotError naming the stage's problem (every node without an out
/// variant at once; an unbounded dynamic size; an index out of range).
ExecutorchProgram to_executorch(const ExportedProgram& program, const ExecutorchBackendConfig& config = {});

/// The seed's LoweredBackendModule.buffer(): the .pte bytes of the module's
/// standalone program (one delegate call).
std::vector<uint8_t> buffer(const LoweredBackendModule& module, const ExecutorchBackendConfig& config = {});

}  // namespace kiln::aot
