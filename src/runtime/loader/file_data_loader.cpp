#include "runtime/loader/file_data_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

bool is_power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

void free_heap_copy(void* /*context*/, void* data, size_t /*size*/) { std::free(data); }

}  // namespace

Result<FileDataLoader> FileDataLoader::from(const char* path, size_t alignment) {
  if (path == nullptr) {
    KILN_LOG(Error, "FileDataLoader: no path given");
    return Error::InvalidArgument;
  }
  if (!is_power_of_two(alignment)) {
    KILN_LOG(Error, "FileDataLoader: alignment %zu is not a power of two", alignment);
    return Error::InvalidArgument;
  }
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int open_errno = errno;
    KILN_LOG(Error, "FileDataLoader: cannot open '%s': %s", path, std::strerror(open_errno));
    return open_errno == ENOENT ? Error::NotFound : Error::AccessFailed;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 0) {
    KILN_LOG(Error, "FileDataLoader: cannot size '%s': %s", path, std::strerror(errno));
    ::close(fd);
    return Error::AccessFailed;
  }
  if (!S_ISREG(st.st_mode)) {
    KILN_LOG(Error, "FileDataLoader: '%s' is not a regular file", path);
    ::close(fd);
    return Error::AccessFailed;
  }
  return FileDataLoader(fd, static_cast<size_t>(st.st_size), alignment);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(other.fd_), file_size_(other.file_size_), alignment_(other.alignment_) {
  other.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size, const SegmentInfo& info) const {
  if (offset > file_size_ || size > file_size_ - offset) {
    KILN_LOG(Error, "FileDataLoader: range [%zu, +%zu) is outside the %zu-byte file", offset, size, file_size_);
    return Error::InvalidArgument;
  }
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t alignment = alignment_ < sizeof(void*) ? sizeof(void*) : alignment_;
  if (size > SIZE_MAX - (alignment - 1)) {
    KILN_LOG(Error, "FileDataLoader: %zu bytes cannot be allocated", size);
    return Error::MemoryAllocationFailed;
  }
  const size_t padded = (size + alignment - 1) & ~(alignment - 1);
  void* buffer = std::aligned_alloc(alignment, padded);
  if (buffer == nullptr) {
    KILN_LOG(Error, "FileDataLoader: cannot allocate %zu bytes aligned to %zu", size, alignment);
    return Error::MemoryAllocationFailed;
  }
  const Error error = load_into(offset, size, info, buffer);
  if (error != Error::Ok) {
    std::free(buffer);
    return error;
  }
  return FreeableBuffer(buffer, size, free_heap_copy);
}

Error FileDataLoader::load_into(size_t offset, size_t size, const SegmentInfo& /*info*/, void* buffer) const {
  if (offset > file_size_ || size > file_size_ - offset) {
    KILN_LOG(Error, "FileDataLoader: range [%zu, +%zu) is outside the %zu-byte file", offset, size, file_size_);
    return Error::InvalidArgument;
  }
  if (size != 0 && buffer == nullptr) {
    KILN_LOG(Error, "FileDataLoader: no buffer to read %zu bytes into", size);
    return Error::InvalidArgument;
  }
  auto* out = static_cast<uint8_t*>(buffer);
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      KILN_LOG(Error, "FileDataLoader: reading [%zu, +%zu) failed after %zu bytes: %s", offset, size, done,
               got == 0 ? "unexpected end of file" : std::strerror(errno));
      return Error::AccessFailed;
    }
    done += static_cast<size_t>(got);
  }
  return Error::Ok;
}

}  // namespace kiln::runtime
