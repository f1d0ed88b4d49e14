#include "kernels/portable/register.h"

#include "kernels/portable/kernels.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable {

namespace {

const runtime::Kernel kPortableKernels[] = {
    {"aten::convolution.out", convolution_out},
    {"aten::relu.out", relu_out},
    {"aten::sin.out", sin_out},
    {"aten::cos.out", cos_out},
    {"aten::tan.out", tan_out},
    {"aten::add.out", add_out},
    {"aten::sub.out", sub_out},
    {"aten::mul.out", mul_out},
    {"aten::div.out", div_out},
    {"aten::mm.out", mm_out},
    {"aten::addmm.out", addmm_out},
    {"aten::view_copy.out", view_copy_out},
    {"aten::permute_copy.out", permute_copy_out},
    {"aten::clone.out", clone_out},
};

}  // namespace

runtime::Error register_portable_kernels() {
  // Not thread-safe, like the registry itself: registration happens once at
  // start-up. A failed attempt is not remembered, so it can be retried.
  static bool registered = false;
  if (registered) return runtime::Error::Ok;
  const runtime::Error error = runtime::register_kernels(kPortableKernels);
  if (error == runtime::Error::Ok) registered = true;
  return error;
}

}  // namespace kiln::kernels::portable
