// kiln run on a .pte: the program loaded (mmap, full verification) and run on
// Kiln's runtime with the portable and prim kernels (kiln_kernels_registered)
// the demo backends and the oneDNN backend (--threads sets its thread count
// before the method is loaded). The tool
// mallocs what the runtime asks for: the planned arenas MethodMeta lists, a
// method allocator (grown until Method::load fits) and a temp allocator.
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
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aot/import/npz.h"
#include "aot/ir/error.h"
#include "aot/emit/pte_writer.h"
#include "runtime/backend/backend_interface.h"
#include "cli.h"
#include "devtools/trace_recorder.h"
#include "runtime/core/evalue.h"
#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/log.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/malloc_memory_allocator.h"

namespace kiln::cli {

aot::HostTensor ones(runtime::ScalarType dtype, const std::vector<int64_t>& sizes) {
  aot::HostTensor tensor = aot::HostTensor::zeros(dtype, sizes);
  const size_t width = runtime::element_size(dtype);
  std::vector<uint8_t> one(width, 0);
  switch (dtype) {
    case runtime::ScalarType::Float: { const float v = 1; std::memcpy(one.data(), &v, width); break; }
    case runtime::ScalarType::Double: { const double v = 1; std::memcpy(one.data(), &v, width); break; }
    case runtime::ScalarType::Half: one = {0x00, 0x3c}; break;
    case runtime::ScalarType::BFloat16: one = {0x80, 0x3f}; break;
    default: one[0] = 1; break;  // integers (little endian) and bool
  }
  auto* data = static_cast<uint8_t*>(tensor.data());
  for (int64_t i = 0; i < tensor.numel(); ++i) std::memcpy(data + i * width, one.data(), width);
  return tensor;
}

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tag;
using runtime::TensorInfo;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- runtime log

/// The Error lines the runtime logged since the last clear, so that a
/// failure's message says what the runtime saw (the runtime explains every
/// error with one line; a load with missing kernels logs one per kernel).
std::vector<std::string> g_runtime_errors;

void capture_log(runtime::LogLevel level, const char* message) {
  if (level == runtime::LogLevel::Error) {
    if (g_runtime_errors.size() < 64) g_runtime_errors.emplace_back(message);
  } else if (level == runtime::LogLevel::Info) {
    std::fprintf(stderr, "kiln runtime: %s\n", message);
  }
}

/// Restores the default sink when the command ends (an error is thrown).
struct LogCapture {
  LogCapture() : previous(runtime::set_log_sink(capture_log)) { g_runtime_errors.clear(); }
  ~LogCapture() { runtime::set_log_sink(previous); }
  runtime::LogSink previous;
};

/// Throws AotError "<what>: <Error name>: <the runtime's last log line>",
/// followed by the lines it logged before that one, one per line.
[[noreturn]] void fail(const std::string& what, Error error) {
  std::string message = what + ": " + runtime::to_string(error);
  if (!g_runtime_errors.empty()) message += ": " + g_runtime_errors.back();
  for (size_t i = 0; i + 1 < g_runtime_errors.size(); ++i) message += "\n    " + g_runtime_errors[i];
  throw aot::AotError(message);
}

void check(Error error, const std::string& what) {
  if (error != Error::Ok) fail(what, error);
}

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// ---------------------------------------------------------------- memory

/// Everything the method's memory manager points into, malloc'd by the tool.
struct MethodMemory {
  std::vector<std::vector<uint8_t>> planned;
  std::vector<runtime::Span<uint8_t>> planned_spans;
  std::unique_ptr<runtime::HierarchicalAllocator> planned_memory;
  /// Each allocation its own block: a method (and a delegate's weights,
  /// which oneDNN keeps there) is loaded once, whatever it needs.
  std::unique_ptr<runtime::MallocMemoryAllocator> method_allocator;
  std::unique_ptr<uint8_t[]> temp_pool;
  std::unique_ptr<runtime::MemoryAllocator> temp_allocator;
  std::unique_ptr<runtime::MemoryManager> manager;
};

constexpr size_t kTempBytes = size_t{16} << 20;

void allocate_planned(const runtime::MethodMeta& meta, MethodMemory& memory) {
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    auto size = meta.memory_planned_buffer_size(i);
    if (!size.ok()) fail("planned buffer " + std::to_string(i), size.error());
    if (*size < 0) throw aot::AotError("planned buffer " + std::to_string(i) + " has a negative size");
    memory.planned.emplace_back(static_cast<size_t>(*size));
  }
  for (auto& buffer : memory.planned) memory.planned_spans.emplace_back(buffer.data(), buffer.size());
  memory.planned_memory = std::make_unique<runtime::HierarchicalAllocator>(
      runtime::Span<runtime::Span<uint8_t>>(memory.planned_spans.data(), memory.planned_spans.size()));
  memory.temp_pool.reset(new uint8_t[kTempBytes]);
  memory.temp_allocator =
      std::make_unique<runtime::MemoryAllocator>(static_cast<uint32_t>(kTempBytes), memory.temp_pool.get());
}

/// Loads the method on memory malloc'd as it asks (a fixed pool sized by
/// retrying would load it, and create a delegate's primitives, again for
/// every retry).
runtime::Method load_method(const runtime::Program& program, const char* name, MethodMemory& memory) {
  memory.method_allocator = std::make_unique<runtime::MallocMemoryAllocator>();
  memory.manager = std::make_unique<runtime::MemoryManager>(memory.method_allocator.get(), memory.planned_memory.get(),
                                                            memory.temp_allocator.get());
  g_runtime_errors.clear();
  auto method = program.load_method(name, memory.manager.get());
  if (!method.ok()) fail(std::string("cannot load method '") + name + "'", method.error());
  return std::move(method.get());
}

// ---------------------------------------------------------------- inputs

/// A tensor input: the host data and the metadata a runtime Tensor points at.
struct InputTensor {
  aot::HostTensor host;
  std::vector<runtime::SizesType> sizes;
  std::vector<runtime::DimOrderType> dim_order;
  std::vector<runtime::StridesType> strides;
  std::unique_ptr<runtime::TensorImpl> impl;
};

struct Inputs {
  std::vector<std::unique_ptr<InputTensor>> tensors;
  std::vector<runtime::EValue> values;
};

template <typename T>
std::string join(runtime::Span<const T> items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + std::to_string(items[i]);
  return text;
}

std::string describe_info(const TensorInfo& info) {
  return std::string(runtime::short_name(info.scalar_type())) + "[" + join(info.sizes()) + "]";
}

/// Throws unless `tensor` fits input `index` of the method (dtype, rank, and
/// sizes: equal for a static input, at most the planned bound for a dynamic one).
void check_input(size_t index, const TensorInfo& info, const aot::HostTensor& tensor) {
  const std::string name = "input " + std::to_string(index);
  if (tensor.dtype() != info.scalar_type()) {
    throw aot::AotError(name + " must be " + runtime::short_name(info.scalar_type()) + " (" + describe_info(info) +
                        "), got " + runtime::short_name(tensor.dtype()) + " (" + tensor.describe() + ")");
  }
  if (tensor.rank() != info.sizes().size()) {
    throw aot::AotError(name + " must have " + std::to_string(info.sizes().size()) + " dimensions (" +
                        describe_info(info) + "), got " + std::to_string(tensor.rank()) + " (" +
                        tensor.describe() + ")");
  }
  const bool dynamic = info.shape_dynamism() != runtime::TensorShapeDynamism::Static;
  for (size_t d = 0; d < tensor.rank(); ++d) {
    const int64_t want = info.sizes()[d];
    const int64_t got = tensor.sizes()[d];
    if (!dynamic && got != want) {
      throw aot::AotError(name + " dim " + std::to_string(d) + " must be " + std::to_string(want) + " (" +
                          describe_info(info) + "), got " + std::to_string(got) + " (" + tensor.describe() +
                          ")");
    }
    if (dynamic && got > want) {
      throw aot::AotError(name + " dim " + std::to_string(d) + " must be at most " + std::to_string(want) + " (" +
                          describe_info(info) + " are the planned upper bounds), got " + std::to_string(got) +
                          " (" + tensor.describe() + ")");
    }
  }
}

/// A runtime tensor holding `host`'s values laid out in the input's dim order
/// (an .npz array is row-major; a channels-last input gets its bytes
/// permuted), kept alive by the entry.
std::unique_ptr<InputTensor> wrap(const aot::HostTensor& host, const TensorInfo& info) {
  auto input = std::make_unique<InputTensor>();
  for (int64_t size : host.sizes()) input->sizes.push_back(static_cast<runtime::SizesType>(size));
  input->dim_order.assign(info.dim_order().begin(), info.dim_order().end());
  input->strides.resize(input->sizes.size());
  check(runtime::compute_strides({input->sizes.data(), input->sizes.size()},
                                 {input->dim_order.data(), input->dim_order.size()},
                                 {input->strides.data(), input->strides.size()}),
        "strides of an input");
  if (runtime::is_contiguous_dim_order(info.dim_order()) && host.is_contiguous()) {
    input->host = host;
  } else {
    std::vector<int64_t> strides(input->strides.begin(), input->strides.end());
    input->host = aot::HostTensor(host.dtype(), host.sizes(), strides, 0, aot::Storage::allocate(host.nbytes()));
    input->host.copy_from(host);
  }
  input->impl = std::make_unique<runtime::TensorImpl>(
      input->host.dtype(), static_cast<ssize_t>(input->sizes.size()), input->sizes.data(), input->host.data(),
      input->dim_order.data(), input->strides.data(), runtime::TensorShapeDynamism::Static);
  return input;
}

/// Ones of the input's dtype at its planned sizes.
aot::HostTensor ones(const TensorInfo& info) {
  return cli::ones(info.scalar_type(), std::vector<int64_t>(info.sizes().begin(), info.sizes().end()));
}


/// A prim input from a 0-dim array of the .npz.
runtime::EValue prim_input(size_t index, Tag tag, const aot::HostTensor& tensor) {
  const std::string name = "input " + std::to_string(index);
  if (tensor.rank() != 0) {
    throw aot::AotError(name + " is " + runtime::to_string(tag) + ", so its array must have 0 dimensions, got " +
                        tensor.describe());
  }
  const double value = tensor.to_doubles().at(0);
  switch (tag) {
    case Tag::Int: return runtime::EValue(static_cast<int64_t>(value));
    case Tag::Double: return runtime::EValue(value);
    case Tag::Bool: return runtime::EValue(value != 0);
    default:
      throw aot::AotError(name + " is a " + runtime::to_string(tag) + ", which kiln run cannot pass from an .npz");
  }
}

/// The .npz arrays in input order: arr_0 ... arr_<n-1>, or the archive's order.
std::vector<aot::HostTensor> order_arrays(std::vector<std::pair<std::string, aot::HostTensor>> arrays,
                                          size_t count, const std::string& path) {
  if (arrays.size() != count) {
    throw aot::AotError(path + " holds " + std::to_string(arrays.size()) + " arrays, but the program takes " +
                        std::to_string(count) + " inputs");
  }
  const bool positional = std::all_of(arrays.begin(), arrays.end(),
                                      [](const auto& array) { return array.first.rfind("arr_", 0) == 0; });
  std::vector<aot::HostTensor> ordered(count);
  for (size_t i = 0; i < arrays.size(); ++i) {
    size_t index = i;
    if (positional) {
      const std::string digits = arrays[i].first.substr(4);
      const bool numeric = !digits.empty() && digits.size() < 9 &&
                           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
      index = numeric ? std::stoul(digits) : count;
      if (index >= count || ordered[index].defined()) {
        throw aot::AotError(path + ": array '" + arrays[i].first + "' matches no input (expected arr_0 ... arr_" +
                            std::to_string(count - 1) + ")");
      }
    }
    ordered[index] = std::move(arrays[i].second);
  }
  return ordered;
}

/// The method's inputs from `arrays` (one per input, in order; checked), or
/// ones at the planned shapes when `arrays` is empty.
Inputs make_inputs(const runtime::MethodMeta& meta, std::vector<aot::HostTensor> arrays) {
  const size_t count = meta.num_inputs();
  const bool given = !arrays.empty();
  Inputs inputs;
  for (size_t i = 0; i < count; ++i) {
    auto tag = meta.input_tag(i);
    if (!tag.ok()) fail("input " + std::to_string(i), tag.error());
    if (*tag == Tag::None) {
      inputs.values.emplace_back();
      continue;
    }
    if (*tag != Tag::Tensor) {
      if (!given) {
        throw aot::AotError("input " + std::to_string(i) + " is a " + runtime::to_string(*tag) +
                            "; pass it with --inputs (a 0-dim array)");
      }
      inputs.values.push_back(prim_input(i, *tag, arrays[i]));
      continue;
    }
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) fail("input " + std::to_string(i), info.error());
    aot::HostTensor host = given ? std::move(arrays[i]) : ones(*info);
    check_input(i, *info, host);
    inputs.tensors.push_back(wrap(host, *info));
    inputs.values.emplace_back(runtime::Tensor(inputs.tensors.back()->impl.get()));
  }
  return inputs;
}

void apply_inputs(runtime::Method& method, const Inputs& inputs) {
  for (size_t i = 0; i < inputs.values.size(); ++i) {
    g_runtime_errors.clear();
    check(method.set_input(inputs.values[i], i), "input " + std::to_string(i));
  }
}

// ---------------------------------------------------------------- outputs

/// A 1-d host tensor of a list's items.
template <typename T>
aot::HostTensor list_tensor(runtime::Span<const T> items) {
  return aot::HostTensor::from_vector<T>({static_cast<int64_t>(items.size())},
                                         std::vector<T>(items.begin(), items.end()));
}

/// A contiguous host copy of a runtime value: a tensor, a prim or a string as
/// itself, a list of ints, doubles or bools as a 1-d tensor.
aot::Value to_host(const runtime::EValue& value) {
  switch (value.tag()) {
    case Tag::Tensor: return devtools::host_copy(value.toTensor());
    case Tag::Int: return value.toInt();
    case Tag::Double: return value.toDouble();
    case Tag::Bool: return value.toBool();
    case Tag::String: {
      const auto text = value.toString();
      return std::string(text.data(), text.size());
    }
    case Tag::ListInt: return list_tensor(value.toIntList());
    case Tag::ListDouble: return list_tensor(value.toDoubleList());
    case Tag::ListBool: return list_tensor(value.toBoolList());
    case Tag::None: return aot::None{};
    default: return std::string("<") + runtime::to_string(value.tag()) + ">";
  }
}

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

/// `requested`, else 'forward', else the first method, as a name the program holds.
const char* method_to_run(const runtime::Program& program, const std::string& requested, const std::string& label) {
  std::string names;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    auto name = program.get_method_name(i);
    if (!name.ok()) fail("the program's method " + std::to_string(i), name.error());
    if (!requested.empty() && requested == *name) return *name;
    names += (names.empty() ? "" : ", ") + std::string(*name);
  }
  if (!requested.empty()) throw aot::AotError(label + " has no method '" + requested + "' (it has: " + names + ")");
  if (program.method_meta("forward").ok()) return "forward";
  g_runtime_errors.clear();
  auto name = program.get_method_name(0);
  if (!name.ok()) fail("the program has no method", name.error());
  return *name;
}

}  // namespace

/// A program loaded on the runtime with its method and the memory behind it.
/// Never moved once built (the method points at the program and the memory).
struct RuntimeSession::State {
  std::unique_ptr<runtime::DataLoader> loader;
  std::optional<runtime::Program> program;
  const char* method_name = nullptr;
  MethodMemory memory;
  std::optional<runtime::Method> method;
  Inputs inputs;
};

RuntimeSession::RuntimeSession(std::unique_ptr<runtime::DataLoader> loader, const std::string& label,
                               const std::string& method)
    : state_(std::make_unique<State>()) {
  LogCapture log;
  const auto start = Clock::now();
  state_->loader = std::move(loader);
  auto program = runtime::Program::load(state_->loader.get(), runtime::Program::Verification::InternalConsistency);
  if (!program.ok()) fail("'" + label + "' is not a program Kiln can load", program.error());
  state_->program.emplace(std::move(program.get()));
  program_load_ms_ = milliseconds_since(start);
  state_->method_name = method_to_run(*state_->program, method, label);
  auto meta = state_->program->method_meta(state_->method_name);
  if (!meta.ok()) fail(std::string("method '") + state_->method_name + "'", meta.error());
  allocate_planned(*meta, state_->memory);
  state_->method.emplace(load_method(*state_->program, state_->method_name, state_->memory));
  load_ms_ = milliseconds_since(start);
}

RuntimeSession::~RuntimeSession() = default;

std::unique_ptr<RuntimeSession> RuntimeSession::from_file(const std::string& path, const std::string& method) {
  LogCapture log;
  auto loader = runtime::MmapDataLoader::from(path.c_str());
  if (!loader.ok()) fail(path + ": cannot open", loader.error());
  return std::make_unique<RuntimeSession>(std::make_unique<runtime::MmapDataLoader>(std::move(loader.get())), path,
                                          method);
}

std::unique_ptr<RuntimeSession> RuntimeSession::from_bytes(const void* data, size_t size, const std::string& label) {
  return std::make_unique<RuntimeSession>(std::make_unique<runtime::BufferDataLoader>(data, size), label);
}

const char* RuntimeSession::method_name() const { return state_->method_name; }
runtime::MethodMeta RuntimeSession::method_meta() const { return state_->method->method_meta(); }

size_t RuntimeSession::planned_bytes() const {
  size_t total = 0;
  for (const auto& buffer : state_->memory.planned) total += buffer.size();
  return total;
}

void RuntimeSession::set_inputs_from(const std::string& inputs_path) {
  LogCapture log;
  const runtime::MethodMeta meta = method_meta();
  std::vector<aot::HostTensor> arrays;
  if (!inputs_path.empty()) arrays = order_arrays(aot::read_npz(inputs_path), meta.num_inputs(), inputs_path);
  state_->inputs = make_inputs(meta, std::move(arrays));
}

void RuntimeSession::set_inputs(std::vector<aot::HostTensor> tensors) {
  LogCapture log;
  const runtime::MethodMeta meta = method_meta();
  if (tensors.size() != meta.num_inputs()) {
    throw aot::AotError(std::to_string(tensors.size()) + " inputs given, but the method takes " +
                        std::to_string(meta.num_inputs()));
  }
  state_->inputs = make_inputs(meta, std::move(tensors));
}

double RuntimeSession::execute() {
  LogCapture log;
  apply_inputs(*state_->method, state_->inputs);
  g_runtime_errors.clear();
  const auto start = Clock::now();
  const Error error = state_->method->execute();
  const double took = milliseconds_since(start);
  ++calls_;
  if (error != Error::Ok) fail("execute (call " + std::to_string(calls_) + ")", error);
  return took;
}

void RuntimeSession::set_event_tracer(runtime::EventTracer* tracer) { state_->method->set_event_tracer(tracer); }

std::vector<aot::Value> RuntimeSession::outputs() const {
  std::vector<aot::Value> outputs;
  for (size_t i = 0; i < state_->method->outputs_size(); ++i) outputs.push_back(to_host(state_->method->get_output(i)));
  return outputs;
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
