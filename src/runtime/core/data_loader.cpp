#include "runtime/core/data_loader.h"

#include <cstring>

#include "runtime/core/log.h"

namespace kiln::runtime {

Error DataLoader::load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const {
  KILN_CHECK_OR_LOG_RETURN(buffer != nullptr || size == 0, InvalidArgument,
                           "load_into: no buffer for %zu bytes at offset %zu", size, offset);
  Result<FreeableBuffer> loaded = load(offset, size, info);
  if (!loaded.ok()) return loaded.error();
  KILN_CHECK_OR_LOG_RETURN(loaded->size() >= size, AccessFailed,
                           "load_into: the loader gave %zu bytes at offset %zu, %zu were asked for", loaded->size(),
                           offset, size);
  if (size != 0) std::memcpy(buffer, loaded->data(), size);
  return Error::Ok;
}

}  // namespace kiln::runtime
