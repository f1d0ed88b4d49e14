#include "runtime/module/method_session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/log.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/malloc_memory_allocator.h"

namespace kiln::runtime {

// What a MethodSession's state holds (members of MethodSession::State, so
// outside the anonymous namespace).

/// Everything the method's memory manager points into, malloc'd here.
struct SessionMemory {
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> planned_spans;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  /// Each allocation its own block: a method (and a delegate's weights,
  /// which oneDNN keeps there) is loaded once, whatever it needs.
  std::unique_ptr<MallocMemoryAllocator> method_allocator;
  std::unique_ptr<uint8_t[]> temp_pool;
  std::unique_ptr<MemoryAllocator> temp_allocator;
  std::unique_ptr<MemoryManager> manager;
};

/// A tensor input: its array (in the input's dim order) and the metadata a
/// runtime Tensor points at.
struct SessionInputTensor {
  NpyArray array;
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::unique_ptr<TensorImpl> impl;
};

struct SessionInputs {
  std::vector<std::unique_ptr<SessionInputTensor>> tensors;
  std::vector<EValue> values;
};

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string input_name(size_t index) { return "input " + std::to_string(index); }

// ---------------------------------------------------------------- memory

constexpr size_t kTempBytes = size_t{16} << 20;

Error allocate(const MethodMeta& meta, SessionMemory& memory) {
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    KILN_ASSIGN_OR_RETURN(const int64_t size, meta.memory_planned_buffer_size(i));
    KILN_CHECK_OR_LOG_RETURN(size >= 0, InvalidProgram, "planned buffer %zu has a negative size", i);
    memory.planned.emplace_back(static_cast<size_t>(size));
  }
  for (auto& buffer : memory.planned) memory.planned_spans.emplace_back(buffer.data(), buffer.size());
  memory.planned_memory = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(memory.planned_spans.data(), memory.planned_spans.size()));
  memory.temp_pool.reset(new uint8_t[kTempBytes]);
  memory.temp_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(kTempBytes), memory.temp_pool.get());
  // Malloc'd as the method asks (a fixed pool sized by retrying would load
  // it, and create a delegate's primitives, again for every retry).
  memory.method_allocator = std::make_unique<MallocMemoryAllocator>();
  memory.manager = std::make_unique<MemoryManager>(memory.method_allocator.get(), memory.planned_memory.get(),
                                                   memory.temp_allocator.get());
  return Error::Ok;
}

// ---------------------------------------------------------------- inputs

/// `array`'s row-major bytes moved to the places `strides` give them.
std::vector<uint8_t> permuted(const NpyArray& array, const std::vector<StridesType>& strides) {
  const size_t width = element_size(array.dtype);
  std::vector<uint8_t> out(array.data.size());
  std::vector<int64_t> index(array.sizes.size(), 0);
  for (size_t flat = 0; flat < array.numel(); ++flat) {
    size_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += static_cast<size_t>(index[d]) * strides[d];
    std::memcpy(out.data() + offset * width, array.data.data() + flat * width, width);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < array.sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

/// A runtime tensor over `array` laid out in the input's dim order.
Result<std::unique_ptr<SessionInputTensor>> wrap(NpyArray array, const TensorInfo& info) {
  auto input = std::make_unique<SessionInputTensor>();
  for (int64_t size : array.sizes) input->sizes.push_back(static_cast<SizesType>(size));
  input->dim_order.assign(info.dim_order().begin(), info.dim_order().end());
  input->strides.resize(input->sizes.size());
  KILN_TRY(compute_strides({input->sizes.data(), input->sizes.size()}, {input->dim_order.data(), input->dim_order.size()},
                           {input->strides.data(), input->strides.size()}));
  if (!is_contiguous_dim_order(info.dim_order())) array.data = permuted(array, input->strides);
  input->array = std::move(array);
  input->impl = std::make_unique<TensorImpl>(input->array.dtype, static_cast<ssize_t>(input->sizes.size()),
                                             input->sizes.data(), input->array.data.data(), input->dim_order.data(),
                                             input->strides.data(), TensorShapeDynamism::Static);
  return input;
}

/// A prim input from a 0-dim array.
Result<EValue> prim_input(size_t index, Tag tag, const NpyArray& array) {
  if (!array.sizes.empty()) {
    KILN_LOG(Error, "%s is %s, so its array must have 0 dimensions, got %s", input_name(index).c_str(), to_string(tag),
             describe_tensor(array.dtype, array.sizes).c_str());
    return Error::InvalidArgument;
  }
  const double value = array.scalar(0);
  switch (tag) {
    case Tag::Int: return EValue(static_cast<int64_t>(value));
    case Tag::Double: return EValue(value);
    case Tag::Bool: return EValue(value != 0);
    default:
      KILN_LOG(Error, "%s is a %s, which cannot be passed as an array", input_name(index).c_str(), to_string(tag));
      return Error::NotSupported;
  }
}

Result<SessionInputs> make_inputs(const MethodMeta& meta, std::vector<NpyArray> arrays) {
  KILN_CHECK_OR_LOG_RETURN(arrays.size() == meta.num_inputs(), InvalidArgument,
                           "%zu inputs given, but the method takes %zu", arrays.size(), meta.num_inputs());
  SessionInputs inputs;
  for (size_t i = 0; i < arrays.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    if (tag == Tag::None) {
      inputs.values.emplace_back();
    } else if (tag != Tag::Tensor) {
      KILN_ASSIGN_OR_RETURN(EValue value, prim_input(i, tag, arrays[i]));
      inputs.values.push_back(value);
    } else {
      KILN_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_meta(i));
      const NpyArray& array = arrays[i];
      const Span<const int64_t> sizes(array.sizes.data(), array.sizes.size());
      KILN_TRY(check_input(i, info, array.dtype, sizes, describe_tensor(array.dtype, array.sizes)));
      KILN_ASSIGN_OR_RETURN(std::unique_ptr<SessionInputTensor> tensor, wrap(std::move(arrays[i]), info));
      inputs.values.emplace_back(Tensor(tensor->impl.get()));
      inputs.tensors.push_back(std::move(tensor));
    }
  }
  return inputs;
}

/// The .npz arrays in input order: arr_0 ... arr_<n-1>, or the archive's order.
Result<std::vector<NpyArray>> order_arrays(std::vector<NamedArray> arrays, size_t count, const std::string& path) {
  KILN_CHECK_OR_LOG_RETURN(arrays.size() == count, InvalidArgument, "%s holds %zu arrays, but the program takes %zu inputs",
                           path.c_str(), arrays.size(), count);
  const bool positional = std::all_of(arrays.begin(), arrays.end(),
                                      [](const NamedArray& array) { return array.name.rfind("arr_", 0) == 0; });
  std::vector<NpyArray> ordered(count);
  std::vector<bool> filled(count, false);
  for (size_t i = 0; i < arrays.size(); ++i) {
    size_t index = i;
    if (positional) {
      const std::string digits = arrays[i].name.substr(4);
      const bool numeric = !digits.empty() && digits.size() < 9 &&
                           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
      index = numeric ? std::stoul(digits) : count;
      KILN_CHECK_OR_LOG_RETURN(index < count && !filled[index], InvalidArgument,
                               "%s: array '%s' matches no input (expected arr_0 ... arr_%zu)", path.c_str(),
                               arrays[i].name.c_str(), count - 1);
    }
    ordered[index] = std::move(arrays[i].array);
    filled[index] = true;
  }
  return ordered;
}

// ---------------------------------------------------------------- outputs

/// A tensor's elements in row-major order, whatever its dim order.
NpyArray tensor_array(const Tensor& tensor) {
  NpyArray array;
  array.dtype = tensor.scalar_type();
  array.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
  const size_t width = tensor.element_size();
  array.data.resize(array.numel() * width);
  const auto* source = static_cast<const uint8_t*>(tensor.const_data_ptr());
  std::vector<int64_t> index(array.sizes.size(), 0);
  for (size_t flat = 0; flat < array.numel(); ++flat) {
    size_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += static_cast<size_t>(index[d]) * tensor.strides()[d];
    std::memcpy(array.data.data() + flat * width, source + offset * width, width);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < array.sizes[d]) break;
      index[d] = 0;
    }
  }
  return array;
}

template <typename T>
NpyArray array_of(std::vector<int64_t> sizes, const T* values, size_t count) {
  NpyArray array;
  array.dtype = CppTypeToScalarType<T>::value;
  array.sizes = std::move(sizes);
  array.data.resize(count * sizeof(T));
  if (count > 0) std::memcpy(array.data.data(), values, count * sizeof(T));
  return array;
}

template <typename T>
NpyArray list_array(Span<const T> items) {
  return array_of<T>({static_cast<int64_t>(items.size())}, items.data(), items.size());
}

}  // namespace

// ---------------------------------------------------------------- checks

std::string describe_tensor_info(const TensorInfo& info) {
  return describe_tensor(info.scalar_type(), std::vector<int64_t>(info.sizes().begin(), info.sizes().end()));
}

bool fits_input(const TensorInfo& info, ScalarType dtype, Span<const int64_t> sizes) {
  if (dtype != info.scalar_type() || sizes.size() != info.sizes().size()) return false;
  const bool dynamic = info.shape_dynamism() != TensorShapeDynamism::Static;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (dynamic ? sizes[d] > info.sizes()[d] : sizes[d] != info.sizes()[d]) return false;
  }
  return true;
}

Error check_input(size_t index, const TensorInfo& info, ScalarType dtype, Span<const int64_t> sizes,
                  const std::string& given) {
  if (fits_input(info, dtype, sizes)) return Error::Ok;
  const std::string name = input_name(index);
  const std::string expected = describe_tensor_info(info);
  std::string reason;
  if (dtype != info.scalar_type()) {
    reason = " must be " + std::string(short_name(info.scalar_type())) + " (" + expected + "), got " +
             short_name(dtype) + " (" + given + ")";
  } else if (sizes.size() != info.sizes().size()) {
    reason = " must have " + std::to_string(info.sizes().size()) + " dimensions (" + expected + "), got " +
             std::to_string(sizes.size()) + " (" + given + ")";
  } else {
    const bool dynamic = info.shape_dynamism() != TensorShapeDynamism::Static;
    for (size_t d = 0; d < sizes.size() && reason.empty(); ++d) {
      const int64_t want = info.sizes()[d];
      if (!dynamic && sizes[d] != want) {
        reason = " dim " + std::to_string(d) + " must be " + std::to_string(want) + " (" + expected + "), got " +
                 std::to_string(sizes[d]) + " (" + given + ")";
      } else if (dynamic && sizes[d] > want) {
        reason = " dim " + std::to_string(d) + " must be at most " + std::to_string(want) + " (" + expected +
                 " are the planned upper bounds), got " + std::to_string(sizes[d]) + " (" + given + ")";
      }
    }
  }
  KILN_LOG(Error, "%s%s", name.c_str(), reason.c_str());
  return Error::InvalidArgument;
}

NpyArray ones_array(ScalarType dtype, std::vector<int64_t> sizes) {
  NpyArray array;
  array.dtype = dtype;
  array.sizes = std::move(sizes);
  const size_t width = element_size(dtype);
  std::vector<uint8_t> one(width, 0);
  switch (dtype) {
    case ScalarType::Float: { const float v = 1; std::memcpy(one.data(), &v, width); break; }
    case ScalarType::Double: { const double v = 1; std::memcpy(one.data(), &v, width); break; }
    case ScalarType::ComplexFloat: { const float v = 1; std::memcpy(one.data(), &v, sizeof v); break; }
    case ScalarType::ComplexDouble: { const double v = 1; std::memcpy(one.data(), &v, sizeof v); break; }
    case ScalarType::Half: one = {0x00, 0x3c}; break;
    case ScalarType::BFloat16: one = {0x80, 0x3f}; break;
    default: one[0] = 1; break;  // integers (little endian) and bool
  }
  array.data.resize(array.numel() * width);
  for (size_t i = 0; i < array.numel(); ++i) std::memcpy(array.data.data() + i * width, one.data(), width);
  return array;
}

Result<NpyArray> to_array(const EValue& value) {
  switch (value.tag()) {
    case Tag::Tensor: return tensor_array(value.toTensor());
    case Tag::Int: { const int64_t v = value.toInt(); return array_of<int64_t>({}, &v, 1); }
    case Tag::Double: { const double v = value.toDouble(); return array_of<double>({}, &v, 1); }
    case Tag::Bool: { const bool v = value.toBool(); return array_of<bool>({}, &v, 1); }
    case Tag::ListInt: return list_array(value.toIntList());
    case Tag::ListDouble: return list_array(value.toDoubleList());
    case Tag::ListBool: return list_array(value.toBoolList());
    default:
      KILN_LOG(Error, "a %s has no array form", to_string(value.tag()));
      return Error::NotSupported;
  }
}

// ---------------------------------------------------------------- LoadedProgram

LoadedProgram::LoadedProgram(std::unique_ptr<DataLoader> loader, std::shared_ptr<const void> owner, std::string label)
    : owner_(std::move(owner)), loader_(std::move(loader)), label_(std::move(label)) {}

LoadedProgram::~LoadedProgram() = default;

Result<std::shared_ptr<LoadedProgram>> LoadedProgram::load(std::unique_ptr<DataLoader> loader,
                                                           std::shared_ptr<const void> owner,
                                                           const std::string& label) {
  std::shared_ptr<LoadedProgram> loaded(new LoadedProgram(std::move(loader), std::move(owner), label));
  const auto start = Clock::now();
  Result<Program> program = Program::load(loaded->loader_.get(), Program::Verification::InternalConsistency);
  if (!program.ok()) return program.error();
  loaded->program_ = std::make_unique<Program>(std::move(program.get()));
  loaded->load_ms_ = milliseconds_since(start);
  return loaded;
}

Result<std::shared_ptr<LoadedProgram>> LoadedProgram::from_file(const std::string& path) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(path.c_str());
  if (!loader.ok()) {
    KILN_LOG(Error, "%s: cannot open", path.c_str());
    return loader.error();
  }
  return load(std::make_unique<MmapDataLoader>(std::move(loader.get())), nullptr, path);
}

Result<std::shared_ptr<LoadedProgram>> LoadedProgram::from_bytes(const void* data, size_t size,
                                                                 std::shared_ptr<const void> owner,
                                                                 const std::string& label) {
  return load(std::make_unique<BufferDataLoader>(data, size), std::move(owner), label);
}

Result<std::vector<std::string>> LoadedProgram::method_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    KILN_ASSIGN_OR_RETURN(const char* name, program_->get_method_name(i));
    names.emplace_back(name);
  }
  return names;
}

Result<std::string> LoadedProgram::resolve_method(const std::string& requested) const {
  KILN_ASSIGN_OR_RETURN(const std::vector<std::string> names, method_names());
  KILN_CHECK_OR_LOG_RETURN(!names.empty(), NotFound, "%s holds no method", label_.c_str());
  if (requested.empty()) {
    return std::find(names.begin(), names.end(), "forward") != names.end() ? std::string("forward") : names.front();
  }
  if (std::find(names.begin(), names.end(), requested) != names.end()) return requested;
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  KILN_LOG(Error, "%s has no method '%s' (it has: %s)", label_.c_str(), requested.c_str(), list.c_str());
  return Error::NotFound;
}

Result<MethodMeta> LoadedProgram::method_meta(const std::string& method) const {
  KILN_ASSIGN_OR_RETURN(const std::string name, resolve_method(method));
  return program_->method_meta(name.c_str());
}

// ---------------------------------------------------------------- MethodSession

/// A method loaded with the memory behind it. Never moved once built (the
/// method points at the memory).
struct MethodSession::State {
  std::string method_name;
  SessionMemory memory;
  std::optional<Method> method;
  SessionInputs inputs;
};

MethodSession::MethodSession(std::shared_ptr<const LoadedProgram> program, std::unique_ptr<State> state)
    : program_(std::move(program)), state_(std::move(state)) {}

MethodSession::~MethodSession() = default;

Result<std::unique_ptr<MethodSession>> MethodSession::load(std::shared_ptr<const LoadedProgram> program,
                                                           const std::string& method) {
  const auto start = Clock::now();
  auto state = std::make_unique<State>();
  KILN_ASSIGN_OR_RETURN(state->method_name, program->resolve_method(method));
  KILN_ASSIGN_OR_RETURN(const MethodMeta meta, program->method_meta(state->method_name));
  KILN_TRY(allocate(meta, state->memory));
  KILN_ASSIGN_OR_RETURN(Method loaded, program->program().load_method(state->method_name.c_str(),
                                                                       state->memory.manager.get()));
  state->method.emplace(std::move(loaded));
  std::unique_ptr<MethodSession> session(new MethodSession(std::move(program), std::move(state)));
  session->method_load_ms_ = milliseconds_since(start);
  return session;
}

const std::string& MethodSession::method_name() const { return state_->method_name; }
MethodMeta MethodSession::method_meta() const { return state_->method->method_meta(); }

size_t MethodSession::planned_bytes() const {
  size_t total = 0;
  for (const auto& buffer : state_->memory.planned) total += buffer.size();
  return total;
}

Error MethodSession::set_inputs(std::vector<NpyArray> arrays) {
  KILN_ASSIGN_OR_RETURN(state_->inputs, make_inputs(method_meta(), std::move(arrays)));
  return Error::Ok;
}

Error MethodSession::set_inputs_from_npz(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<NamedArray> arrays, read_npz(path));
  KILN_ASSIGN_OR_RETURN(std::vector<NpyArray> ordered, order_arrays(std::move(arrays), method_meta().num_inputs(), path));
  return set_inputs(std::move(ordered));
}

Error MethodSession::set_ones() {
  const MethodMeta meta = method_meta();
  std::vector<NpyArray> arrays(meta.num_inputs());
  for (size_t i = 0; i < arrays.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    if (tag == Tag::None) continue;
    KILN_CHECK_OR_LOG_RETURN(tag == Tag::Tensor, InvalidArgument,
                             "input %zu is a %s, which has no default: give the inputs in an .npz (a 0-dim array)", i,
                             to_string(tag));
    KILN_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_meta(i));
    arrays[i] = ones_array(info.scalar_type(), std::vector<int64_t>(info.sizes().begin(), info.sizes().end()));
  }
  return set_inputs(std::move(arrays));
}

Error MethodSession::set_input_values(std::vector<EValue> values) {
  const MethodMeta meta = method_meta();
  KILN_CHECK_OR_LOG_RETURN(values.size() == meta.num_inputs(), InvalidArgument,
                           "%zu inputs given, but the method takes %zu", values.size(), meta.num_inputs());
  for (size_t i = 0; i < values.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    KILN_CHECK_OR_LOG_RETURN(values[i].tag() == tag, InvalidArgument, "input %zu must be a %s, got a %s", i,
                             to_string(tag), to_string(values[i].tag()));
    if (tag != Tag::Tensor) continue;
    KILN_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_meta(i));
    const Tensor tensor = values[i].toTensor();
    const std::vector<int64_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
    const Span<const int64_t> span(sizes.data(), sizes.size());
    KILN_TRY(check_input(i, info, tensor.scalar_type(), span, describe_tensor(tensor.scalar_type(), sizes)));
    KILN_CHECK_OR_LOG_RETURN(std::equal(tensor.dim_order().begin(), tensor.dim_order().end(), info.dim_order().begin(),
                                        info.dim_order().end()),
                             InvalidArgument, "input %zu is laid out in another dim order than the method's (%s)", i,
                             describe_tensor_info(info).c_str());
  }
  state_->inputs = SessionInputs{{}, std::move(values)};
  return Error::Ok;
}

Result<double> MethodSession::execute() {
  Method& method = *state_->method;
  for (size_t i = 0; i < state_->inputs.values.size(); ++i) KILN_TRY(method.set_input(state_->inputs.values[i], i));
  const auto start = Clock::now();
  const Error error = method.execute();
  const double took = milliseconds_since(start);
  if (error != Error::Ok) return error;
  return took;
}

void MethodSession::set_event_tracer(EventTracer* tracer) { state_->method->set_event_tracer(tracer); }
Method& MethodSession::method() { return *state_->method; }
const Method& MethodSession::method() const { return *state_->method; }

}  // namespace kiln::runtime
