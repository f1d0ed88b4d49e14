// Linking kiln_kernels_registered (a static library linked whole) is enough:
// its static initializer has registered the portable and prim kernels
// before main, and registering again changes nothing.
#include <gtest/gtest.h>

#include "kernels/portable/register.h"
#include "kernels/prim/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels {
namespace {

TEST(KernelsRegistered, ByTheStaticInitializer) {
  EXPECT_TRUE(runtime::registry_has_op_function("aten::add.out"));
  EXPECT_TRUE(runtime::registry_has_op_function("aten::convolution.out"));
  EXPECT_TRUE(runtime::registry_has_op_function("aten::copy_"));
  EXPECT_TRUE(runtime::registry_has_op_function("executorch_prim::et_view.default"));
  EXPECT_EQ(runtime::get_num_registered_kernels(), portable::portable_kernels().size() + prim::prim_kernels().size());
}

TEST(KernelsRegistered, RegisteringAgainIsANoOp) {
  const size_t before = runtime::get_num_registered_kernels();
  EXPECT_EQ(portable::register_portable_kernels(), runtime::Error::Ok);
  EXPECT_EQ(prim::register_prim_kernels(), runtime::Error::Ok);
  EXPECT_EQ(runtime::get_num_registered_kernels(), before);
}

}  // namespace
}  // namespace kiln::kernels
