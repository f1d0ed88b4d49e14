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
    {"aten::bmm.out", bmm_out},
    {"aten::_native_batch_norm_legit_no_training.out", native_batch_norm_legit_no_training_out},
    {"aten::native_layer_norm.out", native_layer_norm_out},
    {"aten::_softmax.out", softmax_out},
    {"aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out},
    {"aten::mean.out", mean_out},
    {"aten::any.out", any_out},
    {"aten::add.Scalar_out", add_scalar_out},
    {"aten::sub.Scalar_out", sub_scalar_out},
    {"aten::mul.Scalar_out", mul_scalar_out},
    {"aten::div.Scalar_out", div_scalar_out},
    {"aten::gelu.out", gelu_out},
    {"aten::logical_not.out", logical_not_out},
    {"aten::eq.Scalar_out", eq_scalar_out},
    {"aten::where.self_out", where_self_out},
    {"aten::full_like.out", full_like_out},
    {"aten::expand_copy.out", expand_copy_out},
    {"aten::select_copy.int_out", select_copy_int_out},
    {"aten::squeeze_copy.dims_out", squeeze_copy_dims_out},
    {"aten::unsqueeze_copy.out", unsqueeze_copy_out},
    {"aten::transpose_copy.int_out", transpose_copy_int_out},
    {"aten::slice_copy.Tensor_out", slice_copy_tensor_out},
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
