#include "aot/pipeline/lower.h"

#include <optional>
#include <utility>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/ir/error.h"
#include "aot/passes/debug_handles.h"
#include "aot/passes/decompose.h"
#include "aot/passes/fuse_ops.h"
#include "aot/passes/lowering.h"
#include "aot/pipeline/fold_constants.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::aot {

namespace {

// The runtime's kernel registry (the kernels linked into this binary).
bool registered_kernel(const std::string& name) { return runtime::registry_has_op_function(name.c_str()); }

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

void to_core_aten(ExportedProgram& program, const KernelQuery& has_kernel) {
  if (program.dialect() == kTrainingDialect) {
    decompose_to_core_aten(program);
  } else if (has_kernel) {
    decompose_ops_without_kernels(program, has_kernel);
  } else {
    decompose_ops_without_kernels(program, registered_kernel);
  }
}

void to_edge(ExportedProgram& program) {
  generate_debug_handles(program);
  to_core_aten(program);
}

LoweredProgram lower(ExportedProgram program, const LowerOptions& options) {
  ProgramMethods methods;
  methods.programs.emplace("forward", std::move(program));
  return lower(std::move(methods), options);
}

namespace {

// "forward" if there is one (the method runtimes run by default), else the first.
std::string main_method(const ProgramMethods& methods) {
  if (methods.programs.empty()) throw AotError("a .pte needs at least one program method");
  return methods.programs.count("forward") ? "forward" : methods.programs.begin()->first;
}

void check_method_names(const ProgramMethods& methods) {
  for (const auto& [name, program] : methods.programs) {
    if (name.empty()) throw AotError("a program method has an empty name");
  }
  for (const auto& [name, value] : methods.constants) {
    if (name.empty()) throw AotError("a constant method has an empty name");
    if (methods.programs.count(name)) {
      throw AotError("constant method '" + name + "' has the name of a program method; method names must differ");
    }
  }
}

// Runs `step` on one method; with several methods, its errors name the method.
template <typename Step>
auto for_method(const std::string& name, bool several, Step&& step) {
  try {
    return step();
  } catch (const AotError& error) {
    if (!several) throw;
    throw AotError("method '" + name + "': " + error.what());
  }
}

// Steps 1 to 3 of one program method; `source_nodes`, if given, gets the
// nodes as imported (for the debug record).
LoweredMethod delegate_method(std::string name, ExportedProgram program, const LowerOptions& options,
                              std::map<int64_t, SourceNode>* source_nodes) {
  generate_debug_handles(program);
  // The record maps handles to the nodes as imported, before decomposition
  // renames and replaces them.
  if (source_nodes != nullptr) *source_nodes = aot::source_nodes(program);
  // The fusions that fit the training IR (attention, before decomposition
  // spells it out), then those that read core ATen.
  const KilnOpsOptions kiln_ops{options.quantize_activations, /*static_shapes=*/options.backends.empty(),
                                CapabilityPartitionerOptions{}.max_shared_constant_copy_bytes};
  if (options.fuse_kiln_ops) fuse_kiln_ops(program, kiln_ops);
  to_core_aten(program, options.has_kernel);
  if (options.fold_constants) aot::fold_constants(program);
  if (options.fuse_kiln_ops) fuse_kiln_ops(program, kiln_ops);
  eliminate_common_subexpressions(program);
  if (!options.backends.empty()) {
    split_as_slices(program);
    step_slices_as_crops(program);
    expand_into_broadcast(program);
    prelu_as_relus(program);
  }
  std::vector<ToBackendReport> reports;
  ExportedProgram delegated =
      options.backends.empty() ? program.copy_of_verified() : delegate(program, options, reports);
  if (!options.backends.empty()) order_random_draws(delegated, random_draws(program));
  return LoweredMethod{std::move(name), std::move(program), std::move(delegated), std::move(reports)};
}

}  // namespace

LoweredProgram lower(ProgramMethods methods, const LowerOptions& options) {
  if (options.debug_record && options.delegate_only) {
    throw AotError("a debug record describes a .pte: it needs the whole lowering, not delegate_only");
  }
  const std::string main = main_method(methods);
  check_method_names(methods);
  const bool several = methods.programs.size() > 1;

  std::map<int64_t, SourceNode> source_nodes;
  std::vector<LoweredMethod> others;
  std::optional<LoweredMethod> first;
  for (auto& entry : methods.programs) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
    ExportedProgram& program = entry.second;
    const bool is_main = name == main;
    LoweredMethod method = for_method(name, several, [&] {
      return delegate_method(name, std::move(program), options,
                             is_main && options.debug_record ? &source_nodes : nullptr);
    });
    if (is_main) first.emplace(std::move(method));
    else others.push_back(std::move(method));
  }
  LoweredProgram lowered{std::move(first->edge), std::move(first->delegated), std::move(first->reports),
                         std::nullopt, std::nullopt, main, std::move(others)};
  if (options.delegate_only) return lowered;

  const KernelQuery& has_kernel = options.has_kernel ? options.has_kernel : KernelQuery(registered_kernel);
  std::vector<MethodProgram> programs{{main, &lowered.delegated}};
  for (const LoweredMethod& method : lowered.other_methods) programs.push_back({method.name, &method.delegated});
  for (const MethodProgram& method : programs) {
    for_method(method.name, several,
               [&] { check_ops_supported(*method.program, has_kernel, options.kernels_name); });
  }
  lowered.executorch = to_executorch(programs, methods.constants, options.config);
  if (options.debug_record) lowered.source_nodes = std::move(source_nodes);
  return lowered;
}

}  // namespace kiln::aot
