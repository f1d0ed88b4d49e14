// MmapDataLoader: maps the file read-only; each load maps the 2 MiB windows
// of the file that hold the requested range (unmapped when the
// FreeableBuffer is freed), so that the kernel can map the page cache's large
// folios as huge pages. Constants and delegate blobs are then read straight
// from the page cache, never copied.
#pragma once

#include <cstddef>

#include "runtime/core/data_loader.h"

namespace kiln::runtime {

class MmapDataLoader final : public DataLoader {
 public:
  /// Opens `path`. NotFound if it does not exist, AccessFailed if it cannot
  /// be opened or sized.
  [[nodiscard]] static Result<MmapDataLoader> from(const char* path);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  ~MmapDataLoader() override;

  [[nodiscard]] Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  [[nodiscard]] Result<size_t> size() const override { return file_size_; }

 private:
  MmapDataLoader(int fd, size_t file_size, size_t page_size) : fd_(fd), file_size_(file_size), page_size_(page_size) {}

  int fd_;
  size_t file_size_;
  size_t page_size_;
};

}  // namespace kiln::runtime
