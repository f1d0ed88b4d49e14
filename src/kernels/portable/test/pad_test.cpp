// reflection_pad and replication_pad: the two index mappings on a row and on
// a plane, a non-contiguous input, and the pads and inputs they refuse.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_pad(const char* op, const TestTensor& self, const std::vector<int64_t>& padding,
                             const TestTensor& out) {
  return KernelCall().tensor(self).int_list(padding).tensor(out).run(op);
}

TEST(EdgePad, ReflectionMirrorsAboutTheEdgeElementAndReplicationRepeatsIt) {
  TestTensor self = make_tensor<float>({1, 4}, {1, 2, 3, 4});  // unbatched (C, W)
  TestTensor out = zeros<float>({1, 7});
  auto ctx = run_pad("aten::reflection_pad1d.out", self, {2, 1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 2, 1, 2, 3, 4, 3}));
  ctx = run_pad("aten::replication_pad1d.out", self, {2, 1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 1, 1, 2, 3, 4, 4}));
  // A negative pad crops before the other side mirrors.
  TestTensor cropped = zeros<float>({1, 4});
  ctx = run_pad("aten::reflection_pad1d.out", self, {-2, 2}, cropped);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(cropped.values<float>(), (std::vector<float>{3, 4, 3, 2}));
}

TEST(EdgePad, PadsAPlaneReadThroughItsStrides) {
  // Logical [[1, 2], [3, 4]] stored column by column.
  TestTensor self(ScalarType::Int, {1, 2, 2}, TensorShapeDynamism::Static, {0, 2, 1});
  self.set<int32_t>({1, 3, 2, 4});
  TestTensor out = zeros<int32_t>({1, 3, 4});
  const auto ctx = run_pad("aten::replication_pad2d.out", self, {1, 1, 0, 1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(EdgePad, RefusesPadsAndInputsPyTorchRefuses) {
  constexpr const char* kReflect = "aten::reflection_pad2d.out";
  TestTensor self = zeros<float>({1, 2, 3});
  TestTensor out = zeros<float>({1, 8, 8}, TensorShapeDynamism::DynamicBound);
  // A reflection pad must be smaller than its dim; replication has no bound.
  EXPECT_TRUE(failed_with(run_pad(kReflect, self, {0, 0, 2, 0}, out), Error::InvalidArgument, kReflect, "'padding'"));
  EXPECT_EQ(run_pad("aten::replication_pad2d.out", self, {0, 0, 2, 0}, out).failure_state(), Error::Ok);
  EXPECT_TRUE(failed_with(run_pad(kReflect, self, {1, 1}, out), Error::InvalidArgument, kReflect, "'padding'"));
  EXPECT_TRUE(failed_with(run_pad(kReflect, self, {-2, -1, 0, 0}, out), Error::InvalidArgument, kReflect, "'padding'"));
  TestTensor flat = zeros<float>({6});
  EXPECT_TRUE(failed_with(run_pad(kReflect, flat, {1, 1, 1, 1}, out), Error::InvalidArgument, kReflect, "'self'"));
  TestTensor no_channels = zeros<float>({1, 0, 2, 3});
  EXPECT_TRUE(failed_with(run_pad(kReflect, no_channels, {1, 1, 1, 1}, out), Error::InvalidArgument, kReflect, "'self'"));
  TestTensor flags = zeros<bool>({1, 2, 3});
  TestTensor flags_out = zeros<bool>({1, 4, 5});
  EXPECT_TRUE(failed_with(run_pad(kReflect, flags, {1, 1, 1, 1}, flags_out), Error::InvalidArgument, kReflect, "'self'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
