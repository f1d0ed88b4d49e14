#include <gtest/gtest.h>

#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable {
namespace {

using runtime::Error;

constexpr const char* kKernelNames[] = {
    "aten::convolution.out", "aten::relu.out", "aten::sin.out",       "aten::cos.out",
    "aten::tan.out",         "aten::add.out",  "aten::sub.out",       "aten::mul.out",
    "aten::div.out",         "aten::mm.out",   "aten::addmm.out",     "aten::view_copy.out",
    "aten::permute_copy.out", "aten::clone.out",
};

TEST(PortableRegistry, RegistersEveryKernel) {
  ASSERT_EQ(register_portable_kernels(), Error::Ok);
  for (const char* name : kKernelNames) EXPECT_TRUE(runtime::registry_has_op_function(name)) << name;
}

TEST(PortableRegistry, SecondRegistrationIsOkAndAddsNothing) {
  ASSERT_EQ(register_portable_kernels(), Error::Ok);
  const size_t count = runtime::get_num_registered_kernels();
  EXPECT_EQ(register_portable_kernels(), Error::Ok);
  EXPECT_EQ(runtime::get_num_registered_kernels(), count);
}

}  // namespace
}  // namespace kiln::kernels::portable
