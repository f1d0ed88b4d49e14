// The report of a lowering: where each op node of a program went and why the
// rest stayed, as data and as the text `kiln lower` prints. Read from a
// LoweredProgram after the fact, so it decides nothing: the partitioners'
// reports give the refusals, the delegated program's calls give what each
// delegate took.
//   - a delegate: its backend, the ops it took, its inputs and outputs, the
//     weights it took with it, its blob's size and debug-handle map;
//   - a decision per op node of the edge program (before delegation): the
//     delegate that took it, or the portable kernels, and every backend's
//     reason for refusing it (an earlier backend's too, when a later one
//     took the node);
//   - the nodes the delegated program runs on the portable kernels, in the
//     order it runs them, with those reasons.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/pipeline/lower.h"

namespace kiln::aot {

/// A constant (parameter, buffer, lifted constant) a delegate took with it.
struct DelegateWeight {
  std::string target;  ///< its name in the state dict or constants
  std::string kind;    ///< "PARAMETER", "BUFFER", ...
  std::string value;   ///< its dtype and sizes ("f32[8, 3, 3, 3]")
};

/// One delegate call of the lowered program.
struct DelegateSummary {
  std::string name;        ///< the call's attribute name ("lowered_module_0")
  std::string backend_id;
  /// Short op name ("convolution") -> how many of the delegate's op nodes call it.
  std::map<std::string, size_t> op_counts;
  size_t ops = 0;
  size_t inputs = 0;
  size_t outputs = 0;
  size_t blob_bytes = 0;
  std::vector<DelegateWeight> weights;
  DebugHandleMap debug_handle_map;
};

/// A backend's reason for leaving a node to a later backend or the portable kernels.
struct BackendRefusal {
  std::string backend_id;
  std::string reason;
};

/// Where one op node went.
struct NodeDecision {
  std::string node;    ///< the node's name
  std::string target;  ///< its op ("aten::convolution.default")
  std::string backend_id;  ///< the backend that took it; empty: kept on the portable kernels
  std::string delegate;    ///< the delegate call it is in ("lowered_module_0"); empty when kept
  std::vector<BackendRefusal> refusals;  ///< in the backends' priority order

  bool kept() const { return backend_id.empty(); }
};

struct LoweringReport {
  std::vector<std::string> backends;       ///< in priority order
  std::vector<DelegateSummary> delegates;  ///< in graph order
  std::vector<NodeDecision> decisions;     ///< every op node of the edge program, in its order
  /// The op nodes the delegated program runs on the portable kernels, in its
  /// order: delegation moves nodes, so it is not the order of the decisions.
  std::vector<NodeDecision> kept;
};

/// The report of `lowered`, which `backends` (its LowerOptions::backends, in
/// that order) lowered. Throws AotError if they do not match its reports.
LoweringReport report_lowering(const LoweredProgram& lowered, const std::vector<std::string>& backends);

/// "  lowered_module_0: DemoBackend, 2 ops (convolution, relu), 1 input, ..."
/// and its weights and debug handles, as `kiln lower` prints each delegate.
std::string format_delegate(const DelegateSummary& delegate);
/// "Decisions (N ops):" and a line per op node, with the refusals under it
/// (`kiln lower --explain`).
std::string format_decisions(const LoweringReport& report);
/// "Kept on the portable kernels (N ops):" and each kept node with its refusals.
std::string format_kept(const LoweringReport& report);
/// What `kiln lower --backend` prints of `report` for the program `label`: a
/// line naming the backends and the delegate count, each delegate, then the
/// decisions (`explain`) or the nodes kept on the portable kernels.
std::string format_lowering_report(const LoweringReport& report, const std::string& label, bool explain);

}  // namespace kiln::aot
