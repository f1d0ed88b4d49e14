// kiln inspect: a .pt2 program as text — graph, signature, range constraints,
// and what its weights and constants are (inspect_pt2.cpp, with the
// compiler's importer); or a .pte program (pte_text.h), in both builds.
#include <fstream>
#include <iostream>

#include "aot/emit/pte_text.h"
#include "command_line.h"

namespace kiln::cli {

namespace {

constexpr const char* kInspectUsage = R"(Usage: kiln inspect MODEL.pt2 [--model NAME]
       kiln inspect MODEL.pte [--values N]

Reads a program saved by torch.export.save (torch >= 2.9) and prints it: the
graph as torch prints an ExportedProgram, the graph signature, the range
constraints of symbolic sizes, and a summary of the weights and constants
(which are memory-mapped from the file, not copied).

Reads a .pte program (ExecuTorch's format, written by Kiln or by ExecuTorch)
and prints its header and segments, its methods (each program method's
inputs, outputs and instructions; each constant method's value, such as
get_max_seq_len: constant 128, a list as [2, 3]), then for each method its
values, inputs, outputs, operators, instructions (op and arguments),
delegates (backend, blob size, compile specs), constants and memory plan.

Options:
  --model NAME   the program to read when the archive holds several (default: model)
  --values N     print at most N values of each method (default: all)
)";

bool is_pte_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head &&
         aot::pte::looks_like_pte({reinterpret_cast<const uint8_t*>(head), sizeof head});
}

bool is_zip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string(head, sizeof head) == "PK\x03\x04";
}

}  // namespace

int run_inspect(Args args) {
  std::string path;
  std::string model;
  size_t max_values = 0;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kInspectUsage;
      if (!kWithCompiler) std::cout << "\nThis kiln is the runtime-only (device) build: it reads .pte programs; a .pt2\nneeds the full build (KILN_BUILD_AOT=ON).\n";
      return 0;
    } else if (arg == "--model") {
      model = args.value(arg);
    } else if (arg == "--values") {
      max_values = static_cast<size_t>(parse_integer(arg, args.value(arg), 1, INT64_MAX));
    } else if (path.empty() && (arg.empty() || arg[0] != '-')) {
      path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (path.empty()) throw UsageError("'kiln inspect' needs a .pt2 or .pte file");
  // Without the compiler, everything but a zip archive (a .pt2) is read as a
  // .pte, so that a missing or foreign file is named as such.
  if (is_pte_file(path) || (!kWithCompiler && !is_zip_file(path))) {
    std::cout << aot::pte::describe_pte(aot::pte::read_pte_file(path), max_values);
    return 0;
  }
  return inspect_pt2_file(path, model);
}

}  // namespace kiln::cli

