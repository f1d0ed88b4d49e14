#include "aot/import/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "aot/ir/error.h"

namespace kiln::aot {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw AotError(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw AotError(path + ": cannot stat: " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw AotError(path + ": not a regular file");
  }
  if (info.st_size == 0) {
    ::close(fd);
    throw AotError(path + ": the file is empty");
  }
  const auto size = static_cast<size_t>(info.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int error = errno;
  ::close(fd);
  if (data == MAP_FAILED) throw AotError(path + ": cannot map: " + std::strerror(error));
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<std::byte*>(data), size));
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace kiln::aot
