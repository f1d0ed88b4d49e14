// kiln run: a .pt2 program on inputs from an .npz, through the reference
// interpreter (run_pt2.cpp), or a .pte program on Kiln's runtime
// (run_pte.cpp); prints the outputs and optionally saves them as an .npz.
// Which one is picked from the file's first bytes (a zip archive or a .pte
// identifier), else its extension. This file and run_pte.cpp are in both
// builds of the tool; without the compiler a .pt2, --trace and --chrome-trace
// are refused (without_compiler.cpp).
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>

#include "command_line.h"
#include "runtime/core/random.h"

namespace kiln::cli {

namespace {

constexpr const char* kRunUsage = R"(Usage: kiln run MODEL.pt2 --inputs INPUTS.npz [--output OUT.npz] [--model NAME] [--seed N]
       kiln run MODEL.pte [--method NAME] [--inputs INPUTS.npz] [--output OUT.npz] [--seed N] [--iterations N]
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
  --seed N          seed the generator the sampling ops draw from (rand,
                    randn, their _like forms, uniform, normal, bernoulli,
                    randint, randperm), 0 to 2^63-1,
                    as torch.manual_seed(N) seeds PyTorch's: the first call
                    then draws the numbers PyTorch draws after
                    torch.manual_seed(N) (randn's within a few float32 ulps),
                    and each later call goes on from there. Without it the
                    seed comes from the system's entropy
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
  if (!file) throw HostError(path + ": cannot open (" + std::strerror(errno) + ")");
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
  throw HostError(path + " is neither a .pt2 archive (a zip file) nor a .pte program (identifier 'ET' and "
                      "two digits at byte 4)");
}

}  // namespace

int run_run(Args args) {
  RunFlags flags;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kRunUsage;
      if (!kWithCompiler) {
        std::cout << "\nThis kiln is the runtime-only (device) build: it runs .pte programs; a .pt2,\n"
                     "--trace and --chrome-trace need the full build (KILN_BUILD_AOT=ON).\n";
      }
      return 0;
    } else if (arg == "--inputs") {
      flags.inputs_path = args.value(arg);
    } else if (arg == "--output") {
      flags.output_path = args.value(arg);
    } else if (arg == "--model") {
      flags.model = args.value(arg);
    } else if (arg == "--method") {
      flags.method = args.value(arg);
    } else if (arg == "--iterations") {
      flags.iterations = parse_integer(arg, args.value(arg), 1, 100000);
    } else if (arg == "--warmup") {
      flags.warmup = parse_integer(arg, args.value(arg), 0, 100000);
    } else if (arg == "--threads") {
      flags.threads = parse_integer(arg, args.value(arg), 1, 256);
    } else if (arg == "--seed") {
      flags.seed = parse_integer(arg, args.value(arg), 0, INT64_MAX);
    } else if (arg == "--json") {
      flags.json = true;
    } else if (arg == "--chrome-trace") {
      flags.chrome_trace = args.value(arg);
    } else if (arg == "--trace") {
      flags.trace = args.value(arg);
    } else if (arg == "--etdump") {
      flags.etdump.etdump_path = args.value(arg);
    } else if (arg == "--debug-buffer") {
      flags.etdump.debug_buffer_path = args.value(arg);
    } else if (flags.path.empty() && (arg.empty() || arg[0] != '-')) {
      flags.path = arg;
    } else {
      args.unknown(arg);
    }
  }
  const std::string& path = flags.path;
  if (path.empty()) throw UsageError("'kiln run' needs a .pt2 or .pte file");
  if (!flags.etdump.debug_buffer_path.empty() && !flags.etdump.requested()) {
    throw UsageError("--debug-buffer goes with --etdump FILE (the ETDump's tensors point into it)");
  }
  if (flags.etdump.requested() && (!flags.trace.empty() || !flags.chrome_trace.empty())) {
    throw UsageError(std::string("--etdump and ") + (!flags.trace.empty() ? "--trace" : "--chrome-trace") +
                     " cannot be given together: a method reports its events to one tracer");
  }

  if (flags.seed >= 0) runtime::manual_seed(static_cast<uint64_t>(flags.seed));
  if (file_kind(path) == FileKind::Pte) {
    if (!flags.model.empty()) throw UsageError("--model applies to .pt2 archives; " + path + " is a .pte program");
    return run_pte_file(flags);
  }
  if (flags.iterations >= 0 || flags.warmup >= 0 || flags.threads >= 0 || flags.json || !flags.chrome_trace.empty() ||
      !flags.trace.empty() || !flags.method.empty() || flags.etdump.requested()) {
    throw UsageError(std::string(!flags.method.empty()   ? "--method"
                                 : flags.iterations >= 0 ? "--iterations"
                                 : flags.warmup >= 0     ? "--warmup"
                                 : flags.threads >= 0    ? "--threads"
                                 : flags.json            ? "--json"
                                 : !flags.trace.empty()  ? "--trace"
                                 : flags.etdump.requested() ? "--etdump"
                                                         : "--chrome-trace") +
                     " applies to .pte programs (Kiln's runtime); " + path + " is a .pt2 archive");
  }
  // (Before --inputs is asked for: without the compiler, no flag helps.)
  if (!kWithCompiler) return run_pt2_file(flags);
  if (flags.inputs_path.empty()) throw UsageError("'kiln run' needs --inputs FILE.npz for a .pt2 program");
  return run_pt2_file(flags);
}

}  // namespace kiln::cli
