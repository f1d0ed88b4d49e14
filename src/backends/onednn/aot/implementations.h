// The oneDNN implementation each operation of a OneDnnBackend blob runs on
// this machine (runtime/implementations.h, read on the host): for `kiln
// lower --explain` and the test that no operation falls back to oneDNN's
// reference kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"

namespace kiln::backends::onednn {

/// One step of a blob's plan, as oneDNN chose it here.
struct OperationImplementation {
  uint32_t operation = 0;   ///< the blob operation the step belongs to
  std::string name;         ///< that operation's name (the first node it fused)
  std::string kind;         ///< "Convolution", "Reduction", ...
  std::string primitive;    ///< oneDNN's primitive kind, or "kiln" for a step of Kiln's own
  std::string implementation;  ///< "brgconv:avx512_core", "jit:uni", "ref:any", or "kiln"

  bool is_reference() const;
};

/// Every step of `blob` (OneDnnBackend's processed bytes) in execution order,
/// planned as the runtime's init plans it at the backend's thread count
/// (set_num_threads).
/// Throws AotError for a blob the runtime refuses.
std::vector<OperationImplementation> onednn_implementations(const std::vector<uint8_t>& blob);

/// Runs `plan` (a visit of runtime/implementations.h) with a pool twice as
/// large until its tables fit. Throws AotError for any other error.
void plan_on_this_machine(const std::function<runtime::Error(runtime::MemoryAllocator*)>& plan);

/// One line per operation: its steps' primitives and implementations, a
/// reference implementation marked.
std::string describe_implementations(const std::vector<OperationImplementation>& steps);

}  // namespace kiln::backends::onednn
