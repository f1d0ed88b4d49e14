// The canonical partitioners: AllNodePartitioner (the whole graph to one
// backend) and CapabilityPartitioner (what a backend says it supports, in the
// largest groups that can each run as one call).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "aot/delegate/partitioner.h"

namespace kiln::aot {

/// Tags every node but the output and the user inputs (parameters, buffers
/// and constants included, so they move into the delegate) with one tag for
/// `backend_id` (ExecuTorch's AllNodePartitioner). Delegate calls already in
/// the program are tagged too: they end up nested in the new delegate.
class AllNodePartitioner : public Partitioner {
 public:
  AllNodePartitioner(std::string backend_id, std::vector<CompileSpec> compile_specs = {})
      : delegation_spec_{std::move(backend_id), std::move(compile_specs)} {}

  std::string name() const override { return "AllNodePartitioner(" + delegation_spec_.backend_id + ")"; }
  PartitionResult partition(const ExportedProgram& exported_program) const override;

 private:
  DelegationSpec delegation_spec_;
};

struct CapabilityPartitionerOptions {
  /// Move parameters, buffers and constants into the delegates that use them
  /// (tag_constant_data); otherwise the program passes them in.
  bool tag_constant_data = true;
  /// A constant larger than this that the program also reads outside the
  /// delegate (a language model's embedding table, tied to its output
  /// projection) is passed in, not moved: copying it into the delegate (what
  /// tag_constant_data does with a shared constant) would store it twice.
  size_t max_shared_constant_copy_bytes = size_t{1} << 20;
  /// Move mutated buffers, and their mutations, into the delegate that reads
  /// them (tag_mutated_buffer); otherwise the delegate returns the new value
  /// and the program writes it back.
  bool tag_mutated_buffers = false;
  /// Ops the partitioner asks decompositions to keep whole.
  std::vector<std::string> ops_to_not_decompose;
};

/// Asks backend `backend_id` whether it supports each call_function node
/// (BackendDetails::supports) and tags the supported ones in groups
/// (group_acyclic_partitions), "tag0", "tag1", ... in graph order. A getitem
/// goes with the node it takes apart; delegate calls and nodes that compute a
/// symbolic size (sym_size) are never supported: a delegate takes sizes as
/// inputs but returns tensors only.
/// Reports each node left out, with the backend's reason.
class CapabilityPartitioner : public Partitioner {
 public:
  CapabilityPartitioner(std::string backend_id, std::vector<CompileSpec> compile_specs = {},
                        CapabilityPartitionerOptions options = {})
      : delegation_spec_{std::move(backend_id), std::move(compile_specs)}, options_(std::move(options)) {}

  std::string name() const override { return "CapabilityPartitioner(" + delegation_spec_.backend_id + ")"; }
  PartitionResult partition(const ExportedProgram& exported_program) const override;
  std::vector<std::string> ops_to_not_decompose(const ExportedProgram& exported_program) const override;

 private:
  DelegationSpec delegation_spec_;
  CapabilityPartitionerOptions options_;
};

/// Groups `supported` nodes of `graph` into partitions that can each run as
/// one call: no path leaves a partition and comes back into it through a node
/// outside it. Greedy, in graph order: a node joins the partitions of its
/// inputs when the union stays acyclic; then partitions merge pairwise while
/// the union stays acyclic, so the groups are as large as the rule allows.
/// Returns the partitions in graph order, each in graph order.
std::vector<std::vector<Node*>> group_acyclic_partitions(const Graph& graph, const std::set<const Node*>& supported);

}  // namespace kiln::aot
