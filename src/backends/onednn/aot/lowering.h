// A partition as a oneDNN graph (onednn_graph.fbs): the fused groups of
// plan_fusion in execution order, each one Operation; values for the call's
// inputs (Input, index = position among the partition's user inputs, the
// order a delegate call passes them), its outputs (Output, index = position
// in the partition's output list, the order the call returns them), the
// constants it reads (Constant, bytes in named data) and what lives between.
// A reshape to the sizes its input already has is no operation: its result
// names the input's value (unless the call returns it).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "aot/delegate/backend_details.h"
#include "aot/ir/exported_program.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

struct LoweredPartition {
  std::unique_ptr<::kiln::onednn::GraphT> graph;
  aot::NamedDataStoreOutput named_data;
  /// Operation.debug_id -> the debug handles of the nodes it fused.
  aot::DebugHandleMap debug_handle_map;
};

/// Lowers `partition` (a program whose every call_function node
/// describe_node accepts). Throws AotError naming the node otherwise, and for
/// a program that mutates buffers (the backend keeps no state).
LoweredPartition lower_partition(const aot::ExportedProgram& partition);

/// The same for a partition whose run-time sizes are at their bounds
/// (runtime_sizes.h): the values of the nodes `runtime_dims` names get that
/// Value.runtime_dim. Throws AotError if an operation would break its
/// kind's rules (check_operation_rules), as one reading a run-time size its
/// kind takes not.
LoweredPartition lower_partition(const aot::ExportedProgram& partition, const std::map<std::string, int32_t>& runtime_dims);

/// Checks every operation of `graph` against its kind's rules
/// (capabilities.h) as the runtime's builder does before building it; throws
/// AotError naming the first that breaks one. lower_partition ends with it:
/// the partitioner and fusion take nothing the rules refuse, so a refusal is
/// a lowering bug, reported before a blob the runtime refuses exists.
void check_operation_rules(const ::kiln::onednn::GraphT& graph);

}  // namespace kiln::backends::onednn
