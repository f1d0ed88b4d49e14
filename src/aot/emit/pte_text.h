// A readable account of a .pte file, for `kiln inspect model.pte`: header and
// segments, a list of the methods (each program method's inputs, outputs and
// instructions; each constant method's value), then per execution plan its
// values, inputs and outputs, instructions (op and arguments), operators,
// delegates, constants and memory plan. Works on any ET12 file, Kiln's or
// ExecuTorch's.
#pragma once

#include <optional>
#include <string>

#include "aot/emit/pte_reader.h"

namespace kiln::aot::pte {

/// The whole account. `max_values` caps the value table of each plan (0: no cap).
std::string describe_pte(const PteFile& file, size_t max_values = 0);

/// If `plan` is a constant method (no inputs, no instructions, no delegates,
/// outputs that are not tensors), its value as JSON would write it: `1`,
/// `"tiny"`, `[2, 3]` for outputs under a list spec (as ExecuTorch flattens a
/// list), `(1, 2)` for several outside one; nullopt otherwise.
std::optional<std::string> constant_method_value(const executorch_flatbuffer::ExecutionPlanT& plan);

/// One value as text: "tensor f32[1, 3] planned(arena 1 @ 64)", "int 3", "int_list[v4, v5]", ...
std::string describe_value(const executorch_flatbuffer::EValueT& value);

}  // namespace kiln::aot::pte
