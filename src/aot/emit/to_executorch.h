// From an edge program (core ATen, maybe with delegates) to .pte bytes: the
// lowering passes, memory planning, emission and serialization, in the order
// ExecuTorch's to_executorch runs them, for one program or for several
// methods (program methods and constant methods) in one .pte. Used by `kiln
// lower -o`, the demo, the tests and LoweredBackendModule's buffer().
#pragma once

#include <cstdint>
#include <string>
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

/// One program method's stages.
struct ExecutorchMethod {
  std::string name;
  ExportedProgram executable;             ///< the program in executable form
  std::vector<TensorLifetime> lifetimes;  ///< the planner's records
  MemoryPlan memory_plan;
};

/// Each stage's result, kept for inspection (kiln lower prints the plan; the
/// devtools read the debug maps).
struct ExecutorchProgram {
  ExportedProgram executable;               ///< the (main) program in executable form
  std::vector<TensorLifetime> lifetimes;    ///< the planner's records
  MemoryPlan memory_plan;
  EmitterOutput emitted;                    ///< every method
  std::vector<uint8_t> buffer;              ///< the .pte bytes
  /// The stages of the other program methods (the multi-method form), in
  /// the order given.
  std::vector<ExecutorchMethod> other_methods;
  /// The method name of the program that executable, lifetimes and memory_plan describe.
  std::string method_name = "forward";
};

/// A program method of a .pte: its name and its program (edge dialect,
/// maybe delegated), which the caller keeps alive.
struct MethodProgram {
  std::string name;
  const ExportedProgram* program = nullptr;
};

/// Lowers, plans (verifying the plan), emits and serializes `program` as the
/// method 'forward'. Throws AotError naming the stage's problem (every node
/// without an out variant at once; an unbounded dynamic size; an index out
/// of range).
ExecutorchProgram to_executorch(const ExportedProgram& program, const ExecutorchBackendConfig& config = {});

/// ExecuTorch's to_edge({name: program, ...}, constant_methods={...})
/// .to_executorch(): each program method lowered, planned and emitted on its
/// own (its own arenas), the constant methods after them, all in one .pte.
/// The result's executable, lifetimes and memory_plan are methods[0]'s;
/// other_methods holds the rest's. Throws AotError as the one-program form,
/// naming the method, and for no program method, an empty name or a name two
/// methods share.
ExecutorchProgram to_executorch(const std::vector<MethodProgram>& methods, const ConstantMethods& constant_methods,
                                const ExecutorchBackendConfig& config = {});

/// The seed's LoweredBackendModule.buffer(): the .pte bytes of the module's
/// standalone program (one delegate call).
std::vector<uint8_t> buffer(const LoweredBackendModule& module, const ExecutorchBackendConfig& config = {});

}  // namespace kiln::aot
