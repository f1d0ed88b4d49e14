#include "kernels/prim/register.h"

#include "kernels/prim/prim_kernels.h"

namespace kiln::kernels::prim {

namespace {

const runtime::Kernel kPrimKernels[] = {
    // ---- symbolic scalars (scalar_ops.cpp) ----
    {"executorch_prim::add.Scalar", add_scalar},
    {"executorch_prim::sub.Scalar", sub_scalar},
    {"executorch_prim::mul.Scalar", mul_scalar},
    {"executorch_prim::floordiv.Scalar", floordiv_scalar},
    {"executorch_prim::truediv.Scalar", truediv_scalar},
    {"executorch_prim::mod.Scalar", mod_scalar},
    {"executorch_prim::eq.Scalar", eq_scalar},
    {"executorch_prim::gt.Scalar", gt_scalar},
    {"executorch_prim::lt.Scalar", lt_scalar},
    {"executorch_prim::ge.Scalar", ge_scalar},
    {"executorch_prim::le.Scalar", le_scalar},
    {"executorch_prim::neg.Scalar", neg_scalar},
    {"executorch_prim::floordiv.int", floordiv_int},
    {"executorch_prim::mod.int", mod_int},
    {"executorch_prim::sym_max.Scalar", sym_max_scalar},
    {"executorch_prim::sym_min.Scalar", sym_min_scalar},
    {"executorch_prim::ceil.Scalar", ceil_scalar},
    {"executorch_prim::round.Scalar", round_scalar},
    {"executorch_prim::trunc.Scalar", trunc_scalar},
    {"executorch_prim::sym_int.Scalar", sym_int_scalar},
    {"executorch_prim::sym_float.Scalar", sym_float_scalar},
    {"executorch_prim::sym_not.Scalar", sym_not_scalar},
    {"executorch_prim::sym_ite.Scalar", sym_ite_scalar},
    // ---- sizes, views and copies (tensor_ops.cpp) ----
    {"aten::sym_size.int", sym_size_int},
    {"aten::sym_numel", sym_numel},
    {"aten::_local_scalar_dense", local_scalar_dense},
    {"executorch_prim::et_view.default", et_view},
    {"aten::copy_", copy_},
    {"aten::copy.out", copy_out},
    {"dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out},
    {"dim_order_ops::_clone_dim_order.out", clone_dim_order_out},
};

}  // namespace

runtime::Span<const runtime::Kernel> prim_kernels() { return kPrimKernels; }

runtime::Error register_prim_kernels() {
  // As register_portable_kernels: once at start-up, retried after a failure.
  static bool registered = false;
  if (registered) return runtime::Error::Ok;
  const runtime::Error error = runtime::register_kernels(kPrimKernels);
  if (error == runtime::Error::Ok) registered = true;
  return error;
}

}  // namespace kiln::kernels::prim
