#include "runtime/loader/buffer_data_loader.h"

#include "runtime/core/log.h"

namespace kiln::runtime {

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size, const SegmentInfo& /*info*/) const {
  // Written as `size > size_ - offset` so that offset + size cannot overflow.
  if (offset > size_ || size > size_ - offset) {
    KILN_LOG(Error, "BufferDataLoader: range [%zu, +%zu) is outside the %zu-byte buffer", offset, size, size_);
    return Error::InvalidArgument;
  }
  return FreeableBuffer(data_ + offset, size, nullptr);
}

}  // namespace kiln::runtime
