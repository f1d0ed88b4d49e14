// lower: a program from torch.export to a .pte in one call. The chain that
// `kiln lower`, the tests and the Python package share, so each decision is
// made once:
//   1. debug handles on the nodes as imported (generate_debug_handles): the
//      pieces of a decomposed op and the members of a fused group keep them;
//   2. core ATen: a program in the training IR is decomposed
//      (decompose_to_core_aten), one saved after run_decompositions() is not;
//      then what depends on the weights and constants alone is computed once
//      (fold_constants);
//   3. delegation: each backend, in priority order, takes the nodes its
//      CapabilityPartitioner accepts;
//   4. the check that the kernels the .pte will run on have every op left
//      off the delegates (every missing node named at once);
//   5. to_executorch: the lowering passes, memory planning, emission and
//      serialization; and, on request, the nodes of step 1, which the
//      devtools' debug record maps the .pte back to.
// A .pte may hold several methods (ProgramMethods, ExecuTorch's to_edge({name:
// program, ...}, constant_methods={...})): each program method goes through
// steps 1 to 4 on its own and gets its own memory plan in step 5; constant
// methods are written beside them. program_methods.h reads them from .pt2 files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/emit/to_executorch.h"
#include "aot/passes/op_support.h"
#include "aot/passes/debug_handles.h"

namespace kiln::aot {

struct LowerOptions {
  /// Backend ids in priority order; each takes the nodes it supports, what an
  /// earlier one took a later one cannot. Empty: every node stays on the
  /// portable kernels.
  std::vector<std::string> backends;
  /// Compile specs by backend id, passed to that backend's preprocess.
  std::map<std::string, std::vector<CompileSpec>> compile_specs;
  /// Stop after delegation: no kernel check, no .pte.
  bool delegate_only = false;
  /// Compute the nodes that read only weights and constants at lowering
  /// (fold_constants.h).
  bool fold_constants = true;
  /// Fuse the patterns of a transformer's layers into Kiln's own ops
  /// (attention, RMS norm, rotary embedding, linears on packed weights:
  /// aot/passes/fuse_ops.h), which Kiln's kernels run. Off for a .pte that ExecuTorch's runtime, which has
  /// no kernels for them, must run.
  bool fuse_kiln_ops = true;
  /// With fuse_kiln_ops: the linears of weight-only quantized programs
  /// quantize their activations too (int8 per block of 32, as llama.cpp
  /// does): faster, further from PyTorch's numerics.
  bool quantize_activations = false;
  /// Also keep what the .pte's debug record needs: the main method's nodes
  /// as imported (LoweredProgram::source_nodes; devtools::make_debug_record).
  bool debug_record = false;
  /// Memory planning and serialization settings.
  ExecutorchBackendConfig config;
  /// Whether the runtime the .pte is for has a kernel for an op left off the
  /// delegates; unset: the kernels registered in this process.
  KernelQuery has_kernel;
  /// How the check's error names those kernels.
  std::string kernels_name = "Kiln's portable kernels";
};

/// The methods of one .pte, as ExecuTorch's to_edge({name: program, ...},
/// constant_methods={name: value}) takes them.
struct ProgramMethods {
  /// Program methods by name. The main one is "forward" if there is one,
  /// else the first by name: LoweredProgram's edge, delegated and reports
  /// and the debug record describe it.
  std::map<std::string, ExportedProgram> programs;
  /// Constant methods: no inputs, no instructions, their value as outputs.
  ConstantMethods constants;
};

/// One program method after delegation (steps 1 to 3).
struct LoweredMethod {
  std::string name;
  ExportedProgram edge;
  ExportedProgram delegated;
  std::vector<ToBackendReport> reports;
};

struct LoweredProgram {
  /// Core ATen with debug handles (its constants folded), before delegation.
  ExportedProgram edge;
  /// After delegation (a copy of `edge` when there are no backends).
  ExportedProgram delegated;
  /// What each backend's partitioner did and left, in priority order.
  std::vector<ToBackendReport> reports;
  /// Every stage of to_executorch, the .pte bytes last; empty with delegate_only.
  std::optional<ExecutorchProgram> executorch;
  /// With LowerOptions::debug_record: the main method's nodes as imported,
  /// by debug handle, which devtools::make_debug_record maps the .pte to.
  std::optional<std::map<int64_t, SourceNode>> source_nodes;
  /// The method name of the program that edge, delegated and reports describe.
  std::string method_name = "forward";
  /// The other program methods, by name.
  std::vector<LoweredMethod> other_methods;

  /// The .pte bytes; throws AotError if the program was only delegated.
  const std::vector<uint8_t>& buffer() const;
};

/// Step 2: decompose_to_core_aten if `program` is in the training IR; a
/// program already in core ATen gets the decompositions of the core ops
/// `has_kernel` (by default the runtime's kernel registry) has no kernel for
/// (decompose_ops_without_kernels: mean.default, fill.Scalar,
/// normal_functional, ...) and the FFT forms. In place; what the reference
/// interpreter runs.
void to_core_aten(ExportedProgram& program, const KernelQuery& has_kernel = {});

/// Steps 1 and 2: debug handles, then core ATen. In place.
void to_edge(ExportedProgram& program);

/// Steps 1 to 5, `program` as the method 'forward'. Throws AotError naming
/// the node, the op and the reason at the first step that cannot go on (an
/// unknown backend id lists the registered ones).
LoweredProgram lower(ExportedProgram program, const LowerOptions& options = {});

/// Steps 1 to 5 for every program method (with the same options), then one
/// .pte holding them and the constant methods. Throws AotError as above,
/// naming the method when there are several, and for no program method, an
/// empty method name or a constant method named as a program method.
LoweredProgram lower(ProgramMethods methods, const LowerOptions& options = {});

}  // namespace kiln::aot
