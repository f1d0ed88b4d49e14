#include "runtime/kernel/operator_registry.h"

#include <cstring>

namespace kiln::runtime {

namespace {

Kernel registered_kernels[kMaxRegisteredKernels];
size_t num_registered_kernels = 0;

const Kernel* find(const char* name) {
  for (size_t i = 0; i < num_registered_kernels; ++i) {
    if (std::strcmp(registered_kernels[i].name, name) == 0) return &registered_kernels[i];
  }
  return nullptr;
}

}  // namespace

Error register_kernels(Span<const Kernel> kernels) {
  if (kernels.size() > kMaxRegisteredKernels - num_registered_kernels) {
    return Error::RegistrationExceedingMaxKernels;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].name == nullptr || kernels[i].op == nullptr) return Error::InvalidArgument;
    if (find(kernels[i].name) != nullptr) return Error::RegistrationAlreadyRegistered;
    for (size_t j = 0; j < i; ++j) {
      if (std::strcmp(kernels[i].name, kernels[j].name) == 0) return Error::RegistrationAlreadyRegistered;
    }
  }
  for (const Kernel& kernel : kernels) registered_kernels[num_registered_kernels++] = kernel;
  return Error::Ok;
}

Result<OpFunction> get_op_function_from_registry(const char* name) {
  const Kernel* kernel = find(name);
  if (kernel == nullptr) return Error::OperatorMissing;
  return kernel->op;
}

bool registry_has_op_function(const char* name) { return find(name) != nullptr; }

size_t get_num_registered_kernels() { return num_registered_kernels; }

Span<const Kernel> get_registered_kernels() { return {registered_kernels, num_registered_kernels}; }

}  // namespace kiln::runtime
