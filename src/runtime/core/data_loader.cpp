#include "runtime/core/data_loader.h"

#include <cstring>

namespace kiln::runtime {

Error DataLoader::load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const {
  if (buffer == nullptr && size != 0) return Error::InvalidArgument;
  Result<FreeableBuffer> loaded = load(offset, size, info);
  if (!loaded.ok()) return loaded.error();
  if (loaded->size() < size) return Error::AccessFailed;
  if (size != 0) std::memcpy(buffer, loaded->data(), size);
  return Error::Ok;
}

}  // namespace kiln::runtime
