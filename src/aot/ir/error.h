// The one exception type of the ahead-of-time side, a HostError. Its message
// says what was wrong and where: the node, the op, the input or the file entry.
#pragma once

#include <string>

#include "host/host_error.h"

namespace kiln::aot {

class AotError : public HostError {
 public:
  explicit AotError(const std::string& message) : HostError(message) {}
};

}  // namespace kiln::aot
