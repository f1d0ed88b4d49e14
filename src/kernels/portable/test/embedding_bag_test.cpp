// _embedding_bag: the arguments refused, and the auxiliary outputs' shapes
// the golden cases cannot show (the summing fast path's empty offset2bag, no
// bags at all).
#include <cstdint>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kEmbeddingBagOp = "aten::_embedding_bag.out";

// weight[r] = [r, 10 + r].
TestTensor weight() { return make_tensor<float>({4, 2}, {0, 10, 1, 11, 2, 12, 3, 13}); }

struct Outs {
  TestTensor output, offset2bag, bag_size, max_indices;
};

// Bound-dynamic outs with room for 8 bags; max_indices is 2-D only in mode max.
Outs dynamic_outs(int64_t mode) {
  const auto dynamic = TensorShapeDynamism::DynamicBound;
  return {zeros<float>({8, 2}, dynamic), zeros<int64_t>({8}, dynamic), zeros<int64_t>({8}, dynamic),
          mode == 2 ? zeros<int64_t>({8, 2}, dynamic) : zeros<int64_t>({8}, dynamic)};
}

KernelRuntimeContext run_bags(const TestTensor& w, const TestTensor& indices, const TestTensor& offsets, int64_t mode,
                              Outs& outs, bool include_last_offset = false, int64_t padding_idx = -1) {
  return KernelCall()
      .tensor(w)
      .tensor(indices)
      .tensor(offsets)
      .scalar(false)
      .scalar(mode)
      .scalar(false)
      .none()
      .scalar(include_last_offset)
      .scalar(padding_idx)
      .tensor(outs.output)
      .tensor(outs.offset2bag)
      .tensor(outs.bag_size)
      .tensor(outs.max_indices)
      .run(kEmbeddingBagOp);
}

TEST(EmbeddingBag, SumFastPathLeavesOffset2BagEmptyUnlessOutHasRoomForIt) {
  TestTensor w = weight();
  TestTensor indices = longs({3}, {3, 1, 1});
  TestTensor offsets = longs({2}, {0, 1});
  Outs outs = dynamic_outs(0);
  ASSERT_EQ(run_bags(w, indices, offsets, 0, outs).failure_state(), Error::Ok);
  EXPECT_EQ(outs.output.values<float>(), (std::vector<float>{3, 13, 2, 22}));
  EXPECT_EQ(outs.offset2bag.sizes(), (std::vector<SizesType>{0}));
  EXPECT_EQ(outs.bag_size.values<int64_t>(), (std::vector<int64_t>{0, 0}));
  // torch.export sizes offset2bag [3] for BFloat16, where the CPU kernel leaves it empty.
  Outs sized = {zeros<float>({2, 2}), zeros<int64_t>({3}), zeros<int64_t>({2}), zeros<int64_t>({2})};
  ASSERT_EQ(run_bags(w, indices, offsets, 0, sized).failure_state(), Error::Ok);
  EXPECT_EQ(sized.offset2bag.values<int64_t>(), (std::vector<int64_t>{0, 1, 1}));
}

TEST(EmbeddingBag, NoBagsPutEveryIndexInBagMinusOne) {
  TestTensor w = weight();
  TestTensor indices = longs({2}, {3, 1});
  TestTensor offsets = longs({0}, {});
  Outs outs = dynamic_outs(1);
  ASSERT_EQ(run_bags(w, indices, offsets, 1, outs).failure_state(), Error::Ok);
  EXPECT_EQ(outs.output.sizes(), (std::vector<SizesType>{0, 2}));
  EXPECT_EQ(outs.offset2bag.values<int64_t>(), (std::vector<int64_t>{-1, -1}));
}

TEST(EmbeddingBag, Errors) {
  TestTensor w = weight();
  TestTensor indices = longs({3}, {3, 1, 1});
  TestTensor offsets = longs({2}, {0, 1});
  Outs outs = dynamic_outs(1);
  TestTensor past = longs({2}, {4, 0});
  KernelRuntimeContext ctx = run_bags(w, past, offsets, 1, outs);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kEmbeddingBagOp, "'indices'"));
  EXPECT_NE(std::string(ctx.failure_message()).find("index 4, out of range for dim 0 of size 4"), std::string::npos)
      << ctx.failure_message();
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{1, 2}, {0, 4}, {0, 2, 1}}) {
    TestTensor bad_offsets = longs({static_cast<SizesType>(bad.size())}, bad);
    EXPECT_TRUE(failed_with(run_bags(w, indices, bad_offsets, 1, outs), Error::InvalidArgument, kEmbeddingBagOp, "'offsets'"));
  }
  // include_last_offset with a last offset short of the end.
  EXPECT_TRUE(failed_with(run_bags(w, indices, offsets, 1, outs, true), Error::NotSupported, kEmbeddingBagOp, "'offsets'"));
  EXPECT_TRUE(failed_with(run_bags(w, indices, offsets, 3, outs), Error::InvalidArgument, kEmbeddingBagOp, "'mode'"));
  TestTensor matrix = longs({1, 3}, {3, 1, 1});
  EXPECT_TRUE(failed_with(run_bags(w, matrix, offsets, 1, outs), Error::InvalidArgument, kEmbeddingBagOp, "'indices'"));
  TestTensor ints = make_tensor<int32_t>({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(failed_with(run_bags(ints, indices, offsets, 1, outs), Error::InvalidArgument, kEmbeddingBagOp, "'weight'"));
  Outs int_outs = {zeros<float>({2, 2}), zeros<int32_t>({3}), zeros<int64_t>({2}), zeros<int64_t>({2})};
  EXPECT_TRUE(failed_with(run_bags(w, indices, offsets, 1, int_outs), Error::InvalidArgument, kEmbeddingBagOp, "'out1'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
