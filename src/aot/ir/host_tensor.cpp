#include "aot/ir/host_tensor.h"

#include <cstring>
#include <limits>
#include <type_traits>

#include "aot/ir/error.h"

namespace kiln::aot {

std::shared_ptr<Storage> Storage::allocate(size_t nbytes) {
  auto storage = std::make_shared<Storage>();
  // 64-byte alignment suits every dtype and vector loads.
  const size_t rounded = (nbytes + 63) / 64 * 64;
  void* memory = ::operator new(rounded == 0 ? 64 : rounded, std::align_val_t(64));
  std::memset(memory, 0, rounded == 0 ? 64 : rounded);
  storage->data = memory;
  storage->nbytes = nbytes;
  storage->owner = std::shared_ptr<void>(memory, [](void* p) { ::operator delete(p, std::align_val_t(64)); });
  return storage;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

HostTensor::HostTensor(ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       int64_t storage_offset, std::shared_ptr<Storage> storage)
    : dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      storage_(std::move(storage)) {
  if (!runtime::is_valid(dtype_) || runtime::element_size(dtype_) == 0) {
    throw AotError("tensor has invalid dtype code " + std::to_string(static_cast<int>(dtype_)));
  }
  if (sizes_.size() != strides_.size()) throw AotError("tensor has " + std::to_string(sizes_.size()) + " sizes but " + std::to_string(strides_.size()) + " strides");
  if (storage_ == nullptr) throw AotError("tensor has no storage");
  if (storage_offset_ < 0) throw AotError("tensor has negative storage offset");
  // The highest element reached, checked for overflow, must lie in storage.
  int64_t last = storage_offset_;
  bool empty = false;
  int64_t numel = 1;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (sizes_[i] < 0) throw AotError("tensor has negative size " + std::to_string(sizes_[i]));
    if (__builtin_mul_overflow(numel, sizes_[i], &numel)) throw AotError("tensor sizes overflow: " + describe());
    if (strides_[i] < 0) throw AotError("tensor has negative stride " + std::to_string(strides_[i]));
    if (sizes_[i] == 0) empty = true;
    int64_t reach;
    if (sizes_[i] > 0 && (__builtin_mul_overflow(sizes_[i] - 1, strides_[i], &reach) ||
                          __builtin_add_overflow(last, reach, &last))) {
      throw AotError("tensor sizes overflow: " + describe());
    }
  }
  const auto element = static_cast<int64_t>(runtime::element_size(dtype_));
  int64_t end_byte;
  if (!empty && (__builtin_add_overflow(last, 1, &end_byte) || __builtin_mul_overflow(end_byte, element, &end_byte) ||
                 static_cast<uint64_t>(end_byte) > storage_->nbytes)) {
    throw AotError("tensor " + describe() + " reaches past its storage of " + std::to_string(storage_->nbytes) +
                   " bytes");
  }
}

HostTensor HostTensor::zeros(ScalarType dtype, const std::vector<int64_t>& sizes) {
  int64_t numel = 1;
  for (int64_t size : sizes) {
    if (size < 0 || __builtin_mul_overflow(numel, size, &numel)) {
      throw AotError("cannot allocate a tensor of invalid sizes");
    }
  }
  size_t nbytes;
  if (__builtin_mul_overflow(static_cast<size_t>(numel), runtime::element_size(dtype), &nbytes)) {
    throw AotError("cannot allocate a tensor: byte size overflows");
  }
  return HostTensor(dtype, sizes, contiguous_strides(sizes), 0, Storage::allocate(nbytes));
}

int64_t HostTensor::numel() const {
  int64_t numel = 1;
  for (int64_t size : sizes_) numel *= size;
  return numel;
}

bool HostTensor::is_contiguous() const {
  if (numel() == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] != 1 && strides_[i] != expected) return false;
    expected *= sizes_[i];
  }
  return true;
}

void* HostTensor::data() const {
  if (storage_ == nullptr) return nullptr;
  return static_cast<uint8_t*>(storage_->data) + storage_offset_ * static_cast<int64_t>(runtime::element_size(dtype_));
}

namespace {

// Calls fn(element_offset) for each element in row-major order.
template <typename Fn>
void for_each_offset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, Fn&& fn) {
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  if (numel == 0) return;
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t n = 0; n < numel; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
    fn(offset);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

void HostTensor::copy_from(const HostTensor& source) {
  if (source.dtype_ != dtype_ || source.sizes_ != sizes_) {
    throw AotError("cannot copy " + source.describe() + " into " + describe());
  }
  const size_t element = runtime::element_size(dtype_);
  if (is_contiguous() && source.is_contiguous()) {
    std::memmove(data(), source.data(), nbytes());
    return;
  }
  std::vector<uint8_t> staged(nbytes());  // the source may overlap this tensor
  size_t i = 0;
  const auto* from = static_cast<const uint8_t*>(source.data());
  for_each_offset(source.sizes_, source.strides_, [&](int64_t offset) {
    std::memcpy(&staged[i++ * element], from + offset * static_cast<int64_t>(element), element);
  });
  i = 0;
  auto* to = static_cast<uint8_t*>(data());
  for_each_offset(sizes_, strides_, [&](int64_t offset) {
    std::memcpy(to + offset * static_cast<int64_t>(element), &staged[i++ * element], element);
  });
}

HostTensor HostTensor::clone() const {
  HostTensor copy = zeros(dtype_, sizes_);
  copy.copy_from(*this);
  return copy;
}

namespace {

template <typename T>
void read_as_doubles(const void* base, std::vector<double>& values) {
  // Half and BFloat16 convert through float; everything else directly.
  using Wide = std::conditional_t<std::is_class_v<T>, float, T>;
  const T* typed = static_cast<const T*>(base);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(static_cast<Wide>(typed[i]));
}

}  // namespace

std::vector<double> HostTensor::to_doubles() const {
  const HostTensor dense = is_contiguous() ? *this : clone();
  std::vector<double> values(static_cast<size_t>(numel()));
  switch (dtype_) {
#define KILN_CASE_(name, number, ctype, size, short_name)  \
  case ScalarType::name:                                   \
    if constexpr (!std::is_void_v<ctype>) {                \
      read_as_doubles<ctype>(dense.data(), values);        \
      return values;                                       \
    }                                                      \
    break;
    KILN_FORALL_SCALAR_TYPES(KILN_CASE_)
#undef KILN_CASE_
  }
  throw AotError(std::string("cannot read elements of dtype ") + runtime::to_string(dtype_));
}

HostTensor HostTensor::view_as_real() const {
  if (!runtime::is_complex_type(dtype_)) {
    throw AotError(std::string("view_as_real takes a complex tensor, got ") + runtime::to_string(dtype_));
  }
  const ScalarType part = dtype_ == ScalarType::ComplexDouble ? ScalarType::Double : ScalarType::Float;
  std::vector<int64_t> sizes = sizes_, strides;
  sizes.push_back(2);
  for (int64_t stride : strides_) strides.push_back(stride * 2);
  strides.push_back(1);
  return HostTensor(part, std::move(sizes), std::move(strides), storage_offset_ * 2, storage_);
}

std::string HostTensor::describe() const {
  std::string text = std::string(runtime::short_name(dtype_)) + "[";
  for (size_t i = 0; i < sizes_.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes_[i]);
  return text + "]";
}

}  // namespace kiln::aot
