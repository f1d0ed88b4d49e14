// kiln lower: a .pt2 program split across backends by their capability
// partitioners, in priority order; prints where each node went and why the
// rest stayed. Also the delegation part of `kiln demo`.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/decompose.h"
#include "cli.h"

namespace kiln::cli {

namespace {

constexpr const char* kLowerUsage = R"(Usage: kiln lower MODEL.pt2 --backend NAME[,NAME...] [--print] [--model NAME]

Lowers a program saved by torch.export.save to backends. Each backend, in the
order given, takes the nodes it supports, in the largest groups that can each
run as one delegate call, with the weights only those nodes use; what an
earlier backend took, a later one cannot. Prints each delegate (backend, ops,
inputs, outputs, the weights it took, its debug-handle map) and why each node
left on the portable kernels stayed there. A program in the training IR is
decomposed to core ATen first.

Options:
  --backend NAMES  backend ids, comma-separated, in priority order (required)
  --print          also print the lowered program and each delegate's program
  --model NAME     the program to lower when the archive holds several
)";

std::string registered_backends() {
  std::string names;
  for (const std::string& id : aot::registered_backend_ids()) names += (names.empty() ? "" : ", ") + id;
  return names.empty() ? "none" : names;
}

std::vector<std::string> split_backends(const std::string& text) {
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) throw UsageError("--backend has an empty name in '" + text + "'");
    if (aot::find_backend(name) == nullptr) {
      throw UsageError("unknown backend '" + name + "' (registered backends: " + registered_backends() + ")");
    }
    names.push_back(name);
  }
  if (names.empty()) throw UsageError("--backend needs at least one backend id");
  return names;
}

// "aten::convolution.default" -> "convolution".
std::string short_op(const std::string& target) {
  std::string name = target;
  if (auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  if (auto dot = name.find('.'); dot != std::string::npos) name = name.substr(0, dot);
  return name;
}

std::string plural(size_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

void print_delegate(const aot::LoweredSubmodule& submodule) {
  const aot::LoweredBackendModule& module = *submodule.module;
  const aot::ExportedProgram& delegated = module.original_module();
  std::map<std::string, size_t> op_counts;
  size_t ops = 0;
  for (const aot::Node* node : delegated.graph()) {
    if (!node->is_call_function() || node->target() == "getitem") continue;
    ++op_counts[short_op(node->target())];
    ++ops;
  }
  std::string op_list;
  for (const auto& [op, count] : op_counts) {
    op_list += (op_list.empty() ? "" : ", ") + op + (count > 1 ? " x" + std::to_string(count) : "");
  }
  const auto returned = aot::delegate_call_output_indices(delegated);
  std::printf("  %s: %s, %s (%s), %s, %s, %zu-byte blob\n", submodule.name.c_str(), module.backend_id().c_str(),
              plural(ops, "op").c_str(), op_list.c_str(), plural(submodule.call_node->args().size() - 1, "input").c_str(),
              plural(returned.size(), "output").c_str(), module.processed_bytes().size());
  std::string weights;
  const auto placeholders = delegated.graph().placeholders();
  const auto& specs = delegated.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == aot::InputKind::UserInput) continue;
    weights += "\n      " + specs[i].target + " (" + aot::to_string(specs[i].kind) + ", " +
               aot::to_string(placeholders[i]->meta.val) + ")";
  }
  std::printf("    weights it took:%s\n", weights.empty() ? " none" : weights.c_str());
  if (!module.meta.debug_handle_map.empty()) {
    std::printf("    debug handles:   %s\n", aot::to_string(module.meta.debug_handle_map).c_str());
  }
}

// The nodes left on the portable kernels, with every backend's reason.
void print_kept(const aot::ExportedProgram& lowered, const std::vector<aot::ToBackendReport>& reports,
                const std::vector<std::string>& backends) {
  std::map<std::string, std::vector<std::string>> reasons;
  for (size_t i = 0; i < reports.size(); ++i) {
    for (const aot::UnsupportedNode& node : reports[i].unsupported) {
      reasons[node.node].push_back(backends[i] + ": " + node.reason);
    }
  }
  std::vector<const aot::Node*> kept;
  for (const aot::Node* node : lowered.graph()) {
    if (node->is_call_function() && node->target() != "getitem" && node->target() != aot::kCallDelegate) {
      kept.push_back(node);
    }
  }
  if (kept.empty()) {
    std::printf("Kept on the portable kernels: nothing\n");
    return;
  }
  std::printf("Kept on the portable kernels (%s):\n", plural(kept.size(), "op").c_str());
  for (const aot::Node* node : kept) {
    std::printf("  %s (%s)\n", node->name().c_str(), node->target().c_str());
    for (const std::string& reason : reasons[node->name()]) std::printf("      %s\n", reason.c_str());
  }
}

}  // namespace

int run_lower(Args args) {
  std::string path, backend_list, model;
  bool print = false;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kLowerUsage << "\nRegistered backends: " << registered_backends() << "\n";
      return 0;
    } else if (arg == "--backend") {
      backend_list = args.value(arg);
    } else if (arg == "--print") {
      print = true;
    } else if (arg == "--model") {
      model = args.value(arg);
    } else if (path.empty() && (arg.empty() || arg[0] != '-')) {
      path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (path.empty()) throw UsageError("'kiln lower' needs a .pt2 file");
  if (backend_list.empty()) throw UsageError("'kiln lower' needs --backend NAME[,NAME...]");
  const std::vector<std::string> backends = split_backends(backend_list);

  aot::ExportedProgram program = aot::load_pt2(path, model);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  aot::generate_debug_handles(program);
  std::vector<aot::CapabilityPartitioner> partitioners;
  for (const std::string& backend : backends) partitioners.emplace_back(backend);
  std::vector<const aot::Partitioner*> order;
  for (const auto& partitioner : partitioners) order.push_back(&partitioner);
  std::vector<aot::ToBackendReport> reports;
  const aot::ExportedProgram lowered = aot::to_backend(program, order, &reports);

  const auto delegates = aot::get_lowered_submodules(lowered);
  std::printf("Lowered %s to %s: %s\n", path.c_str(), backend_list.c_str(), plural(delegates.size(), "delegate").c_str());
  for (const auto& delegate : delegates) print_delegate(delegate);
  print_kept(lowered, reports, backends);
  if (print) {
    std::printf("\n%s", lowered.to_string().c_str());
    for (const auto& delegate : delegates) {
      std::printf("\n%s (%s) runs:\n%s", delegate.name.c_str(), delegate.module->backend_id().c_str(),
                  delegate.module->original_module().to_string().c_str());
    }
  }
  return 0;
}

void print_delegation_demo(const aot::ExportedProgram& program) {
  aot::ExportedProgram copy = aot::transform(program, {aot::generate_debug_handles()});
  const aot::LoweredBackendModule lowered = aot::to_backend("BackendWithDelegateMappingDemo", copy, {});
  const std::string blob(lowered.processed_bytes().begin(), lowered.processed_bytes().end());
  std::printf("delegated to %s:\n", lowered.backend_id().c_str());
  std::printf("  blob:             %s\n", blob.c_str());
  std::printf("  debug handle map: %s\n", aot::to_string(lowered.meta.debug_handle_map).c_str());
}

}  // namespace kiln::cli
