// The one exception type of the ahead-of-time side. Its message says what was
// wrong and where: the node, the op, the input or the file entry.
#pragma once

#include <stdexcept>
#include <string>

namespace kiln::aot {

class AotError : public std::runtime_error {
 public:
  explicit AotError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kiln::aot
