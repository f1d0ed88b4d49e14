// BufferDataLoader: a program already in memory (embedded in the binary,
// read by the app). Zero-copy: loads are views of the caller's bytes, which
// must outlive every Program and Method that uses them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"

namespace kiln::runtime {

class BufferDataLoader final : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  [[nodiscard]] Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  [[nodiscard]] Result<size_t> size() const override { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace kiln::runtime
