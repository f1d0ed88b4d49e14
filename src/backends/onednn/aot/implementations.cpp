#include "backends/onednn/aot/implementations.h"

#include <functional>

#include "aot/ir/error.h"
#include "backends/onednn/runtime/implementations.h"

namespace kiln::backends::onednn {

bool OperationImplementation::is_reference() const { return is_reference_implementation(implementation.c_str()); }

namespace {

void collect(void* context, const StepImplementation& step) {
  static_cast<std::vector<OperationImplementation>*>(context)->push_back(
      {step.operation, step.operation_name, step.operation_kind, step.primitive_kind, step.implementation});
}

}  // namespace

void plan_on_this_machine(const std::function<runtime::Error(runtime::MemoryAllocator*)>& plan) {
  // The plan's tables grow with the graph: a pool twice as large until they fit.
  for (size_t pool_bytes = size_t{4} << 20;; pool_bytes *= 2) {
    std::vector<uint8_t> pool(pool_bytes);
    runtime::MemoryAllocator allocator(static_cast<uint32_t>(pool.size()), pool.data());
    const runtime::Error error = plan(&allocator);
    if (error == runtime::Error::Ok) return;
    if (error != runtime::Error::DelegateMemoryAllocationFailed || pool_bytes >= (size_t{1} << 30)) {
      throw aot::AotError(std::string("OneDnnBackend: the runtime cannot plan the blob: ") + runtime::to_string(error) +
                          " (its log says why)");
    }
  }
}

std::vector<OperationImplementation> onednn_implementations(const std::vector<uint8_t>& blob) {
  std::vector<OperationImplementation> steps;
  plan_on_this_machine([&](runtime::MemoryAllocator* allocator) {
    steps.clear();
    return visit_step_implementations(blob.data(), blob.size(), allocator, collect, &steps);
  });
  return steps;
}

std::string describe_implementations(const std::vector<OperationImplementation>& steps) {
  std::string text;
  for (size_t s = 0; s < steps.size(); ++s) {
    const OperationImplementation& step = steps[s];
    if (s == 0 || steps[s - 1].operation != step.operation) {
      if (s != 0) text += "\n";
      text += "  operation " + std::to_string(step.operation) + " " + step.kind + " '" + step.name + "':";
    } else {
      text += ",";
    }
    text += " " + step.primitive + " " + step.implementation;
    if (step.is_reference()) text += " (oneDNN's reference kernel)";
  }
  return text.empty() ? text : text + "\n";
}

}  // namespace kiln::backends::onednn
