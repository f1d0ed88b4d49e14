// How the program's flatbuffer values read as runtime values: the Tag of an
// EValue's union type, and a tensor's element count and byte count computed
// without overflow. Shared by MethodMeta, the program validation and Method.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"

namespace executorch_flatbuffer {
enum class KernelTypes : uint8_t;
}

namespace kiln::runtime {

/// The runtime Tag of a value of union type `type`; false for NONE or a
/// type this runtime does not know.
bool tag_of_value_type(executorch_flatbuffer::KernelTypes type, Tag* tag);

/// The number of elements of a tensor of `sizes` (`rank` of them); false if a
/// size is negative or the product overflows size_t.
bool checked_numel(const int32_t* sizes, size_t rank, size_t* numel);

/// numel times the element size of `type`; false if `type` is not a known
/// dtype, a size is negative, or the count overflows.
bool checked_nbytes(ScalarType type, const int32_t* sizes, size_t rank, size_t* nbytes);

}  // namespace kiln::runtime
