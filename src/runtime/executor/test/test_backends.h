// The runtime half of the AOT test backend EveryOtherBackend
// (aot/delegate/test/delegate_test_util.h), for the load sweeps: init takes
// its handle and a second block from the method allocator, as a real backend
// keeping state does, and the backend tracks which handles are live so a test
// can check that every initialised handle is destroyed exactly once — also
// when Method::load fails after some delegates were initialised. Its blob
// lists op names only, so execute refuses (NotSupported).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/backend/backend_interface.h"

namespace kiln::runtime::testing {

class HandleTrackingBackend final : public BackendInterface {
 public:
  static constexpr size_t kMaxLive = 256;

  bool is_available() const override { return true; }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec>) const override {
    MemoryAllocator* allocator = context.get_runtime_allocator();
    auto* handle = static_cast<Handle*>(allocator->allocate(sizeof(Handle), alignof(Handle)));
    if (handle == nullptr) return Error::DelegateMemoryAllocationFailed;
    handle->blob_size = processed->size();
    handle->state = allocator->allocate(64);
    if (handle->state == nullptr) return Error::DelegateMemoryAllocationFailed;
    if (live_count_ == kMaxLive) return Error::DelegateMemoryAllocationFailed;
    live_[live_count_++] = handle;
    ++inits_;
    return static_cast<DelegateHandle*>(handle);
  }

  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::NotSupported;
  }

  void destroy(DelegateHandle* handle) const override {
    ++destroys_;
    for (size_t i = 0; i < live_count_; ++i) {
      if (live_[i] == handle) {
        live_[i] = live_[--live_count_];
        return;
      }
    }
    ++unknown_destroys_;  // a handle never returned by init, or destroyed twice
  }

  size_t live() const { return live_count_; }
  size_t inits() const { return inits_; }
  size_t destroys() const { return destroys_; }
  size_t unknown_destroys() const { return unknown_destroys_; }
  void clear_counts() {
    inits_ = 0;
    destroys_ = 0;
    unknown_destroys_ = 0;
  }

 private:
  struct Handle {
    size_t blob_size;
    void* state;
  };
  mutable void* live_[kMaxLive] = {};
  mutable size_t live_count_ = 0;
  mutable size_t inits_ = 0;
  mutable size_t destroys_ = 0;
  mutable size_t unknown_destroys_ = 0;
};

/// The EveryOtherBackend runtime, registered on first use.
inline HandleTrackingBackend& every_other_backend() {
  static HandleTrackingBackend backend;
  static const Error registered = register_backend({"EveryOtherBackend", &backend});
  (void)registered;
  return backend;
}

}  // namespace kiln::runtime::testing
