// The portable kernel library: out-variant kernels with PyTorch's numerics,
// registered by ExecuTorch's names ("aten::add.out", ...).
#pragma once

#include "runtime/core/error.h"

namespace kiln::kernels::portable {

/// Adds every portable kernel to the runtime's kernel registry. Idempotent:
/// later calls return Ok without registering twice.
[[nodiscard]] runtime::Error register_portable_kernels();

}  // namespace kiln::kernels::portable
