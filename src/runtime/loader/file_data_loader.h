// FileDataLoader: reads a file with pread into fresh, aligned heap buffers,
// one per load (freed with the FreeableBuffer). For files that cannot be
// mapped, or when the program should not keep the file mapped.
#pragma once

#include <cstddef>

#include "runtime/core/data_loader.h"

namespace kiln::runtime {

class FileDataLoader final : public DataLoader {
 public:
  /// Opens `path`. NotFound if it does not exist, AccessFailed if it cannot
  /// be opened or sized. `alignment` (a power of two) applies to every buffer
  /// a load returns.
  [[nodiscard]] static Result<FileDataLoader> from(const char* path, size_t alignment = alignof(std::max_align_t));

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  [[nodiscard]] Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  /// Reads straight into `buffer` (no intermediate copy).
  [[nodiscard]] Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const override;
  [[nodiscard]] Result<size_t> size() const override { return file_size_; }

 private:
  FileDataLoader(int fd, size_t file_size, size_t alignment) : fd_(fd), file_size_(file_size), alignment_(alignment) {}

  int fd_;
  size_t file_size_;
  size_t alignment_;
};

}  // namespace kiln::runtime
