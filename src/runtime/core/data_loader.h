// DataLoader: where a program's bytes come from (a buffer, a file, a mapping).
//
// The runtime reads a .pte only through this interface, piece by piece: the
// header, the flatbuffer, then each segment when it is needed. Loaders live in
// runtime/loader; a test can supply its own (e.g. one that fails on request).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"

namespace kiln::runtime {

/// What a load is for, so a loader may treat pieces differently (e.g. lock
/// the program in memory, let a backend's blob be freed early).
struct SegmentInfo {
  enum class Type : uint8_t {
    Program,   ///< the header and the flatbuffer
    Constant,  ///< the constant segment (weights of portable ops)
    Backend,   ///< a delegate's processed blob
    Mutable,   ///< initial values of mutable buffers
    External,  ///< named data (e.g. delegate weights)
  };
  Type type = Type::Program;
  size_t segment_index = 0;
  /// For Backend segments: the backend's id; otherwise null.
  const char* descriptor = nullptr;
};

class DataLoader {
 public:
  virtual ~DataLoader() = default;

  /// The `size` bytes at `offset`. InvalidArgument if the range is not inside
  /// the data (offset + size must not overflow), AccessFailed if reading fails,
  /// MemoryAllocationFailed if a loader that copies cannot get memory.
  [[nodiscard]] virtual Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const = 0;

  /// Copies the `size` bytes at `offset` into `buffer` (which holds at least
  /// `size` bytes). The default loads then copies.
  [[nodiscard]] virtual Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const;

  /// Total bytes available.
  [[nodiscard]] virtual Result<size_t> size() const = 0;
};

}  // namespace kiln::runtime
