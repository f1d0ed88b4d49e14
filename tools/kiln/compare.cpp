// kiln compare: where a lowered program's numbers part from the user's
// program. Runs the .pte with every intermediate output logged, runs the
// reference interpreter on the .pt2 it was lowered from, and compares each
// source op's result through the debug record (devtools/compare_program.h);
// or compares a run recorded elsewhere (an ETDump with its debug buffer).
#include <cstdio>
#include <iostream>
#include <optional>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/pipeline/reference_call.h"
#include "runtime/backend/backend_interface.h"
#include "cli.h"
#include "devtools/compare.h"
#include "devtools/compare_program.h"
#include "devtools/debug_record_for.h"
#include "devtools/etdump_trace.h"

namespace kiln::cli {

namespace {

constexpr const char* kCompareUsage = R"(Usage: kiln compare MODEL.pte --debug-record MODEL.kdbg --reference MODEL.pt2
                    [--inputs INPUTS.npz] [--model NAME] [--threads N] [--top N] [--threshold DB]
       kiln compare --etdump RUN.etdp --debug-buffer RUN.bin --debug-record MODEL.kdbg --reference MODEL.pt2
                    [--inputs INPUTS.npz] [--model NAME] [--top N] [--threshold DB]

Finds where a lowered program's numbers part from the program it was lowered
from. Runs MODEL.pte once on Kiln's runtime with every intermediate output
logged (each kernel call's result, and each tensor a backend logs for its
own ops), runs the reference interpreter (the portable kernels) on the .pt2,
and through the debug record ('kiln lower ... -o MODEL.pte --debug-record
MODEL.kdbg') compares each source op's result: the signal-to-noise ratio in
dB (10 log10 of sum ref^2 over sum error^2; 'exact' when equal) and the
largest absolute error, worst first. Then it names the first op in program
order below the threshold: where an error enters; the ops after it inherit it.

A group of ops a backend fused is compared by the last op's result; a
decomposed op by its own result. Ops whose result nothing logged (inside a
backend that logs no tensors) are not listed; DemoBackend and OneDnnBackend
log every op's result.

With --etdump and --debug-buffer, the run is not made here: its outputs come
from an ETDump and debug buffer that 'kiln run MODEL.pte --etdump RUN.etdp
--debug-buffer RUN.bin' wrote (on a device, say), its first run compared;
pass the same --inputs it ran on. An ETDump of another program than the
debug record's is refused.

Options:
  --debug-record FILE  the debug record written with the .pte (required)
  --reference FILE     the .pt2 the .pte was lowered from (required)
  --inputs FILE        the .npz holding the user inputs (default: ones, for
                       inputs of static shape)
  --model NAME         the program in the .pt2 when it holds several
  --etdump FILE        compare this recorded run instead of running the .pte
  --debug-buffer FILE  the logged tensors' bytes the ETDump points into
  --threads N          threads of the oneDNN backend and of Kiln's own linears, 1 to 256 (default 1)
  --top N              rows to print, 0 for all (default 25)
  --threshold DB       the SNR below which an op's numbers count as changed (default 60)
)";

struct CompareOptions {
  std::string path, record, reference, inputs, model, etdump, debug_buffer;
  int threads = 1;
  size_t top = 25;
  double threshold_db = 60;
  bool help = false;
};

CompareOptions parse_compare_options(Args& args) {
  CompareOptions options;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    } else if (arg == "--debug-record") {
      options.record = args.value(arg);
    } else if (arg == "--reference") {
      options.reference = args.value(arg);
    } else if (arg == "--inputs") {
      options.inputs = args.value(arg);
    } else if (arg == "--model") {
      options.model = args.value(arg);
    } else if (arg == "--etdump") {
      options.etdump = args.value(arg);
    } else if (arg == "--debug-buffer") {
      options.debug_buffer = args.value(arg);
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(parse_integer(arg, args.value(arg), 1, 256));
    } else if (arg == "--top") {
      options.top = static_cast<size_t>(parse_integer(arg, args.value(arg), 0, 1000000));
    } else if (arg == "--threshold") {
      const std::string& text = args.value(arg);
      size_t used = 0;
      try {
        options.threshold_db = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size()) throw UsageError("--threshold takes a number of dB, got '" + text + "'");
    } else if (options.path.empty() && (arg.empty() || arg[0] != '-')) {
      options.path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (!options.etdump.empty() && !options.path.empty()) {
    throw UsageError("'kiln compare' takes a .pte to run or --etdump FILE, not both");
  }
  if (!options.etdump.empty() && options.debug_buffer.empty()) {
    throw UsageError("--etdump needs --debug-buffer FILE: the logged outputs are there ('kiln run MODEL.pte "
                     "--etdump FILE --debug-buffer FILE' writes both)");
  }
  if (options.etdump.empty() && !options.debug_buffer.empty()) throw UsageError("--debug-buffer goes with --etdump FILE");
  if (options.path.empty() && options.etdump.empty()) throw UsageError("'kiln compare' needs a .pte file or --etdump FILE");
  if (options.record.empty()) {
    throw UsageError("'kiln compare' needs --debug-record FILE (write it with 'kiln lower ... -o MODEL.pte "
                     "--debug-record FILE')");
  }
  if (options.reference.empty()) throw UsageError("'kiln compare' needs --reference MODEL.pt2 (the program lowered)");
  return options;
}

}  // namespace

int run_compare(Args args) {
  const CompareOptions options = parse_compare_options(args);
  if (options.help) {
    std::cout << kCompareUsage;
    return 0;
  }
  if (!options.etdump.empty()) {
    const devtools::DebugRecord record = devtools::read_debug_record(options.record);
    const devtools::TraceRecorder run = devtools::read_etdump_file(options.etdump, options.debug_buffer);
    devtools::check_trace_matches(run, options.etdump, record, options.record);
    aot::ExportedProgram reference = aot::load_pt2(options.reference, options.model);
    std::optional<std::vector<aot::Value>> inputs;
    if (!options.inputs.empty()) inputs = aot::order_inputs(reference, aot::read_npz(options.inputs), options.inputs);
    const devtools::Comparison comparison =
        devtools::compare_recorded_run(record, run, std::move(reference), options.reference, std::move(inputs));
    std::printf("ETDump: %s against %s%s\n", options.etdump.c_str(), options.reference.c_str(),
                options.inputs.empty() ? " (inputs of ones)" : "");
    std::printf("%s", devtools::format_comparison(comparison, options.top, options.threshold_db).c_str());
    return 0;
  }
  const devtools::DebugRecord record = devtools::read_debug_record_for(options.record, options.path);
  aot::ExportedProgram reference = aot::load_pt2(options.reference, options.model);
  std::optional<std::vector<aot::Value>> inputs;
  if (!options.inputs.empty()) inputs = aot::order_inputs(reference, aot::read_npz(options.inputs), options.inputs);
  runtime::set_backend_threads(options.threads);
  std::unique_ptr<RuntimeSession> session = RuntimeSession::from_file(options.path, record.method);
  const devtools::Comparison comparison =
      devtools::compare_program(record, *session, std::move(reference), options.reference, std::move(inputs));
  std::printf("program: %s against %s%s\n", options.path.c_str(), options.reference.c_str(),
              options.inputs.empty() ? " (inputs of ones)" : "");
  std::printf("%s", devtools::format_comparison(comparison, options.top, options.threshold_db).c_str());
  return 0;
}

}  // namespace kiln::cli
