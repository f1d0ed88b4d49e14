// kiln inspect on a .pt2 (inspect.cpp parses the flags): the program as
// torch prints it, its dialect, and its weights and constants with the
// storage they share.
#include <cstdio>
#include <iostream>
#include <map>

#include "aot/import/pt2_reader.h"
#include "cli.h"

namespace kiln::cli {

namespace {

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

int inspect_pt2_file(const std::string& path, const std::string& model) {
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
