// KernelRuntimeContext: what a kernel may use besides its arguments — a place
// to report failure (with a message naming the op and argument) and temporary
// memory that lives until the kernel returns.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"

namespace kiln::runtime {

class KernelRuntimeContext final {
 public:
  static constexpr size_t kMaxMessageLength = 256;

  explicit KernelRuntimeContext(MemoryAllocator* temp_allocator = nullptr) : temp_allocator_(temp_allocator) {}

  /// Marks the kernel as failed. Kernels return right after calling this.
  void fail(Error error) { failure_state_ = error; }

  /// Marks the kernel as failed with a printf-style message. The first
  /// failure's message is kept; formatting never allocates.
  void fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4))) {
    if (failure_state_ == Error::Ok) {
      va_list args;
      va_start(args, format);
      std::vsnprintf(message_, sizeof message_, format, args);
      va_end(args);
    }
    failure_state_ = error;
  }

  Error failure_state() const { return failure_state_; }
  /// The failure message, empty if none was given.
  const char* failure_message() const { return message_; }

  /// Temporary memory, released after the kernel returns; NotFound if the
  /// context has no temp allocator, MemoryAllocationFailed if it is full.
  Result<void*> allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    if (temp_allocator_ == nullptr) return Error::NotFound;
    void* memory = temp_allocator_->allocate(size, alignment);
    if (memory == nullptr) return Error::MemoryAllocationFailed;
    return memory;
  }

 private:
  MemoryAllocator* temp_allocator_;
  Error failure_state_ = Error::Ok;
  char message_[kMaxMessageLength] = {};
};

}  // namespace kiln::runtime

/// In a kernel: unless `cond` holds, fail the context with `error` and the
/// message, then return `retval` (leave it empty for void kernels).
#define KILN_KERNEL_CHECK_MSG(ctx, cond, error, retval, ...)           \
  do {                                                                 \
    if (!(cond)) {                                                     \
      (ctx).fail(::kiln::runtime::Error::error, __VA_ARGS__);          \
      return retval;                                                   \
    }                                                                  \
  } while (0)
