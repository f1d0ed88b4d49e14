// Value: a concrete value that crosses a program's boundary — a tensor, a
// Python scalar, a string or None.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "aot/ir/argument.h"
#include "aot/ir/host_tensor.h"

namespace kiln::aot {

using Value = std::variant<None, HostTensor, int64_t, double, bool, std::string>;

/// "f32[2, 3]", "3", "1.5", "True", "'text'", "None".
std::string describe(const Value& value);

}  // namespace kiln::aot
