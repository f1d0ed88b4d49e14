#include "backends/demo/runtime/demo_backend_runtime.h"

#include <cstdint>
#include <cstring>
#include <new>

#include "backends/demo/demo_blob.h"
#include "runtime/core/log.h"

namespace kiln::backends::demo {

using runtime::BackendExecutionContext;
using runtime::BackendInitContext;
using runtime::CompileSpec;
using runtime::DelegateHandle;
using runtime::Error;
using runtime::EValue;
using runtime::FreeableBuffer;
using runtime::MemoryAllocator;
using runtime::Result;
using runtime::Span;

namespace {

// Everything init builds; it lives in the method allocator.
struct DemoHandle {
  DemoProgram program;  // points into the processed blob, kept until destroy
  const char* method_name;
  FreeableBuffer* constants;  // the named data of constant i, for i < num_acquired
  uint32_t num_acquired;
  float** values;  // every value's floats: inputs set at execute, the rest at init
};

const char* name_or_unknown(const char* method_name) { return method_name != nullptr ? method_name : "(unnamed)"; }

void release_constants(DemoHandle* handle) {
  for (uint32_t i = 0; i < handle->num_acquired; ++i) handle->constants[i].~FreeableBuffer();
  handle->num_acquired = 0;
}

Error allocation_failed(const DemoHandle& handle, const char* what, size_t bytes) {
  KILN_LOG(Error, "DemoBackend: method '%s': the method allocator has no room for %s (%zu bytes)",
           handle.method_name, what, bytes);
  return Error::DelegateMemoryAllocationFailed;
}

// The value table and one scratch buffer per value the instructions write.
Error allocate_values(MemoryAllocator* allocator, DemoHandle* handle) {
  const DemoProgram& program = handle->program;
  handle->values = allocator->allocateList<float*>(program.num_values());
  if (handle->values == nullptr) {
    return allocation_failed(*handle, "the value table", sizeof(float*) * program.num_values());
  }
  handle->constants = allocator->allocateList<FreeableBuffer>(program.num_constants());
  if (handle->constants == nullptr) {
    return allocation_failed(*handle, "the constant table", sizeof(FreeableBuffer) * program.num_constants());
  }
  for (uint32_t v = 0; v < program.num_values(); ++v) handle->values[v] = nullptr;
  for (uint32_t v = program.num_inputs() + program.num_constants(); v < program.num_values(); ++v) {
    handle->values[v] = allocator->allocateList<float>(program.numel(v), 16);
    if (handle->values[v] == nullptr) {
      return allocation_failed(*handle, "an intermediate value", sizeof(float) * size_t{program.numel(v)});
    }
  }
  return Error::Ok;
}

// Fetches constant `index` from the named data into the handle; on success
// the handle owns it (num_acquired counts it).
Error fetch_constant(const BackendInitContext& context, DemoHandle* handle, uint32_t index) {
  const ConstantRef ref = handle->program.constant(index);
  char* key = context.get_runtime_allocator()->allocateList<char>(size_t{ref.key_length} + 1);
  if (key == nullptr) return allocation_failed(*handle, "a constant's key", size_t{ref.key_length} + 1);
  std::memcpy(key, ref.key, ref.key_length);
  key[ref.key_length] = '\0';

  const runtime::NamedDataMap* named_data = context.get_named_data_map();
  KILN_CHECK_OR_LOG_RETURN(named_data != nullptr, NotFound,
                           "DemoBackend: method '%s' needs named data '%s', but the program has no named data",
                           handle->method_name, key);
  Result<FreeableBuffer> data = named_data->get_data(key);
  if (!data.ok()) {
    KILN_LOG(Error, "DemoBackend: method '%s': cannot get named data '%s' (%s)", handle->method_name, key,
             runtime::to_string(data.error()));
    return data.error();
  }
  const size_t expected = sizeof(float) * size_t{handle->program.numel(ref.value)};
  KILN_CHECK_OR_LOG_RETURN(data->size() == expected, DelegateInvalidCompatibility,
                           "DemoBackend: method '%s': named data '%s' has %zu bytes; the blob expects %zu (%u float32)",
                           handle->method_name, key, data->size(), expected, handle->program.numel(ref.value));
  KILN_CHECK_OR_LOG_RETURN(reinterpret_cast<uintptr_t>(data->data()) % alignof(float) == 0,
                           DelegateInvalidCompatibility,
                           "DemoBackend: method '%s': named data '%s' is not aligned for float32", handle->method_name,
                           key);
  FreeableBuffer* slot = new (&handle->constants[index]) FreeableBuffer(std::move(data.get()));
  handle->num_acquired = index + 1;
  // Constants are only read: execute writes values past the constants.
  handle->values[ref.value] = const_cast<float*>(static_cast<const float*>(slot->data()));
  return Error::Ok;
}

// Checks that argument `index` is a contiguous float32 tensor of `numel`
// elements and returns its data through `data`.
Error tensor_argument(const DemoHandle& handle, EValue* arg, size_t index, uint32_t numel, float** data) {
  KILN_CHECK_OR_LOG_RETURN(arg != nullptr && arg->isTensor(), InvalidArgument,
                           "DemoBackend: method '%s': delegate argument %zu is %s, not a tensor", handle.method_name,
                           index, arg == nullptr ? "missing" : runtime::to_string(arg->tag()));
  const runtime::Tensor tensor = arg->toTensor();
  KILN_CHECK_OR_LOG_RETURN(tensor.scalar_type() == runtime::ScalarType::Float, InvalidArgument,
                           "DemoBackend: method '%s': delegate argument %zu is %s; the blob runs float32 only",
                           handle.method_name, index, runtime::to_string(tensor.scalar_type()));
  KILN_CHECK_OR_LOG_RETURN(tensor.numel() == static_cast<ssize_t>(numel), InvalidArgument,
                           "DemoBackend: method '%s': delegate argument %zu has %zd elements; the blob expects %u",
                           handle.method_name, index, tensor.numel(), numel);
  KILN_CHECK_OR_LOG_RETURN(runtime::is_contiguous_dim_order(tensor.dim_order()), InvalidArgument,
                           "DemoBackend: method '%s': delegate argument %zu is not in contiguous dim order",
                           handle.method_name, index);
  KILN_CHECK_OR_LOG_RETURN(numel == 0 || tensor.const_data_ptr() != nullptr, InvalidArgument,
                           "DemoBackend: method '%s': delegate argument %zu has no data", handle.method_name, index);
  *data = tensor.mutable_data_ptr<float>();
  return Error::Ok;
}

}  // namespace

Result<DelegateHandle*> DemoBackendRuntime::init(BackendInitContext& context, FreeableBuffer* processed,
                                                 Span<const CompileSpec>) const {
  const char* method_name = name_or_unknown(context.get_method_name());
  DemoProgram program;
  const char* why = "no blob";
  const auto* bytes = processed != nullptr ? static_cast<const uint8_t*>(processed->data()) : nullptr;
  const size_t size = processed != nullptr ? processed->size() : 0;
  if (!DemoProgram::parse(bytes, size, &program, &why)) {
    KILN_LOG(Error, "DemoBackend: refusing the blob of method '%s' (%zu bytes): %s", method_name, size, why);
    return Error::DelegateInvalidCompatibility;
  }
  MemoryAllocator* allocator = context.get_runtime_allocator();
  void* storage = allocator != nullptr ? allocator->allocateInstance<DemoHandle>() : nullptr;
  if (storage == nullptr) {
    KILN_LOG(Error, "DemoBackend: method '%s': the method allocator has no room for the handle (%zu bytes)",
             method_name, sizeof(DemoHandle));
    return Error::DelegateMemoryAllocationFailed;
  }
  auto* handle = new (storage) DemoHandle{program, method_name, nullptr, 0, nullptr};
  if (const Error error = allocate_values(allocator, handle); error != Error::Ok) return error;
  for (uint32_t i = 0; i < program.num_constants(); ++i) {
    if (const Error error = fetch_constant(context, handle, i); error != Error::Ok) {
      release_constants(handle);
      return error;
    }
  }
  return static_cast<DelegateHandle*>(handle);
}

Error DemoBackendRuntime::execute(BackendExecutionContext& context, DelegateHandle* opaque, Span<EValue*> args) const {
  KILN_CHECK_OR_LOG_RETURN(opaque != nullptr, DelegateInvalidHandle, "DemoBackend: execute without a handle");
  auto* handle = static_cast<DemoHandle*>(opaque);
  const DemoProgram& program = handle->program;
  const size_t num_inputs = program.num_inputs();
  KILN_CHECK_OR_LOG_RETURN(args.size() == num_inputs + program.num_outputs(), InvalidArgument,
                           "DemoBackend: method '%s': the delegate call passes %zu arguments; the blob takes %u "
                           "inputs and %u outputs",
                           handle->method_name, args.size(), program.num_inputs(), program.num_outputs());
  for (uint32_t i = 0; i < program.num_inputs(); ++i) {
    KILN_TRY(tensor_argument(*handle, args[i], i, program.numel(i), &handle->values[i]));
  }
  for (uint32_t j = 0; j < program.num_outputs(); ++j) {
    float* unused = nullptr;
    KILN_TRY(tensor_argument(*handle, args[num_inputs + j], num_inputs + j, program.numel(program.output(j)), &unused));
  }
  if (context.tracing()) {
    // One event per blob instruction, under the identifier preprocess mapped,
    // with the value it wrote as a 1-D tensor (the blob keeps no shapes).
    uint64_t start_ns = runtime::trace_clock_ns();
    demo::execute(program, handle->values, [&](const Instruction& in) {
      const uint64_t end_ns = runtime::trace_clock_ns();
      if (in.debug_id >= 0) {
        runtime::SizesType size = static_cast<runtime::SizesType>(program.numel(in.out));
        runtime::DimOrderType dim_order = 0;
        runtime::StridesType stride = 1;
        runtime::TensorImpl impl(runtime::ScalarType::Float, 1, &size, handle->values[in.out], &dim_order, &stride);
        const runtime::Tensor output(&impl);
        context.log_event(in.debug_id, start_ns, end_ns, &output);
      }
      start_ns = runtime::trace_clock_ns();  // the logging is not the next instruction's time
    });
  } else {
    demo::execute(program, handle->values);
  }
  for (uint32_t j = 0; j < program.num_outputs(); ++j) {
    const uint32_t value = program.output(j);
    if (program.numel(value) == 0) continue;
    // memmove: an output may be an input passed through, in the same memory.
    std::memmove(args[num_inputs + j]->toTensor().mutable_data_ptr(), handle->values[value],
                 sizeof(float) * size_t{program.numel(value)});
  }
  return Error::Ok;
}

void DemoBackendRuntime::destroy(DelegateHandle* opaque) const {
  if (opaque != nullptr) release_constants(static_cast<DemoHandle*>(opaque));
}

namespace {

DemoBackendRuntime demo_backend;
[[maybe_unused]] const Error registered = runtime::register_backend({DemoBackendRuntime::kName, &demo_backend});

}  // namespace

}  // namespace kiln::backends::demo
