// kiln ops: its flags, in both builds of the tool. --used reads .pte files
// with the runtime's reader alone (ops_used.cpp); the op table needs the
// compiler's op table (ops.cpp; the device build refuses it,
// without_compiler.cpp).
#include <iostream>
#include <string>
#include <vector>

#include "command_line.h"
#include "ops_used.h"

namespace kiln::cli {

namespace {

constexpr const char* kOpsUsage = R"(Usage: kiln ops [--all] [--markdown]
       kiln ops --used MODEL.pte [MODEL.pte ...] [-o FILE]

Prints the ops Kiln runs, and every core ATen op (torch.Tag.core) whether it
runs or not: its functional name, whether it is core ATen or a view copy, its
out variant, the dtypes the portable kernel takes, and how it runs (the
backends with a kernel for it; a view op runs as its copy; ops of
torch.export's training IR and in-place ops are decomposed or functionalized
first; "not yet" for an op nothing runs yet, and for an op Kiln refuses the
reason: "not for inference: training only" for gradients, dropout in training
mode and losses, "no kernel: a LAPACK-class factorization", another device's op,
a sparse or quantized layout, ..., or "no kernel yet: ..." for one that waits
for a kernel; lowering refuses all of them, naming every node that calls one). The op table (src/aot/ir/op_table/ops.def) knows every ATen
op of the torch it was generated from.

With --used, prints instead the operators the programs call through the
kernel registry (every method's operator table), one a line and sorted: the
op list a runtime of only those kernels is built from (selective build:
cmake -DKILN_SELECTED_OPS=FILE, or kiln_selected_kernels(NAME OPS FILE) in
CMake). A delegate's ops are not kernels: a program its delegates run alone
needs none, and the backends it calls are named on stderr instead.

Options:
  --all        every op of the table, also those that neither run nor are core
  --markdown   print the table as Markdown (docs/ops.md is this output)
  --used       the operators of the .pte files that follow
  -o FILE      with --used, write the list to FILE instead of stdout
)";

}  // namespace

int run_ops(Args args) {
  bool markdown = false, all = false, used = false;
  std::vector<std::string> programs;
  std::string output_path;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kOpsUsage;
      if (!kWithCompiler) std::cout << "\nThis kiln is the runtime-only (device) build: it has 'kiln ops --used'; the op\ntable needs the full build (KILN_BUILD_AOT=ON).\n";
      return 0;
    } else if (arg == "--markdown") {
      markdown = true;
    } else if (arg == "--all") {
      all = true;
    } else if (arg == "--used") {
      used = true;
    } else if (arg == "-o" || arg == "--output") {
      output_path = args.value(arg);
    } else if (used && !arg.empty() && arg[0] != '-') {
      programs.push_back(arg);
    } else {
      args.unknown(arg);
    }
  }
  if (used) {
    if (markdown || all) throw UsageError("'kiln ops --used' lists the operators of programs: no --all or --markdown");
    if (programs.empty()) throw UsageError("'kiln ops --used' needs one or more .pte files");
    return run_ops_used(programs, output_path);
  }
  if (!output_path.empty()) throw UsageError("-o FILE goes with --used MODEL.pte...");
  return run_ops_table(all, markdown);
}

}  // namespace kiln::cli
