// MemoryManager: the three kinds of memory a method uses, all the caller's.
//
// - method allocator: everything Method::load builds (values, tensor
//   metadata, instruction arguments, delegate handles); lives with the method.
// - planned memory: the arenas of the memory plan (MethodMeta gives their
//   sizes); every planned tensor's bytes are here.
// - temp allocator: scratch for one kernel or delegate call, reset after each
//   instruction. May be null when no kernel asks for scratch.
#pragma once

#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/memory_allocator.h"

namespace kiln::runtime {

class MemoryManager final {
 public:
  /// `method_allocator` is required and must differ from `temp_allocator`.
  explicit MemoryManager(MemoryAllocator* method_allocator, HierarchicalAllocator* planned_memory = nullptr,
                         MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator), planned_memory_(planned_memory), temp_allocator_(temp_allocator) {}

  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace kiln::runtime
