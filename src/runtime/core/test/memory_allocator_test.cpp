#include "runtime/core/memory_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace kiln::runtime {
namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// A buffer whose first byte sits at a known alignment (64) so that padding
// can be predicted exactly.
struct Buffer {
  alignas(64) uint8_t bytes[256];
};

TEST(MemoryAllocatorTest, StartsEmpty) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  EXPECT_EQ(allocator.size(), 256u);
  EXPECT_EQ(allocator.used_size(), 0u);
  EXPECT_EQ(allocator.free_size(), 256u);
  EXPECT_EQ(allocator.base_address(), buffer.bytes);
}

TEST(MemoryAllocatorTest, HandsOutPiecesFrontToBack) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  void* first = allocator.allocate(16);
  void* second = allocator.allocate(16);
  EXPECT_EQ(first, buffer.bytes);
  EXPECT_EQ(second, buffer.bytes + 16);
  EXPECT_EQ(allocator.used_size(), 32u);
  EXPECT_EQ(allocator.free_size(), 224u);
}

TEST(MemoryAllocatorTest, DefaultAlignmentIsPointerAlignment) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  ASSERT_NE(allocator.allocate(1), nullptr);
  void* next = allocator.allocate(1);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(address(next) % MemoryAllocator::kDefaultAlignment, 0u);
  EXPECT_EQ(next, buffer.bytes + MemoryAllocator::kDefaultAlignment);
}

TEST(MemoryAllocatorTest, AlignsAndCountsThePadding) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  ASSERT_EQ(allocator.allocate(3, 1), buffer.bytes);
  void* aligned = allocator.allocate(8, 32);
  EXPECT_EQ(aligned, buffer.bytes + 32);
  EXPECT_EQ(address(aligned) % 32, 0u);
  EXPECT_EQ(allocator.used_size(), 40u);  // 3 + 29 padding + 8

  for (size_t alignment : {1u, 2u, 4u, 8u, 16u, 64u}) {
    void* p = allocator.allocate(1, alignment);
    ASSERT_NE(p, nullptr) << alignment;
    EXPECT_EQ(address(p) % alignment, 0u) << alignment;
  }
}

TEST(MemoryAllocatorTest, AlignsAnUnalignedBase) {
  Buffer buffer;
  MemoryAllocator allocator(100, buffer.bytes + 1);
  void* p = allocator.allocate(4, 16);
  EXPECT_EQ(p, buffer.bytes + 16);
  EXPECT_EQ(allocator.used_size(), 19u);  // 15 padding + 4
}

TEST(MemoryAllocatorTest, RejectsAlignmentThatIsNotAPowerOfTwo) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  EXPECT_EQ(allocator.allocate(8, 0), nullptr);
  EXPECT_EQ(allocator.allocate(8, 3), nullptr);
  EXPECT_EQ(allocator.allocate(8, 12), nullptr);
  EXPECT_EQ(allocator.allocate(8, 48), nullptr);
  EXPECT_EQ(allocator.used_size(), 0u);
}

TEST(MemoryAllocatorTest, ExhaustionReturnsNullAndChangesNothing) {
  Buffer buffer;
  MemoryAllocator allocator(64, buffer.bytes);
  EXPECT_EQ(allocator.allocate(65, 1), nullptr);
  EXPECT_EQ(allocator.used_size(), 0u);
  ASSERT_NE(allocator.allocate(60, 1), nullptr);
  EXPECT_EQ(allocator.allocate(5, 1), nullptr);
  EXPECT_EQ(allocator.used_size(), 60u);
  // Fits by size but not once aligned: 60 -> 64 leaves nothing.
  EXPECT_EQ(allocator.allocate(1, 8), nullptr);
  EXPECT_EQ(allocator.used_size(), 60u);
  EXPECT_NE(allocator.allocate(4, 1), nullptr);
  EXPECT_EQ(allocator.free_size(), 0u);
  EXPECT_EQ(allocator.allocate(1, 1), nullptr);
  EXPECT_EQ(allocator.allocate(SIZE_MAX, 1), nullptr);
}

TEST(MemoryAllocatorTest, ExactFitSucceeds) {
  Buffer buffer;
  MemoryAllocator allocator(64, buffer.bytes);
  EXPECT_EQ(allocator.allocate(64, 64), buffer.bytes);
  EXPECT_EQ(allocator.free_size(), 0u);
}

TEST(MemoryAllocatorTest, ZeroSizedAllocationsSucceed) {
  Buffer buffer;
  MemoryAllocator allocator(8, buffer.bytes);
  ASSERT_NE(allocator.allocate(8, 1), nullptr);
  EXPECT_EQ(allocator.allocate(0, 1), buffer.bytes + 8);
}

TEST(MemoryAllocatorTest, NullBaseAllocatesNothing) {
  MemoryAllocator allocator(0, nullptr);
  EXPECT_EQ(allocator.allocate(0), nullptr);
  EXPECT_EQ(allocator.allocate(1), nullptr);
  MemoryAllocator sized_but_null(128, nullptr);
  EXPECT_EQ(sized_but_null.allocate(8), nullptr);
}

TEST(MemoryAllocatorTest, ResetReleasesEverything) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  ASSERT_NE(allocator.allocate(200), nullptr);
  EXPECT_EQ(allocator.allocate(100), nullptr);
  allocator.reset();
  EXPECT_EQ(allocator.used_size(), 0u);
  EXPECT_EQ(allocator.free_size(), 256u);
  EXPECT_EQ(allocator.allocate(100), buffer.bytes);
}

struct alignas(16) Vec4 {
  float x, y, z, w;
};

TEST(MemoryAllocatorTest, AllocateInstanceUsesTheTypesAlignment) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  ASSERT_NE(allocator.allocate(1, 1), nullptr);
  Vec4* v = allocator.allocateInstance<Vec4>();
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(address(v) % alignof(Vec4), 0u);
  EXPECT_EQ(reinterpret_cast<uint8_t*>(v), buffer.bytes + 16);
  EXPECT_EQ(allocator.used_size(), 32u);
}

TEST(MemoryAllocatorTest, AllocateList) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  int32_t* list = allocator.allocateList<int32_t>(10);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(allocator.used_size(), 40u);
  for (int i = 0; i < 10; ++i) list[i] = i;  // the memory is usable
  EXPECT_EQ(allocator.allocateList<int64_t>(100), nullptr);  // 800 bytes: too big
  EXPECT_EQ(allocator.used_size(), 40u);
  EXPECT_NE(allocator.allocateList<int64_t>(0), nullptr);
}

TEST(MemoryAllocatorTest, AllocateListRejectsAByteCountThatOverflows) {
  Buffer buffer;
  MemoryAllocator allocator(sizeof buffer.bytes, buffer.bytes);
  // SIZE_MAX / 4 + 1 int32s would wrap around to a tiny byte count.
  EXPECT_EQ(allocator.allocateList<int32_t>(SIZE_MAX / 4 + 1), nullptr);
  EXPECT_EQ(allocator.allocateList<Vec4>(SIZE_MAX / 8), nullptr);
  EXPECT_EQ(allocator.used_size(), 0u);
}

// Subclasses may observe allocations (the virtual interface is the point).
class CountingAllocator : public MemoryAllocator {
 public:
  using MemoryAllocator::MemoryAllocator;
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    ++calls;
    return MemoryAllocator::allocate(size, alignment);
  }
  void reset() override {
    ++resets;
    MemoryAllocator::reset();
  }
  int calls = 0;
  int resets = 0;
};

TEST(MemoryAllocatorTest, TemplatedHelpersGoThroughTheVirtualAllocate) {
  Buffer buffer;
  CountingAllocator counting(sizeof buffer.bytes, buffer.bytes);
  MemoryAllocator& allocator = counting;
  (void)allocator.allocateInstance<int>();
  (void)allocator.allocateList<double>(2);
  allocator.reset();
  EXPECT_EQ(counting.calls, 2);
  EXPECT_EQ(counting.resets, 1);
}

}  // namespace
}  // namespace kiln::runtime
