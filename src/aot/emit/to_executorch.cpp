#include "aot/emit/to_executorch.h"

#include "aot/passes/lowering.h"

namespace kiln::aot {

ExecutorchProgram to_executorch(const ExportedProgram& program, const ExecutorchBackendConfig& config) {
  ExportedProgram executable = lower_to_executable(program);
  std::vector<TensorLifetime> lifetimes = compute_lifetimes(executable, config.memory_planning);
  MemoryPlan plan = plan_memory(lifetimes, config.memory_planning);
  verify_memory_plan(lifetimes, plan);
  EmitterOutput emitted = emit_program(executable, emitter_allocations(lifetimes, plan));
  std::vector<uint8_t> bytes = pte::serialize_pte(emitted.program, config.serialize);
  return ExecutorchProgram{std::move(executable), std::move(lifetimes), std::move(plan), std::move(emitted),
                           std::move(bytes)};
}

std::vector<uint8_t> buffer(const LoweredBackendModule& module, const ExecutorchBackendConfig& config) {
  return to_executorch(module.program(), config).buffer;
}

}  // namespace kiln::aot
