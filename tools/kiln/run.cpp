// kiln run: a .pt2 program on inputs from an .npz, through the reference
// interpreter, or a .pte program on Kiln's runtime (run_pte.cpp); prints the
// outputs and optionally saves them as an .npz. Which one is picked from the
// file's first bytes (a zip archive or a .pte identifier), else its extension.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/pass_manager.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "cli.h"
#include "run_pte.h"

namespace kiln::cli {

namespace {

constexpr const char* kRunUsage = R"(Usage: kiln run MODEL.pt2 --inputs INPUTS.npz [--output OUT.npz] [--model NAME]
       kiln run MODEL.pte [--method NAME] [--inputs INPUTS.npz] [--output OUT.npz] [--iterations N]
                          [--warmup N] [--threads N] [--json] [--chrome-trace TRACE.json] [--trace RUN.kdump]
                          [--etdump RUN.etdp [--debug-buffer RUN.bin]]

A .pt2 (a program saved by torch.export.save) runs through Kiln's reference
interpreter (the portable kernels); a program in the training IR (what
torch.export.export returns) is first decomposed to core ATen, as
run_decompositions() would. Its inputs are the program's user inputs,
flattened as torch.export flattens them (args, then kwargs, depth first). In
the .npz, name them either by position as np.savez(f, a, b) does (arr_0,
arr_1, ...) or by the names the program gives them (see 'kiln inspect': the
USER_INPUT lines).

A .pte (ExecuTorch's format, written by 'kiln lower -o' or by ExecuTorch's
to_executorch()) runs on Kiln's runtime: the file is mapped and fully
verified, the method --method names (by default 'forward', else the
program's first method; 'kiln inspect' lists them) is loaded
with the portable and prim kernels, the demo backends (DemoBackend) and the
oneDNN backend (OneDnnBackend), its
planned memory malloc'd at the sizes the method lists. Its inputs are the
method's inputs in order (arr_0, arr_1, ... or the archive's order); each
must have the dtype and rank the method gives it, and its sizes (a dynamic
input may be smaller, up to the planned bounds). Without --inputs every
input is ones at its planned shape. Prints each output, the load time and
the median, min and max execute time.

Which kind a file is comes from its first bytes (a zip archive, or the .pte
identifier at byte 4), else from its extension.

Options:
  --inputs FILE     the .npz holding the inputs (required for a .pt2)
  --output FILE     write the results to this .npz: output_<i> for each
                    flattened output; for a .pt2 also input_<i> for each user
                    input and buffer:<name> for each buffer after the call (so
                    in-place updates show); for a .pte, the outputs of the
                    last call (the method's outputs, mutated inputs first)
  --model NAME      (.pt2) the program to run when the archive holds several
  --method NAME     (.pte) the method to run: a program method, or a constant
                    method (no inputs), whose value prints as its outputs (a
                    list as one output per item, as ExecuTorch writes it)
  --iterations N    (.pte) calls to time, 1 to 100000 (default 1); each call
                    sets the inputs again, and buffers keep their state from
                    call to call
  --warmup N        (.pte) untimed calls before those, 0 to 100000 (default 0)
  --threads N       (.pte) threads the oneDNN backend (OneDnnBackend) runs its
                    delegates on and Kiln's own linears (kiln::linear) split
                    over, 1 to 256 (default 1); the other portable kernels run
                    on one thread
  --json            (.pte) also print the timings as one line of JSON, the
                    last line printed: load_ms, program_load_ms,
                    method_load_ms, first_ms (the first call, warm-up or
                    not), iterations, warmup, median_ms, min_ms, max_ms
                    (execute times of the timed calls), planned_bytes,
                    start_rss_kb (resident before loading) and peak_rss_kb
                    (the process's peak; both -1 where /proc is missing)
  --chrome-trace FILE  (.pte) write the timed calls' events as a Chrome trace
                    (trace-event JSON for chrome://tracing or ui.perfetto.dev):
                    each kernel and delegate call, and each backend op inside a
                    delegate on a track of its own, named by its delegate debug
                    identifier
  --trace FILE      (.pte) write the timed calls' events as a Kiln trace (JSON,
                    docs/devtools.md), which 'kiln profile --trace' attributes
                    to the user's ops with the program's debug record
  --etdump FILE     (.pte) write the timed calls' events in ExecuTorch's ETDump
                    format (one run per call: each kernel and delegate call,
                    each backend op under its delegate debug identifier), which
                    ExecuTorch's Inspector opens and 'kiln profile --etdump'
                    attributes with the debug record; not with --trace or
                    --chrome-trace (a method reports to one tracer)
  --debug-buffer FILE  (.pte, with --etdump) also log every kernel call's output
                    and each tensor a backend shows; their bytes go to FILE,
                    which the ETDump's tensors point into ('kiln compare
                    --etdump' reads both)
)";

enum class FileKind { Pt2, Pte };

/// A .pt2 starts as a zip archive ("PK\x03\x04"); a .pte has its flatbuffer
/// identifier "ET" + two digits at byte 4. Otherwise the extension decides.
FileKind file_kind(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw aot::AotError(path + ": cannot open (" + std::strerror(errno) + ")");
  char head[8] = {};
  file.read(head, sizeof head);
  const std::streamsize got = file.gcount();
  if (got >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0) return FileKind::Pt2;
  if (got >= 8 && head[4] == 'E' && head[5] == 'T' && std::isdigit(static_cast<unsigned char>(head[6])) &&
      std::isdigit(static_cast<unsigned char>(head[7]))) {
    return FileKind::Pte;
  }
  const auto ends_with = [&](const char* suffix) {
    const size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".pte")) return FileKind::Pte;
  if (ends_with(".pt2")) return FileKind::Pt2;
  throw aot::AotError(path + " is neither a .pt2 archive (a zip file) nor a .pte program (identifier 'ET' and "
                      "two digits at byte 4)");
}

}  // namespace

void print_output(const std::string& label, const aot::Value& value) {
  const auto* tensor = std::get_if<aot::HostTensor>(&value);
  if (tensor == nullptr) {
    std::printf("%s: %s\n", label.c_str(), aot::describe(value).c_str());
    return;
  }
  const std::optional<aot::HostTensor> parts =
      runtime::is_complex_type(tensor->dtype()) ? std::optional(tensor->view_as_real()) : std::nullopt;
  // A complex tensor's statistics and elements are over its parts, (re, im) pairs.
  const std::vector<double> values = parts ? parts->to_doubles() : tensor->to_doubles();
  double low = INFINITY, high = -INFINITY, sum = 0;
  for (double v : values) {
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  std::printf("%s: %s", label.c_str(), tensor->describe().c_str());
  if (!values.empty()) {
    std::printf("  %smin=%.6g max=%.6g mean=%.6g", parts ? "parts " : "", low, high, sum / values.size());
  }
  std::printf("\n    [");
  const size_t step = parts ? 2 : 1;
  for (size_t i = 0; i < values.size() && i < 8 * step; i += step) {
    if (parts) std::printf("%s(%.6g, %.6g)", i ? ", " : "", values[i], values[i + 1]);
    else std::printf("%s%.6g", i ? ", " : "", values[i]);
  }
  std::printf("%s]\n", values.size() > 8 * step ? ", ..." : "");
}

int run_run(Args args) {
  std::string path, inputs_path, output_path, model, method;
  int64_t iterations = -1, warmup = -1, threads = -1;
  bool json = false;
  std::string chrome_trace;
  std::string trace;
  EtdumpRequest etdump;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kRunUsage;
      return 0;
    } else if (arg == "--inputs") {
      inputs_path = args.value(arg);
    } else if (arg == "--output") {
      output_path = args.value(arg);
    } else if (arg == "--model") {
      model = args.value(arg);
    } else if (arg == "--method") {
      method = args.value(arg);
    } else if (arg == "--iterations") {
      iterations = parse_integer(arg, args.value(arg), 1, 100000);
    } else if (arg == "--warmup") {
      warmup = parse_integer(arg, args.value(arg), 0, 100000);
    } else if (arg == "--threads") {
      threads = parse_integer(arg, args.value(arg), 1, 256);
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--chrome-trace") {
      chrome_trace = args.value(arg);
    } else if (arg == "--trace") {
      trace = args.value(arg);
    } else if (arg == "--etdump") {
      etdump.etdump_path = args.value(arg);
    } else if (arg == "--debug-buffer") {
      etdump.debug_buffer_path = args.value(arg);
    } else if (path.empty() && (arg.empty() || arg[0] != '-')) {
      path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (path.empty()) throw UsageError("'kiln run' needs a .pt2 or .pte file");
  if (!etdump.debug_buffer_path.empty() && !etdump.requested()) {
    throw UsageError("--debug-buffer goes with --etdump FILE (the ETDump's tensors point into it)");
  }
  if (etdump.requested() && (!trace.empty() || !chrome_trace.empty())) {
    throw UsageError(std::string("--etdump and ") + (!trace.empty() ? "--trace" : "--chrome-trace") +
                     " cannot be given together: a method reports its events to one tracer");
  }

  if (file_kind(path) == FileKind::Pte) {
    if (!model.empty()) throw UsageError("--model applies to .pt2 archives; " + path + " is a .pte program");
    PteRunOptions options;
    options.path = path;
    options.inputs_path = inputs_path;
    options.output_path = output_path;
    if (iterations >= 0) options.iterations = static_cast<int>(iterations);
    if (warmup >= 0) options.warmup = static_cast<int>(warmup);
    if (threads >= 0) options.threads = static_cast<int>(threads);
    options.json = json;
    options.chrome_trace_path = chrome_trace;
    options.trace_path = trace;
    options.method = method;
    options.etdump = etdump;
    return run_pte(options);
  }
  if (iterations >= 0 || warmup >= 0 || threads >= 0 || json || !chrome_trace.empty() || !trace.empty() ||
      !method.empty() || etdump.requested()) {
    throw UsageError(std::string(!method.empty()   ? "--method"
                                 : iterations >= 0 ? "--iterations"
                                 : warmup >= 0     ? "--warmup"
                                 : threads >= 0    ? "--threads"
                                 : json            ? "--json"
                                 : !trace.empty()  ? "--trace"
                                 : etdump.requested() ? "--etdump"
                                                   : "--chrome-trace") +
                     " applies to .pte programs (Kiln's runtime); " + path + " is a .pt2 archive");
  }
  if (inputs_path.empty()) throw UsageError("'kiln run' needs --inputs FILE.npz for a .pt2 program");

  aot::ExportedProgram program = aot::load_pt2(path, model);
  aot::to_core_aten(program);
  std::vector<aot::Value> leaves = aot::order_inputs(program, aot::read_npz(inputs_path), inputs_path);
  const aot::PyTree result = aot::call_with_leaves(program, leaves);
  const auto [outputs, spec] = aot::tree_flatten(result);
  std::printf("%zu output%s (structure %s)\n", outputs.size(), outputs.size() == 1 ? "" : "s", spec.to_string().c_str());
  for (size_t i = 0; i < outputs.size(); ++i) print_output("output_" + std::to_string(i), outputs[i]);

  if (!output_path.empty()) {
    std::vector<std::pair<std::string, aot::HostTensor>> arrays;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (const auto* tensor = std::get_if<aot::HostTensor>(&outputs[i])) arrays.emplace_back("output_" + std::to_string(i), *tensor);
    }
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (const auto* tensor = std::get_if<aot::HostTensor>(&leaves[i])) arrays.emplace_back("input_" + std::to_string(i), *tensor);
    }
    for (const auto& [name, tensor] : program.named_buffers()) arrays.emplace_back("buffer:" + name, tensor);
    aot::write_npz(output_path, arrays);
    std::printf("wrote %s\n", output_path.c_str());
  }
  return 0;
}

}  // namespace kiln::cli
