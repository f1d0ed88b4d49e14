// Counts the calls to the process's global allocator while a scope is open:
// operator new/delete in every form, and — in builds without
// AddressSanitizer, whose own malloc cannot be interposed again —
// malloc/calloc/realloc/aligned_alloc/posix_memalign/memalign too. Link
// global_allocation_counter.cpp into a test binary to use it (it replaces the
// global allocator of that whole binary). Single-threaded use only.
#pragma once

#include <cstddef>

namespace kiln::runtime::testing {

/// True when malloc and friends are counted too (not under ASan).
bool counts_malloc();

/// Counts allocations (not frees) made between construction and count().
class GlobalAllocationCounter final {
 public:
  GlobalAllocationCounter();
  ~GlobalAllocationCounter();
  GlobalAllocationCounter(const GlobalAllocationCounter&) = delete;
  GlobalAllocationCounter& operator=(const GlobalAllocationCounter&) = delete;

  /// operator new calls so far.
  size_t news() const;
  /// malloc-family calls so far (0 when !counts_malloc()).
  size_t mallocs() const;
  /// news() + mallocs().
  size_t count() const { return news() + mallocs(); }
};

}  // namespace kiln::runtime::testing
