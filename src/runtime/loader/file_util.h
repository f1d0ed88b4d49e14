// What the file-backed loaders share: opening a regular file read-only and
// learning its size, with the error and log line each failure deserves.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace kiln::runtime::loader_detail {

/// Opens `path` for reading. `who` names the loader in log lines. NotFound
/// if the file does not exist, AccessFailed if it cannot be opened or sized
/// or is not a regular file, InvalidArgument for a null path.
Error open_regular_file(const char* who, const char* path, int* fd, size_t* size);

}  // namespace kiln::runtime::loader_detail
