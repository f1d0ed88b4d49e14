// kiln profile: where a .pte program's time goes, per source op of the
// user's program. Runs the program traced (or reads an ETDump or a trace
// `kiln run --etdump` / `--trace` wrote) and attributes each event through
// the debug record that `kiln lower --debug-record` wrote with it
// (devtools/profile_session.h, devtools/etdump_trace.h).
#include <cstdio>
#include <iostream>

#include "aot/ir/error.h"
#include "runtime/backend/backend_interface.h"
#include "cli.h"
#include "devtools/debug_record.h"
#include "devtools/debug_record_for.h"
#include "devtools/etdump_trace.h"
#include "devtools/profile.h"
#include "devtools/profile_session.h"
#include "devtools/trace_recorder.h"

namespace kiln::cli {

namespace {

constexpr const char* kProfileUsage = R"(Usage: kiln profile MODEL.pte --debug-record MODEL.kdbg [--inputs INPUTS.npz]
                    [--iterations N] [--warmup N] [--threads N] [--top N] [--module-depth N]
       kiln profile --etdump RUN.etdp --debug-record MODEL.kdbg [--top N] [--module-depth N]
       kiln profile --trace RUN.kdump --debug-record MODEL.kdbg [--top N] [--module-depth N]

Runs MODEL.pte on Kiln's runtime with the event tracer on and prints where
the time went, per op of the user's program (the .pt2 it was lowered from):
the debug record (written by 'kiln lower ... -o MODEL.pte --debug-record
MODEL.kdbg') maps each kernel call to the source op it came from, and each
event a backend logs inside a delegate, through the identifier its preprocess
gave, to the source ops it ran. So the pieces of a decomposed op sum into
one row, a fused backend op (a convolution with its relu) is one row against
all the ops it fused, and a delegate call's time outside its backend's ops
is a row of its own. Each row: its share of all calls' time, its median time
per run, calls per run, its debug handles, the source ops' names and ops,
their module path and where they ran. Then the time per delegate call and
per module.

With --etdump, the events come from an ETDump that 'kiln run MODEL.pte
--etdump' or 'kiln generate --etdump' wrote (on a device, or anywhere else),
or that ExecuTorch's runtime wrote running the same .pte, instead of a run
here; with --trace, from a Kiln trace 'kiln run MODEL.pte --trace' wrote.
Either must come from the program the debug record describes: an ETDump of
Kiln's names its program (size and hash), and one of another program is
refused.

Options:
  --debug-record FILE  the debug record written with the .pte (required)
  --etdump FILE        attribute this ETDump instead of running the program
  --trace FILE         attribute this Kiln trace instead of running the program
  --inputs FILE        the .npz holding the inputs (default: ones at the planned shapes)
  --iterations N       traced runs, 1 to 100000 (default 10)
  --warmup N           untraced runs before those, 0 to 100000 (default 2)
  --threads N          threads of the oneDNN backend and of Kiln's own linears, 1 to 256 (default 1)
  --top N              rows to print, 0 for all (default 25)
  --module-depth N     module path levels the per-module totals keep, 1 to 64 (default 1)
)";

struct ProfileOptions {
  std::string path, record, trace, etdump, inputs;
  int iterations = 10, warmup = 2, threads = 1;
  size_t top = 25, module_depth = 1;
  bool help = false;
};

ProfileOptions parse_profile_options(Args& args) {
  ProfileOptions options;
  bool timing_flags = false;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    } else if (arg == "--debug-record") {
      options.record = args.value(arg);
    } else if (arg == "--trace") {
      options.trace = args.value(arg);
    } else if (arg == "--etdump") {
      options.etdump = args.value(arg);
    } else if (arg == "--inputs") {
      options.inputs = args.value(arg);
      timing_flags = true;
    } else if (arg == "--iterations") {
      options.iterations = static_cast<int>(parse_integer(arg, args.value(arg), 1, 100000));
      timing_flags = true;
    } else if (arg == "--warmup") {
      options.warmup = static_cast<int>(parse_integer(arg, args.value(arg), 0, 100000));
      timing_flags = true;
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(parse_integer(arg, args.value(arg), 1, 256));
      timing_flags = true;
    } else if (arg == "--top") {
      options.top = static_cast<size_t>(parse_integer(arg, args.value(arg), 0, 1000000));
    } else if (arg == "--module-depth") {
      options.module_depth = static_cast<size_t>(parse_integer(arg, args.value(arg), 1, 64));
    } else if (options.path.empty() && (arg.empty() || arg[0] != '-')) {
      options.path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (options.record.empty()) {
    throw UsageError("'kiln profile' needs --debug-record FILE (write it with 'kiln lower ... -o MODEL.pte "
                     "--debug-record FILE')");
  }
  const int sources = !options.path.empty() + !options.trace.empty() + !options.etdump.empty();
  if (sources == 0) throw UsageError("'kiln profile' needs a .pte file, --etdump FILE or --trace FILE");
  if (sources > 1) throw UsageError("'kiln profile' takes one of a .pte to run, --etdump FILE and --trace FILE");
  if (options.path.empty() && timing_flags) {
    throw UsageError(std::string("--inputs, --iterations, --warmup and --threads apply to a run; ") +
                     (options.trace.empty() ? "--etdump" : "--trace") + " reads one that is done");
  }
  return options;
}

}  // namespace

int run_profile(Args args) {
  const ProfileOptions options = parse_profile_options(args);
  if (options.help) {
    std::cout << kProfileUsage;
    return 0;
  }
  if (options.trace.empty() && options.etdump.empty()) {
    const devtools::DebugRecord record = devtools::read_debug_record_for(options.record, options.path);
    runtime::set_backend_threads(options.threads);
    std::unique_ptr<RuntimeSession> session = RuntimeSession::from_file(options.path, record.method);
    session->set_inputs_from(options.inputs);
    std::printf("program: %s, method '%s'%s; threads: %d (oneDNN backend)\n", options.path.c_str(),
                session->method_name(), options.inputs.empty() ? ", inputs of ones" : "", options.threads);
    const devtools::Profile profile =
        devtools::profile_session(*session, record, options.iterations, options.warmup, options.module_depth);
    std::printf("%s", devtools::format_profile(profile, options.top).c_str());
    return 0;
  }
  const devtools::DebugRecord record = devtools::read_debug_record(options.record);
  const std::string& source = options.etdump.empty() ? options.trace : options.etdump;
  const devtools::TraceRecorder trace =
      options.etdump.empty()
          ? devtools::TraceRecorder::parse_kiln_trace(read_file(options.trace, "trace"), options.trace)
          : devtools::read_etdump_file(options.etdump);
  devtools::check_trace_matches(trace, source, record, options.record);
  if (!trace.program().known()) {
    std::fprintf(stderr, "note: %s does not name its program; its delegate calls match the debug record's\n",
                 source.c_str());
  }
  std::printf("%s: %s\n", options.etdump.empty() ? "trace" : "ETDump", source.c_str());
  if (trace.instructions().empty()) throw aot::AotError("the trace holds no events");
  const devtools::Profile profile = devtools::attribute(record, trace, options.module_depth);
  std::printf("%s", devtools::format_profile(profile, options.top).c_str());
  return 0;
}

}  // namespace kiln::cli
