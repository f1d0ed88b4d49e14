// HostTensor: a tensor with data on the compiling machine — a weight in the
// state dict, a constant, or a value in the reference interpreter.
//
// Copies are shallow: copies share one Storage, as torch tensors do, so tied
// weights stay tied and a mutation written through one name is seen by all.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/error.h"
#include "runtime/core/scalar_type.h"

namespace kiln::aot {

using runtime::ScalarType;

/// A block of bytes and whatever keeps it alive (a vector, a mapped file, ...).
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  std::shared_ptr<void> owner;

  /// Zero-filled storage of `nbytes`, owned by itself.
  static std::shared_ptr<Storage> allocate(size_t nbytes);
};

class HostTensor {
 public:
  HostTensor() = default;
  /// A view of `storage` with explicit strides (in elements) and offset; throws
  /// AotError if the view reaches past the storage.
  HostTensor(ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t storage_offset,
             std::shared_ptr<Storage> storage);

  /// A new contiguous, zero-filled tensor.
  static HostTensor zeros(ScalarType dtype, const std::vector<int64_t>& sizes);
  /// A new contiguous tensor holding `values` (row-major); throws if the count
  /// does not match the sizes.
  template <typename T>
  static HostTensor from_vector(const std::vector<int64_t>& sizes, const std::vector<T>& values);

  bool defined() const { return storage_ != nullptr; }
  ScalarType dtype() const { return dtype_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  size_t rank() const { return sizes_.size(); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * runtime::element_size(dtype_); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  /// The first element's address.
  void* data() const;
  template <typename T>
  T* data() const { return static_cast<T*>(data()); }

  /// A deep, contiguous copy.
  HostTensor clone() const;
  /// Copies `source`'s elements into this tensor (same dtype and sizes, any
  /// strides); throws AotError on a mismatch.
  void copy_from(const HostTensor& source);
  /// The elements in row-major order, converted to double (for tests and checksums).
  std::vector<double> to_doubles() const;
  /// A complex tensor's parts as a Float or Double view of the same storage,
  /// with a trailing dim of 2 (real, imaginary), as torch.view_as_real; throws
  /// AotError for a tensor that is not complex.
  HostTensor view_as_real() const;

  /// "f32[2, 3]"
  std::string describe() const;

 private:
  ScalarType dtype_ = ScalarType::Float;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_ = 0;
  std::shared_ptr<Storage> storage_;
};

/// Row-major strides for `sizes`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

template <typename T>
HostTensor HostTensor::from_vector(const std::vector<int64_t>& sizes, const std::vector<T>& values) {
  HostTensor tensor = zeros(runtime::CppTypeToScalarType<T>::value, sizes);
  if (static_cast<size_t>(tensor.numel()) != values.size()) {
    throw AotError("HostTensor::from_vector: " + std::to_string(values.size()) +
                                " values for " + tensor.describe());
  }
  T* out = tensor.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace kiln::aot
