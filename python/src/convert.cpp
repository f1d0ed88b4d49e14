// Python values to Kiln's and back, and Kiln's errors as Python exceptions.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <memory>

#include "aot/ir/error.h"
#include "bindings.h"
#include "host/host_error.h"

namespace kiln::python {

PyObject* g_kiln_error = nullptr;
PyObject* g_input_error = nullptr;

namespace {

using nb::dlpack::dtype_code;
using runtime::ScalarType;

struct DtypeEntry {
  ScalarType type;
  dtype_code code;
  uint8_t bits;
  const char* numpy;
};

// The dtypes a numpy array, a torch tensor or a DLPack capsule can hand Kiln.
constexpr DtypeEntry kDtypes[] = {
    {ScalarType::Byte, dtype_code::UInt, 8, "uint8"},
    {ScalarType::Char, dtype_code::Int, 8, "int8"},
    {ScalarType::Short, dtype_code::Int, 16, "int16"},
    {ScalarType::Int, dtype_code::Int, 32, "int32"},
    {ScalarType::Long, dtype_code::Int, 64, "int64"},
    {ScalarType::Half, dtype_code::Float, 16, "float16"},
    {ScalarType::Float, dtype_code::Float, 32, "float32"},
    {ScalarType::Double, dtype_code::Float, 64, "float64"},
    {ScalarType::ComplexFloat, dtype_code::Complex, 64, "complex64"},
    {ScalarType::ComplexDouble, dtype_code::Complex, 128, "complex128"},
    {ScalarType::Bool, dtype_code::Bool, 8, "bool"},
    {ScalarType::BFloat16, dtype_code::Bfloat, 16, "bfloat16"},
    {ScalarType::UInt16, dtype_code::UInt, 16, "uint16"},
    {ScalarType::UInt32, dtype_code::UInt, 32, "uint32"},
    {ScalarType::UInt64, dtype_code::UInt, 64, "uint64"},
};

const DtypeEntry* entry_of(ScalarType type) {
  for (const DtypeEntry& entry : kDtypes) {
    if (entry.type == type) return &entry;
  }
  return nullptr;
}

std::string describe_dlpack(const nb::dlpack::dtype& dtype) {
  for (const DtypeEntry& entry : kDtypes) {
    if (static_cast<uint8_t>(entry.code) == dtype.code && entry.bits == dtype.bits) return entry.numpy;
  }
  return "a dtype of DLPack code " + std::to_string(dtype.code) + " and " + std::to_string(dtype.bits) + " bits";
}

}  // namespace

ScalarType scalar_type_of(const nb::dlpack::dtype& dtype, const std::string& what) {
  for (const DtypeEntry& entry : kDtypes) {
    if (static_cast<uint8_t>(entry.code) == dtype.code && entry.bits == dtype.bits && dtype.lanes == 1) {
      return entry.type;
    }
  }
  throw InputError{what + " has " + describe_dlpack(dtype) + ", which Kiln has no tensors of"};
}

nb::dlpack::dtype dlpack_dtype_of(ScalarType type) {
  const DtypeEntry* entry = entry_of(type);
  if (entry == nullptr) {
    throw aot::AotError(std::string("a ") + runtime::to_string(type) + " tensor has no DLPack or numpy dtype");
  }
  nb::dlpack::dtype dtype;
  dtype.code = static_cast<uint8_t>(entry->code);
  dtype.bits = entry->bits;
  dtype.lanes = 1;
  return dtype;
}

const char* numpy_dtype_name(ScalarType type) {
  const DtypeEntry* entry = entry_of(type);
  return entry != nullptr ? entry->numpy : runtime::to_string(type);
}

nb::ndarray<nb::ro> as_cpu_array(nb::handle value, const std::string& what) {
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(value, array)) {
    // A tensor that requires grad refuses __dlpack__; for inference its data
    // is what counts (detach shares it).
    if (!nb::hasattr(value, "requires_grad") || !nb::hasattr(value, "detach") ||
        !nb::cast<bool>(value.attr("requires_grad")) || !nb::try_cast(value.attr("detach")(), array)) {
      return {};
    }
  }
  if (array.device_type() != nb::device::cpu::value) {
    throw InputError{what + " is on another device than the CPU (DLPack device type " +
                     std::to_string(array.device_type()) + "); Kiln runs on the CPU: pass it as tensor.cpu()"};
  }
  return array;
}

aot::HostTensor to_host_tensor(nb::handle value, const std::string& what) {
  if (PyBool_Check(value.ptr())) return aot::HostTensor::from_vector<bool>({}, {nb::cast<bool>(value)});
  if (PyLong_Check(value.ptr())) return aot::HostTensor::from_vector<int64_t>({}, {nb::cast<int64_t>(value)});
  if (PyFloat_Check(value.ptr())) return aot::HostTensor::from_vector<double>({}, {nb::cast<double>(value)});
  const nb::ndarray<nb::ro> array = as_cpu_array(value, what);
  if (!array.is_valid()) {
    throw InputError{what + " is a " + nb::inst_name(value).c_str() +
                     ", not an array (numpy, torch, any DLPack producer) or a number"};
  }
  const ScalarType dtype = scalar_type_of(array.dtype(), what);
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < array.ndim(); ++d) {
    sizes.push_back(static_cast<int64_t>(array.shape(d)));
    strides.push_back(array.stride(d));
  }
  // A view of the caller's memory (kept alive by the array while the copy is
  // made), then a contiguous copy of it.
  auto storage = std::make_shared<aot::Storage>();
  storage->data = const_cast<void*>(array.data());
  int64_t reach = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) reach = 0;
  }
  if (reach != 0) {
    for (size_t d = 0; d < sizes.size(); ++d) reach += (sizes[d] - 1) * (strides[d] < 0 ? 0 : strides[d]);
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0) throw InputError{what + " has a negative stride; pass a copy (numpy.ascontiguousarray)"};
  }
  storage->nbytes = static_cast<size_t>(reach) * runtime::element_size(dtype);
  const aot::HostTensor view(dtype, sizes, strides, 0, storage);
  aot::HostTensor copy = aot::HostTensor::zeros(dtype, sizes);
  copy.copy_from(view);
  return copy;
}

namespace {

/// A numpy array owning a copy of `tensor`'s bytes (laid out as in `tensor`).
nb::object numpy_copy(const aot::HostTensor& tensor) {
  aot::HostTensor host = tensor;
  if (host.dtype() == ScalarType::BFloat16) {
    // numpy has no bfloat16: the values exactly, as float32.
    const std::vector<double> values = host.to_doubles();
    host = aot::HostTensor::from_vector<float>(host.sizes(), std::vector<float>(values.begin(), values.end()));
  }
  if (!host.is_contiguous()) {
    aot::HostTensor dense = aot::HostTensor::zeros(host.dtype(), host.sizes());
    dense.copy_from(host);
    host = dense;
  }
  auto* bytes = new uint8_t[host.nbytes() == 0 ? 1 : host.nbytes()];
  if (host.nbytes() != 0) std::memcpy(bytes, host.data(), host.nbytes());
  nb::capsule owner(bytes, [](void* data) noexcept { delete[] static_cast<uint8_t*>(data); });
  std::vector<size_t> shape(host.sizes().begin(), host.sizes().end());
  nb::ndarray<nb::numpy> array(bytes, shape.size(), shape.data(), owner, nullptr, dlpack_dtype_of(host.dtype()));
  return array.cast();
}

}  // namespace

nb::object to_python(const aot::Value& value) {
  if (const auto* tensor = std::get_if<aot::HostTensor>(&value)) return numpy_copy(*tensor);
  if (const auto* number = std::get_if<int64_t>(&value)) return nb::int_(*number);
  if (const auto* number = std::get_if<double>(&value)) return nb::float_(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return nb::bool_(*flag);
  if (const auto* text = std::get_if<std::string>(&value)) return nb::str(text->c_str(), text->size());
  return nb::none();
}

void bind_errors(nb::module_& m) {
  // The classes are Python's (kiln/_errors.py), so that they are plain
  // classes to type checkers and pickle; the extension raises them.
  nb::module_ errors = nb::module_::import_("kiln._errors");
  g_kiln_error = errors.attr("KilnError").inc_ref().ptr();
  g_input_error = errors.attr("InputError").inc_ref().ptr();
  m.attr("KilnError") = nb::handle(g_kiln_error);
  m.attr("InputError") = nb::handle(g_input_error);
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const InputError& input) {
      PyErr_SetString(g_input_error, input.message.c_str());
    } catch (const HostError& kiln) {
      PyErr_SetString(g_kiln_error, kiln.what());
    }
  });
}

}  // namespace kiln::python
