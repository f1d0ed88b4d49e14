#include "aot/pipeline/lower_report.h"

#include <cstdio>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/module_attribute.h"
#include "aot/passes/debug_handles.h"

namespace kiln::aot {

namespace {

std::string plural(size_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

bool is_op(const Node& node) { return node.is_call_function() && !is_call_of(node, ExecKind::GetItem); }

DelegateSummary summarize(const LoweredSubmodule& submodule) {
  const LoweredBackendModule& module = *submodule.module;
  const ExportedProgram& delegated = module.original_module();
  DelegateSummary summary;
  summary.name = submodule.name;
  summary.backend_id = module.backend_id();
  for (const Node* node : delegated.graph()) {
    if (!is_op(*node)) continue;
    ++summary.op_counts[short_op_name(node->target())];
    ++summary.ops;
  }
  summary.inputs = submodule.call_node->args().size() - 1;  // the first argument is the module
  summary.outputs = delegate_call_output_indices(delegated).size();
  summary.blob_bytes = module.processed_bytes().size();
  const auto placeholders = delegated.graph().placeholders();
  const auto& specs = delegated.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == InputKind::UserInput) continue;
    summary.weights.push_back({specs[i].target, to_string(specs[i].kind), to_string(placeholders[i]->meta.val)});
  }
  summary.debug_handle_map = module.meta.debug_handle_map;
  return summary;
}

}  // namespace

LoweringReport report_lowering(const LoweredProgram& lowered, const std::vector<std::string>& backends) {
  if (backends.size() != lowered.reports.size()) {
    throw AotError("the lowering's report names " + std::to_string(backends.size()) + " backends, but " +
                   std::to_string(lowered.reports.size()) + " partitioners ran");
  }
  LoweringReport report;
  report.backends = backends;
  std::map<std::string, std::pair<std::string, std::string>> taken_by;  // node -> (backend, delegate)
  for (const LoweredSubmodule& submodule : get_lowered_submodules(lowered.delegated)) {
    report.delegates.push_back(summarize(submodule));
    for (const Node* node : submodule.module->original_module().graph()) {
      if (node->is_call_function()) taken_by.emplace(node->name(), std::pair(submodule.module->backend_id(), submodule.name));
    }
  }
  std::map<std::string, std::vector<BackendRefusal>> refusals;
  for (size_t i = 0; i < lowered.reports.size(); ++i) {
    for (const UnsupportedNode& node : lowered.reports[i].unsupported) {
      refusals[node.node].push_back({backends[i], node.reason});
    }
  }
  for (const Node* node : lowered.edge.graph()) {
    if (!is_op(*node)) continue;
    NodeDecision decision{node->name(), node->target(), "", "", refusals[node->name()]};
    if (const auto taken = taken_by.find(node->name()); taken != taken_by.end()) {
      decision.backend_id = taken->second.first;
      decision.delegate = taken->second.second;
    }
    report.decisions.push_back(std::move(decision));
  }
  for (const Node* node : lowered.delegated.graph()) {
    if (is_op(*node) && !is_call_of(*node, ExecKind::DelegateCall)) {
      report.kept.push_back({node->name(), node->target(), "", "", refusals[node->name()]});
    }
  }
  return report;
}

std::string format_delegate(const DelegateSummary& delegate) {
  std::string op_list;
  for (const auto& [op, count] : delegate.op_counts) {
    op_list += (op_list.empty() ? "" : ", ") + op + (count > 1 ? " x" + std::to_string(count) : "");
  }
  std::string text = "  " + delegate.name + ": " + delegate.backend_id + ", " + plural(delegate.ops, "op") + " (" +
                     op_list + "), " + plural(delegate.inputs, "input") + ", " + plural(delegate.outputs, "output") +
                     ", " + std::to_string(delegate.blob_bytes) + "-byte blob\n";
  std::string weights;
  for (const DelegateWeight& weight : delegate.weights) {
    weights += "\n      " + weight.target + " (" + weight.kind + ", " + weight.value + ")";
  }
  text += "    weights it took:" + (weights.empty() ? std::string(" none") : weights) + "\n";
  if (!delegate.debug_handle_map.empty()) text += "    debug handles:   " + to_string(delegate.debug_handle_map) + "\n";
  return text;
}

std::string format_decisions(const LoweringReport& report) {
  std::string text = "Decisions (" + plural(report.decisions.size(), "op") + "):\n";
  for (const NodeDecision& decision : report.decisions) {
    text += "  " + decision.node + " (" + decision.target + "): " +
            (decision.kept() ? std::string("portable kernels")
                             : "taken by " + decision.backend_id + " (" + decision.delegate + ")") +
            "\n";
    for (const BackendRefusal& refusal : decision.refusals) {
      text += "      refused by " + refusal.backend_id + ": " + refusal.reason + "\n";
    }
  }
  return text;
}

std::string format_kept(const LoweringReport& report) {
  if (report.kept.empty()) return "Kept on the portable kernels: nothing\n";
  std::string text = "Kept on the portable kernels (" + plural(report.kept.size(), "op") + "):\n";
  for (const NodeDecision& node : report.kept) {
    text += "  " + node.node + " (" + node.target + ")\n";
    for (const BackendRefusal& refusal : node.refusals) text += "      " + refusal.backend_id + ": " + refusal.reason + "\n";
  }
  return text;
}

std::string format_lowering_report(const LoweringReport& report, const std::string& label, bool explain) {
  std::string backends;
  for (const std::string& backend : report.backends) backends += (backends.empty() ? "" : ",") + backend;
  std::string text = "Lowered " + label + " to " + backends + ": " + plural(report.delegates.size(), "delegate") + "\n";
  for (const DelegateSummary& delegate : report.delegates) text += format_delegate(delegate);
  return text + (explain ? format_decisions(report) : format_kept(report));
}

}  // namespace kiln::aot
