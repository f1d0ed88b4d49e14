#include "kernels/portable/util/kernel_args.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>

namespace kiln::kernels::portable::util {

namespace {

// "'name'", or "'name'[element]" for an element of a list argument.
void describe(const char* name, long element, char* buffer, size_t size) {
  if (element < 0) {
    std::snprintf(buffer, size, "'%s'", name);
  } else {
    std::snprintf(buffer, size, "'%s'[%ld]", name, element);
  }
}

}  // namespace

bool KernelArgs::check_count(size_t num_schema_args) {
  // The return slot comes after the schema's arguments.
  if (args_.size() != num_schema_args + 1) {
    fail(Error::InvalidArgument, "'args' has %zu values, expected %zu (%zu arguments and the return slot)",
         args_.size(), num_schema_args + 1, num_schema_args);
    return false;
  }
  for (size_t i = 0; i < args_.size(); ++i) {
    if (args_[i] == nullptr) {
      fail(Error::InvalidArgument, "'args' value %zu is null", i);
      return false;
    }
  }
  return true;
}

bool KernelArgs::check_tag(size_t index, const char* name, bool ok, const char* expected) {
  if (!ok) fail(Error::InvalidArgument, "'%s' must be %s, got %s", name, expected, runtime::to_string(at(index).tag()));
  return ok;
}

bool KernelArgs::check_tensor(const Tensor& t, const char* name, long element) {
  char which[96];
  describe(name, element, which, sizeof which);
  if (t.unsafeGetTensorImpl() == nullptr) {
    fail(Error::InvalidArgument, "%s is a null tensor", which);
    return false;
  }
  if (static_cast<size_t>(t.dim()) > kMaxDims) {
    fail(Error::NotSupported, "%s has %zd dims, at most %zu are supported", which, t.dim(), kMaxDims);
    return false;
  }
  if (t.numel() > 0 && t.const_data_ptr() == nullptr) {
    fail(Error::InvalidArgument, "%s has no data", which);
    return false;
  }
  return true;
}

bool KernelArgs::tensor(size_t index, const char* name, Tensor* out) {
  if (!check_tag(index, name, at(index).isTensor(), "a Tensor")) return false;
  const Tensor t = at(index).toTensor();
  if (!check_tensor(t, name, -1)) return false;
  *out = t;
  return true;
}

bool KernelArgs::tensor_list(size_t index, const char* name, Span<const Tensor>* out) {
  if (!check_tag(index, name, at(index).isTensorList(), "a Tensor list")) return false;
  if (!at(index).isWellFormedList()) {
    fail(Error::InvalidArgument, "'%s' holds an element that is not a Tensor", name);
    return false;
  }
  const Span<const Tensor> list = at(index).toTensorList();
  for (size_t i = 0; i < list.size(); ++i) {
    if (!check_tensor(list[i], name, static_cast<long>(i))) return false;
  }
  *out = list;
  return true;
}

bool KernelArgs::optional_tensor_list(size_t index, const char* name, Span<const std::optional<Tensor>>* out) {
  if (!check_tag(index, name, at(index).isListOptionalTensor(), "a list of optional Tensors")) return false;
  if (!at(index).isWellFormedList()) {
    fail(Error::InvalidArgument, "'%s' holds an element that is neither a Tensor nor None", name);
    return false;
  }
  const Span<const std::optional<Tensor>> list = at(index).toListOptionalTensor();
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].has_value() && !check_tensor(*list[i], name, static_cast<long>(i))) return false;
  }
  *out = list;
  return true;
}

bool KernelArgs::optional_tensor(size_t index, const char* name, std::optional<Tensor>* out) {
  if (at(index).isNone()) {
    *out = std::nullopt;
    return true;
  }
  if (!check_tag(index, name, at(index).isTensor(), "a Tensor or None")) return false;
  Tensor t;
  if (!tensor(index, name, &t)) return false;
  *out = t;
  return true;
}

bool KernelArgs::int_list(size_t index, const char* name, Span<const int64_t>* out) {
  if (!check_tag(index, name, at(index).isIntList(), "an int list")) return false;
  if (!at(index).isWellFormedList()) {
    fail(Error::InvalidArgument, "'%s' holds an element that is not an Int", name);
    return false;
  }
  *out = at(index).toIntList();
  return true;
}

bool KernelArgs::integer(size_t index, const char* name, int64_t* out) {
  if (!check_tag(index, name, at(index).isInt(), "an Int")) return false;
  *out = at(index).toInt();
  return true;
}

bool KernelArgs::boolean(size_t index, const char* name, bool* out) {
  if (!check_tag(index, name, at(index).isBool(), "a Bool")) return false;
  *out = at(index).toBool();
  return true;
}

bool KernelArgs::floating(size_t index, const char* name, double* out) {
  if (!check_tag(index, name, at(index).isDouble() || at(index).isInt(), "a Double")) return false;
  *out = at(index).toScalarAsDouble();
  return true;
}

bool KernelArgs::scalar(size_t index, const char* name, const EValue** out) {
  if (!check_tag(index, name, at(index).isScalar(), "a Scalar (Int, Double or Bool)")) return false;
  *out = &at(index);
  return true;
}

bool KernelArgs::string(size_t index, const char* name, Span<const char>* out) {
  if (!check_tag(index, name, at(index).isString(), "a String")) return false;
  *out = at(index).toString();
  return true;
}

bool KernelArgs::wrap_dim(int64_t dim, size_t rank, const char* name, size_t* out) {
  const auto r = static_cast<int64_t>(rank > 0 ? rank : 1);
  if (dim < -r || dim >= r) {
    fail(Error::InvalidArgument, "'%s' %lld is out of range for %zu dims", name, static_cast<long long>(dim), rank);
    return false;
  }
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return true;
}

bool KernelArgs::check_dtype(const Tensor& t, const char* name, ScalarType expected) {
  if (t.scalar_type() == expected) return true;
  fail(Error::InvalidArgument, "'%s' has dtype %s, expected %s", name, runtime::to_string(t.scalar_type()),
       runtime::to_string(expected));
  return false;
}

bool KernelArgs::check_valid_dtype(const Tensor& t, const char* name) {
  if (runtime::is_valid(t.scalar_type())) return true;
  fail(Error::InvalidArgument, "'%s' has an invalid dtype (%d)", name, static_cast<int>(t.scalar_type()));
  return false;
}

bool KernelArgs::check_contiguous(const Tensor& t, const char* name) {
  if (runtime::is_contiguous_dim_order(t.dim_order())) return true;
  fail(Error::NotSupported, "'%s' must be in contiguous dim order (other layouts are not supported)", name);
  return false;
}

bool KernelArgs::resize_out_to_size(const Tensor& out, const char* name, Span<const int64_t> size) {
  if (size.size() > kMaxDims) {
    fail(Error::NotSupported, "'%s' has %zu dims, at most %zu are supported", name, size.size(), kMaxDims);
    return false;
  }
  SizesType shape[kMaxDims];
  int64_t numel = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || size[d] > INT32_MAX || __builtin_mul_overflow(numel, size[d], &numel)) {
      fail(Error::InvalidArgument, "'%s'[%zu] (%lld) is negative or too large", name, d, static_cast<long long>(size[d]));
      return false;
    }
    shape[d] = static_cast<SizesType>(size[d]);
  }
  return resize_out(out, "out", {shape, size.size()});
}

bool KernelArgs::resize_out(const Tensor& out, const char* name, Span<const SizesType> sizes, long element) {
  char which[96];
  describe(name, element, which, sizeof which);
  const Error error = runtime::resize_tensor(out, sizes);
  if (error == Error::Ok) {
    // A dynamic tensor may have grown from empty without its data being set.
    if (out.numel() > 0 && out.mutable_data_ptr() == nullptr) {
      fail(Error::InvalidArgument, "%s has no data for its %zd elements", which, out.numel());
      return false;
    }
    return true;
  }
  char have[96];
  char want[96];
  format_sizes(out.sizes(), have, sizeof have);
  format_sizes(sizes, want, sizeof want);
  fail(Error::InvalidArgument, "%s has shape %s and cannot be resized to the expected %s (%s)", which, have, want,
       runtime::to_string(error));
  return false;
}

void KernelArgs::fail(Error error, const char* format, ...) {
  char message[KernelRuntimeContext::kMaxMessageLength];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  ctx_.fail(error, "%s: %s", op_, message);
}

void format_sizes(Span<const SizesType> sizes, char* buffer, size_t size) {
  if (size == 0) return;
  buffer[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i <= sizes.size() && used < size; ++i) {
    const char* open = i == 0 ? "[" : ", ";
    const int n = i == sizes.size() ? std::snprintf(buffer + used, size - used, "%s]", i == 0 ? "[" : "")
                                    : std::snprintf(buffer + used, size - used, "%s%d", open, sizes[i]);
    if (n < 0) break;
    used += static_cast<size_t>(n);
  }
}

}  // namespace kiln::kernels::portable::util
