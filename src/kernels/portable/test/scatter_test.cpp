// scatter (src and value), scatter_add, scatter_reduce: the arguments refused,
// and what the golden cases cannot show (a repeated index, a missing temp
// allocator).
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_scatter(const char* op, const TestTensor& self, int64_t dim, const TestTensor& index,
                                 const TestTensor& src, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(dim).tensor(index).tensor(src).tensor(out).run(op);
}

KernelRuntimeContext run_reduce(const TestTensor& self, int64_t dim, const TestTensor& index, const TestTensor& src,
                                const char* reduce, bool include_self, const TestTensor& out) {
  return KernelCall()
      .tensor(self)
      .scalar(dim)
      .tensor(index)
      .tensor(src)
      .value(EValue(reduce, std::strlen(reduce)))
      .scalar(include_self)
      .tensor(out)
      .run("aten::scatter_reduce.two_out");
}

TEST(Scatter, RepeatedIndexKeepsTheLastWriteAndAddSumsThem) {
  TestTensor self = make_tensor<float>({3}, {1, 2, 3});
  TestTensor index = longs({3}, {2, 0, 2});
  TestTensor src = make_tensor<float>({3}, {10, 20, 30});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_scatter("aten::scatter.src_out", self, 0, index, src, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{20, 2, 30}));
  ASSERT_EQ(run_scatter("aten::scatter_add.out", self, 0, index, src, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{21, 2, 43}));
}

TEST(Scatter, IndexErrorsNameTheIndexAndTheDim) {
  TestTensor self = zeros<float>({3, 4});
  TestTensor src = zeros<float>({2, 4});
  TestTensor out = zeros<float>({3, 4});
  for (const char* op : {"aten::scatter.src_out", "aten::scatter_add.out"}) {
    TestTensor past = longs({1, 2}, {0, 3});
    KernelRuntimeContext ctx = run_scatter(op, self, 0, past, src, out);
    EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, op, "'index'"));
    EXPECT_NE(std::string(ctx.failure_message()).find("index 3, out of range for dim 0 of size 3"), std::string::npos)
        << ctx.failure_message();
    TestTensor negative = longs({1, 1}, {-1});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, negative, src, out), Error::InvalidArgument, op, "index -1"));
    TestTensor wide = longs({1, 5}, {0, 0, 0, 0, 0});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, wide, src, out), Error::InvalidArgument, op, "'index'"));
    TestTensor flat = longs({2}, {0, 1});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, flat, src, out), Error::InvalidArgument, op, "'index'"));
    TestTensor int_floats = make_tensor<float>({1, 1}, {0});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, int_floats, src, out), Error::InvalidArgument, op, "'index'"));
    TestTensor ok = longs({1, 1}, {0});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 2, ok, src, out), Error::InvalidArgument, op, "'dim'"));
    TestTensor doubles = zeros<double>({2, 4});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, ok, doubles, out), Error::InvalidArgument, op, "'src'"));
    TestTensor small_out = zeros<float>({2, 4});
    EXPECT_TRUE(failed_with(run_scatter(op, self, 0, ok, src, small_out), Error::InvalidArgument, op, "'out'"));
  }
}

TEST(Scatter, ValueMustFitTheDtype) {
  const char* op = "aten::scatter.value_out";
  TestTensor self = zeros<uint8_t>({3});
  TestTensor index = longs({1}, {1});
  TestTensor out = zeros<uint8_t>({3});
  auto run = [&](int64_t value) {
    return KernelCall().tensor(self).scalar(int64_t{0}).tensor(index).scalar(value).tensor(out).run(op);
  };
  EXPECT_TRUE(failed_with(run(300), Error::InvalidArgument, op, "'value'"));
  ASSERT_EQ(run(7).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{0, 7, 0}));
}

TEST(ScatterReduce, RefusesUnknownReductionsAndDtypesTorchLacks) {
  const char* op = "aten::scatter_reduce.two_out";
  TestTensor index = longs({1}, {0});
  TestTensor floats = zeros<float>({2});
  EXPECT_TRUE(failed_with(run_reduce(floats, 0, index, floats, "max", true, floats), Error::InvalidArgument, op,
                          "'reduce'"));
  TestTensor bools = zeros<bool>({2});
  EXPECT_TRUE(failed_with(run_reduce(bools, 0, index, bools, "mean", true, bools), Error::NotSupported, op, "Bool"));
  TestTensor wide(ScalarType::UInt32, {2});
  EXPECT_TRUE(failed_with(run_reduce(wide, 0, index, wide, "amax", true, wide), Error::NotSupported, op, "UInt32"));
  EXPECT_TRUE(failed_with(run_reduce(wide, 0, index, wide, "sum", false, wide), Error::NotSupported, op, "UInt32"));
  EXPECT_EQ(run_reduce(wide, 0, index, wide, "prod", true, wide).failure_state(), Error::Ok);
}

TEST(ScatterReduce, MeanNeedsTemporaryMemory) {
  // KernelCall's context has no temp allocator; the golden cases run mean with one.
  TestTensor self = make_tensor<int32_t>({2}, {1, 2});
  TestTensor index = longs({1}, {0});
  TestTensor out = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(run_reduce(self, 0, index, self, "mean", true, out), Error::NotFound,
                          "aten::scatter_reduce.two_out", "temporary memory"));
  ASSERT_EQ(run_reduce(self, 0, index, self, "amin", false, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 2}));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
