#include "runtime/module/module.h"

#include <cstring>
#include <utility>

#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/log.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/malloc_memory_allocator.h"

namespace kiln::runtime {

// One loaded method and all the memory it uses. Members are destroyed in
// reverse order: the Method (and its delegates) before the memory it points into.
struct Module::LoadedMethod {
  std::string name;
  MallocMemoryAllocator planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  HierarchicalAllocator planned_memory{{}};
  MallocMemoryAllocator method_allocator;
  MallocMemoryAllocator temp_allocator;
  MemoryManager memory_manager{&method_allocator};
  std::unique_ptr<Method> method;
};

namespace {

// Planned arenas hold tensors of any dtype; a cache line suits them all.
constexpr size_t kPlannedBufferAlignment = 64;

template <typename Loader>
Result<std::unique_ptr<DataLoader>> open_with(const std::string& path) {
  Result<Loader> loader = Loader::from(path.c_str());
  if (!loader.ok()) return loader.error();
  return std::unique_ptr<DataLoader>(new Loader(std::move(loader.get())));
}

}  // namespace

Module::Module(std::string path, LoadMode mode) : path_(std::move(path)), mode_(mode) {}

Module::~Module() = default;

Error Module::load(Program::Verification verification) {
  if (is_loaded()) return Error::Ok;
  Result<std::unique_ptr<DataLoader>> loader =
      mode_ == LoadMode::Mmap ? open_with<MmapDataLoader>(path_) : open_with<FileDataLoader>(path_);
  if (!loader.ok()) {
    KILN_LOG(Error, "Module: cannot open '%s' (%s)", path_.c_str(), to_string(loader.error()));
    return loader.error();
  }
  Result<Program> program = Program::load(loader->get(), verification);
  if (!program.ok()) {
    KILN_LOG(Error, "Module: '%s' is not a program this runtime can load (%s)", path_.c_str(),
             to_string(program.error()));
    return program.error();
  }
  loader_ = std::move(loader.get());
  program_ = std::make_unique<Program>(std::move(program.get()));
  return Error::Ok;
}

bool Module::is_loaded() const { return program_ != nullptr; }

const Program* Module::program() const { return program_.get(); }

Result<std::vector<std::string>> Module::method_names() {
  KILN_TRY(load());
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    Result<const char*> name = program_->get_method_name(i);
    if (!name.ok()) return name.error();
    names.emplace_back(*name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  KILN_TRY(load());
  return program_->method_meta(method_name.c_str());
}

Error Module::load_method(const std::string& method_name) {
  if (method(method_name) != nullptr) return Error::Ok;
  KILN_TRY(load());
  Result<MethodMeta> meta = program_->method_meta(method_name.c_str());
  if (!meta.ok()) {
    KILN_LOG(Error, "Module: '%s' has no method '%s'", path_.c_str(), method_name.c_str());
    return meta.error();
  }
  auto loaded = std::make_unique<LoadedMethod>();
  loaded->name = method_name;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    Result<int64_t> size = meta->memory_planned_buffer_size(i);
    if (!size.ok()) return size.error();
    KILN_CHECK_OR_LOG_RETURN(*size >= 0, InvalidProgram, "Module: method '%s': planned buffer %zu has size %lld",
                             method_name.c_str(), i, static_cast<long long>(*size));
    void* buffer = loaded->planned_buffers.allocate(static_cast<size_t>(*size), kPlannedBufferAlignment);
    KILN_CHECK_OR_LOG_RETURN(buffer != nullptr, MemoryAllocationFailed,
                             "Module: method '%s': cannot allocate planned buffer %zu (%lld bytes)",
                             method_name.c_str(), i, static_cast<long long>(*size));
    // Zeroed, as ExecuTorch's Module gives them: a mutated buffer whose
    // initial value the program does not store starts at zero.
    std::memset(buffer, 0, static_cast<size_t>(*size));
    loaded->planned_spans.emplace_back(static_cast<uint8_t*>(buffer), static_cast<size_t>(*size));
  }
  loaded->planned_memory = HierarchicalAllocator({loaded->planned_spans.data(), loaded->planned_spans.size()});
  loaded->memory_manager = MemoryManager(&loaded->method_allocator, &loaded->planned_memory, &loaded->temp_allocator);
  Result<Method> method = program_->load_method(method_name.c_str(), &loaded->memory_manager);
  if (!method.ok()) return method.error();  // Method::load logged why
  loaded->method = std::make_unique<Method>(std::move(method.get()));
  methods_.push_back(std::move(loaded));
  return Error::Ok;
}

Method* Module::method(const std::string& method_name) {
  for (const auto& loaded : methods_) {
    if (loaded->name == method_name) return loaded->method.get();
  }
  return nullptr;
}

Result<std::vector<EValue>> Module::execute(const std::string& method_name, const std::vector<EValue>& inputs) {
  KILN_TRY(load_method(method_name));
  Method* loaded = method(method_name);
  KILN_TRY(loaded->set_inputs({inputs.data(), inputs.size()}));
  KILN_TRY(loaded->execute());
  std::vector<EValue> outputs(loaded->outputs_size());
  KILN_TRY(loaded->get_outputs(outputs.data(), outputs.size()));
  return outputs;
}

Result<std::vector<EValue>> Module::constant_values(const std::string& method_name) {
  Result<MethodMeta> meta = method_meta(method_name);
  if (!meta.ok()) return meta.error();  // the program logged why
  KILN_CHECK_OR_LOG_RETURN(meta->num_inputs() == 0, InvalidArgument,
                           "Module: method '%s' takes %zu inputs; a constant method takes none", method_name.c_str(),
                           meta->num_inputs());
  return execute(method_name, {});
}

Result<EValue> Module::constant_value(const std::string& method_name) {
  Result<std::vector<EValue>> values = constant_values(method_name);
  if (!values.ok()) return values.error();
  KILN_CHECK_OR_LOG_RETURN(values->size() == 1, InvalidArgument,
                           "Module: method '%s' returns %zu values, not one (read a list with constant_values)",
                           method_name.c_str(), values->size());
  return values->front();
}

}  // namespace kiln::runtime
