// FreeableBuffer: a span of read-only bytes plus how to release them.
//
// Data loaders hand out FreeableBuffers: a zero-copy view of a caller's buffer
// (nothing to free), a mapped file range (munmap) or a heap copy (free). The
// buffer is move-only and frees itself on destruction.
#pragma once

#include <cstddef>
#include <utility>

namespace kiln::runtime {

class FreeableBuffer final {
 public:
  /// Called once with the context, the data and the size given at construction.
  using FreeFn = void (*)(void* context, void* data, size_t size);

  FreeableBuffer() = default;
  /// `free_fn` may be null (the bytes are owned elsewhere and outlive the buffer).
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* free_fn_context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), free_fn_context_(free_fn_context) {}

  FreeableBuffer(FreeableBuffer&& other) noexcept
      : data_(other.data_), size_(other.size_), free_fn_(other.free_fn_), free_fn_context_(other.free_fn_context_) {
    other.forget();
  }
  FreeableBuffer& operator=(FreeableBuffer&& other) noexcept {
    if (this != &other) {
      Free();
      data_ = other.data_;
      size_ = other.size_;
      free_fn_ = other.free_fn_;
      free_fn_context_ = other.free_fn_context_;
      other.forget();
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { Free(); }

  /// Releases the bytes now; afterwards data() is null and size() is 0.
  void Free() {
    if (data_ != nullptr && free_fn_ != nullptr) free_fn_(free_fn_context_, const_cast<void*>(data_), size_);
    forget();
  }

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void forget() {
    data_ = nullptr;
    size_ = 0;
    free_fn_ = nullptr;
    free_fn_context_ = nullptr;
  }

  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* free_fn_context_ = nullptr;
};

}  // namespace kiln::runtime
