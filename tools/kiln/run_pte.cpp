// kiln run on a .pte: the program loaded and run through the devtools'
// RuntimeSession (mmap, full verification; the memory malloc'd as the method
// asks) with the portable and prim kernels (kiln_kernels_registered), the
// demo backends and the oneDNN backend (--threads sets its thread count
// before the method is loaded).
//
// The method run is --method's (a program method or a constant method), else
// 'forward', else the program's first. Inputs come from an .npz and are
// checked against MethodMeta here, so a wrong dtype, rank, shape or count is
// named before the runtime sees it; without --inputs every input is ones at
// its planned shape. Prints each output as the .pt2 path does (a prim or a
// string as its value, a list of prims as a 1-d tensor), the load time and the
// execute times (with --json also as one line of JSON, the last line printed).
#include "run_pte.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aot/import/npz.h"
#include "aot/ir/error.h"
#include "aot/emit/pte_writer.h"
#include "runtime/backend/backend_interface.h"
#include "cli.h"
#include "devtools/trace_recorder.h"

namespace kiln::cli {

namespace {

// ---------------------------------------------------------------- outputs

aot::HostTensor as_array(const aot::Value& value) {
  if (const auto* tensor = std::get_if<aot::HostTensor>(&value)) return *tensor;
  if (const auto* v = std::get_if<int64_t>(&value)) return aot::HostTensor::from_vector<int64_t>({}, {*v});
  if (const auto* v = std::get_if<double>(&value)) return aot::HostTensor::from_vector<double>({}, {*v});
  if (const auto* v = std::get_if<bool>(&value)) return aot::HostTensor::from_vector<bool>({}, {*v});
  return {};
}

/// Median, min and max of the timed calls, in milliseconds.
struct TimeSummary {
  double median = 0, min = 0, max = 0;
  size_t count = 0;
};

TimeSummary summarize(const std::vector<double>& times) {
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  if (n == 0) return {};
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return {median, sorted.front(), sorted.back(), n};
}

void print_times(const TimeSummary& summary, int warmup) {
  std::printf("execute: median %.3f ms, min %.3f ms, max %.3f ms over %zu iteration%s (%d warm-up)\n",
              summary.median, summary.min, summary.max, summary.count, summary.count == 1 ? "" : "s", warmup);
}

/// A "Vm...:" line of /proc/self/status in KiB (VmRSS: resident now, VmHWM:
/// the process's peak), or -1 where there is no such file (not Linux).
long long proc_status_kb(const char* field) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  long long kb = -1;
  char line[256];
  const size_t length = std::strlen(field);
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
      kb = std::atoll(line + length + 1);
      break;
    }
  }
  std::fclose(status);
  return kb;
}

/// The timings as one line of JSON (kiln run --json), for scripts such as
/// bench/: load times, the execute times of the timed calls, and the
/// process's resident memory before the program was loaded and at its peak.
void print_json_times(const RuntimeSession& session, const TimeSummary& summary, double first_ms, int warmup,
                      long long start_rss_kb) {
  std::printf(
      "{\"load_ms\": %.6f, \"program_load_ms\": %.6f, \"method_load_ms\": %.6f, \"first_ms\": %.6f, "
      "\"iterations\": %zu, \"warmup\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
      "\"planned_bytes\": %zu, \"start_rss_kb\": %lld, \"peak_rss_kb\": %lld}\n",
      session.load_ms(), session.program_load_ms(), session.load_ms() - session.program_load_ms(), first_ms,
      summary.count, warmup, summary.median, summary.min, summary.max, session.planned_bytes(), start_rss_kb,
      proc_status_kb("VmHWM"));
}

}  // namespace

int run_pte_file(const RunFlags& flags) {
  PteRunOptions options;
  options.path = flags.path;
  options.inputs_path = flags.inputs_path;
  options.output_path = flags.output_path;
  if (flags.iterations >= 0) options.iterations = static_cast<int>(flags.iterations);
  if (flags.warmup >= 0) options.warmup = static_cast<int>(flags.warmup);
  if (flags.threads >= 0) options.threads = static_cast<int>(flags.threads);
  options.json = flags.json;
  options.chrome_trace_path = flags.chrome_trace;
  options.trace_path = flags.trace;
  options.method = flags.method;
  return run_pte(options);
}

int run_pte(const PteRunOptions& options) {
  runtime::set_backend_threads(options.threads);  // before init: primitives are made for it
  const long long start_rss_kb = proc_status_kb("VmRSS");
  std::unique_ptr<RuntimeSession> session = RuntimeSession::from_file(options.path, options.method);
  const runtime::MethodMeta meta = session->method_meta();
  std::printf("program: %s, method '%s': %zu inputs, %zu outputs, %zu instructions, %zu planned bytes\n",
              options.path.c_str(), session->method_name(), meta.num_inputs(), meta.num_outputs(),
              meta.num_instructions(), session->planned_bytes());
  std::printf("threads: %d (oneDNN backend)\n", options.threads);
  std::printf("load: %.3f ms (program %.3f ms: mapping and full verification; method %.3f ms)\n",
              session->load_ms(), session->program_load_ms(), session->load_ms() - session->program_load_ms());

  session->set_inputs_from(options.inputs_path);
  if (options.inputs_path.empty() && meta.num_inputs() > 0) {
    std::printf("no --inputs: every input is ones at its planned shape\n");
  }

  std::vector<double> times;
  double first_ms = 0;  // the first call, warm-up or not: with load_ms, the time to a first result
  devtools::TraceRecorder recorder;
  const bool tracing = !options.chrome_trace_path.empty() || !options.trace_path.empty();
  for (int i = 0; i < options.warmup + options.iterations; ++i) {
    if (i == options.warmup && tracing) session->set_event_tracer(&recorder);
    const double took = session->execute();
    if (i == 0) first_ms = took;
    if (i >= options.warmup) times.push_back(took);
    if (i >= options.warmup) recorder.end_run();
  }
  session->set_event_tracer(nullptr);

  const std::vector<aot::Value> outputs = session->outputs();
  std::printf("%zu output%s\n", outputs.size(), outputs.size() == 1 ? "" : "s");
  for (size_t i = 0; i < outputs.size(); ++i) print_output("output_" + std::to_string(i), outputs[i]);
  const TimeSummary summary = summarize(times);
  print_times(summary, options.warmup);

  if (!options.output_path.empty()) {
    std::vector<std::pair<std::string, aot::HostTensor>> arrays;
    for (size_t i = 0; i < outputs.size(); ++i) {
      aot::HostTensor array = as_array(outputs[i]);
      if (array.defined()) arrays.emplace_back("output_" + std::to_string(i), array);
    }
    aot::write_npz(options.output_path, arrays);
    std::printf("wrote %s\n", options.output_path.c_str());
  }
  if (!options.chrome_trace_path.empty()) {
    const std::string trace = recorder.chrome_trace_json();
    aot::pte::write_file_atomically(options.chrome_trace_path,
                                    {reinterpret_cast<const uint8_t*>(trace.data()), trace.size()});
    std::printf("wrote %s: %zu calls, %zu backend events (chrome://tracing or ui.perfetto.dev)\n",
                options.chrome_trace_path.c_str(), recorder.instructions().size(), recorder.delegate_events().size());
  }
  if (!options.trace_path.empty()) {
    const std::string pte = read_file(options.path, "program");
    recorder.set_program(devtools::program_id({reinterpret_cast<const uint8_t*>(pte.data()), pte.size()}));
    const std::string trace = recorder.kiln_trace_json();
    aot::pte::write_file_atomically(options.trace_path, {reinterpret_cast<const uint8_t*>(trace.data()), trace.size()});
    std::printf("wrote %s: %zu runs, %zu calls, %zu backend events ('kiln profile --trace')\n",
                options.trace_path.c_str(), recorder.runs(), recorder.instructions().size(),
                recorder.delegate_events().size());
  }
  if (options.json) print_json_times(*session, summary, first_ms, options.warmup, start_rss_kb);
  return 0;
}

}  // namespace kiln::cli
