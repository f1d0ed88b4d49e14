// Result<T>: a value or the Error that prevented it.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/assert.h"
#include "runtime/core/error.h"

namespace kiln::runtime {

/// Holds either a T or a non-Ok Error. Move-only, no default constructor.
/// Building a Result from `Error::Ok` is a misuse and yields `Error::Internal`.
template <typename T>
class [[nodiscard]] Result final {
 public:
  Result(Error error)  // NOLINT(google-explicit-constructor)
      : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {}
  Result(T&& value)  // NOLINT(google-explicit-constructor)
      : value_(std::move(value)), error_(Error::Ok), has_value_(true) {}
  Result(const T& value)  // NOLINT(google-explicit-constructor)
      : value_(value), error_(Error::Ok), has_value_(true) {}

  Result(Result&& other) noexcept : error_(other.error_), has_value_(other.has_value_) {
    if (has_value_) new (&value_) T(std::move(other.value_));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  ~Result() {
    if (has_value_) value_.~T();
  }

  bool ok() const { return has_value_; }
  Error error() const { return error_; }

  /// The value; aborts if there is none (check `ok()` first).
  T& get() {
    KILN_CHECK(has_value_);
    return value_;
  }
  const T& get() const {
    KILN_CHECK(has_value_);
    return value_;
  }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  union {
    T value_;
  };
  Error error_;
  bool has_value_;
};

}  // namespace kiln::runtime

/// Returns the error of `expr` (an Error) from the enclosing function if it is
/// not Ok.
#define KILN_TRY(expr)                                   \
  do {                                                   \
    ::kiln::runtime::Error kiln_try_error_ = (expr);     \
    if (kiln_try_error_ != ::kiln::runtime::Error::Ok) { \
      return kiln_try_error_;                            \
    }                                                    \
  } while (0)

#define KILN_CONCAT_INNER_(a, b) a##b
#define KILN_CONCAT_(a, b) KILN_CONCAT_INNER_(a, b)

/// `KILN_ASSIGN_OR_RETURN(auto x, f());` declares `x` from a Result, or returns
/// its error from the enclosing function.
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL_(KILN_CONCAT_(kiln_result_, __LINE__), lhs, expr)
#define KILN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) {                                  \
    return tmp.error();                             \
  }                                                 \
  lhs = std::move(tmp.get())

