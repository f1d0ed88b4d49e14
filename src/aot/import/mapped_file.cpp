#include "aot/import/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must fail below rather than wait for a writer.
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) throw AotError(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw AotError(path + ": cannot stat: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw AotError(path + ": cannot open: " + std::strerror(EISDIR));
  if (!S_ISREG(info.st_mode)) throw AotError(path + ": cannot open: not a regular file");
  if (info.st_size == 0) throw AotError(path + ": the file is empty");
  const auto size = static_cast<size_t>(info.st_size);
  // MAP_NORESERVE: only the pages Kiln writes to need memory of their own, so
  // a model larger than RAM + swap can still be mapped.
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, file.fd, 0);
  if (data == MAP_FAILED) throw AotError(path + ": cannot map: " + std::strerror(errno));
  try {
    return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<std::byte*>(data), size));
  } catch (...) {
    ::munmap(data, size);
    throw;
  }
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace kiln::aot
