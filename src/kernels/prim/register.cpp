#include "kernels/prim/register.h"

#include "kernels/prim/prim_kernels.h"

namespace kiln::kernels::prim {

namespace {

// The table's entries: prim_kernels.def, or in a selective build the copy
// that keeps only the listed kernels (cmake/KilnSelectiveBuild.cmake).
#ifndef KILN_PRIM_KERNELS_DEF
#define KILN_PRIM_KERNELS_DEF "kernels/prim/prim_kernels.def"
#endif

// The last entry only ends the list, so that a selective build keeping none
// of the kernels still compiles.
const runtime::Kernel kPrimKernels[] = {
#define KILN_PRIM_KERNEL(name, function) {name, function},
#define KILN_LEFT_OUT_KERNEL(name)
#include KILN_PRIM_KERNELS_DEF
#undef KILN_PRIM_KERNEL
#undef KILN_LEFT_OUT_KERNEL
    {nullptr, nullptr},
};

constexpr size_t kNumPrimKernels = sizeof(kPrimKernels) / sizeof(kPrimKernels[0]) - 1;

// The kernels selective build left out, named to the registry so that a
// program calling one is told why it has no kernel.
const char* const kLeftOutKernels[] = {
#define KILN_PRIM_KERNEL(name, function)
#define KILN_LEFT_OUT_KERNEL(name) name,
#include KILN_PRIM_KERNELS_DEF
#undef KILN_PRIM_KERNEL
#undef KILN_LEFT_OUT_KERNEL
    nullptr,
};
constexpr size_t kNumLeftOutKernels = sizeof(kLeftOutKernels) / sizeof(kLeftOutKernels[0]) - 1;

}  // namespace

runtime::Span<const runtime::Kernel> prim_kernels() { return {kPrimKernels, kNumPrimKernels}; }

runtime::Error register_prim_kernels() {
  // As register_portable_kernels: once at start-up, retried after a failure.
  static bool registered = false;
  if (registered) return runtime::Error::Ok;
  if (kNumLeftOutKernels > 0) {
    const runtime::Error noted = runtime::note_left_out_kernels({kLeftOutKernels, kNumLeftOutKernels});
    if (noted != runtime::Error::Ok) return noted;
  }
  const runtime::Error error = runtime::register_kernels(prim_kernels());
  if (error == runtime::Error::Ok) registered = true;
  return error;
}

}  // namespace kiln::kernels::prim
