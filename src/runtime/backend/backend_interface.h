// The backend runtime interface and its registry.
//
// A backend turns the blob its AOT `preprocess` wrote into a handle at `init`
// (memory from the method allocator), runs it at each delegate call and
// releases it at `destroy`. Backends register by name in a fixed-size table,
// usually from a static initializer in their own library; link such a
// library whole (CMake: $<LINK_LIBRARY:WHOLE_ARCHIVE,...>) so the initializer
// is kept when linking statically.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace kiln::runtime {

/// Bytes owned by the program (a compile spec's value).
struct SizedBuffer {
  const void* buffer;
  size_t nbytes;
};

/// One key/value pair the AOT side passed to the backend's preprocess. Both
/// point into the loaded program.
struct CompileSpec {
  const char* key;
  SizedBuffer value;
};

/// Whatever a backend's init returns; only the backend knows its type.
using DelegateHandle = void;

/// What init may use: memory that lives as long as the method, the method's
/// name and the program's named data (a delegate's weights).
class BackendInitContext final {
 public:
  BackendInitContext(MemoryAllocator* runtime_allocator, const char* method_name, const NamedDataMap* named_data_map)
      : runtime_allocator_(runtime_allocator), method_name_(method_name), named_data_map_(named_data_map) {}

  /// The method allocator: the handle and anything else that must live until
  /// destroy belongs here.
  MemoryAllocator* get_runtime_allocator() const { return runtime_allocator_; }
  const char* get_method_name() const { return method_name_; }
  /// May be null when the program has no named data.
  const NamedDataMap* get_named_data_map() const { return named_data_map_; }

 private:
  MemoryAllocator* runtime_allocator_;
  const char* method_name_;
  const NamedDataMap* named_data_map_;
};

/// What execute may use: temporary memory released after the call.
class BackendExecutionContext final {
 public:
  BackendExecutionContext(MemoryAllocator* temp_allocator, const char* method_name, EventTracer* tracer = nullptr,
                          DelegateEvent call = {})
      : temp_allocator_(temp_allocator), method_name_(method_name), tracer_(tracer), call_(call) {}

  /// Null if there is no temp allocator or it is full.
  void* allocate(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(size, alignment);
  }
  MemoryAllocator* get_temp_allocator() const { return temp_allocator_; }
  const char* get_method_name() const { return method_name_; }

  /// Whether a tracer listens: a backend reads clocks and logs events only then.
  bool tracing() const { return tracer_ != nullptr; }
  /// Whether the tracer keeps the outputs logged with events (kiln compare).
  bool wants_outputs() const { return tracer_ != nullptr && tracer_->wants_outputs(); }
  /// Logs one of the backend's own events under the delegate debug identifier
  /// its preprocess gave in the debug-handle map, with an optional
  /// intermediate output. Does nothing when not tracing.
  void log_event(int64_t debug_id, uint64_t start_ns, uint64_t end_ns, const Tensor* output = nullptr) const {
    log_event(debug_id, nullptr, start_ns, end_ns, output);
  }
  void log_event(const char* debug_name, uint64_t start_ns, uint64_t end_ns, const Tensor* output = nullptr) const {
    log_event(-1, debug_name, start_ns, end_ns, output);
  }

 private:
  void log_event(int64_t debug_id, const char* debug_name, uint64_t start_ns, uint64_t end_ns,
                 const Tensor* output) const {
    if (tracer_ == nullptr) return;
    DelegateEvent event = call_;
    event.debug_id = debug_id;
    event.debug_name = debug_name;
    event.start_ns = start_ns;
    event.end_ns = end_ns;
    event.output = output;
    tracer_->log_delegate_event(event);
  }

  MemoryAllocator* temp_allocator_;
  const char* method_name_;
  EventTracer* tracer_;
  DelegateEvent call_;  // which delegate call this is (chain, instruction, delegate)
};

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;

  /// False when the backend cannot run on this machine (missing hardware or
  /// library); Method::load then fails with NotSupported naming it.
  [[nodiscard]] virtual bool is_available() const = 0;

  /// Prepares a blob for execution.
  /// @param context  the method allocator, method name and named data.
  /// @param processed  the blob preprocess wrote; the backend may call
  ///   `processed->Free()` once it no longer needs it (otherwise it stays
  ///   valid until destroy).
  /// @param compile_specs  the specs given to preprocess.
  /// @retval a handle passed to execute and destroy (may be null).
  /// @retval DelegateInvalidCompatibility the blob is from an incompatible
  ///   version or is malformed; DelegateMemoryAllocationFailed when the
  ///   method allocator is full.
  [[nodiscard]] virtual Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                                                     Span<const CompileSpec> compile_specs) const = 0;

  /// Runs the blob: `args` are the delegate call's arguments (inputs, then
  /// outputs, as the emitter wrote them). Must not allocate except from the
  /// context's temp allocator.
  [[nodiscard]] virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                                      Span<EValue*> args) const = 0;

  /// Releases what init acquired outside the method allocator. Called once
  /// per successful init, when the method is destroyed.
  virtual void destroy(DelegateHandle* handle) const { (void)handle; }

  /// Optional: how many threads the backend's own compute may use. Applies
  /// to methods loaded afterwards; values below 1 mean 1. A backend that runs
  /// on the calling thread alone keeps this default, which ignores it.
  virtual void set_num_threads(int num_threads) const { (void)num_threads; }
};

/// A registry entry: the backend id preprocess used and its implementation,
/// which must outlive the process (a static object).
struct Backend {
  const char* name;
  BackendInterface* backend;
};

/// The registry's fixed capacity (no allocation: the table is static).
constexpr size_t kMaxRegisteredBackends = 16;

/// Adds `backend`. InvalidArgument for a null name or implementation,
/// RegistrationAlreadyRegistered if the name is taken, OutOfResources when
/// the table is full.
[[nodiscard]] Error register_backend(const Backend& backend);

/// The backend registered under `name`, or null.
BackendInterface* get_backend_class(const char* name);

size_t get_num_registered_backends();

/// Tells every registered backend how many threads it may use
/// (BackendInterface::set_num_threads), and sizes the kernels' thread pool
/// to match (runtime/kernel/thread_pool.h): what an app or `kiln run
/// --threads` calls before loading a method, whichever backends are linked in.
void set_backend_threads(int num_threads);
/// The name of registered backend `index`; InvalidArgument when out of range.
Result<const char*> get_backend_name(size_t index);

}  // namespace kiln::runtime
