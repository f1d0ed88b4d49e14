// to_backend: lowering a whole program, or the partitions a partitioner
// tags, to backends (ExecuTorch's exir/backend/backend_api.py).
//
//   // The whole program to one backend:
//   LoweredBackendModule lowered = to_backend("DemoBackend", program, {});
//   // What each partitioner tags, in priority order:
//   ExportedProgram lowered = to_backend(program, {&first, &second});
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/delegate/partitioner.h"

namespace kiln::aot {

/// Hands `edge_program` to backend `backend_id`'s preprocess and wraps the
/// result with the program (whose tensors the module shares). Throws AotError
/// listing the registered backends if there is no such backend, or naming the
/// backend when preprocess fails.
LoweredBackendModule to_backend(const std::string& backend_id, const ExportedProgram& edge_program,
                                const std::vector<CompileSpec>& compile_specs);
LoweredBackendModule to_backend(const std::string& backend_id, ExportedProgram&& edge_program,
                                const std::vector<CompileSpec>& compile_specs);

/// What one partitioned lowering did, for reports.
struct ToBackendReport {
  std::string partitioner;                   ///< Partitioner::name()
  std::vector<std::string> lowered_modules;  ///< attribute names, in lowering order
  std::vector<UnsupportedNode> unsupported;  ///< what the partitioner said it left out
};

/// A copy of `edge_program` (tensors shared) in which each partition the
/// partitioner tags runs as one delegate call. The partitioner's result must
/// only add tags, on nodes it may tag (see Partitioner::partition), with every
/// tag declared. Constants tagged for one partition but used elsewhere too are
/// duplicated first, unless marked no_copy. Throws AotError naming the
/// partitioner, tag and nodes when any of this fails, or a partition would
/// form a cycle.
ExportedProgram to_backend(const ExportedProgram& edge_program, const Partitioner& partitioner,
                           ToBackendReport* report = nullptr);

/// Applies the partitioners one after another, in priority order: what an
/// earlier one delegates, a later one cannot take (a delegate call is never
/// supported by CapabilityPartitioner). `reports`, if given, gets one entry each.
ExportedProgram to_backend(const ExportedProgram& edge_program, const std::vector<const Partitioner*>& partitioners,
                           std::vector<ToBackendReport>* reports = nullptr);

/// The nodes tagged `tag`, in graph order. Throws AotError for a tagged
/// output node, a tagged placeholder that is not a parameter, buffer or lifted
/// constant, and a tagged constant that a node of another tag (or none) uses.
std::vector<Node*> get_node_list_with_same_tag(const ExportedProgram& program, const std::string& tag);

/// Before lowering `tag`: a constant placeholder tagged `tag` that nodes of
/// other tags (or none) also use gets one copy per extra user
/// (duplicate_constant_node), each tagged like its user. Throws AotError if
/// the placeholder is marked no_copy or is a mutated buffer. Returns the names
/// of the placeholders copied and their copies.
std::set<std::string> maybe_duplicate_constant_nodes(ExportedProgram& program, const std::string& tag);

/// Gives each user but the first of placeholder `candidate_node` (a
/// parameter, buffer or lifted constant) its own placeholder,
/// "<name>_copy_<i>", with an input spec of the same kind and target, so the
/// copies share the data. Returns the copies' names.
std::set<std::string> duplicate_constant_node(ExportedProgram& program, const std::string& candidate_node);

}  // namespace kiln::aot
