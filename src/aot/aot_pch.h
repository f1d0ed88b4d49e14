// The precompiled header of the AOT libraries (cmake/KilnTargets.cmake): the
// standard library and the IR headers nearly every compiler file reads,
// parsed once per build instead of once per file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/op_table/op_schema.h"
