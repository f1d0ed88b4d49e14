// Which oneDNN implementation runs each step of a blob on this machine: what
// `kiln lower --explain` prints and what the implementation test checks (no
// `ref:` implementation but the accepted ones). oneDNN picks among its
// kernels by the CPU's ISA and the operation's shapes and layouts when a
// primitive descriptor is made; this plans the blob as init does (stage 1,
// compiled_graph.h), so it sees the same choices, without making primitives
// or reordering weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"

namespace kiln::backends::onednn {

/// One step of a planned blob.
struct StepImplementation {
  uint32_t operation;          ///< the blob operation the step belongs to
  const char* operation_name;  ///< its name (the first node it fused)
  const char* operation_kind;  ///< "Convolution", "Reduction", ... (onednn_graph.fbs)
  /// oneDNN's primitive kind ("convolution", "reorder", ...), or "kiln" for
  /// a step of Kiln's own (a fill, a dynamic quantization's parameters).
  const char* primitive_kind;
  /// oneDNN's implementation name (impl_info_str: "brgconv:avx512_core",
  /// "jit:uni", "ref:any"), or "kiln".
  const char* implementation;
};

/// Called once per step, in execution order; the strings live until the
/// visit returns.
using StepVisitor = void (*)(void* context, const StepImplementation& step);

/// Whether `implementation` is one of oneDNN's reference implementations
/// (`ref:...`, also `ref_...`) or as slow (`ncsp_bnorm`): plain loops, many
/// times slower than its JIT kernels.
bool is_reference_implementation(const char* implementation);

/// Plans the `size`-byte blob at `data` as init would, at the backend's
/// thread count (set_num_threads), and calls `visit` for each step. Tables come from `allocator`; oneDNN's
/// objects are released before it returns.
/// @retval DelegateInvalidCompatibility a blob init would refuse (logged).
/// @retval DelegateMemoryAllocationFailed `allocator` is full.
/// @retval NotSupported oneDNN has no CPU engine here.
[[nodiscard]] runtime::Error visit_step_implementations(const void* data, size_t size,
                                                        runtime::MemoryAllocator* allocator, StepVisitor visit,
                                                        void* context);

/// One use of a constant in a planned blob: the layout it is read in.
struct ConstantLayout {
  uint32_t value;                   ///< the constant (Graph.values)
  const_dnnl_memory_desc_t source;  ///< how the use views the value's row-major elements
  const_dnnl_memory_desc_t chosen;  ///< the layout its primitive reads it in
  bool scaled;                      ///< int8 weights dequantized as they are reordered
};

/// Called once per constant use; the descriptors live until the visit returns.
using ConstantVisitor = void (*)(void* context, const ConstantLayout& constant);

/// Plans the blob as visit_step_implementations does and calls `visit` for
/// each constant use (what aot/packing.h packs the weights by).
[[nodiscard]] runtime::Error visit_constant_layouts(const void* data, size_t size, runtime::MemoryAllocator* allocator,
                                                    ConstantVisitor visit, void* context);

}  // namespace kiln::backends::onednn
