#include "devtools/runtime_session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

#include "aot/import/npz.h"
#include "aot/ir/error.h"
#include "devtools/trace_recorder.h"
#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/log.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/malloc_memory_allocator.h"

namespace kiln::devtools {

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

/// The Error lines the runtime logged on this thread while a LogCapture was
/// open on it, so that a failure's message says what the runtime saw.
/// Per thread: sessions on two threads (the Python package releases the GIL)
/// keep their own.
thread_local std::vector<std::string> t_runtime_errors;
thread_local int t_capturing = 0;

/// The sink before the capture was installed: lines not captured go there.
runtime::LogSink g_previous_sink = nullptr;

void capture_log(runtime::LogLevel level, const char* message) {
  if (level == runtime::LogLevel::Error && t_capturing > 0) {
    if (t_runtime_errors.size() < 64) t_runtime_errors.emplace_back(message);
  } else if (level == runtime::LogLevel::Info && t_capturing > 0) {
    std::fprintf(stderr, "kiln runtime: %s\n", message);
  } else if (g_previous_sink != nullptr) {
    g_previous_sink(level, message);
  } else {
    std::fprintf(stderr, "kiln runtime: %s\n", message);
  }
}

/// Captures the Error lines the calling thread logs while it lives. The sink
/// is installed once for the process (swapping it per call would race with
/// other threads' sessions) and passes on what no capture wants.
struct LogCapture {
  LogCapture() {
    static std::once_flag installed;
    std::call_once(installed, [] { g_previous_sink = runtime::set_log_sink(capture_log); });
    if (t_capturing++ == 0) t_runtime_errors.clear();
  }
  ~LogCapture() { --t_capturing; }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
};

/// Throws AotError "<what>: <Error name>: <the runtime's last log line>",
/// followed by the lines it logged before that one, one per line.
[[noreturn]] void fail(const std::string& what, Error error) {
  std::string message = what + ": " + runtime::to_string(error);
  if (!t_runtime_errors.empty()) message += ": " + t_runtime_errors.back();
  for (size_t i = 0; i + 1 < t_runtime_errors.size(); ++i) message += "\n    " + t_runtime_errors[i];
  t_runtime_errors.clear();
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
  t_runtime_errors.clear();
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

}  // namespace

std::string describe_tensor_info(const TensorInfo& info) {
  return std::string(runtime::short_name(info.scalar_type())) + "[" + join(info.sizes()) + "]";
}

bool fits_input(const TensorInfo& info, ScalarType dtype, runtime::Span<const int64_t> sizes) {
  if (dtype != info.scalar_type() || sizes.size() != info.sizes().size()) return false;
  const bool dynamic = info.shape_dynamism() != runtime::TensorShapeDynamism::Static;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (dynamic ? sizes[d] > info.sizes()[d] : sizes[d] != info.sizes()[d]) return false;
  }
  return true;
}

void check_input(size_t index, const TensorInfo& info, ScalarType dtype, const std::vector<int64_t>& sizes,
                 const std::string& given) {
  const std::string name = "input " + std::to_string(index);
  const std::string expected = describe_tensor_info(info);
  if (dtype != info.scalar_type()) {
    throw aot::AotError(name + " must be " + runtime::short_name(info.scalar_type()) + " (" + expected + "), got " +
                        runtime::short_name(dtype) + " (" + given + ")");
  }
  if (sizes.size() != info.sizes().size()) {
    throw aot::AotError(name + " must have " + std::to_string(info.sizes().size()) + " dimensions (" + expected +
                        "), got " + std::to_string(sizes.size()) + " (" + given + ")");
  }
  const bool dynamic = info.shape_dynamism() != runtime::TensorShapeDynamism::Static;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t want = info.sizes()[d];
    const int64_t got = sizes[d];
    if (!dynamic && got != want) {
      throw aot::AotError(name + " dim " + std::to_string(d) + " must be " + std::to_string(want) + " (" + expected +
                          "), got " + std::to_string(got) + " (" + given + ")");
    }
    if (dynamic && got > want) {
      throw aot::AotError(name + " dim " + std::to_string(d) + " must be at most " + std::to_string(want) + " (" +
                          expected + " are the planned upper bounds), got " + std::to_string(got) + " (" + given +
                          ")");
    }
  }
}

namespace {

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
  return devtools::ones(info.scalar_type(), std::vector<int64_t>(info.sizes().begin(), info.sizes().end()));
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
    check_input(i, *info, host.dtype(), host.sizes(), host.describe());
    inputs.tensors.push_back(wrap(host, *info));
    inputs.values.emplace_back(runtime::Tensor(inputs.tensors.back()->impl.get()));
  }
  return inputs;
}

void apply_inputs(runtime::Method& method, const Inputs& inputs) {
  for (size_t i = 0; i < inputs.values.size(); ++i) {
    t_runtime_errors.clear();
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

}  // namespace
// ---------------------------------------------------------------- LoadedProgram

LoadedProgram::LoadedProgram(std::unique_ptr<runtime::DataLoader> loader, std::shared_ptr<const void> owner,
                             const std::string& label)
    : owner_(std::move(owner)), loader_(std::move(loader)), label_(label) {
  LogCapture log;
  const auto start = Clock::now();
  auto program = runtime::Program::load(loader_.get(), runtime::Program::Verification::InternalConsistency);
  if (!program.ok()) fail("'" + label + "' is not a program Kiln can load", program.error());
  program_ = std::make_unique<runtime::Program>(std::move(program.get()));
  load_ms_ = milliseconds_since(start);
}

LoadedProgram::~LoadedProgram() = default;

std::shared_ptr<LoadedProgram> LoadedProgram::from_file(const std::string& path) {
  LogCapture log;
  auto loader = runtime::MmapDataLoader::from(path.c_str());
  if (!loader.ok()) fail(path + ": cannot open", loader.error());
  return std::make_shared<LoadedProgram>(std::make_unique<runtime::MmapDataLoader>(std::move(loader.get())), nullptr,
                                         path);
}

std::shared_ptr<LoadedProgram> LoadedProgram::from_bytes(const void* data, size_t size,
                                                         std::shared_ptr<const void> owner, const std::string& label) {
  return std::make_shared<LoadedProgram>(std::make_unique<runtime::BufferDataLoader>(data, size), std::move(owner),
                                         label);
}

const runtime::Program& LoadedProgram::program() const { return *program_; }

std::vector<std::string> LoadedProgram::method_names() const {
  LogCapture log;
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    auto name = program_->get_method_name(i);
    if (!name.ok()) fail("the program's method " + std::to_string(i), name.error());
    names.emplace_back(*name);
  }
  return names;
}

std::string LoadedProgram::resolve_method(const std::string& requested) const {
  const std::vector<std::string> names = method_names();
  if (names.empty()) throw aot::AotError(label_ + " holds no method");
  if (requested.empty()) {
    return std::find(names.begin(), names.end(), "forward") != names.end() ? "forward" : names.front();
  }
  if (std::find(names.begin(), names.end(), requested) != names.end()) return requested;
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  throw aot::AotError(label_ + " has no method '" + requested + "' (it has: " + list + ")");
}

runtime::MethodMeta LoadedProgram::method_meta(const std::string& method) const {
  LogCapture log;
  const std::string name = resolve_method(method);
  auto meta = program_->method_meta(name.c_str());
  if (!meta.ok()) fail("method '" + name + "'", meta.error());
  return *meta;
}

// ---------------------------------------------------------------- RuntimeSession

/// A method loaded with the memory behind it. Never moved once built (the
/// method points at the memory).
struct RuntimeSession::State {
  std::string method_name;
  MethodMemory memory;
  std::optional<runtime::Method> method;
  Inputs inputs;
};

RuntimeSession::RuntimeSession(std::shared_ptr<const LoadedProgram> program, const std::string& method)
    : program_(std::move(program)), state_(std::make_unique<State>()) {
  LogCapture log;
  const auto start = Clock::now();
  state_->method_name = program_->resolve_method(method);
  const runtime::MethodMeta meta = program_->method_meta(state_->method_name);
  allocate_planned(meta, state_->memory);
  state_->method.emplace(load_method(program_->program(), state_->method_name.c_str(), state_->memory));
  load_ms_ = program_->load_ms() + milliseconds_since(start);
}

RuntimeSession::~RuntimeSession() = default;

std::unique_ptr<RuntimeSession> RuntimeSession::from_file(const std::string& path, const std::string& method) {
  return std::make_unique<RuntimeSession>(LoadedProgram::from_file(path), method);
}

std::unique_ptr<RuntimeSession> RuntimeSession::from_bytes(const void* data, size_t size, const std::string& label) {
  return std::make_unique<RuntimeSession>(LoadedProgram::from_bytes(data, size, nullptr, label));
}

const char* RuntimeSession::method_name() const { return state_->method_name.c_str(); }
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
  t_runtime_errors.clear();
  const auto start = Clock::now();
  const Error error = state_->method->execute();
  const double took = milliseconds_since(start);
  ++calls_;
  if (error != Error::Ok) fail("execute (call " + std::to_string(calls_) + ")", error);
  return took;
}

void RuntimeSession::set_input_values(std::vector<runtime::EValue> values) {
  const runtime::MethodMeta meta = method_meta();
  if (values.size() != meta.num_inputs()) {
    throw aot::AotError(std::to_string(values.size()) + " inputs given, but the method takes " +
                        std::to_string(meta.num_inputs()));
  }
  LogCapture log;
  for (size_t i = 0; i < values.size(); ++i) {
    auto tag = meta.input_tag(i);
    if (!tag.ok()) fail("input " + std::to_string(i), tag.error());
    if (values[i].tag() != *tag) {
      throw aot::AotError("input " + std::to_string(i) + " must be a " + runtime::to_string(*tag) + ", got a " +
                          runtime::to_string(values[i].tag()));
    }
    if (*tag != Tag::Tensor) continue;
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) fail("input " + std::to_string(i), info.error());
    const runtime::Tensor tensor = values[i].toTensor();
    int64_t sizes[16];
    const size_t rank = tensor.sizes().size();
    const bool small = rank <= 16;
    for (size_t d = 0; small && d < rank; ++d) sizes[d] = tensor.sizes()[d];
    if (!small || !fits_input(*info, tensor.scalar_type(), {sizes, rank})) {
      const std::vector<int64_t> all(tensor.sizes().begin(), tensor.sizes().end());
      std::string given = std::string(runtime::short_name(tensor.scalar_type())) + "[";
      for (size_t d = 0; d < all.size(); ++d) given += (d ? ", " : "") + std::to_string(all[d]);
      given += "]";
      check_input(i, *info, tensor.scalar_type(), all, given);
    }
    if (!std::equal(tensor.dim_order().begin(), tensor.dim_order().end(), info->dim_order().begin(),
                    info->dim_order().end())) {
      throw aot::AotError("input " + std::to_string(i) + " is laid out in another dim order than the method's (" +
                          describe_tensor_info(*info) + ")");
    }
  }
  state_->inputs = Inputs{{}, std::move(values)};
}

runtime::Method& RuntimeSession::method() { return *state_->method; }

void RuntimeSession::set_event_tracer(runtime::EventTracer* tracer) { state_->method->set_event_tracer(tracer); }

std::vector<aot::Value> RuntimeSession::outputs() const {
  std::vector<aot::Value> outputs;
  for (size_t i = 0; i < state_->method->outputs_size(); ++i) outputs.push_back(to_host(state_->method->get_output(i)));
  return outputs;
}

}  // namespace kiln::devtools
