#include "aot/import/npz.h"

#include <cstring>

#include "aot/ir/error.h"
#include "runtime/module/logged_errors.h"

namespace kiln::aot {

namespace {

/// The value of a runtime call, or AotError with the lines it logged.
template <typename T>
T value_or_throw(runtime::Result<T> result) {
  if (!result.ok()) throw AotError(runtime::LoggedErrors::message("", result.error()));
  return std::move(result.get());
}

}  // namespace

HostTensor to_host_tensor(runtime::NpyArray array) {
  HostTensor tensor = HostTensor::zeros(array.dtype, array.sizes);
  if (tensor.nbytes() > 0) std::memcpy(tensor.data(), array.data.data(), tensor.nbytes());
  return tensor;
}

runtime::NpyArray to_array(const HostTensor& tensor) {
  const HostTensor dense = tensor.is_contiguous() ? tensor : tensor.clone();
  runtime::NpyArray array;
  array.dtype = dense.dtype();
  array.sizes = dense.sizes();
  const auto* bytes = static_cast<const uint8_t*>(dense.data());
  array.data.assign(bytes, bytes + dense.nbytes());
  return array;
}

std::vector<std::pair<std::string, HostTensor>> read_npz(const std::string& path) {
  runtime::LoggedErrors capture;
  std::vector<std::pair<std::string, HostTensor>> tensors;
  for (runtime::NamedArray& named : value_or_throw(runtime::read_npz(path))) {
    tensors.emplace_back(named.name, to_host_tensor(std::move(named.array)));
  }
  return tensors;
}

HostTensor parse_npy(const void* data, size_t size, const std::string& where) {
  runtime::LoggedErrors capture;
  return to_host_tensor(value_or_throw(runtime::parse_npy(data, size, where)));
}

std::string npy_bytes(const HostTensor& tensor) {
  runtime::LoggedErrors capture;
  const std::vector<uint8_t> bytes = value_or_throw(runtime::npy_bytes(to_array(tensor)));
  return std::string(bytes.begin(), bytes.end());
}

void write_npz(const std::string& path, const std::vector<std::pair<std::string, HostTensor>>& arrays) {
  runtime::LoggedErrors capture;
  std::vector<runtime::NamedArray> named;
  for (const auto& [name, tensor] : arrays) named.push_back({name, to_array(tensor)});
  const runtime::Error error = runtime::write_npz(path, named);
  if (error != runtime::Error::Ok) throw AotError(runtime::LoggedErrors::message("", error));
}

}  // namespace kiln::aot
