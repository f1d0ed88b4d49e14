// Span<T>: a non-owning view of a contiguous array.
#pragma once

#include <cstddef>

#include "runtime/core/assert.h"

namespace kiln::runtime {

template <typename T>
class Span final {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT

  /// A Span of T converts to a Span of const T.
  template <typename U, typename = decltype(static_cast<T*>(static_cast<U*>(nullptr)))>
  constexpr Span(Span<U> other) : data_(other.data()), size_(other.size()) {}  // NOLINT

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

  /// Bounds-checked: an index past the end is an internal bug.
  T& operator[](size_t i) const {
    KILN_CHECK(i < size_);
    return data_[i];
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln::runtime
