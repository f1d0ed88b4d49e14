#include "runtime/executor/flatbuffer_values.h"

#include <cstdint>

#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

bool tag_of_value_type(fb::KernelTypes type, Tag* tag) {
  switch (type) {
    case fb::KernelTypes::Null: *tag = Tag::None; return true;
    case fb::KernelTypes::Int: *tag = Tag::Int; return true;
    case fb::KernelTypes::Bool: *tag = Tag::Bool; return true;
    case fb::KernelTypes::Double: *tag = Tag::Double; return true;
    case fb::KernelTypes::Tensor: *tag = Tag::Tensor; return true;
    case fb::KernelTypes::String: *tag = Tag::String; return true;
    case fb::KernelTypes::IntList: *tag = Tag::ListInt; return true;
    case fb::KernelTypes::DoubleList: *tag = Tag::ListDouble; return true;
    case fb::KernelTypes::BoolList: *tag = Tag::ListBool; return true;
    case fb::KernelTypes::TensorList: *tag = Tag::ListTensor; return true;
    case fb::KernelTypes::OptionalTensorList: *tag = Tag::ListOptionalTensor; return true;
    case fb::KernelTypes::NONE: break;
  }
  return false;
}

bool checked_numel(const int32_t* sizes, size_t rank, size_t* numel) {
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0) return false;
    if (__builtin_mul_overflow(count, static_cast<size_t>(sizes[d]), &count)) return false;
  }
  *numel = count;
  return true;
}

bool checked_nbytes(ScalarType type, const int32_t* sizes, size_t rank, size_t* nbytes) {
  if (!is_valid(type)) return false;
  size_t numel = 0;
  if (!checked_numel(sizes, rank, &numel)) return false;
  size_t bytes = 0;
  // TensorImpl counts in ssize_t: anything past PTRDIFF_MAX is as bad as an overflow.
  if (__builtin_mul_overflow(numel, element_size(type), &bytes) || bytes > static_cast<size_t>(PTRDIFF_MAX)) return false;
  *nbytes = bytes;
  return true;
}

}  // namespace kiln::runtime
