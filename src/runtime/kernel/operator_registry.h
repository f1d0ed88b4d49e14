// The kernel registry: op name (e.g. "aten::add.out") -> boxed kernel.
//
// Kernels use ExecuTorch's boxed calling convention: `args` holds one EValue
// per schema argument of the out-variant, in schema order with defaults filled
// in (the out tensors included), followed by one return slot.
//
// A kernel may be registered for particular argument dtypes and dim orders
// (its key, as ExecuTorch spells it: "v1/6;0,1,2,3|6;0,1,2,3", one
// "dtype;dim order" per tensor argument) or for any (a null key: the
// fallback). Lookup prefers an exact key, then the fallback.
#pragma once

#include <cstddef>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::runtime {

using OpFunction = void (*)(KernelRuntimeContext& context, Span<EValue*> args);

struct Kernel {
  const char* name;  ///< "aten::add.out": qualified name, a dot, the overload
  OpFunction op;
  const char* key = nullptr;  ///< null: any dtypes and dim orders
};

/// A tensor argument's dtype and dim order, from which a kernel key is made.
struct TensorMeta {
  ScalarType dtype;
  Span<const DimOrderType> dim_order;
};

/// Longest key make_kernel_key writes, with its terminating null.
constexpr size_t kMaxKernelKeyLength = 1024;

/// Writes the key of `metas` ("v1/6;0,1|4;0") into `buffer` of `size` bytes;
/// InvalidArgument if it does not fit.
[[nodiscard]] Error make_kernel_key(Span<const TensorMeta> metas, char* buffer, size_t size);

/// The registry's fixed capacity (no allocation: the table is static).
constexpr size_t kMaxRegisteredKernels = 2000;

/// Adds `kernels`. All-or-nothing: RegistrationAlreadyRegistered if a name and
/// key pair is already present (or twice in `kernels`),
/// RegistrationExceedingMaxKernels if the table would overflow.
[[nodiscard]] Error register_kernels(Span<const Kernel> kernels);

/// How many lists note_left_out_kernels keeps (one per kernel library).
constexpr size_t kMaxLeftOutKernelLists = 8;

/// Names the kernels a selective build (cmake/KilnSelectiveBuild.cmake) left
/// out of this runtime, so that looking one up logs that it was left out of
/// the build rather than only that it is missing. `names` must outlive the
/// registry (the kernel libraries pass static tables); noting the same list
/// again changes nothing.
/// @retval RegistrationExceedingMaxKernels kMaxLeftOutKernelLists lists are
///   already noted.
[[nodiscard]] Error note_left_out_kernels(Span<const char* const> names);
/// True if `name` was noted as left out by selective build.
bool is_left_out_kernel(const char* name);

/// The fallback kernel registered under `name`, or OperatorMissing (logged,
/// naming the operator, and saying so when selective build left it out).
Result<OpFunction> get_op_function_from_registry(const char* name);
/// The kernel for `name` whose key matches `metas`, else its fallback, else
/// OperatorMissing (logged, naming the operator, the key and the kernels of
/// that name under other keys, or that selective build left it out).
Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> metas);
bool registry_has_op_function(const char* name);

size_t get_num_registered_kernels();
/// All registered kernels, in registration order.
Span<const Kernel> get_registered_kernels();

}  // namespace kiln::runtime
