#include "backends/onednn/aot/implementations.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/error.h"
#include "runtime/core/log.h"
#include "backends/onednn/runtime/implementations.h"

namespace kiln::backends::onednn {

bool OperationImplementation::is_reference() const { return is_reference_implementation(implementation.c_str()); }

namespace {

void collect(void* context, const StepImplementation& step) {
  static_cast<std::vector<OperationImplementation>*>(context)->push_back(
      {step.operation, step.operation_name, step.operation_kind, step.primitive_kind, step.implementation});
}

}  // namespace

namespace {

// The runtime's log lines of one planning attempt, held until it is known
// whether they are news: an attempt that only ran out of room is retried in
// silence, so `kiln lower` prints no error for a plan that succeeded.
std::vector<std::pair<runtime::LogLevel, std::string>>* held_log = nullptr;

void hold(runtime::LogLevel level, const char* message) { held_log->emplace_back(level, message); }

struct HeldLog {
  std::vector<std::pair<runtime::LogLevel, std::string>> lines;
  runtime::LogSink previous;
  HeldLog() : previous(runtime::set_log_sink(hold)) { held_log = &lines; }
  ~HeldLog() {
    runtime::set_log_sink(previous);
    held_log = nullptr;
  }
};

}  // namespace

void plan_on_this_machine(const std::function<runtime::Error(runtime::MemoryAllocator*)>& plan) {
  // The plan's tables grow with the graph: a pool twice as large until they fit.
  for (size_t pool_bytes = size_t{4} << 20;; pool_bytes *= 2) {
    std::vector<uint8_t> pool(pool_bytes);
    runtime::MemoryAllocator allocator(static_cast<uint32_t>(pool.size()), pool.data());
    runtime::Error error;
    std::vector<std::pair<runtime::LogLevel, std::string>> lines;
    {
      HeldLog held;
      error = plan(&allocator);
      lines = std::move(held.lines);
    }
    const bool retry = error == runtime::Error::DelegateMemoryAllocationFailed && pool_bytes < (size_t{1} << 30);
    if (!retry) {
      for (const auto& [level, line] : lines) runtime::log_message(level, "%s", line.c_str());
    }
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
