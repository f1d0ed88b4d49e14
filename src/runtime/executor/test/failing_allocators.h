// Test double for the allocation-failure sweep and the no-allocation test:
// a MemoryAllocator that counts its allocations and can fail the i-th one
// (its DataLoader counterpart is failing_data_loader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/core/memory_allocator.h"

namespace kiln::runtime::testing {

inline constexpr size_t kNeverFail = SIZE_MAX;

/// A bump allocator over its own heap block that counts allocate() calls and
/// returns null for call number `fail_at` (counting from 0), and for that
/// call only. reset() is counted separately and does not reset the count.
class FailingAllocator final : public MemoryAllocator {
 public:
  explicit FailingAllocator(uint32_t size, size_t fail_at = kNeverFail)
      : FailingAllocator(size, std::make_unique<uint8_t[]>(size), fail_at) {}

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    const size_t call = calls_++;
    if (call == fail_at_) return nullptr;
    return MemoryAllocator::allocate(size, alignment);
  }
  void reset() override {
    ++resets_;
    MemoryAllocator::reset();
  }

  size_t calls() const { return calls_; }
  size_t resets() const { return resets_; }
  /// Forgets the calls so far (the block's contents and used size stay).
  void clear_counts() {
    calls_ = 0;
    resets_ = 0;
  }
  bool failed() const { return fail_at_ != kNeverFail && calls_ > fail_at_; }

 private:
  FailingAllocator(uint32_t size, std::unique_ptr<uint8_t[]> block, size_t fail_at)
      : MemoryAllocator(size, block.get()), block_(std::move(block)), fail_at_(fail_at) {}

  std::unique_ptr<uint8_t[]> block_;
  size_t fail_at_;
  size_t calls_ = 0;
  size_t resets_ = 0;
};

}  // namespace kiln::runtime::testing
