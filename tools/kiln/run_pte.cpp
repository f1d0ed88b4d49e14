// kiln run on a .pte, in both builds of the tool: the program mapped and
// fully verified, its method loaded and run on the runtime's MethodSession
// (runtime/module/method_session.h: the memory malloc'd as the method asks)
// with the kernels and backends this kiln links (--threads sets the
// backends' thread count before the method is loaded).
//
// The method run is --method's (a program method or a constant method), else
// 'forward', else the program's first. Inputs come from an .npz and are
// checked against MethodMeta, so a wrong dtype, rank, shape or count is named
// before the runtime sees it; without --inputs every input is ones at its
// planned shape. Prints each output (a tensor with its statistics, a prim or
// a string as its value, a list of prims as a 1-d tensor), the load time and
// the execute times (with --json also as one line of JSON, the last line
// printed).
#include "run_pte.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "etdump_output.h"
#include "host/python_float.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/module/logged_errors.h"
#include "runtime/module/method_session.h"

namespace kiln::cli {

namespace {

using runtime::Error;
using runtime::LoggedErrors;
using runtime::Tag;

/// Throws HostError "<what>: <Error>: <what the runtime logged>" (with `what`
/// empty: the logged lines alone).
void check(Error error, const std::string& what) {
  if (error != Error::Ok) throw HostError(LoggedErrors::message(what, error));
}

template <typename T>
T value_or_throw(runtime::Result<T> result, const std::string& what) {
  check(result.ok() ? Error::Ok : result.error(), what);
  return std::move(result.get());
}

/// Whether an output has an array form (to_array): tensors, prims, lists of prims.
bool has_array_form(const runtime::EValue& value) {
  switch (value.tag()) {
    case Tag::Tensor: case Tag::Int: case Tag::Double: case Tag::Bool:
    case Tag::ListInt: case Tag::ListDouble: case Tag::ListBool: return true;
    default: return false;
  }
}

void print_output(const std::string& label, const runtime::EValue& value) {
  switch (value.tag()) {
    case Tag::Int: std::printf("%s: %lld\n", label.c_str(), static_cast<long long>(value.toInt())); return;
    case Tag::Double: std::printf("%s: %s\n", label.c_str(), python_float(value.toDouble()).c_str()); return;
    case Tag::Bool: std::printf("%s: %s\n", label.c_str(), value.toBool() ? "True" : "False"); return;
    case Tag::None: std::printf("%s: None\n", label.c_str()); return;
    case Tag::String: {
      const auto text = value.toString();
      std::printf("%s: '%.*s'\n", label.c_str(), static_cast<int>(text.size()), text.data());
      return;
    }
    default: break;
  }
  if (!has_array_form(value)) {
    std::printf("%s: <%s>\n", label.c_str(), runtime::to_string(value.tag()));
    return;
  }
  print_array(label, value_or_throw(runtime::to_array(value), label));
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
void print_json_times(const runtime::MethodSession& session, const TimeSummary& summary, double first_ms,
                      int warmup, long long start_rss_kb) {
  const double program_ms = session.program().load_ms();
  std::printf(
      "{\"load_ms\": %.6f, \"program_load_ms\": %.6f, \"method_load_ms\": %.6f, \"first_ms\": %.6f, "
      "\"iterations\": %zu, \"warmup\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
      "\"planned_bytes\": %zu, \"start_rss_kb\": %lld, \"peak_rss_kb\": %lld}\n",
      program_ms + session.method_load_ms(), program_ms, session.method_load_ms(), first_ms, summary.count, warmup,
      summary.median, summary.min, summary.max, session.planned_bytes(), start_rss_kb, proc_status_kb("VmHWM"));
}

/// The outputs that have an array form, as --output writes them: output_<i>.
void write_outputs(const std::string& path, const runtime::Method& method) {
  std::vector<runtime::NamedArray> arrays;
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const runtime::EValue& value = method.get_output(i);
    const std::string name = "output_" + std::to_string(i);
    if (has_array_form(value)) arrays.push_back({name, value_or_throw(runtime::to_array(value), name)});
  }
  check(runtime::write_npz(path, arrays), "");
  std::printf("wrote %s\n", path.c_str());
}

}  // namespace

void print_array(const std::string& label, const runtime::NpyArray& array) {
  const bool parts = runtime::is_complex_type(array.dtype);
  const size_t count = array.scalar_count();
  double low = INFINITY, high = -INFINITY, sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const double v = array.scalar(i);
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  std::printf("%s: %s", label.c_str(),
              runtime::describe_tensor(array.dtype, array.sizes).c_str());
  if (count > 0) std::printf("  %smin=%.6g max=%.6g mean=%.6g", parts ? "parts " : "", low, high, sum / count);
  std::printf("\n    [");
  const size_t step = parts ? 2 : 1;
  for (size_t i = 0; i < count && i < 8 * step; i += step) {
    if (parts) std::printf("%s(%.6g, %.6g)", i ? ", " : "", array.scalar(i), array.scalar(i + 1));
    else std::printf("%s%.6g", i ? ", " : "", array.scalar(i));
  }
  std::printf("%s]\n", count > 8 * step ? ", ..." : "");
}

int run_pte_file(const RunFlags& flags) {
  const int iterations = flags.iterations >= 0 ? static_cast<int>(flags.iterations) : 1;
  const int warmup = flags.warmup >= 0 ? static_cast<int>(flags.warmup) : 0;
  const int threads = flags.threads >= 0 ? static_cast<int>(flags.threads) : 1;
  // Before anything runs: a flag this build lacks is refused first.
  std::unique_ptr<RunTrace> trace = make_run_trace(flags);

  LoggedErrors capture;
  runtime::set_backend_threads(threads);  // before init: primitives are made for it
  const long long start_rss_kb = proc_status_kb("VmRSS");
  const std::shared_ptr<runtime::LoadedProgram> program =
      value_or_throw(runtime::LoadedProgram::from_file(flags.path), "'" + flags.path + "' is not a program Kiln can load");
  const std::string method_name = value_or_throw(program->resolve_method(flags.method), "");
  const std::unique_ptr<runtime::MethodSession> session =
      value_or_throw(runtime::MethodSession::load(program, method_name), "cannot load method '" + method_name + "'");
  const runtime::MethodMeta meta = session->method_meta();
  std::printf("program: %s, method '%s': %zu inputs, %zu outputs, %zu instructions, %zu planned bytes\n",
              flags.path.c_str(), method_name.c_str(), meta.num_inputs(), meta.num_outputs(), meta.num_instructions(),
              session->planned_bytes());
  std::printf("threads: %d (oneDNN backend)\n", threads);
  std::printf("load: %.3f ms (program %.3f ms: mapping and full verification; method %.3f ms)\n",
              program->load_ms() + session->method_load_ms(), program->load_ms(), session->method_load_ms());

  check(flags.inputs_path.empty() ? session->set_ones() : session->set_inputs_from_npz(flags.inputs_path), "");
  if (flags.inputs_path.empty() && meta.num_inputs() > 0) {
    std::printf("no --inputs: every input is ones at its planned shape\n");
  }

  std::vector<double> times;
  double first_ms = 0;  // the first call, warm-up or not: with the load, the time to a first result
  std::unique_ptr<runtime::EtdumpRecorder> etdump;
  if (flags.etdump.requested()) etdump = make_etdump_recorder(flags.etdump, flags.path);
  for (int i = 0; i < warmup + iterations; ++i) {
    if (i == warmup && trace) session->set_event_tracer(&trace->tracer());
    if (i == warmup && etdump) session->set_event_tracer(etdump.get());
    const double took = value_or_throw(session->execute(), "execute (call " + std::to_string(i + 1) + ")");
    if (i == 0) first_ms = took;
    if (i >= warmup) times.push_back(took);
    if (i >= warmup && trace) trace->end_run();
  }
  session->set_event_tracer(nullptr);

  const runtime::Method& method = session->method();
  std::printf("%zu output%s\n", method.outputs_size(), method.outputs_size() == 1 ? "" : "s");
  for (size_t i = 0; i < method.outputs_size(); ++i) print_output("output_" + std::to_string(i), method.get_output(i));
  const TimeSummary summary = summarize(times);
  print_times(summary, warmup);

  if (!flags.output_path.empty()) write_outputs(flags.output_path, method);
  if (trace) trace->write();
  if (etdump) write_etdump(flags.etdump, *etdump);
  if (flags.json) print_json_times(*session, summary, first_ms, warmup, start_rss_kb);
  return 0;
}

}  // namespace kiln::cli
