// MemoryAllocator: a bump allocator over a buffer the caller owns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace kiln::runtime {

/// Hands out aligned pieces of one caller-owned buffer, front to back. It
/// never frees single allocations; `reset()` releases everything at once.
/// Returns null when the buffer is exhausted or the request is malformed.
class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(void*);

  MemoryAllocator(uint32_t size, uint8_t* base) : base_(base), size_(size), used_(0) {}
  virtual ~MemoryAllocator() = default;

  /// `alignment` must be a power of two.
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || base_ == nullptr) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    const uintptr_t aligned = (start + alignment - 1) & ~(static_cast<uintptr_t>(alignment) - 1);
    const size_t padding = aligned - start;
    if (padding > size_ - used_ || size > size_ - used_ - padding) return nullptr;
    used_ += padding + size;
    return reinterpret_cast<void*>(aligned);
  }

  /// Uninitialized storage for one T.
  template <typename T>
  T* allocateInstance(size_t alignment = alignof(T)) {
    return static_cast<T*>(allocate(sizeof(T), alignment));
  }

  /// Uninitialized storage for `count` Ts; null if the byte count overflows.
  template <typename T>
  T* allocateList(size_t count, size_t alignment = alignof(T)) {
    if (count != 0 && sizeof(T) > SIZE_MAX / count) return nullptr;
    return static_cast<T*>(allocate(sizeof(T) * count, alignment));
  }

  virtual void reset() { used_ = 0; }
  size_t used_size() const { return used_; }
  size_t free_size() const { return size_ - used_; }
  size_t size() const { return size_; }
  uint8_t* base_address() const { return base_; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_;
};

}  // namespace kiln::runtime
