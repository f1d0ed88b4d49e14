// The canonical partitioners (the grouping of supported nodes is in
// group_partitions.cpp).
#include "aot/delegate/canonical_partitioners.h"

#include <algorithm>
#include <map>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"

namespace kiln::aot {

PartitionResult AllNodePartitioner::partition(const ExportedProgram& exported_program) const {
  PartitionResult result{copy_for_partitioning(exported_program), {}, {}};
  ExportedProgram& program = result.tagged_exported_program;
  const std::string& tag = delegation_spec_.backend_id;
  const InputSpecIndex specs(program);
  for (Node* node : program.graph()) {
    if (node->is_output() || (node->is_placeholder() && !specs.is_lifted_tensor(*node))) continue;
    node->meta.delegation_tag = tag;
    if (result.partition_tags.empty()) result.partition_tags.emplace_back(tag, delegation_spec_);
  }
  return result;
}

PartitionResult CapabilityPartitioner::partition(const ExportedProgram& exported_program) const {
  PartitionResult result{copy_for_partitioning(exported_program), {}, {}};
  ExportedProgram& program = result.tagged_exported_program;
  const BackendDetails& backend = get_backend(delegation_spec_.backend_id);
  std::set<const Node*> supported;
  for (Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    if (is_call_of(*node, ExecKind::GetItem)) {
      const Node* source = node->args().empty() || !node->args()[0].is_node() ? nullptr : node->args()[0].node();
      if (supported.count(source)) supported.insert(node);
      continue;
    }
    NodeSupport support = exec_kind(*node) == ExecKind::DelegateCall ? NodeSupport::no("already delegated")
                          : std::holds_alternative<SymExpr>(node->meta.val)
                              ? NodeSupport::no("it computes a size, and delegates return tensors only")
                              : backend.supports(*node, program);
    if (support.supported) {
      supported.insert(node);
    } else {
      result.unsupported.push_back({node->name(), node->target(), std::move(support.reason)});
    }
  }
  const auto partitions = group_acyclic_partitions(program.graph(), supported);
  for (size_t i = 0; i < partitions.size(); ++i) {
    const std::string tag = "tag" + std::to_string(i);
    for (Node* node : partitions[i]) node->meta.delegation_tag = tag;
    result.partition_tags.emplace_back(tag, delegation_spec_);
  }
  if (options_.tag_constant_data) tag_constant_data(program);
  if (options_.tag_mutated_buffers) tag_mutated_buffer(program);
  return result;
}

std::vector<std::string> CapabilityPartitioner::ops_to_not_decompose(const ExportedProgram& /*program*/) const {
  return options_.ops_to_not_decompose;
}

}  // namespace kiln::aot
