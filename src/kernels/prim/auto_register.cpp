// Registers the portable and prim kernels while the program starts, for apps
// that link `kiln_kernels_registered` (linked whole, so that this file's
// static initializer is kept by a static link).
#include "kernels/portable/register.h"
#include "kernels/prim/register.h"
#include "runtime/core/log.h"

namespace kiln::kernels {

namespace {

bool register_all() {
  const runtime::Error portable = portable::register_portable_kernels();
  const runtime::Error prim = prim::register_prim_kernels();
  if (portable != runtime::Error::Ok || prim != runtime::Error::Ok) {
    KILN_LOG(Error, "kernel auto-registration failed: portable %s, prim %s", runtime::to_string(portable),
             runtime::to_string(prim));
    return false;
  }
  return true;
}

[[maybe_unused]] const bool registered = register_all();

}  // namespace

}  // namespace kiln::kernels
