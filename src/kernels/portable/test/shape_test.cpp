#include <cmath>
#include <limits>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/test/tensor_lists.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_view(const TestTensor& self, const std::vector<int64_t>& size, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(size).tensor(out).run("aten::view_copy.out");
}

KernelRuntimeContext run_permute(const TestTensor& self, const std::vector<int64_t>& dims, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(dims).tensor(out).run("aten::permute_copy.out");
}

TEST(ViewCopy, InfersMinusOne) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({3, 2});
  const auto ctx = run_view(self, {3, -1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), iota(6));
}

TEST(ViewCopy, ResizesDynamicOutOfAnotherRank) {
  TestTensor self = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<int64_t>({1, 1, 6}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_view(self, {-1, 1, 2}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{3, 1, 2}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ViewCopy, NonContiguousSelfIsCopiedInLogicalOrder) {
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  TestTensor out = zeros<float>({6});
  ASSERT_EQ(run_view(self, {6}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), iota(6));
}

TEST(ViewCopy, Errors) {
  const char* op = "aten::view_copy.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({6});
  EXPECT_TRUE(failed_with(run_view(self, {-1, -1}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {7}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {4, -1}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {-3, -2}, out), Error::InvalidArgument, op, "'size'"));
  EXPECT_TRUE(failed_with(run_view(self, {3, 2}, out), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_dtype = zeros<double>({6});
  EXPECT_TRUE(failed_with(run_view(self, {6}, wrong_dtype), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(int64_t{6}).tensor(out).run(op), Error::InvalidArgument,
                          op, "'size'"));
  EXPECT_TRUE(failed_with(KernelCall().int_list({6}).int_list({6}).tensor(out).run(op), Error::InvalidArgument, op,
                          "'self'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).int_list({6}).run(op), Error::InvalidArgument, op, "'args'"));
}

TEST(PermuteCopy, NegativeDims) {
  // self[i][j][k] = 12i + 4j + k, shape [2, 3, 4]; out = self.permute(-1, 0, 1), shape [4, 2, 3].
  TestTensor self = make_tensor<float>({2, 3, 4}, iota(24));
  TestTensor out = zeros<float>({4, 2, 3});
  const auto ctx = run_permute(self, {-1, 0, 1}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  std::vector<float> expected;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) expected.push_back(static_cast<float>(12 * i + 4 * j + k));
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(PermuteCopy, TransposeOfIntsAndIdentity) {
  TestTensor self = make_tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<int32_t>({3, 2});
  ASSERT_EQ(run_permute(self, {1, 0}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  TestTensor same = zeros<int32_t>({2, 3});
  ASSERT_EQ(run_permute(self, {0, -1}, same).failure_state(), Error::Ok);
  EXPECT_EQ(same.values<int32_t>(), self.values<int32_t>());
}

TEST(PermuteCopy, Errors) {
  const char* op = "aten::permute_copy.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({3, 2});
  EXPECT_TRUE(failed_with(run_permute(self, {1, 1}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {1, -1}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {2, 0}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {1, 0, 2}, out), Error::InvalidArgument, op, "'dims'"));
  EXPECT_TRUE(failed_with(run_permute(self, {0, 1}, out), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).none().tensor(out).run(op), Error::InvalidArgument, op, "'dims'"));
}

TEST(Clone, CopiesWithAnyAcceptedMemoryFormat) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  for (const EValue& format : {EValue(), EValue(int64_t{0}), EValue(int64_t{1})}) {
    TestTensor out = zeros<float>({2, 2});
    const auto ctx = KernelCall().tensor(self).value(format).tensor(out).run("aten::clone.out");
    ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
    EXPECT_EQ(out.values<float>(), self.values<float>());
  }
}

TEST(Clone, BoolAndNonContiguous) {
  TestTensor flags = make_tensor<bool>({3}, {true, false, true});
  TestTensor flags_out = zeros<bool>({3});
  ASSERT_EQ(KernelCall().tensor(flags).none().tensor(flags_out).run("aten::clone.out").failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<bool>(), (std::vector<bool>{true, false, true}));

  TestTensor self(ScalarType::Double, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  self.set<double>({1, 3, 2, 4});  // logical [[1, 2], [3, 4]]
  TestTensor out = zeros<double>({2, 2});
  ASSERT_EQ(KernelCall().tensor(self).none().tensor(out).run("aten::clone.out").failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Clone, Errors) {
  const char* op = "aten::clone.out";
  TestTensor self = zeros<float>({2, 2});
  TestTensor out = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(int64_t{2}).tensor(out).run(op), Error::NotSupported, op,
                          "'memory_format'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).scalar(1.0).tensor(out).run(op), Error::InvalidArgument, op,
                          "'memory_format'"));
  TestTensor wrong_dtype = zeros<int32_t>({2, 2});
  EXPECT_TRUE(
      failed_with(KernelCall().tensor(self).none().tensor(wrong_dtype).run(op), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_shape = zeros<float>({4});
  EXPECT_TRUE(
      failed_with(KernelCall().tensor(self).none().tensor(wrong_shape).run(op), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).none().tensor(out).none().run(op), Error::InvalidArgument, op,
                          "'args'"));
}

// ---- cat ----

KernelRuntimeContext run_cat(const std::vector<const TestTensor*>& tensors, int64_t dim, const TestTensor& out) {
  TensorList list(tensors);
  return KernelCall().value(list.value()).scalar(dim).tensor(out).run("aten::cat.out");
}

TEST(Cat, AlongTheLastDimByNegativeDim) {
  TestTensor a = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  TestTensor b = make_tensor<float>({2, 1}, {5, 6});
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_cat({&a, &b}, -1, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 5, 3, 4, 6}));
}

TEST(Cat, AlongDimZeroOfThreeInputs) {
  TestTensor a = make_tensor<int64_t>({1, 2}, {1, 2});
  TestTensor b = make_tensor<int64_t>({2, 2}, {3, 4, 5, 6});
  TestTensor c = make_tensor<int64_t>({1, 2}, {7, 8});
  TestTensor out = zeros<int64_t>({4, 2});
  ASSERT_EQ(run_cat({&a, &b, &c}, 0, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Cat, PromotesMixedDtypesAndSkipsLegacyEmptyInputs) {
  // torch.cat([int32 [1, 2], float64 [], float32 [1.5]]) is float64 [1, 2, 1.5]:
  // the empty input still takes part in the promotion.
  TestTensor a = make_tensor<int32_t>({2}, {1, 2});
  TestTensor empty = zeros<double>({0});
  TestTensor b = make_tensor<float>({1}, {1.5f});
  TestTensor out = zeros<double>({3});
  const auto ctx = run_cat({&a, &empty, &b}, 0, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 2, 1.5}));

  // A 1-D empty input is skipped whatever the others' rank.
  TestTensor m = make_tensor<float>({2, 1}, {1, 2});
  TestTensor n = make_tensor<float>({2, 1}, {3, 4});
  TestTensor wide = zeros<float>({2, 2});
  ASSERT_EQ(run_cat({&empty, &m, &empty, &n}, 1, wide).failure_state(), Error::Ok);
  EXPECT_EQ(wide.values<float>(), (std::vector<float>{1, 3, 2, 4}));
}

TEST(Cat, ConvertsIntoHalfAndIntoAWiderOut) {
  TestTensor i = make_tensor<int64_t>({1}, {3});
  TestTensor h = make_tensor<runtime::Half>({1}, {runtime::Half(0.5f)});
  TestTensor out = zeros<runtime::Half>({2});
  ASSERT_EQ(run_cat({&i, &h}, 0, out).failure_state(), Error::Ok);
  const auto values = out.values<runtime::Half>();
  EXPECT_EQ(static_cast<float>(values[0]), 3.0f);
  EXPECT_EQ(static_cast<float>(values[1]), 0.5f);

  // int32 inputs may go into an int64 or a float out (PyTorch's can_cast).
  TestTensor a = make_tensor<int32_t>({2}, {-7, 8});
  TestTensor longs = zeros<int64_t>({4});
  ASSERT_EQ(run_cat({&a, &a}, 0, longs).failure_state(), Error::Ok);
  EXPECT_EQ(longs.values<int64_t>(), (std::vector<int64_t>{-7, 8, -7, 8}));
  TestTensor floats = zeros<float>({2});
  ASSERT_EQ(run_cat({&a}, 0, floats).failure_state(), Error::Ok);
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{-7, 8}));
}

TEST(Cat, NonContiguousInputsAndOut) {
  TestTensor a(ScalarType::Float, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  a.set<float>({1, 3, 2, 4});  // logical [[1, 2], [3, 4]]
  TestTensor b = make_tensor<float>({1, 2}, {5, 6});
  TestTensor out(ScalarType::Float, {3, 2}, TensorShapeDynamism::Static, {1, 0});
  ASSERT_EQ(run_cat({&a, &b}, 0, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.logical_values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Cat, AnyDtypeWhenAllMatch) {
  TestTensor a(ScalarType::UInt16, {2});
  a.set<uint16_t>({65535, 1});
  TestTensor b(ScalarType::UInt16, {1});
  b.set<uint16_t>({7});
  TestTensor out(ScalarType::UInt16, {3});
  ASSERT_EQ(run_cat({&a, &b}, 0, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<uint16_t>(), (std::vector<uint16_t>{65535, 1, 7}));
  TestTensor flags = make_tensor<bool>({2}, {true, false});
  TestTensor flags_out = zeros<bool>({4});
  ASSERT_EQ(run_cat({&flags, &flags}, 0, flags_out).failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<bool>(), (std::vector<bool>{true, false, true, false}));
}

TEST(Cat, SizeZeroInputs) {
  TestTensor a = zeros<float>({2, 0});
  TestTensor b = zeros<float>({3, 0});
  TestTensor out = zeros<float>({5, 0});
  ASSERT_EQ(run_cat({&a, &b}, 0, out).failure_state(), Error::Ok);

  TestTensor none = zeros<float>({0, 3});
  TestTensor some = make_tensor<float>({1, 3}, {1, 2, 3});
  TestTensor rows = zeros<float>({1, 3});
  ASSERT_EQ(run_cat({&none, &some, &none}, 0, rows).failure_state(), Error::Ok);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{1, 2, 3}));

  // Only legacy empty inputs: the result is 1-D empty and dim is not checked.
  TestTensor empty = zeros<float>({0});
  TestTensor flat = zeros<float>({0});
  ASSERT_EQ(run_cat({&empty, &empty}, 1, flat).failure_state(), Error::Ok);
}

TEST(Cat, ResizesADynamicOut) {
  TestTensor a = make_tensor<int32_t>({2}, {1, 2});
  TestTensor out = zeros<int32_t>({8}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_cat({&a, &a, &a}, 0, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.sizes(), (std::vector<SizesType>{6}));
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 2, 1, 2, 1, 2}));
}

TEST(Cat, Errors) {
  const char* op = "aten::cat.out";
  TestTensor a = zeros<float>({2, 2});
  TestTensor b = zeros<float>({3, 3});
  TestTensor c = zeros<float>({2});
  TestTensor scalar = zeros<float>({});
  TestTensor out = zeros<float>({4, 2});
  EXPECT_TRUE(failed_with(run_cat({}, 0, out), Error::InvalidArgument, op, "'tensors'"));
  EXPECT_TRUE(failed_with(run_cat({&a, &b}, 0, out), Error::InvalidArgument, op, "'tensors'[1]"));
  EXPECT_TRUE(failed_with(run_cat({&a, &c}, 0, out), Error::InvalidArgument, op, "'tensors'[1]"));
  EXPECT_TRUE(failed_with(run_cat({&a, &scalar}, 0, out), Error::InvalidArgument, op, "'tensors'[1]"));
  EXPECT_TRUE(failed_with(run_cat({&a, &a}, 2, out), Error::InvalidArgument, op, "'dim'"));
  EXPECT_TRUE(failed_with(run_cat({&a, &a}, -3, out), Error::InvalidArgument, op, "'dim'"));
  EXPECT_TRUE(failed_with(run_cat({&a, &a}, 1, out), Error::InvalidArgument, op, "'out'"));
  // Floating inputs cannot go into an integral out, nor integers into bool.
  TestTensor ints = zeros<int32_t>({4, 2});
  EXPECT_TRUE(failed_with(run_cat({&a, &a}, 0, ints), Error::InvalidArgument, op, "'out'"));
  TestTensor i = zeros<int64_t>({2});
  TestTensor flags = zeros<bool>({4});
  EXPECT_TRUE(failed_with(run_cat({&i, &i}, 0, flags), Error::InvalidArgument, op, "'out'"));
  // UInt16 promotes with nothing but itself.
  TestTensor u(ScalarType::UInt16, {2});
  TestTensor longs = zeros<int64_t>({4});
  EXPECT_TRUE(failed_with(run_cat({&i, &u}, 0, longs), Error::InvalidArgument, op, "'tensors'[1]"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(a).scalar(int64_t{0}).tensor(out).run(op), Error::InvalidArgument, op,
                          "'tensors'"));
  TensorList malformed({&a, &a});
  malformed.replace(1, EValue(int64_t{3}));
  EXPECT_TRUE(failed_with(KernelCall().value(malformed.value()).scalar(int64_t{0}).tensor(out).run(op),
                          Error::InvalidArgument, op, "'tensors'"));
}

// ---- split_with_sizes_copy ----

KernelRuntimeContext run_split(const TestTensor& self, const std::vector<int64_t>& sizes, int64_t dim,
                               const std::vector<const TestTensor*>& outs) {
  TensorList list(outs);
  return KernelCall().tensor(self).int_list(sizes).scalar(dim).value(list.value()).run(
      "aten::split_with_sizes_copy.out");
}

TEST(SplitWithSizesCopy, PiecesIncludingAnEmptyOne) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));  // [[0, 1, 2], [3, 4, 5]]
  TestTensor a = zeros<float>({2, 1});
  TestTensor b = zeros<float>({2, 0});
  TestTensor c = zeros<float>({2, 2});
  const auto ctx = run_split(self, {1, 0, 2}, -1, {&a, &b, &c});
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(a.values<float>(), (std::vector<float>{0, 3}));
  EXPECT_EQ(c.values<float>(), (std::vector<float>{1, 2, 4, 5}));
}

TEST(SplitWithSizesCopy, AlongDimZeroOfANonContiguousSelf) {
  TestTensor self(ScalarType::Int, {3, 2}, TensorShapeDynamism::Static, {1, 0});
  self.set<int32_t>({1, 3, 5, 2, 4, 6});  // logical [[1, 2], [3, 4], [5, 6]]
  TestTensor a = zeros<int32_t>({1, 2});
  TestTensor b = zeros<int32_t>({2, 2}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_split(self, {1, 2}, 0, {&a, &b}).failure_state(), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(b.values<int32_t>(), (std::vector<int32_t>{3, 4, 5, 6}));
}

TEST(SplitWithSizesCopy, EmptySelfIntoEmptyPieces) {
  TestTensor self = zeros<float>({2, 0});
  TestTensor a = zeros<float>({2, 0});
  TestTensor b = zeros<float>({2, 0});
  EXPECT_EQ(run_split(self, {0, 0}, 1, {&a, &b}).failure_state(), Error::Ok);
  EXPECT_EQ(run_split(self, {}, 1, {}).failure_state(), Error::Ok);
}

TEST(SplitWithSizesCopy, Errors) {
  const char* op = "aten::split_with_sizes_copy.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor a = zeros<float>({2, 1});
  TestTensor b = zeros<float>({2, 2});
  EXPECT_TRUE(failed_with(run_split(self, {1, 1}, 1, {&a, &a}), Error::InvalidArgument, op, "'split_sizes'"));
  EXPECT_TRUE(failed_with(run_split(self, {4, -1}, 1, {&a, &b}), Error::InvalidArgument, op, "'split_sizes'"));
  EXPECT_TRUE(failed_with(run_split(self, {1, 2}, 1, {&a}), Error::InvalidArgument, op, "'out'"));
  EXPECT_TRUE(failed_with(run_split(self, {2, 1}, 1, {&a, &b}), Error::InvalidArgument, op, "'out'[0]"));
  TestTensor wrong = zeros<double>({2, 2});
  EXPECT_TRUE(failed_with(run_split(self, {1, 2}, 1, {&a, &wrong}), Error::InvalidArgument, op, "'out'[1]"));
  EXPECT_TRUE(failed_with(run_split(self, {1, 2}, 2, {&a, &b}), Error::InvalidArgument, op, "'dim'"));
  TestTensor scalar = zeros<float>({});
  EXPECT_TRUE(failed_with(run_split(scalar, {1}, 0, {&a}), Error::InvalidArgument, op, "'self'"));
}

// ---- constant_pad_nd ----

KernelRuntimeContext run_pad(const TestTensor& self, const std::vector<int64_t>& pad, const EValue& value,
                             const TestTensor& out) {
  return KernelCall().tensor(self).int_list(pad).value(value).tensor(out).run("aten::constant_pad_nd.out");
}

TEST(ConstantPadNd, PadsTheLastDimAndCropsWithANegativePad) {
  // torch: constant_pad_nd([[0, 1, 2], [3, 4, 5]], [1, -1], 9.5) = [[9.5, 0, 1], [9.5, 3, 4]].
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({2, 3});
  const auto ctx = run_pad(self, {1, -1}, EValue(9.5), out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{9.5, 0, 1, 9.5, 3, 4}));
}

TEST(ConstantPadNd, PairsRunFromTheLastDim) {
  // pad (1, 1) on dim 1 and (1, 0) on dim 0.
  TestTensor self = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  TestTensor out = zeros<int32_t>({3, 4});
  ASSERT_EQ(run_pad(self, {1, 1, 1, 0}, EValue(int64_t{7}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{7, 7, 7, 7, 7, 1, 2, 7, 7, 3, 4, 7}));
}

TEST(ConstantPadNd, CropsToNothing) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor empty = zeros<float>({2, 0});
  ASSERT_EQ(run_pad(self, {0, -3}, EValue(3.0), empty).failure_state(), Error::Ok);
  TestTensor out = zeros<float>({2, 1});  // everything cropped, one padded column
  ASSERT_EQ(run_pad(self, {1, -3}, EValue(3.0), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 3}));
  TestTensor nothing = zeros<float>({2, 0});
  TestTensor padded = zeros<float>({2, 2});
  ASSERT_EQ(run_pad(nothing, {1, 1}, EValue(3.0), padded).failure_state(), Error::Ok);
  EXPECT_EQ(padded.values<float>(), (std::vector<float>{3, 3, 3, 3}));
}

TEST(ConstantPadNd, ValueConvertsToTheDtype) {
  TestTensor ints = make_tensor<int32_t>({1}, {5});
  TestTensor out = zeros<int32_t>({3});
  ASSERT_EQ(run_pad(ints, {1, 1}, EValue(-2.7), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{-2, 5, -2}));  // truncated toward zero
  TestTensor bytes = make_tensor<uint8_t>({1}, {5});
  TestTensor bytes_out = zeros<uint8_t>({2});
  ASSERT_EQ(run_pad(bytes, {0, 1}, EValue(int64_t{-1}), bytes_out).failure_state(), Error::Ok);
  EXPECT_EQ(bytes_out.values<uint8_t>(), (std::vector<uint8_t>{5, 255}));  // PyTorch wraps small negatives
  TestTensor flags = make_tensor<bool>({1}, {false});
  TestTensor flags_out = zeros<bool>({2});
  ASSERT_EQ(run_pad(flags, {1, 0}, EValue(2.7), flags_out).failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<bool>(), (std::vector<bool>{true, false}));
  TestTensor half = make_tensor<runtime::BFloat16>({1}, {runtime::BFloat16(1.0f)});
  TestTensor half_out = zeros<runtime::BFloat16>({2});
  ASSERT_EQ(run_pad(half, {0, 1}, EValue(-0.25), half_out).failure_state(), Error::Ok);
  EXPECT_EQ(static_cast<float>(half_out.values<runtime::BFloat16>()[1]), -0.25f);
}

TEST(ConstantPadNd, NonContiguousSelfAndZeroDimSelf) {
  TestTensor self(ScalarType::Double, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  self.set<double>({1, 3, 2, 4});  // logical [[1, 2], [3, 4]]
  TestTensor out = zeros<double>({2, 3});
  ASSERT_EQ(run_pad(self, {0, 1}, EValue(int64_t{0}), out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 2, 0, 3, 4, 0}));
  TestTensor scalar = make_tensor<float>({}, {4});
  TestTensor scalar_out = zeros<float>({});
  ASSERT_EQ(run_pad(scalar, {}, EValue(1.0), scalar_out).failure_state(), Error::Ok);
  EXPECT_EQ(scalar_out.values<float>(), (std::vector<float>{4}));
}

TEST(ConstantPadNd, Errors) {
  const char* op = "aten::constant_pad_nd.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({2, 4});
  EXPECT_TRUE(failed_with(run_pad(self, {1}, EValue(0.0), out), Error::InvalidArgument, op, "'pad'"));
  EXPECT_TRUE(failed_with(run_pad(self, {1, 1, 1, 1, 1, 1}, EValue(0.0), out), Error::InvalidArgument, op, "'pad'"));
  EXPECT_TRUE(failed_with(run_pad(self, {-4, 0}, EValue(0.0), out), Error::InvalidArgument, op, "'pad'"));
  EXPECT_TRUE(failed_with(run_pad(self, {-4, 2}, EValue(0.0), out), Error::InvalidArgument, op, "'pad'"));
  EXPECT_TRUE(failed_with(run_pad(self, {int64_t{1} << 62, 0}, EValue(0.0), out), Error::InvalidArgument, op, "'pad'"));
  EXPECT_TRUE(failed_with(run_pad(self, {1, 1}, EValue(0.0), out), Error::InvalidArgument, op, "'out'"));
  TestTensor chars = zeros<int8_t>({2, 3});
  TestTensor chars_out = zeros<int8_t>({2, 5});
  EXPECT_TRUE(failed_with(run_pad(chars, {1, 1}, EValue(int64_t{1000}), chars_out), Error::InvalidArgument, op,
                          "'value'"));
  TestTensor ints = zeros<int32_t>({2, 3});
  TestTensor ints_out = zeros<int32_t>({2, 5});
  EXPECT_TRUE(failed_with(run_pad(ints, {1, 1}, EValue(std::nan("")), ints_out), Error::InvalidArgument, op,
                          "'value'"));
  TestTensor halves = zeros<runtime::Half>({2, 3});
  TestTensor halves_out = zeros<runtime::Half>({2, 5});
  EXPECT_TRUE(failed_with(run_pad(halves, {1, 1}, EValue(1e6), halves_out), Error::InvalidArgument, op, "'value'"));
  TestTensor wrong_dtype = zeros<double>({2, 5});
  EXPECT_TRUE(failed_with(run_pad(self, {1, 1}, EValue(0.0), wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor unsigned_self(ScalarType::UInt32, {2});
  TestTensor unsigned_out(ScalarType::UInt32, {4});
  EXPECT_TRUE(failed_with(run_pad(unsigned_self, {1, 1}, EValue(0.0), unsigned_out), Error::NotSupported, op,
                          "'self'"));
}

// ---- repeat ----

KernelRuntimeContext run_repeat(const TestTensor& self, const std::vector<int64_t>& repeats, const TestTensor& out) {
  return KernelCall().tensor(self).int_list(repeats).tensor(out).run("aten::repeat.out");
}

TEST(Repeat, OneDimIntoTwo) {
  // torch: torch.tensor([1, 2]).repeat(2, 2) = [[1, 2, 1, 2], [1, 2, 1, 2]].
  TestTensor self = make_tensor<int64_t>({2}, {1, 2});
  TestTensor out = zeros<int64_t>({2, 4});
  ASSERT_EQ(run_repeat(self, {2, 2}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 1, 2, 1, 2, 1, 2}));
}

// out[a][i][j] = self[i % 2][j % 3] for self [2, 3] repeated (2, 1, 2).
std::vector<float> tiled_2x3(const std::vector<float>& self) {
  std::vector<float> expected;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 6; ++j) expected.push_back(self[static_cast<size_t>((i % 2) * 3 + j % 3)]);
  return expected;
}

TEST(Repeat, NewLeadingDimAndEveryDimTiled) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor out = zeros<float>({2, 2, 6});
  ASSERT_EQ(run_repeat(self, {2, 1, 2}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), tiled_2x3(iota(6)));
}

TEST(Repeat, NonContiguousSelfAndOut) {
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  TestTensor out = zeros<float>({2, 2, 6});
  ASSERT_EQ(run_repeat(self, {2, 1, 2}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), tiled_2x3(iota(6)));
  TestTensor permuted_out(ScalarType::Float, {2, 2, 6}, TensorShapeDynamism::Static, {2, 0, 1});
  ASSERT_EQ(run_repeat(self, {2, 1, 2}, permuted_out).failure_state(), Error::Ok);
  EXPECT_EQ(permuted_out.logical_values<float>(), tiled_2x3(iota(6)));
}

TEST(Repeat, ZeroRepeatsAndZeroDimSelf) {
  TestTensor self = make_tensor<float>({2, 3}, iota(6));
  TestTensor empty = zeros<float>({0, 6});
  EXPECT_EQ(run_repeat(self, {0, 2}, empty).failure_state(), Error::Ok);
  TestTensor scalar = make_tensor<int32_t>({}, {5});
  TestTensor same = zeros<int32_t>({});
  ASSERT_EQ(run_repeat(scalar, {}, same).failure_state(), Error::Ok);
  EXPECT_EQ(same.values<int32_t>(), (std::vector<int32_t>{5}));
  TestTensor three = zeros<int32_t>({3});
  ASSERT_EQ(run_repeat(scalar, {3}, three).failure_state(), Error::Ok);
  EXPECT_EQ(three.values<int32_t>(), (std::vector<int32_t>{5, 5, 5}));
}

TEST(Repeat, ManyCopiesOfOneByte) {
  TestTensor self = make_tensor<bool>({1, 1}, {true});
  TestTensor out = zeros<bool>({7, 37});
  ASSERT_EQ(run_repeat(self, {7, 37}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<bool>(), std::vector<bool>(7 * 37, true));
}

TEST(Repeat, Errors) {
  const char* op = "aten::repeat.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({2, 6});
  EXPECT_TRUE(failed_with(run_repeat(self, {2}, out), Error::InvalidArgument, op, "'repeats'"));
  EXPECT_TRUE(failed_with(run_repeat(self, {-1, 2}, out), Error::InvalidArgument, op, "'repeats'"));
  EXPECT_TRUE(failed_with(run_repeat(self, {int64_t{1} << 40, 1}, out), Error::InvalidArgument, op, "'repeats'"));
  EXPECT_TRUE(failed_with(run_repeat(self, {2, 2}, out), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_dtype = zeros<double>({2, 6});
  EXPECT_TRUE(failed_with(run_repeat(self, {1, 2}, wrong_dtype), Error::InvalidArgument, op, "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
