// The fuzz targets' input as an anonymous in-memory file, so that the readers
// open and map it as they open real files.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::fuzz {

/// An in-memory file holding `size` bytes of `data`; `path()` opens it.
class MemfdFile {
 public:
  MemfdFile(const char* name, const uint8_t* data, size_t size) : fd_(memfd_create(name, MFD_CLOEXEC)) {
    size_t written = 0;
    while (fd_ >= 0 && written < size) {
      const ssize_t n = write(fd_, data + written, size - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
  }
  ~MemfdFile() {
    if (fd_ >= 0) close(fd_);
  }
  MemfdFile(const MemfdFile&) = delete;
  MemfdFile& operator=(const MemfdFile&) = delete;

  bool ok() const { return fd_ >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace kiln::fuzz
