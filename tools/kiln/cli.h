// Shared pieces of the kiln tool's commands that need the compiler (its
// types in their signatures); the rest, flag parsing and usage errors, is in
// command_line.h, which both builds of the tool compile.
#pragma once

#include <string>

#include "aot/emit/to_executorch.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/value.h"
#include "command_line.h"
#include "devtools/runtime_session.h"

namespace kiln::cli {

using devtools::RuntimeSession;

/// Lowers `program` (the seed model) to BackendWithDelegateMappingDemo and
/// prints the blob and the debug-handle map.
void print_delegation_demo(const aot::ExportedProgram& program);
/// One line on a written program (size, values, instructions, planned bytes)
/// and, with `print_memory`, the memory plan's summary.
void print_executorch_program(const aot::ExecutorchProgram& result, bool print_memory);
/// Prints a tensor as print_array (run_pte.h) does, any other value as itself.
void print_output(const std::string& label, const aot::Value& value);

}  // namespace kiln::cli
