// Constant methods: ExecuTorch's to_edge(..., constant_methods={name: value}),
// the metadata a runner reads from a .pte (get_max_seq_len, get_eos_ids,
// use_kv_cache, ...). Each becomes an execution plan that only returns its
// value, written as ExecuTorch's emitter writes it (_emit_prim_getters): no
// inputs, one empty chain, no operators, no planned memory (sizes [0]), one
// value per leaf as the outputs, and the value's pytree spec as the output
// spec. A list is flattened as ExecuTorch flattens it: one output per item
// under a `builtins.list` spec, not one IntList value (ExecuTorch's LLM runner
// reads get_eos_ids as one Int output per id).
//
// Values come from JSON (a .pt2's extra file kiln/constant_methods.json, or
// `kiln lower --constant-methods`), which is checked here: every value must be
// one of the kinds below, a list must hold one kind only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "schema/program_generated.h"

namespace kiln::aot {

/// A constant method's value: an Int, Double, Bool or String EValue, or a
/// list of one of those kinds (JSON integers, floats, booleans, strings).
using ConstantValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>,
                                   std::vector<bool>, std::vector<std::string>>;

/// Constant methods by name; the .pte holds them after the program methods,
/// in this (name) order.
using ConstantMethods = std::map<std::string, ConstantValue>;

/// The value as JSON would write it: `3`, `0.5`, `true`, `"tiny"`, `[2, 3]`.
std::string to_string(const ConstantValue& value);

/// Parses a JSON object of method name -> value. `source` names the text in
/// errors (a file, an archive's entry). Throws AotError naming the source:
/// malformed JSON (with the parser's position), a top level that is not an
/// object, an empty name, and, naming the key and the JSON type, a value that
/// is none of the kinds above (null, an object, a list of lists), a list of
/// several kinds (`'get_eos_ids'[1] is a float (2.5) in a list of integers`:
/// a list's first item decides its kind) or an integer out of int64's range.
ConstantMethods parse_constant_methods(std::string_view json_text, const std::string& source);

/// The execution plan of constant method `name` returning `value`.
std::unique_ptr<executorch_flatbuffer::ExecutionPlanT> emit_constant_method(const std::string& name,
                                                                             const ConstantValue& value);

}  // namespace kiln::aot
