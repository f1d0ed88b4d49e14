#include "runtime/loader/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/log.h"

namespace kiln::runtime::loader_detail {

Error open_regular_file(const char* who, const char* path, int* fd, size_t* size) {
  if (path == nullptr) {
    KILN_LOG(Error, "%s: no path given", who);
    return Error::InvalidArgument;
  }
  const int opened = ::open(path, O_RDONLY | O_CLOEXEC);
  if (opened < 0) {
    const int open_errno = errno;
    KILN_LOG(Error, "%s: cannot open '%s': %s", who, path, std::strerror(open_errno));
    return open_errno == ENOENT ? Error::NotFound : Error::AccessFailed;
  }
  struct stat st {};
  if (::fstat(opened, &st) != 0 || st.st_size < 0) {
    KILN_LOG(Error, "%s: cannot size '%s': %s", who, path, std::strerror(errno));
    ::close(opened);
    return Error::AccessFailed;
  }
  if (!S_ISREG(st.st_mode)) {
    KILN_LOG(Error, "%s: '%s' is not a regular file", who, path);
    ::close(opened);
    return Error::AccessFailed;
  }
  *fd = opened;
  *size = static_cast<size_t>(st.st_size);
  return Error::Ok;
}

}  // namespace kiln::runtime::loader_detail
