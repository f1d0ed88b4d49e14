// _cdist_forward and _pdist_forward: hand-computed distances for each kind of
// p, the matrix-product formula's clamping at 0, broadcast batch dims, and
// argument errors.
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kCdist = "aten::_cdist_forward.out";
constexpr const char* kPdist = "aten::_pdist_forward.out";

KernelRuntimeContext run_cdist(const TestTensor& x1, const TestTensor& x2, double p, std::optional<int64_t> mode,
                               const TestTensor& out) {
  KernelCall call;
  call.tensor(x1).tensor(x2).scalar(p);
  if (mode) call.scalar(*mode);
  else call.none();
  return call.tensor(out).run(kCdist);
}

KernelRuntimeContext run_pdist(const TestTensor& self, double p, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(p).tensor(out).run(kPdist);
}

TEST(Cdist, EveryKindOfNorm) {
  // The difference of the one pair is (3, -4, 0).
  TestTensor x1 = make_tensor<float>({1, 3}, {3, 0, 1});
  TestTensor x2 = make_tensor<float>({1, 3}, {0, 4, 1});
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, float>> expected = {
      {0.0, 2}, {1.0, 7}, {2.0, 5}, {inf, 4}, {3.0, std::cbrt(91.0f)}};
  for (const auto& [p, distance] : expected) {
    TestTensor out = zeros<float>({1, 1});
    auto ctx = run_cdist(x1, x2, p, std::nullopt, out);
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_FLOAT_EQ(out.values<float>()[0], distance) << "p = " << p;
  }
}

TEST(Cdist, BroadcastsBatchDimsAndClampsTheProductFormula) {
  // x1 [2, 1, 2] against x2 [1, 2]: each batch entry's row against (1, 1).
  TestTensor x1 = make_tensor<double>({2, 1, 2}, {1, 1, 4, 5});
  TestTensor x2 = make_tensor<double>({1, 2}, {1, 1});
  TestTensor out = zeros<double>({2, 1, 1});
  // Forced matrix products: the coincident rows give max(rounding, 0), here 0.
  auto ctx = run_cdist(x1, x2, 2.0, 1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0, 5}));
}

TEST(Cdist, RefusesBadArguments) {
  TestTensor x1 = zeros<float>({2, 3});
  TestTensor x2 = zeros<float>({4, 3});
  TestTensor out = zeros<float>({2, 4});
  EXPECT_TRUE(failed_with(run_cdist(x1, x2, -1.0, std::nullopt, out), Error::InvalidArgument, kCdist, "'p'"));
  EXPECT_TRUE(failed_with(run_cdist(x1, x2, 2.0, 3, out), Error::InvalidArgument, kCdist, "'compute_mode'"));
  TestTensor other_columns = zeros<float>({4, 2});
  EXPECT_TRUE(failed_with(run_cdist(x1, other_columns, 2.0, std::nullopt, out), Error::InvalidArgument, kCdist,
                          "'x2'"));
  TestTensor one_dim = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_cdist(one_dim, x2, 2.0, std::nullopt, out), Error::InvalidArgument, kCdist, "'x1'"));
  TestTensor batch2 = zeros<float>({2, 2, 3});
  TestTensor batch3 = zeros<float>({3, 4, 3});
  EXPECT_TRUE(failed_with(run_cdist(batch2, batch3, 2.0, std::nullopt, out), Error::InvalidArgument, kCdist,
                          "'x1' and 'x2'"));
  TestTensor doubles = zeros<double>({4, 3});
  EXPECT_TRUE(failed_with(run_cdist(x1, doubles, 2.0, std::nullopt, out), Error::InvalidArgument, kCdist, "'x2'"));
  TestTensor ints = zeros<int32_t>({2, 3});
  EXPECT_TRUE(failed_with(run_cdist(ints, ints, 2.0, std::nullopt, out), Error::InvalidArgument, kCdist, "'x1'"));
  TestTensor wrong_out = zeros<float>({4, 2});
  EXPECT_TRUE(failed_with(run_cdist(x1, x2, 2.0, std::nullopt, wrong_out), Error::InvalidArgument, kCdist, "'out'"));
}

TEST(Pdist, PairsInRowMajorOrder) {
  // Rows 0, 1 and 3 on a line: pairs (0, 1), (0, 2), (1, 2).
  TestTensor self = make_tensor<float>({3, 1}, {0, 1, 3});
  TestTensor out = zeros<float>({3});
  auto ctx = run_pdist(self, 1.0, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 3, 2}));
}

TEST(Pdist, RefusesBadArguments) {
  TestTensor self = zeros<float>({3, 2});
  TestTensor out = zeros<float>({3});
  EXPECT_TRUE(failed_with(run_pdist(self, -0.5, out), Error::InvalidArgument, kPdist, "'p'"));
  TestTensor three_dims = zeros<float>({3, 2, 1});
  EXPECT_TRUE(failed_with(run_pdist(three_dims, 2.0, out), Error::InvalidArgument, kPdist, "'self'"));
  TestTensor halves = zeros<runtime::Half>({3, 2});
  EXPECT_TRUE(failed_with(run_pdist(halves, 2.0, out), Error::InvalidArgument, kPdist, "'self'"));
  TestTensor wrong_out = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_pdist(self, 2.0, wrong_out), Error::InvalidArgument, kPdist, "'out'"));
  // 65537 rows make 2147516416 pairs, past a tensor's 32-bit sizes.
  TestTensor many_rows = zeros<float>({65537, 0});
  EXPECT_TRUE(failed_with(run_pdist(many_rows, 2.0, out), Error::InvalidArgument, kPdist, "more than a tensor's INT32_MAX"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
