// kiln ops --used: the op list of a selective build, read from .pte files
// with the runtime's own program reader (no compiler types), so that a
// runtime-only tool can offer it too.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli {

/// Writes the operators `paths` (.pte files) call through the kernel registry,
/// one a line and sorted, to `output_path` (stdout when empty); notes on
/// stderr the delegates' backends the programs also need. Throws HostError
/// naming the file that cannot be read or is not a program, or the output
/// that cannot be written.
int run_ops_used(const std::vector<std::string>& paths, const std::string& output_path);

}  // namespace kiln::cli
