// MallocMemoryAllocator: a MemoryAllocator whose every allocation is its own
// malloc'd block, all freed on reset() and at destruction. For the Module
// convenience class and for tools, which size nothing in advance; the core
// runtime never uses it (its memory comes from the caller).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <vector>

#include "runtime/core/memory_allocator.h"

namespace kiln::runtime {

class MallocMemoryAllocator final : public MemoryAllocator {
 public:
  MallocMemoryAllocator() : MemoryAllocator(0, nullptr) {}
  ~MallocMemoryAllocator() override { reset(); }
  MallocMemoryAllocator(const MallocMemoryAllocator&) = delete;
  MallocMemoryAllocator& operator=(const MallocMemoryAllocator&) = delete;

  /// A fresh block of `size` bytes aligned to `alignment` (a power of two);
  /// null for a bad alignment or when malloc fails.
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
    if (alignment < sizeof(void*)) alignment = sizeof(void*);  // posix_memalign's minimum
    void* block = nullptr;
    if (posix_memalign(&block, alignment, size == 0 ? 1 : size) != 0) return nullptr;
    blocks_.push_back(block);
    allocated_bytes_ += size;
    return block;
  }

  /// Frees every block.
  void reset() override {
    for (void* block : blocks_) std::free(block);
    blocks_.clear();
    allocated_bytes_ = 0;
  }

  /// Blocks and bytes handed out since the last reset.
  size_t num_allocations() const { return blocks_.size(); }
  size_t allocated_bytes() const { return allocated_bytes_; }

 private:
  std::vector<void*> blocks_;
  size_t allocated_bytes_ = 0;
};

}  // namespace kiln::runtime
