// The precompiled header of every test translation unit (cmake/KilnTargets.cmake):
// what nearly every test includes, parsed once per build instead of once per
// file. With the compiler (KILN_TEST_PCH_AOT), also the AOT headers most tests
// read: the program, the graph builder, the interpreter, the emitter and the
// fixture helpers. Tests still include what they use; this only makes it
// cheap.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"

#if defined(KILN_TEST_PCH_AOT)
#include <nlohmann/json.hpp>

#include "aot/emit/to_executorch.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#endif
