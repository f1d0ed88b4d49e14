// kiln inspect: a .pt2 program as text — graph, signature, range constraints,
// and what its weights and constants are; or a .pte program (pte_text.h).
#include <cstdio>
#include <iostream>
#include <fstream>
#include <map>

#include "aot/emit/pte_text.h"
#include "aot/import/pt2_reader.h"
#include "cli.h"

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

std::string human_bytes(size_t bytes) {
  char text[32];
  if (bytes >= (1u << 20)) std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024) std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  else std::snprintf(text, sizeof text, "%zu B", bytes);
  return text;
}

void print_tensors(const char* title, const std::vector<std::pair<std::string, aot::HostTensor>>& tensors,
                   const std::map<std::string, std::string>& kinds) {
  size_t total = 0;
  std::map<const aot::Storage*, std::string> first_user;
  for (const auto& [name, tensor] : tensors) total += tensor.nbytes();
  std::printf("%s: %zu tensors, %s\n", title, tensors.size(), human_bytes(total).c_str());
  for (const auto& [name, tensor] : tensors) {
    std::string note;
    auto [it, inserted] = first_user.emplace(tensor.storage().get(), name);
    if (!inserted) note = "  (shares storage with " + it->second + ")";
    auto kind = kinds.find(name);
    std::printf("    %-40s %-22s %-16s%s\n", name.c_str(), tensor.describe().c_str(),
                kind == kinds.end() ? "" : kind->second.c_str(), note.c_str());
  }
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
  if (is_pte_file(path)) {
    std::cout << aot::pte::describe_pte(aot::pte::read_pte_file(path), max_values);
    return 0;
  }

  const aot::ExportedProgram program = aot::load_pt2(path, model);
  std::cout << program.to_string() << "\n";
  std::printf("Dialect: %s\n", program.dialect().c_str());

  std::map<std::string, std::string> kinds;
  std::vector<std::pair<std::string, aot::HostTensor>> weights;
  std::vector<std::pair<std::string, aot::HostTensor>> constants;
  for (const aot::InputSpec& spec : program.graph_signature().input_specs) {
    if (spec.kind == aot::InputKind::Parameter) {
      kinds[spec.target] = "parameter";
    } else if (spec.kind == aot::InputKind::Buffer) {
      kinds[spec.target] = spec.persistent.value_or(true) ? "buffer" : "buffer (non-persistent)";
    } else if (spec.kind == aot::InputKind::ConstantTensor) {
      kinds[spec.target] = "constant";
    }
  }
  for (const auto& [name, tensor] : program.state_dict()) weights.emplace_back(name, tensor);
  size_t objects = 0;
  for (const auto& [name, constant] : program.constants()) {
    if (const auto* tensor = std::get_if<aot::HostTensor>(&constant)) constants.emplace_back(name, *tensor);
    else ++objects;
  }
  print_tensors("Weights", weights, kinds);
  print_tensors("Constants", constants, kinds);
  if (objects > 0) std::printf("Custom objects: %zu (kept opaque)\n", objects);
  return 0;
}

}  // namespace kiln::cli
