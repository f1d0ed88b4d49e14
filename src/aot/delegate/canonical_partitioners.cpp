// The canonical partitioners (the grouping of supported nodes is in
// group_partitions.cpp).
#include "aot/delegate/canonical_partitioners.h"

#include <algorithm>
#include <map>
#include <variant>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "runtime/core/scalar_type.h"

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

namespace {

// Untags each tagged constant placeholder of more than `max_copy_bytes` that
// a node of another tag (or none) reads too, so that every reader gets the
// one tensor as an input.
void pass_large_shared_constants(ExportedProgram& program, size_t max_copy_bytes) {
  const InputSpecIndex specs(program);
  for (Node* node : program.graph().placeholders()) {
    const std::string& tag = node->meta.delegation_tag;
    const auto* meta = std::get_if<TensorMeta>(&node->meta.val);
    if (tag.empty() || meta == nullptr || !meta->is_static() || !specs.is_lifted_tensor(*node)) continue;
    size_t bytes = runtime::element_size(meta->dtype);
    for (int64_t size : meta->static_sizes()) bytes *= static_cast<size_t>(size);
    if (bytes <= max_copy_bytes) continue;
    const auto users = node->users();
    if (std::any_of(users.begin(), users.end(), [&](const Node* user) { return user->meta.delegation_tag != tag; })) {
      node->meta.delegation_tag.clear();
    }
  }
}

}  // namespace

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
  if (options_.tag_constant_data) {
    tag_constant_data(program);
    pass_large_shared_constants(program, options_.max_shared_constant_copy_bytes);
  }
  if (options_.tag_mutated_buffers) tag_mutated_buffer(program);
  return result;
}

std::vector<std::string> CapabilityPartitioner::ops_to_not_decompose(const ExportedProgram& /*program*/) const {
  return options_.ops_to_not_decompose;
}

}  // namespace kiln::aot
