// The replacement global allocator behind GlobalAllocationCounter: every
// operator new, and (without ASan) every malloc-family call, bumps a counter
// while a counter is open, then does what the C library would.
#include "runtime/executor/test/global_allocation_counter.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_HAS_ASAN 1
#endif
#endif

#if !defined(KILN_TEST_HAS_ASAN)
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}
#endif

namespace {

// The C library's allocator, bypassing the counting malloc below (so that
// one operator new counts once).
void* raw_malloc(size_t size) {
#if defined(KILN_TEST_HAS_ASAN)
  return std::malloc(size);
#else
  return __libc_malloc(size);
#endif
}

void* raw_memalign(size_t alignment, size_t size) {
#if defined(KILN_TEST_HAS_ASAN)
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
#else
  return __libc_memalign(alignment, size);
#endif
}

std::atomic<int> g_open{0};
std::atomic<size_t> g_news{0};
std::atomic<size_t> g_mallocs{0};

void note_new() {
  if (g_open.load(std::memory_order_relaxed) > 0) g_news.fetch_add(1, std::memory_order_relaxed);
}

[[maybe_unused]] void note_malloc() {
  if (g_open.load(std::memory_order_relaxed) > 0) g_mallocs.fetch_add(1, std::memory_order_relaxed);
}

void* allocate_or_throw(size_t size) {
  note_new();
  void* p = raw_malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* allocate_aligned_or_throw(size_t size, std::align_val_t alignment) {
  note_new();
  void* p = raw_memalign(static_cast<size_t>(alignment), size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

namespace kiln::runtime::testing {

#if defined(KILN_TEST_HAS_ASAN)
bool counts_malloc() { return false; }
#else
bool counts_malloc() { return true; }
#endif

GlobalAllocationCounter::GlobalAllocationCounter() {
  g_news = 0;
  g_mallocs = 0;
  g_open.fetch_add(1);
}
GlobalAllocationCounter::~GlobalAllocationCounter() { g_open.fetch_sub(1); }
size_t GlobalAllocationCounter::news() const { return g_news.load(); }
size_t GlobalAllocationCounter::mallocs() const { return g_mallocs.load(); }

}  // namespace kiln::runtime::testing

// ---- operator new/delete ----

void* operator new(size_t size) { return allocate_or_throw(size); }
void* operator new[](size_t size) { return allocate_or_throw(size); }
void* operator new(size_t size, std::align_val_t alignment) { return allocate_aligned_or_throw(size, alignment); }
void* operator new[](size_t size, std::align_val_t alignment) { return allocate_aligned_or_throw(size, alignment); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate_or_throw(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate_or_throw(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

// ---- malloc and friends (glibc's implementations under their __libc_ names) ----

#if !defined(KILN_TEST_HAS_ASAN)
extern "C" {
void* malloc(size_t size) {
  note_malloc();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  note_malloc();
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  note_malloc();
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  note_malloc();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  note_malloc();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  note_malloc();
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}
#endif
