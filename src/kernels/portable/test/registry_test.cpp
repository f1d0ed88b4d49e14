#include <gtest/gtest.h>

#include <iterator>

#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable {
namespace {

using runtime::Error;

constexpr const char* kKernelNames[] = {
    "aten::convolution.out",
    "aten::relu.out",
    "aten::sin.out",
    "aten::cos.out",
    "aten::tan.out",
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
