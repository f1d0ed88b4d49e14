#include "runtime/loader/mmap_data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

// The mapping starts at the page that holds `data`; the context carries the
// page size so that Free can find that start again.
void unmap_pages(void* context, void* data, size_t size) {
  const auto page_size = reinterpret_cast<uintptr_t>(context);
  const uintptr_t address = reinterpret_cast<uintptr_t>(data);
  const uintptr_t start = address & ~(page_size - 1);
  ::munmap(reinterpret_cast<void*>(start), size + (address - start));
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::from(const char* path) {
  if (path == nullptr) {
    KILN_LOG(Error, "MmapDataLoader: no path given");
    return Error::InvalidArgument;
  }
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || (page_size & (page_size - 1)) != 0) {
    KILN_LOG(Error, "MmapDataLoader: unusable page size %ld", page_size);
    return Error::AccessFailed;
  }
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int open_errno = errno;
    KILN_LOG(Error, "MmapDataLoader: cannot open '%s': %s", path, std::strerror(open_errno));
    return open_errno == ENOENT ? Error::NotFound : Error::AccessFailed;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 0) {
    KILN_LOG(Error, "MmapDataLoader: cannot size '%s': %s", path, std::strerror(errno));
    ::close(fd);
    return Error::AccessFailed;
  }
  if (!S_ISREG(st.st_mode)) {
    KILN_LOG(Error, "MmapDataLoader: '%s' is not a regular file", path);
    ::close(fd);
    return Error::AccessFailed;
  }
  return MmapDataLoader(fd, static_cast<size_t>(st.st_size), static_cast<size_t>(page_size));
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : fd_(other.fd_), file_size_(other.file_size_), page_size_(other.page_size_) {
  other.fd_ = -1;
}

MmapDataLoader::~MmapDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size, const SegmentInfo& /*info*/) const {
  if (offset > file_size_ || size > file_size_ - offset) {
    KILN_LOG(Error, "MmapDataLoader: range [%zu, +%zu) is outside the %zu-byte file", offset, size, file_size_);
    return Error::InvalidArgument;
  }
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  const size_t map_start = offset & ~(page_size_ - 1);
  const size_t lead = offset - map_start;
  // lead < page_size and size <= file_size, so the sum fits.
  void* pages = ::mmap(nullptr, lead + size, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(map_start));
  if (pages == MAP_FAILED) {
    KILN_LOG(Error, "MmapDataLoader: cannot map [%zu, +%zu): %s", offset, size, std::strerror(errno));
    return Error::AccessFailed;
  }
  return FreeableBuffer(static_cast<uint8_t*>(pages) + lead, size, unmap_pages,
                        reinterpret_cast<void*>(static_cast<uintptr_t>(page_size_)));
}

}  // namespace kiln::runtime
