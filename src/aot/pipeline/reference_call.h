// A program called on the reference interpreter the way the user calls it:
// on its user inputs flattened as torch.export flattens them (args, then
// kwargs, depth first), unflattened here by the program's input spec. What
// `kiln run MODEL.pt2`, `kiln compare` and the Python package share.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"

namespace kiln::aot {

/// Arrays (an .npz's, read by read_npz) in the program's flattened user-input
/// order: named by position as np.savez(f, a, b) names them (arr_0, arr_1,
/// ...), or by the program's user-input names. Throws AotError naming `label`
/// (the file) for a count that differs or an array that matches no input.
std::vector<Value> order_inputs(const ExportedProgram& program, std::vector<std::pair<std::string, HostTensor>> arrays,
                                const std::string& label);

/// Calls `program` on its flattened user inputs `leaves` (call_program after
/// unflattening them by its input spec; a program without one takes them as
/// positional args). `observer` sees every op node, as in call_program.
/// Throws AotError if the input spec is not (args, kwargs), and as
/// call_program does.
PyTree call_with_leaves(ExportedProgram& program, const std::vector<Value>& leaves,
                        const NodeObserver& observer = {});

}  // namespace kiln::aot
