// EValue: the boxed value that flows between instructions, as in ExecuTorch.
//
// An EValue is a tagged union of none, int, double, bool, string, tensor and
// lists of those. Like TensorImpl it owns nothing: strings and lists point into
// memory owned by whoever built the value.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "runtime/core/assert.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::runtime {

/// The kinds of value, in ExecuTorch's order (not the .pte union's order).
enum class Tag : uint32_t {
  None,
  Tensor,
  String,
  Double,
  Int,
  Bool,
  ListBool,
  ListDouble,
  ListInt,
  ListTensor,
  ListScalar,
  ListOptionalTensor,
};

const char* to_string(Tag tag);

class EValue;

/// A list whose elements live in other EValues (so that a symbolic int or a
/// tensor produced at run time is seen by every list holding it). `get()`
/// refreshes the unwrapped copy from the boxed values and returns it.
template <typename T>
class BoxedEvalueList final {
 public:
  BoxedEvalueList() = default;
  /// `wrapped` and `unwrapped` each have `size` elements, owned by the caller.
  BoxedEvalueList(EValue* const* wrapped, T* unwrapped, size_t size)
      : wrapped_(wrapped), unwrapped_(unwrapped), size_(size) {}

  Span<const T> get() const;
  size_t size() const { return size_; }
  /// True if every boxed value is present and of T's kind (so get() cannot
  /// fail); kernels check this before reading a list built from a program.
  bool is_well_formed() const;

 private:
  EValue* const* wrapped_ = nullptr;
  T* unwrapped_ = nullptr;
  size_t size_ = 0;
};

class EValue final {
 public:
  EValue() : tag_(Tag::None) { payload_.as_int = 0; }
  explicit EValue(int64_t value) : tag_(Tag::Int) { payload_.as_int = value; }
  explicit EValue(double value) : tag_(Tag::Double) { payload_.as_double = value; }
  explicit EValue(bool value) : tag_(Tag::Bool) { payload_.as_bool = value; }
  explicit EValue(Tensor value) : tag_(Tag::Tensor) { payload_.as_tensor = value; }
  /// A string of `size` chars (not null-terminated).
  EValue(const char* data, size_t size) : tag_(Tag::String) { payload_.as_string = {data, size}; }
  explicit EValue(Span<const bool> value) : tag_(Tag::ListBool) { payload_.as_bool_list = {value.data(), value.size()}; }
  explicit EValue(Span<const double> value) : tag_(Tag::ListDouble) {
    payload_.as_double_list = {value.data(), value.size()};
  }
  explicit EValue(BoxedEvalueList<int64_t>* value) : tag_(Tag::ListInt) { payload_.as_int_list = value; }
  explicit EValue(BoxedEvalueList<Tensor>* value) : tag_(Tag::ListTensor) { payload_.as_tensor_list = value; }
  explicit EValue(BoxedEvalueList<std::optional<Tensor>>* value) : tag_(Tag::ListOptionalTensor) {
    payload_.as_optional_tensor_list = value;
  }
  /// Any other pointer (e.g. a `const char*` meant as a string) would silently
  /// become a Bool.
  template <typename T>
  EValue(T*) = delete;

  Tag tag() const { return tag_; }
  bool isNone() const { return tag_ == Tag::None; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isString() const { return tag_ == Tag::String; }
  bool isIntList() const { return tag_ == Tag::ListInt; }
  bool isDoubleList() const { return tag_ == Tag::ListDouble; }
  bool isBoolList() const { return tag_ == Tag::ListBool; }
  bool isTensorList() const { return tag_ == Tag::ListTensor; }
  bool isListOptionalTensor() const { return tag_ == Tag::ListOptionalTensor; }
  /// Int, Double or Bool: what a schema's `Scalar` accepts.
  bool isScalar() const { return isInt() || isDouble() || isBool(); }

  // Accessors abort on a tag mismatch: callers check the tag first (kernels
  // report a mismatch through their context).
  int64_t toInt() const { return checked(Tag::Int).as_int; }
  double toDouble() const { return checked(Tag::Double).as_double; }
  bool toBool() const { return checked(Tag::Bool).as_bool; }
  Tensor toTensor() const { return checked(Tag::Tensor).as_tensor; }
  Span<const char> toString() const {
    const auto& s = checked(Tag::String).as_string;
    return {s.data, s.size};
  }
  Span<const bool> toBoolList() const {
    const auto& l = checked(Tag::ListBool).as_bool_list;
    return {l.data, l.size};
  }
  Span<const double> toDoubleList() const {
    const auto& l = checked(Tag::ListDouble).as_double_list;
    return {l.data, l.size};
  }
  Span<const int64_t> toIntList() const { return checked(Tag::ListInt).as_int_list->get(); }
  /// A list whose every element has the right kind (see BoxedEvalueList::is_well_formed).
  bool isWellFormedList() const {
    switch (tag_) {
      case Tag::ListInt: return payload_.as_int_list->is_well_formed();
      case Tag::ListTensor: return payload_.as_tensor_list->is_well_formed();
      case Tag::ListOptionalTensor: return payload_.as_optional_tensor_list->is_well_formed();
      default: return false;
    }
  }
  Span<const Tensor> toTensorList() const { return checked(Tag::ListTensor).as_tensor_list->get(); }
  Span<const std::optional<Tensor>> toListOptionalTensor() const {
    return checked(Tag::ListOptionalTensor).as_optional_tensor_list->get();
  }
  /// None or a tensor.
  std::optional<Tensor> toOptionalTensor() const {
    if (isNone()) return std::nullopt;
    return toTensor();
  }
  /// A Scalar as double (Int, Double or Bool).
  double toScalarAsDouble() const {
    KILN_CHECK(isScalar());
    return isDouble() ? payload_.as_double : isInt() ? static_cast<double>(payload_.as_int) : payload_.as_bool;
  }

 private:
  template <typename T>
  struct ArrayView {
    const T* data;
    size_t size;
  };
  union Payload {
    int64_t as_int;
    double as_double;
    bool as_bool;
    ArrayView<char> as_string;
    ArrayView<bool> as_bool_list;
    ArrayView<double> as_double_list;
    BoxedEvalueList<int64_t>* as_int_list;
    BoxedEvalueList<Tensor>* as_tensor_list;
    BoxedEvalueList<std::optional<Tensor>>* as_optional_tensor_list;
    Tensor as_tensor;
    Payload() : as_int(0) {}
  };

  const Payload& checked(Tag expected) const {
    KILN_CHECK(tag_ == expected);
    return payload_;
  }

  Payload payload_;
  Tag tag_;
};

namespace internal {
template <typename T>
T unbox(const EValue& value);
template <>
inline int64_t unbox<int64_t>(const EValue& value) { return value.toInt(); }
template <>
inline Tensor unbox<Tensor>(const EValue& value) { return value.toTensor(); }
template <>
inline std::optional<Tensor> unbox<std::optional<Tensor>>(const EValue& value) {
  return value.toOptionalTensor();
}
}  // namespace internal

template <typename T>
bool BoxedEvalueList<T>::is_well_formed() const {
  for (size_t i = 0; i < size_; ++i) {
    const EValue* value = wrapped_[i];
    if (value == nullptr) return false;
    if constexpr (std::is_same_v<T, int64_t>) {
      if (!value->isInt()) return false;
    } else if constexpr (std::is_same_v<T, Tensor>) {
      if (!value->isTensor()) return false;
    } else {
      if (!value->isTensor() && !value->isNone()) return false;
    }
  }
  return true;
}

template <typename T>
Span<const T> BoxedEvalueList<T>::get() const {
  for (size_t i = 0; i < size_; ++i) {
    KILN_CHECK(wrapped_[i] != nullptr);
    unwrapped_[i] = internal::unbox<T>(*wrapped_[i]);
  }
  return {unwrapped_, size_};
}

}  // namespace kiln::runtime
