// The reference interpreter: runs a program in the executable form of
// aot/ir/memory_ops.h node by node on the portable kernels (the same kernels
// the runtime uses, called through the boxed calling convention), and calls a
// program the way torch calls `exported_program.module()(*args, **kwargs)`.
// It makes no lowering decision: a program not yet in executable form is
// first lowered by lower_to_executable (aot/passes/lowering.h), on a copy that
// shares its weights, so that buffer write-backs still reach its state dict. A delegate call runs the
// lowered module's own program, so every lowering can be checked against the
// program it came from before any backend runtime exists.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// Checks the user's flattened inputs against the program's user-input
/// placeholders: count, kind, dtype, rank, static sizes, and the ranges of
/// symbolic sizes (each symbol must take one value across all inputs).
/// Returns the symbol bindings; throws AotError naming the input (by
/// placeholder name and path, e.g. "input 'x' (args[0])") and the constraint.
SymbolBindings check_user_inputs(const ExportedProgram& program, const std::vector<FlatLeaf>& user_inputs);

/// Runs the program a delegate call stands for (a lowered module's program)
/// on the call's inputs, the delegate's user inputs in order: checks them,
/// passes the delegate's own parameters, buffers and constants, writes its
/// buffer mutations back into its buffers, and returns the outputs the call
/// returns (all but the buffer mutations; see delegate_call_output_indices).
std::vector<Value> run_delegated_program(const ExportedProgram& delegated, const std::vector<Value>& inputs);

/// Sees each call_function node of the executable form the interpreter runs
/// (memory.alloc included) right after it ran, with its values; for the
/// devtools' reference outputs.
using NodeObserver = std::function<void(const Node& node, const std::vector<Value>& values)>;

/// Calls the program: flattens `args` and `kwargs` by the input tree spec,
/// checks them, prepends parameters, buffers and constants in signature
/// order, runs the graph, writes buffer mutations back into the state dict
/// (or constants, for non-persistent buffers) and user-input mutations into
/// the caller's input tensors, drops token outputs, and unflattens the user
/// outputs by the output tree spec. `observer`, if set, sees every op node.
PyTree call_program(ExportedProgram& program, const PyTree& args, const PyTree& kwargs = PyTree::dict({}),
                    const NodeObserver& observer = {});

}  // namespace kiln::aot
