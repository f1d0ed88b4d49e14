#include <cstring>

#include "runtime/backend/backend_interface.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

Backend registered_backends[kMaxRegisteredBackends];
size_t num_registered_backends = 0;

}  // namespace

Error register_backend(const Backend& backend) {
  KILN_CHECK_OR_LOG_RETURN(backend.name != nullptr && backend.backend != nullptr, InvalidArgument,
                             "register_backend: a backend needs a name and an implementation");
  KILN_CHECK_OR_LOG_RETURN(get_backend_class(backend.name) == nullptr, RegistrationAlreadyRegistered,
                             "register_backend: a backend named '%s' is already registered", backend.name);
  KILN_CHECK_OR_LOG_RETURN(num_registered_backends < kMaxRegisteredBackends, OutOfResources,
                             "register_backend: cannot register '%s': the table holds %zu backends", backend.name,
                             kMaxRegisteredBackends);
  registered_backends[num_registered_backends++] = backend;
  return Error::Ok;
}

BackendInterface* get_backend_class(const char* name) {
  if (name == nullptr) return nullptr;
  for (size_t i = 0; i < num_registered_backends; ++i) {
    if (std::strcmp(registered_backends[i].name, name) == 0) return registered_backends[i].backend;
  }
  return nullptr;
}

size_t get_num_registered_backends() { return num_registered_backends; }

void set_backend_threads(int num_threads) {
  set_kernel_threads(num_threads);
  for (size_t i = 0; i < num_registered_backends; ++i) registered_backends[i].backend->set_num_threads(num_threads);
}

Result<const char*> get_backend_name(size_t index) {
  KILN_CHECK_OR_LOG_RETURN(index < num_registered_backends, InvalidArgument,
                           "get_backend_name: index %zu is out of range (%zu backends are registered)", index,
                           num_registered_backends);
  return registered_backends[index].name;
}

}  // namespace kiln::runtime
