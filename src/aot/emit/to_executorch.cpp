#include "aot/emit/to_executorch.h"

#include "aot/ir/error.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {

namespace {

ExecutorchMethod plan_method(const MethodProgram& method, const ExecutorchBackendConfig& config) {
  ExportedProgram executable = lower_to_executable(*method.program);
  std::vector<TensorLifetime> lifetimes = compute_lifetimes(executable, config.memory_planning);
  MemoryPlan plan = plan_memory(lifetimes, config.memory_planning);
  verify_memory_plan(lifetimes, plan);
  return ExecutorchMethod{method.name, std::move(executable), std::move(lifetimes), std::move(plan)};
}

}  // namespace

ExecutorchProgram to_executorch(const ExportedProgram& program, const ExecutorchBackendConfig& config) {
  return to_executorch({MethodProgram{"forward", &program}}, {}, config);
}

ExecutorchProgram to_executorch(const std::vector<MethodProgram>& methods, const ConstantMethods& constant_methods,
                                const ExecutorchBackendConfig& config) {
  if (methods.empty()) throw AotError("to_executorch needs at least one program method");
  std::vector<ExecutorchMethod> planned;
  for (const MethodProgram& method : methods) {
    if (method.program == nullptr) throw AotError("program method '" + method.name + "' has no program");
    try {
      planned.push_back(plan_method(method, config));
    } catch (const AotError& error) {
      if (methods.size() == 1) throw;
      throw AotError("method '" + method.name + "': " + error.what());
    }
  }
  std::vector<EmitterMemoryPlan> allocations;
  for (const ExecutorchMethod& method : planned) {
    allocations.push_back(emitter_allocations(method.lifetimes, method.memory_plan));
  }
  std::vector<MethodToEmit> to_emit;
  for (size_t i = 0; i < planned.size(); ++i) to_emit.push_back({planned[i].name, &planned[i].executable, &allocations[i]});
  EmitterOutput emitted = emit_program(to_emit, constant_methods);
  std::vector<uint8_t> bytes = pte::serialize_pte(emitted.program, config.serialize);

  ExecutorchMethod& main = planned.front();
  ExecutorchProgram result{std::move(main.executable), std::move(main.lifetimes), std::move(main.memory_plan),
                           std::move(emitted), std::move(bytes), {}, main.name};
  for (size_t i = 1; i < planned.size(); ++i) result.other_methods.push_back(std::move(planned[i]));
  return result;
}

std::vector<uint8_t> buffer(const LoweredBackendModule& module, const ExecutorchBackendConfig& config) {
  return to_executorch(module.program(), config).buffer;
}

}  // namespace kiln::aot
