#include "aot/pipeline/lower.h"

#include <utility>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/ir/error.h"
#include "aot/passes/debug_handles.h"
#include "aot/passes/decompose.h"
#include "aot/pipeline/fold_constants.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::aot {

namespace {

ExportedProgram delegate(const ExportedProgram& edge, const LowerOptions& options,
                         std::vector<ToBackendReport>& reports) {
  std::vector<CapabilityPartitioner> partitioners;
  for (const std::string& backend : options.backends) {
    get_backend(backend);  // an unknown id fails here, listing the registered ones
    const auto specs = options.compile_specs.find(backend);
    partitioners.emplace_back(backend, specs == options.compile_specs.end() ? std::vector<CompileSpec>{}
                                                                             : specs->second);
  }
  for (const auto& [backend, specs] : options.compile_specs) {
    bool listed = false;
    for (const std::string& name : options.backends) listed = listed || name == backend;
    if (!listed) throw AotError("compile specs for backend '" + backend + "', which is not among the backends");
  }
  std::vector<const Partitioner*> order;
  for (const CapabilityPartitioner& partitioner : partitioners) order.push_back(&partitioner);
  return to_backend(edge, order, &reports);
}

}  // namespace

const std::vector<uint8_t>& LoweredProgram::buffer() const {
  if (!executorch) throw AotError("the program was only delegated (delegate_only): it has no .pte bytes");
  return executorch->buffer;
}

void to_core_aten(ExportedProgram& program) {
  if (program.dialect() == kTrainingDialect) decompose_to_core_aten(program);
}

void to_edge(ExportedProgram& program) {
  generate_debug_handles(program);
  to_core_aten(program);
}

LoweredProgram lower(ExportedProgram program, const LowerOptions& options) {
  if (options.debug_record && options.delegate_only) {
    throw AotError("a debug record describes a .pte: it needs the whole lowering, not delegate_only");
  }
  generate_debug_handles(program);
  // The record maps handles to the nodes as imported, before decomposition
  // renames and replaces them.
  std::map<int64_t, devtools::SourceNode> source_nodes;
  if (options.debug_record) source_nodes = devtools::source_nodes(program);
  to_core_aten(program);
  if (options.fold_constants) aot::fold_constants(program);

  std::vector<ToBackendReport> reports;
  ExportedProgram delegated =
      options.backends.empty() ? program.copy_of_verified() : delegate(program, options, reports);
  LoweredProgram lowered{std::move(program), std::move(delegated), std::move(reports), std::nullopt, std::nullopt};
  if (options.delegate_only) return lowered;

  const KernelQuery registered = [](const std::string& name) {
    return runtime::registry_has_op_function(name.c_str());
  };
  check_ops_supported(lowered.delegated, options.has_kernel ? options.has_kernel : registered, options.kernels_name);
  lowered.executorch = to_executorch(lowered.delegated, options.config);
  if (options.debug_record) {
    lowered.debug_record =
        devtools::make_debug_record(std::move(source_nodes), lowered.executorch->emitted, lowered.executorch->buffer);
  }
  return lowered;
}

}  // namespace kiln::aot
