#include "runtime/loader/mmap_data_loader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/core/log.h"
#include "runtime/loader/file_util.h"

namespace kiln::runtime {

namespace {

// Mappings cover whole windows of 2 MiB of the file (as far as it goes): the
// kernel then places them on a 2 MiB boundary and can map the page cache's
// large folios one page-table entry per 2 MiB, as it does huge-page memory.
// Weights read in place (OneDnnBackend's packed weights) then stream with
// few TLB misses; under 4 KiB mappings densenet169 ran 4-6% slower at one
// thread than from huge-page memory.
// With 32-bit pointers, windows of one page (the context below has room for
// no more).
constexpr size_t kWindow = sizeof(uintptr_t) >= 8 ? size_t{2} << 20 : 0;

// The context carries how far the mapping starts before `data` and how far
// it ends after `data + size` (each under a window), so that Free can find
// it: the lead in the low half of its bits, the tail in the high half.
constexpr unsigned kTailShift = sizeof(uintptr_t) * 4;

void unmap_window(void* context, void* data, size_t size) {
  const auto packed = reinterpret_cast<uintptr_t>(context);
  const uintptr_t lead = packed & ((uintptr_t{1} << kTailShift) - 1);
  const uintptr_t tail = packed >> kTailShift;
  ::munmap(static_cast<uint8_t*>(data) - lead, lead + size + tail);
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::from(const char* path) {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || (page_size & (page_size - 1)) != 0) {
    KILN_LOG(Error, "MmapDataLoader: unusable page size %ld", page_size);
    return Error::AccessFailed;
  }
  int fd = -1;
  size_t size = 0;
  KILN_TRY(loader_detail::open_regular_file("MmapDataLoader", path, &fd, &size));
  return MmapDataLoader(fd, size, static_cast<size_t>(page_size));
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
  const size_t window = page_size_ > kWindow ? page_size_ : kWindow;
  const size_t map_start = offset & ~(window - 1);
  const size_t file_end = (file_size_ + page_size_ - 1) & ~(page_size_ - 1);
  const size_t window_end = ((offset + size + window - 1) & ~(window - 1));
  const size_t map_end = window_end < file_end ? window_end : file_end;
  const size_t lead = offset - map_start;
  // lead, and the tail past the range, are each under a window.
  void* pages = ::mmap(nullptr, map_end - map_start, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(map_start));
  if (pages == MAP_FAILED) {
    KILN_LOG(Error, "MmapDataLoader: cannot map [%zu, +%zu): %s", offset, size, std::strerror(errno));
    return Error::AccessFailed;
  }
  const uintptr_t tail = map_end - (offset + size);
  return FreeableBuffer(static_cast<uint8_t*>(pages) + lead, size, unmap_window,
                        reinterpret_cast<void*>(static_cast<uintptr_t>(lead) | (tail << kTailShift)));
}

}  // namespace kiln::runtime
