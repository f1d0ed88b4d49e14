#include "runtime/kernel/operator_registry.h"

#include <cstdio>
#include <cstring>

#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

Kernel registered_kernels[kMaxRegisteredKernels];
size_t num_registered_kernels = 0;

Span<const char* const> left_out_lists[kMaxLeftOutKernelLists];
size_t num_left_out_lists = 0;

// Two keys are the same if both are the fallback (null) or both spell the
// same string.
bool same_key(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

bool same_kernel(const Kernel& a, const Kernel& b) { return std::strcmp(a.name, b.name) == 0 && same_key(a.key, b.key); }

bool is_registered(const Kernel& kernel) {
  for (size_t i = 0; i < num_registered_kernels; ++i) {
    if (same_kernel(registered_kernels[i], kernel)) return true;
  }
  return false;
}

// Appends `text` at `*used` in `buffer`; false if it (with the null) does not fit.
bool append(char* buffer, size_t size, size_t* used, const char* text) {
  const size_t length = std::strlen(text);
  if (length >= size - *used) return false;
  std::memcpy(buffer + *used, text, length + 1);
  *used += length;
  return true;
}

bool append_number(char* buffer, size_t size, size_t* used, long value) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%ld", value);
  return append(buffer, size, used, digits);
}

}  // namespace

Error make_kernel_key(Span<const TensorMeta> metas, char* buffer, size_t size) {
  KILN_CHECK_OR_LOG_RETURN(buffer != nullptr && size > 0, InvalidArgument, "make_kernel_key: no buffer to write to");
  buffer[0] = '\0';
  size_t used = 0;
  bool fits = append(buffer, size, &used, "v1/");
  for (size_t i = 0; i < metas.size() && fits; ++i) {
    if (i > 0) fits = append(buffer, size, &used, "|");
    fits = fits && append_number(buffer, size, &used, static_cast<long>(metas[i].dtype)) &&
           append(buffer, size, &used, ";");
    for (size_t d = 0; d < metas[i].dim_order.size() && fits; ++d) {
      if (d > 0) fits = append(buffer, size, &used, ",");
      fits = fits && append_number(buffer, size, &used, metas[i].dim_order[d]);
    }
  }
  if (!fits) {
    buffer[0] = '\0';
    KILN_LOG(Error, "make_kernel_key: the key of %zu tensors does not fit in %zu bytes", metas.size(), size);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error register_kernels(Span<const Kernel> kernels) {
  if (kernels.size() > kMaxRegisteredKernels - num_registered_kernels) {
    KILN_LOG(Error, "register_kernels: %zu more kernels do not fit (%zu of %zu registered)", kernels.size(),
             num_registered_kernels, kMaxRegisteredKernels);
    return Error::RegistrationExceedingMaxKernels;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].name == nullptr || kernels[i].op == nullptr) {
      KILN_LOG(Error, "register_kernels: kernel %zu of the batch has no name or no function", i);
      return Error::InvalidArgument;
    }
    bool duplicate = is_registered(kernels[i]);
    for (size_t j = 0; j < i && !duplicate; ++j) duplicate = same_kernel(kernels[i], kernels[j]);
    if (duplicate) {
      KILN_LOG(Error, "register_kernels: '%s' (key %s) is already registered", kernels[i].name,
               kernels[i].key == nullptr ? "fallback" : kernels[i].key);
      return Error::RegistrationAlreadyRegistered;
    }
  }
  for (const Kernel& kernel : kernels) registered_kernels[num_registered_kernels++] = kernel;
  return Error::Ok;
}

Error note_left_out_kernels(Span<const char* const> names) {
  for (size_t i = 0; i < num_left_out_lists; ++i) {
    if (left_out_lists[i].data() == names.data() && left_out_lists[i].size() == names.size()) return Error::Ok;
  }
  KILN_CHECK_OR_LOG_RETURN(num_left_out_lists < kMaxLeftOutKernelLists, RegistrationExceedingMaxKernels,
                           "note_left_out_kernels: %zu lists of left-out kernels are already noted", num_left_out_lists);
  left_out_lists[num_left_out_lists++] = names;
  return Error::Ok;
}

bool is_left_out_kernel(const char* name) {
  if (name == nullptr) return false;
  for (size_t i = 0; i < num_left_out_lists; ++i) {
    for (const char* left_out : left_out_lists[i]) {
      if (left_out != nullptr && std::strcmp(left_out, name) == 0) return true;
    }
  }
  return false;
}

Result<OpFunction> get_op_function_from_registry(const char* name) {
  return get_op_function_from_registry(name, {});
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> metas) {
  KILN_CHECK_OR_LOG_RETURN(name != nullptr, OperatorMissing, "operator registry: no operator name to look up");
  char key[kMaxKernelKeyLength];
  // A key too long for the buffer (make_kernel_key logs it) can match no
  // registered key: only the fallback remains.
  const bool has_key = !metas.empty() && make_kernel_key(metas, key, sizeof key) == Error::Ok;
  OpFunction fallback = nullptr;
  size_t keyed = 0;
  for (size_t i = 0; i < num_registered_kernels; ++i) {
    const Kernel& kernel = registered_kernels[i];
    if (std::strcmp(kernel.name, name) != 0) continue;
    if (kernel.key == nullptr) {
      fallback = kernel.op;
    } else if (has_key && std::strcmp(kernel.key, key) == 0) {
      return kernel.op;
    } else {
      ++keyed;
    }
  }
  if (fallback != nullptr) return fallback;
  if (keyed == 0 && is_left_out_kernel(name)) {
    KILN_LOG(Error, "operator registry: no kernel registered for '%s': selective build left it out of this runtime "
             "(the op list the runtime was built from does not name it; add it and rebuild)", name);
  } else if (keyed == 0) {
    KILN_LOG(Error, "operator registry: no kernel registered for '%s' (%s%s; no kernel of that name)", name,
             has_key ? "key " : "no key", has_key ? key : "");
  } else {
    KILN_LOG(Error, "operator registry: no kernel registered for '%s' (%s%s; %zu kernel%s of that name under other "
             "keys, no fallback)", name, has_key ? "key " : "no key", has_key ? key : "", keyed,
             keyed == 1 ? "" : "s");
  }
  return Error::OperatorMissing;
}

bool registry_has_op_function(const char* name) {
  if (name == nullptr) return false;
  for (size_t i = 0; i < num_registered_kernels; ++i) {
    if (std::strcmp(registered_kernels[i].name, name) == 0) return true;
  }
  return false;
}

size_t get_num_registered_kernels() { return num_registered_kernels; }

Span<const Kernel> get_registered_kernels() { return {registered_kernels, num_registered_kernels}; }

}  // namespace kiln::runtime
