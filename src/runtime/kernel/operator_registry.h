// The kernel registry: op name (e.g. "aten::add.out") -> boxed kernel.
//
// Kernels use ExecuTorch's boxed calling convention: `args` holds one EValue
// per schema argument of the out-variant, in schema order with defaults filled
// in (the out tensors included), followed by one return slot.
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
};

/// The registry's fixed capacity (no allocation: the table is static).
constexpr size_t kMaxRegisteredKernels = 2000;

/// Adds `kernels`. All-or-nothing: RegistrationAlreadyRegistered if a name is
/// already present (or twice in `kernels`), RegistrationExceedingMaxKernels if
/// the table would overflow.
[[nodiscard]] Error register_kernels(Span<const Kernel> kernels);

/// The kernel registered under `name`, or OperatorMissing.
Result<OpFunction> get_op_function_from_registry(const char* name);
bool registry_has_op_function(const char* name);

size_t get_num_registered_kernels();
/// All registered kernels, in registration order.
Span<const Kernel> get_registered_kernels();

}  // namespace kiln::runtime
