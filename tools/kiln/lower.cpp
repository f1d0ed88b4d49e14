// kiln lower: a .pt2 program split across backends by their capability
// partitioners, in priority order; prints where each node went and why the
// rest stayed (the library's report, aot/pipeline/lower_report.h). Also the
// delegation part of `kiln demo`.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/debug_handle.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/debug_handles.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/lower_report.h"
#include "aot/pipeline/program_methods.h"
#include "cli.h"
#include "devtools/debug_record.h"

namespace kiln::cli {

namespace {

constexpr const char* kLowerUsage = R"(Usage: kiln lower MODEL.pt2 [--backend NAME[,NAME...]] [-o MODEL.pte] [options]

Lowers a program saved by torch.export.save. With --backend, each backend, in
the order given, takes the nodes it supports, in the largest groups that can
each run as one delegate call, with the weights only those nodes use; what an
earlier backend took, a later one cannot. Prints each delegate (backend, ops,
inputs, outputs, the weights it took, its debug-handle map) and why each node
left on the portable kernels stayed there (--explain: the decision on every
node instead). A program in the training IR is decomposed to core ATen first.

With -o, the program (delegated or not) is then lowered to out variants, its
memory planned, and written as a .pte in ExecuTorch's format, which Kiln's and
ExecuTorch's runtimes load. The file is written whole or not at all. A
program with ops left on the portable kernels that no kernel runs (`kiln ops`
lists those that do) is refused, naming every such node, before anything is
written.

The .pte holds the program as the method 'forward' and, as ExecuTorch's
to_edge(..., constant_methods={...}) writes them, constant methods: methods
with no inputs and no instructions whose outputs are a value a runner reads
(get_max_seq_len, get_eos_ids, use_kv_cache, ...). They come from the .pt2's
extra file kiln/constant_methods.json when it has one (torch.export.save(ep,
f, extra_files={"kiln/constant_methods.json": json.dumps({...})})) and from
--constant-methods, a JSON object of name -> value: an integer, a float, a
boolean, a string, or a list of one of those kinds (written as one output per
item, as ExecuTorch flattens it). --method NAME=OTHER.pt2 adds OTHER.pt2's
program as the method NAME, lowered like the first (same backends) with a
memory plan of its own.

With --debug-record, the mapping from the .pte back to the user's program is
written beside it: each instruction's debug handles, each delegate's
identifiers and their handles, and per handle the .pt2 node's name, op,
module stack and stack trace ('kiln profile' and 'kiln compare' read it).

Options:
  --backend NAMES          backend ids, comma-separated, in priority order
  -o, --output PATH        write the .pte program to PATH
  --debug-record PATH      with -o: also write the debug record (JSON) to PATH (of 'forward')
  --constant-methods FILE  with -o: constant methods from a JSON file (name -> value), added to
                           the archive's own, replacing those of the same name
  --method NAME=FILE.pt2   with -o: FILE.pt2's program as one more method NAME (repeatable)
  --explain                print every op node's decision: the backend and delegate that
                           took it, or the portable kernels, with each backend's reason
                           for refusing it; then how this CPU runs each delegate (for
                           OneDnnBackend, oneDNN's implementation of every operation)
  --print                  also print the lowered program and each delegate's program
                           (and a OneDnnBackend delegate's blob, operation by operation)
  --print-memory           print the memory plan: per arena its size, the peak
                           live bytes and the plan's efficiency
  --model NAME             the program to lower when the archive holds several
  --no-kiln-ops            keep to ATen's ops: no fusion of attention, RMS norm, rotary
                           embedding and linears on packed weights into Kiln's own ops
                           (kiln::sdpa, kiln::linear, ...), which only Kiln's kernels run
                           (for a .pte that ExecuTorch's runtime must run). With --backend,
                           attention, gated activations and linears of static sizes are
                           left for the backend either way
  --quantize-activations   the linears of weight-only quantized programs quantize their
                           activations to int8 per block of 32, as llama.cpp does: faster,
                           further from PyTorch's numerics
  --no-plan-inputs         leave user inputs unplanned (the caller supplies their memory)
  --no-plan-outputs        leave user outputs unplanned
  --alignment N            alignment of planned tensors in bytes (default 16)
  --segment-alignment N    alignment of data segments (default 128)
  --constant-alignment N   alignment of constants in the constant segment (default 16)
  --delegate-alignment N   alignment of delegate blobs kept inline (default 16)
  --inline-delegates       keep delegate blobs inside the flatbuffer instead of segments
)";

std::string registered_backends() {
  std::string names;
  for (const std::string& id : aot::registered_backend_ids()) names += (names.empty() ? "" : ", ") + id;
  return names.empty() ? "none" : names;
}

std::vector<std::string> split_backends(const std::string& text) {
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) throw UsageError("--backend has an empty name in '" + text + "'");
    if (aot::find_backend(name) == nullptr) {
      throw UsageError("unknown backend '" + name + "' (registered backends: " + registered_backends() + ")");
    }
    names.push_back(name);
  }
  if (names.empty()) throw UsageError("--backend needs at least one backend id");
  return names;
}

struct LowerOptions {
  std::string path, backend_list, model, output, debug_record, constant_methods;
  std::vector<std::pair<std::string, std::string>> methods;  ///< --method NAME=FILE
  bool explain = false;
  bool print = false;
  bool print_memory = false;
  bool help = false;
  bool kiln_ops = true;
  bool quantize_activations = false;
  aot::ExecutorchBackendConfig config;
};

LowerOptions parse_lower_options(Args& args) {
  LowerOptions options;
  auto& planning = options.config.memory_planning;
  auto& serialize = options.config.serialize;
  auto alignment = [&](const std::string& flag) {
    const auto value = static_cast<uint64_t>(parse_integer(flag, args.value(flag), 1, int64_t{1} << 30));
    if ((value & (value - 1)) != 0) throw UsageError(flag + " must be a power of two, got " + std::to_string(value));
    return value;
  };
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    } else if (arg == "--backend") {
      options.backend_list = args.value(arg);
    } else if (arg == "-o" || arg == "--output") {
      options.output = args.value(arg);
    } else if (arg == "--debug-record") {
      options.debug_record = args.value(arg);
    } else if (arg == "--constant-methods") {
      options.constant_methods = args.value(arg);
    } else if (arg == "--method") {
      const std::string value = args.value(arg);
      const size_t equals = value.find('=');
      if (equals == 0 || equals == std::string::npos || equals + 1 == value.size()) {
        throw UsageError("--method expects NAME=FILE.pt2, got '" + value + "'");
      }
      options.methods.emplace_back(value.substr(0, equals), value.substr(equals + 1));
    } else if (arg == "--explain") {
      options.explain = true;
    } else if (arg == "--print") {
      options.print = true;
    } else if (arg == "--print-memory") {
      options.print_memory = true;
    } else if (arg == "--model") {
      options.model = args.value(arg);
    } else if (arg == "--no-kiln-ops") {
      options.kiln_ops = false;
    } else if (arg == "--quantize-activations") {
      options.quantize_activations = true;
    } else if (arg == "--no-plan-inputs") {
      planning.plan_inputs = false;
    } else if (arg == "--no-plan-outputs") {
      planning.plan_outputs = false;
    } else if (arg == "--alignment") {
      planning.alignment = static_cast<int64_t>(alignment(arg));
    } else if (arg == "--segment-alignment") {
      serialize.segment_alignment = alignment(arg);
    } else if (arg == "--constant-alignment") {
      serialize.constant_tensor_alignment = alignment(arg);
    } else if (arg == "--delegate-alignment") {
      serialize.delegate_alignment = alignment(arg);
    } else if (arg == "--inline-delegates") {
      serialize.extract_delegate_segments = false;
    } else if (options.path.empty() && (arg.empty() || arg[0] != '-')) {
      options.path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (options.path.empty()) throw UsageError("'kiln lower' needs a .pt2 file");
  if (options.backend_list.empty() && options.output.empty() && !options.print_memory) {
    throw UsageError("'kiln lower' needs --backend NAME[,NAME...], -o FILE.pte or --print-memory");
  }
  if (options.quantize_activations && !options.kiln_ops) {
    throw UsageError("--quantize-activations chooses how Kiln's own linears run: it cannot go with --no-kiln-ops");
  }
  if (!options.debug_record.empty() && options.output.empty()) {
    throw UsageError("--debug-record describes a .pte program: give -o FILE.pte too");
  }
  if ((!options.constant_methods.empty() || !options.methods.empty()) && options.output.empty()) {
    throw UsageError(std::string(options.methods.empty() ? "--constant-methods" : "--method") +
                     " adds methods to a .pte program: give -o FILE.pte too");
  }
  return options;
}

// How this machine runs each delegate (BackendDetails::explain_blob): for
// OneDnnBackend, the oneDNN implementation of every operation.
void print_implementations(const aot::LoweredProgram& lowered) {
  for (const auto& delegate : aot::get_lowered_submodules(lowered.delegated)) {
    const std::string text = aot::get_backend(delegate.module->backend_id()).explain_blob(delegate.module->processed_bytes());
    if (!text.empty()) std::printf("\n%s (%s) on this CPU:\n%s", delegate.name.c_str(), delegate.module->backend_id().c_str(), text.c_str());
  }
}

// Where each node went and why the rest stayed (lower_report.h); with
// --print, the programs.
void print_delegation(const std::string& path, const std::vector<std::string>& backends,
                      const aot::LoweredProgram& lowered, const LowerOptions& options) {
  const aot::LoweringReport report = aot::report_lowering(lowered, backends);
  std::printf("%s", aot::format_lowering_report(report, path, options.explain).c_str());
  if (options.explain) print_implementations(lowered);
  if (!options.print) return;
  std::printf("\n%s", lowered.delegated.to_string().c_str());
  for (const auto& delegate : aot::get_lowered_submodules(lowered.delegated)) {
    std::printf("\n%s (%s) runs:\n%s", delegate.name.c_str(), delegate.module->backend_id().c_str(),
                delegate.module->original_module().to_string().c_str());
    const std::string blob = aot::get_backend(delegate.module->backend_id()).describe_blob(delegate.module->processed_bytes());
    if (!blob.empty()) std::printf("its blob:\n%s", blob.c_str());
  }
}

}  // namespace

void print_executorch_program(const aot::ExecutorchProgram& result, bool print_memory) {
  const auto& plans = result.emitted.program.program.execution_plan;
  const auto plan_of = [&](const std::string& name) -> const executorch_flatbuffer::ExecutionPlanT& {
    for (const auto& plan : plans) {
      if (plan->name == name) return *plan;
    }
    throw aot::AotError("the emitted program has no method '" + name + "'");
  };
  const auto& plan = plan_of(result.method_name);
  size_t instructions = 0;
  for (const auto& chain : plan.chains) instructions += chain->instructions.size();
  std::printf("program: %zu bytes, %zu values, %zu instructions, %zu operators, %zu delegates, %zu constants, "
              "%lld bytes planned (%s)\n",
              result.buffer.size(), plan.values.size(), instructions, plan.operators.size(), plan.delegates.size(),
              result.emitted.program.constant_data.size() - 1, static_cast<long long>(result.memory_plan.total_bytes()),
              aot::to_string(result.memory_plan.algorithm));
  if (print_memory) std::printf("%s", aot::memory_plan_summary(result.lifetimes, result.memory_plan).c_str());
  for (const aot::ExecutorchMethod& method : result.other_methods) {
    const auto& other = plan_of(method.name);
    size_t count = 0;
    for (const auto& chain : other.chains) count += chain->instructions.size();
    std::printf("method '%s': %zu values, %zu instructions, %zu delegates, %lld bytes planned (%s)\n",
                method.name.c_str(), other.values.size(), count, other.delegates.size(),
                static_cast<long long>(method.memory_plan.total_bytes()), aot::to_string(method.memory_plan.algorithm));
    if (print_memory) std::printf("%s", aot::memory_plan_summary(method.lifetimes, method.memory_plan).c_str());
  }
}

int run_lower(Args args) {
  const LowerOptions options = parse_lower_options(args);
  if (options.help) {
    std::cout << kLowerUsage << "\nRegistered backends: " << registered_backends() << "\n";
    return 0;
  }
  aot::LowerOptions lower_options;
  if (!options.backend_list.empty()) lower_options.backends = split_backends(options.backend_list);
  lower_options.delegate_only = options.output.empty() && !options.print_memory;
  lower_options.debug_record = !options.debug_record.empty();
  lower_options.config = options.config;
  lower_options.fuse_kiln_ops = options.kiln_ops;
  lower_options.quantize_activations = options.quantize_activations;
  aot::MethodSources sources{options.path, options.model, options.methods, options.constant_methods};
  aot::ProgramMethods methods = aot::load_program_methods(sources);
  const aot::ConstantMethods constant_methods = methods.constants;
  const aot::LoweredProgram lowered = aot::lower(std::move(methods), lower_options);
  if (!lower_options.backends.empty()) print_delegation(options.path, lower_options.backends, lowered, options);
  if (lower_options.delegate_only) return 0;

  const aot::ExecutorchProgram& result = *lowered.executorch;
  if (!options.output.empty()) {
    aot::pte::write_file_atomically(options.output, result.buffer);
    std::printf("Wrote %s\n", options.output.c_str());
  }
  if (lowered.source_nodes) {
    const devtools::DebugRecord record = devtools::make_debug_record(lowered);
    devtools::write_debug_record(options.debug_record, record);
    std::printf("Wrote %s: %zu instructions and %zu delegates mapped to %zu source ops\n", options.debug_record.c_str(),
                record.instructions.size(), record.delegates.size(), record.nodes.size());
  }
  print_executorch_program(result, options.print_memory);
  if (!constant_methods.empty()) std::printf("constant methods (%zu):\n", constant_methods.size());
  for (const auto& [name, value] : constant_methods) {
    std::printf("  %s = %s\n", name.c_str(), aot::to_string(value).c_str());
  }
  return 0;
}

void print_delegation_demo(const aot::ExportedProgram& program) {
  aot::ExportedProgram copy = aot::transform(program, {aot::generate_debug_handles()});
  const aot::LoweredBackendModule lowered = aot::to_backend("BackendWithDelegateMappingDemo", copy, {});
  const std::string blob(lowered.processed_bytes().begin(), lowered.processed_bytes().end());
  std::printf("delegated to %s:\n", lowered.backend_id().c_str());
  std::printf("  blob:             %s\n", blob.c_str());
  std::printf("  debug handle map: %s\n", aot::to_string(lowered.meta.debug_handle_map).c_str());
}

}  // namespace kiln::cli
