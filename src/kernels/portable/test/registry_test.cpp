#include <gtest/gtest.h>

#include <iterator>

#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable {
namespace {

using runtime::Error;

constexpr const char* kKernelNames[] = {
    "aten::convolution.out",
    "aten::native_group_norm.out",
    "aten::avg_pool2d.out",
    "aten::_adaptive_avg_pool2d.out",
    "aten::upsample_nearest2d.vec_out",
    "aten::upsample_bilinear2d.vec_out",
    "aten::relu.out",
    "aten::sin.out",
    "aten::cos.out",
    "aten::tan.out",
    "aten::slice_scatter.out",
    "aten::select_scatter.out",
    "aten::as_strided_copy.out",
    "aten::fmod.Tensor_out",
    "aten::fmod.Scalar_out",
    "aten::remainder.Tensor_out",
    "aten::remainder.Scalar_out",
    "aten::atan2.out",
    "aten::isnan.out",
    "aten::isinf.out",
    "aten::bitwise_xor.Tensor_out",
    "aten::bitwise_and.Scalar_out",
    "aten::bitwise_or.Scalar_out",
    "aten::bitwise_xor.Scalar_out",
    "aten::asin.out",
    "aten::acos.out",
    "aten::atan.out",
    "aten::sinh.out",
    "aten::cosh.out",
    "aten::asinh.out",
    "aten::acosh.out",
    "aten::atanh.out",
    "aten::expm1.out",
    "aten::log2.out",
    "aten::log10.out",
    "aten::trunc.out",
    "aten::neg.out",
    "aten::abs.out",
    "aten::floor.out",
    "aten::ceil.out",
    "aten::round.out",
    "aten::sign.out",
    "aten::exp.out",
    "aten::log.out",
    "aten::log1p.out",
    "aten::sqrt.out",
    "aten::rsqrt.out",
    "aten::reciprocal.out",
    "aten::erf.out",
    "aten::sigmoid.out",
    "aten::tanh.out",
    "aten::silu.out",
    "aten::hardswish.out",
    "aten::hardsigmoid.out",
    "aten::leaky_relu.out",
    "aten::elu.out",
    "aten::hardtanh.out",
    "aten::add.out",
    "aten::sub.out",
    "aten::mul.out",
    "aten::div.out",
    "aten::mm.out",
    "aten::addmm.out",
    "aten::view_copy.out",
    "aten::permute_copy.out",
    "aten::clone.out",
    "aten::bmm.out",
    "aten::_native_batch_norm_legit_no_training.out",
    "aten::native_layer_norm.out",
    "aten::_softmax.out",
    "aten::max_pool2d_with_indices.out",
    "aten::mean.out",
    "aten::any.out",
    "aten::sum.IntList_out",
    "aten::sum.out",
    "aten::prod.out",
    "aten::prod.int_out",
    "aten::amax.out",
    "aten::amin.out",
    "aten::argmax.out",
    "aten::argmin.out",
    "aten::max.dim_max",
    "aten::min.dim_min",
    "aten::var.correction_out",
    "aten::any.all_out",
    "aten::any.dims_out",
    "aten::all.all_out",
    "aten::all.out",
    "aten::all.dims_out",
    "aten::cumsum.out",
    "aten::_log_softmax.out",
    "aten::topk.values",
    "aten::sort.values",
    "aten::add.Scalar_out",
    "aten::sub.Scalar_out",
    "aten::mul.Scalar_out",
    "aten::div.Scalar_out",
    "aten::gelu.out",
    "aten::logical_not.out",
    "aten::eq.Scalar_out",
    "aten::where.self_out",
    "aten::full_like.out",
    "aten::expand_copy.out",
    "aten::select_copy.int_out",
    "aten::squeeze_copy.dims_out",
    "aten::unsqueeze_copy.out",
    "aten::transpose_copy.int_out",
    "aten::slice_copy.Tensor_out",
    // binary, comparison, logical, clamp, pow
    "aten::pow.Tensor_Tensor_out",
    "aten::pow.Tensor_Scalar_out",
    "aten::pow.Scalar_out",
    "aten::div.out_mode",
    "aten::div.Scalar_mode_out",
    "aten::minimum.out",
    "aten::maximum.out",
    "aten::clamp.out",
    "aten::clamp.Tensor_out",
    "aten::eq.Tensor_out",
    "aten::ne.Tensor_out",
    "aten::lt.Tensor_out",
    "aten::le.Tensor_out",
    "aten::gt.Tensor_out",
    "aten::ge.Tensor_out",
    "aten::ne.Scalar_out",
    "aten::lt.Scalar_out",
    "aten::le.Scalar_out",
    "aten::gt.Scalar_out",
    "aten::ge.Scalar_out",
    "aten::logical_and.out",
    "aten::logical_or.out",
    "aten::logical_xor.out",
    "aten::bitwise_not.out",
    "aten::bitwise_and.Tensor_out",
    "aten::bitwise_or.Tensor_out",
    "aten::masked_fill.Scalar_out",
    "aten::cat.out",
    "aten::split_with_sizes_copy.out",
    "aten::constant_pad_nd.out",
    "aten::repeat.out",
    "aten::alias_copy.out",
    "aten::_to_copy.out",
    "aten::index.Tensor_out",
    "aten::index_select.out",
    "aten::gather.out",
    "aten::embedding.out",
    "aten::full.out",
    "aten::zeros.out",
    "aten::ones.out",
    "aten::scalar_tensor.out",
    "aten::arange.start_out",
};

TEST(PortableRegistry, RegistersEveryKernel) {
  ASSERT_EQ(register_portable_kernels(), Error::Ok);
  for (const char* name : kKernelNames) EXPECT_TRUE(runtime::registry_has_op_function(name)) << name;
}

TEST(PortableRegistry, RegistersExactlyTheListedKernels) {
  // The registry holds only the portable kernels in this binary, so a kernel
  // added to register.cpp must be added to the list above too.
  ASSERT_EQ(register_portable_kernels(), Error::Ok);
  EXPECT_EQ(runtime::get_num_registered_kernels(), std::size(kKernelNames));
}

TEST(PortableRegistry, SecondRegistrationIsOkAndAddsNothing) {
  ASSERT_EQ(register_portable_kernels(), Error::Ok);
  const size_t count = runtime::get_num_registered_kernels();
  EXPECT_EQ(register_portable_kernels(), Error::Ok);
  EXPECT_EQ(runtime::get_num_registered_kernels(), count);
}

}  // namespace
}  // namespace kiln::kernels::portable
