// The portable kernel library: out-variant kernels with PyTorch's numerics,
// registered by ExecuTorch's names ("aten::add.out", ...).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable {

/// A set of dtypes, one bit per ScalarType number.
using DtypeSet = uint64_t;

constexpr DtypeSet dtype_set(std::initializer_list<runtime::ScalarType> types) {
  DtypeSet set = 0;
  for (runtime::ScalarType t : types) set |= DtypeSet{1} << static_cast<int>(t);
  return set;
}
constexpr bool contains(DtypeSet set, runtime::ScalarType t) { return (set >> static_cast<int>(t)) & 1; }

/// A kernel of the library with the dtypes it accepts for its main input (the
/// first tensor argument, or the out tensor for ops without tensor inputs).
/// `dtypes` is what docs/ops.md lists and what the golden suite checks.
struct PortableKernel {
  runtime::Kernel kernel;
  DtypeSet dtypes;
  /// The kernel allocates from the heap while it runs (the FFT kernels:
  /// Eigen's FFT keeps plans and scratch there), so a method that calls it
  /// does not keep the runtime's promise that execute() never allocates.
  bool allocates = false;
};

/// Every kernel of the library, in registration order.
runtime::Span<const PortableKernel> portable_kernels();

/// Adds every portable kernel to the runtime's kernel registry. Idempotent:
/// later calls return Ok without registering twice.
[[nodiscard]] runtime::Error register_portable_kernels();

}  // namespace kiln::kernels::portable
