// NamedDataMap: bytes looked up by a string key (a delegate's weights, stored
// once in the program's named data and shared by every blob that uses them).
#pragma once

#include <cstddef>

#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"

namespace kiln::runtime {

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  /// The bytes stored under `key` (zero-copy where the loader allows it);
  /// NotFound if no entry has that key.
  [[nodiscard]] virtual Result<FreeableBuffer> get_data(const char* key) const = 0;
  virtual size_t get_num_keys() const = 0;
  /// The key of entry `index`; InvalidArgument when out of range.
  [[nodiscard]] virtual Result<const char*> get_key(size_t index) const = 0;
};

}  // namespace kiln::runtime
