// index.Tensor, index_select, gather, embedding.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/portable/test/tensor_lists.h"

namespace kiln::kernels::portable::testing {
namespace {

// x[i][j][k] = 12i + 4j + k, shape [2, 3, 4].
TestTensor cube() {
  std::vector<int64_t> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  return make_tensor<int64_t>({2, 3, 4}, v);
}

KernelRuntimeContext run_index(const TestTensor& self, const std::vector<const TestTensor*>& indices,
                               const TestTensor& out) {
  OptionalTensorList list(indices);
  return KernelCall().tensor(self).value(list.value()).tensor(out).run("aten::index.Tensor_out");
}

// ---- index.Tensor ----

TEST(IndexTensor, RowsWithNegativeIndices) {
  TestTensor self = make_tensor<float>({3, 2}, {0, 1, 10, 11, 20, 21});
  TestTensor idx = longs({3}, {2, -3, -1});
  TestTensor out = zeros<float>({3, 2});
  const auto ctx = run_index(self, {&idx}, out);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{20, 21, 0, 1, 20, 21}));
}

TEST(IndexTensor, AdjacentIndicesStayInPlace) {
  // x[:, [0, 2], [1, 3]] has shape [2, 2]: x[b, 0, 1] and x[b, 2, 3].
  TestTensor self = cube();
  TestTensor i = longs({2}, {0, 2});
  TestTensor j = longs({2}, {1, 3});
  TestTensor out = zeros<int64_t>({2, 2});
  ASSERT_EQ(run_index(self, {nullptr, &i, &j}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 11, 13, 23}));
}

TEST(IndexTensor, IndicesSeparatedByASliceGoToTheFront) {
  // torch: x[[0, 1], :, [1, 3]] = [[1, 5, 9], [15, 19, 23]] (shape [2, 3]).
  TestTensor self = cube();
  TestTensor i = longs({2}, {0, 1});
  TestTensor k = longs({2}, {1, 3});
  TestTensor out = zeros<int64_t>({2, 3});
  ASSERT_EQ(run_index(self, {&i, nullptr, &k}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 5, 9, 15, 19, 23}));
}

TEST(IndexTensor, IndexTensorsBroadcast) {
  // x[[[0], [1]], [1, 2]] has shape [2, 2, 4]: x[i][j] for i in rows, j in columns.
  TestTensor self = cube();
  TestTensor i = longs({2, 1}, {0, 1});
  TestTensor j = longs({2}, {1, 2});
  TestTensor out = zeros<int64_t>({2, 2, 4});
  ASSERT_EQ(run_index(self, {&i, &j}, out).failure_state(), Error::Ok);
  std::vector<int64_t> expected;
  for (int64_t a : {0, 1})
    for (int64_t b : {1, 2})
      for (int64_t k = 0; k < 4; ++k) expected.push_back(12 * a + 4 * b + k);
  EXPECT_EQ(out.values<int64_t>(), expected);
  // A 0-dim index drops its dim: x[1] is [3, 4].
  TestTensor one = longs({}, {1});
  TestTensor plane = zeros<int64_t>({3, 4});
  ASSERT_EQ(run_index(self, {&one}, plane).failure_state(), Error::Ok);
  EXPECT_EQ(plane.values<int64_t>()[0], 12);
  EXPECT_EQ(plane.values<int64_t>()[11], 23);
}

TEST(IndexTensor, BoolMasks) {
  TestTensor self = cube();
  // One dim: x[:, [True, False, True]] has shape [2, 2, 4].
  TestTensor rows = make_tensor<bool>({3}, {true, false, true});
  TestTensor out = zeros<int64_t>({2, 2, 4});
  ASSERT_EQ(run_index(self, {nullptr, &rows}, out).failure_state(), Error::Ok);
  std::vector<int64_t> expected;
  for (int64_t a : {0, 1})
    for (int64_t b : {0, 2})
      for (int64_t k = 0; k < 4; ++k) expected.push_back(12 * a + 4 * b + k);
  EXPECT_EQ(out.values<int64_t>(), expected);
  // Two dims: x[[[T, F, T], [T, T, F]]] picks (0, 0), (0, 2), (1, 0), (1, 1): shape [4, 4].
  TestTensor plane = make_tensor<bool>({2, 3}, {true, false, true, true, true, false});
  TestTensor picked = zeros<int64_t>({4, 4});
  ASSERT_EQ(run_index(self, {&plane}, picked).failure_state(), Error::Ok);
  expected.clear();
  for (int64_t base : {0, 8, 12, 16})
    for (int64_t k = 0; k < 4; ++k) expected.push_back(base + k);
  EXPECT_EQ(picked.values<int64_t>(), expected);
}

TEST(IndexTensor, MaskOverTrailingDimsAndMixedWithIndices) {
  TestTensor self = cube();
  // x[:, mask] with mask [3, 4] true at (0, 1), (2, 0), (2, 3): shape [2, 3].
  std::vector<bool> bits(12, false);
  bits[1] = bits[8] = bits[11] = true;
  TestTensor mask = make_tensor<bool>({3, 4}, bits);
  TestTensor out = zeros<int64_t>({2, 3});
  ASSERT_EQ(run_index(self, {nullptr, &mask}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 8, 11, 13, 20, 23}));
  // torch: x[[1], [True, False, True], [0, 3]] = [12, 23] (the mask acts as [0, 2]).
  TestTensor i = longs({1}, {1});
  TestTensor rows = make_tensor<bool>({3}, {true, false, true});
  TestTensor k = longs({2}, {0, 3});
  TestTensor mixed = zeros<int64_t>({2});
  ASSERT_EQ(run_index(self, {&i, &rows, &k}, mixed).failure_state(), Error::Ok);
  EXPECT_EQ(mixed.values<int64_t>(), (std::vector<int64_t>{12, 23}));
}

TEST(IndexTensor, IntIndicesByteMaskAndNonContiguousSelf) {
  TestTensor self(ScalarType::Float, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<float>({0, 3, 1, 4, 2, 5});  // logical [[0, 1, 2], [3, 4, 5]]
  TestTensor cols = make_tensor<int32_t>({2}, {2, -3});
  TestTensor out = zeros<float>({2, 2});
  ASSERT_EQ(run_index(self, {nullptr, &cols}, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 0, 5, 3}));
  TestTensor mask = make_tensor<uint8_t>({2}, {0, 7});  // a Byte mask: nonzero is true
  TestTensor row = zeros<float>({1, 3});
  ASSERT_EQ(run_index(self, {&mask}, row).failure_state(), Error::Ok);
  EXPECT_EQ(row.values<float>(), (std::vector<float>{3, 4, 5}));
}

TEST(IndexTensor, EmptyResultsAndDynamicOut) {
  TestTensor self = cube();
  TestTensor none = longs({0}, {});
  TestTensor out = zeros<int64_t>({0, 3, 4});
  ASSERT_EQ(run_index(self, {&none}, out).failure_state(), Error::Ok);
  // An index that broadcasts to nothing is never read, so it is not checked (as in torch).
  TestTensor far = longs({1}, {5});
  TestTensor nothing = zeros<int64_t>({0, 4});
  ASSERT_EQ(run_index(self, {&far, &none}, nothing).failure_state(), Error::Ok);
  TestTensor all_false = make_tensor<bool>({2}, {false, false});
  TestTensor grows = zeros<int64_t>({2, 3, 4}, TensorShapeDynamism::DynamicBound);
  ASSERT_EQ(run_index(self, {&all_false}, grows).failure_state(), Error::Ok);
  EXPECT_EQ(grows.sizes(), (std::vector<SizesType>{0, 3, 4}));
  // Only Nones: a copy.
  TestTensor copy = zeros<int64_t>({2, 3, 4});
  ASSERT_EQ(run_index(self, {nullptr}, copy).failure_state(), Error::Ok);
  EXPECT_EQ(copy.values<int64_t>(), self.values<int64_t>());
}

TEST(IndexTensor, Errors) {
  const char* op = "aten::index.Tensor_out";
  TestTensor self = cube();
  TestTensor out = zeros<int64_t>({1, 3, 4});
  TestTensor three = longs({1}, {2});
  TestTensor beyond = longs({1}, {3});
  TestTensor below = longs({1}, {-4});
  EXPECT_TRUE(failed_with(run_index(self, {nullptr, &beyond}, out), Error::InvalidArgument, op, "'indices'[1]"));
  EXPECT_TRUE(failed_with(run_index(self, {nullptr, &below}, out), Error::InvalidArgument, op, "'indices'[1]"));
  EXPECT_TRUE(failed_with(run_index(self, {&three, &three, &three, &three}, out), Error::InvalidArgument, op,
                          "'indices'"));
  TestTensor bad_mask = make_tensor<bool>({3}, {true, false, true});
  EXPECT_TRUE(failed_with(run_index(self, {&bad_mask}, out), Error::InvalidArgument, op, "'indices'[0]"));
  TestTensor floats = make_tensor<float>({1}, {1});
  EXPECT_TRUE(failed_with(run_index(self, {&floats}, out), Error::InvalidArgument, op, "'indices'[0]"));
  TestTensor two = longs({2}, {0, 1});
  TestTensor three_long = longs({3}, {0, 1, 2});
  EXPECT_TRUE(failed_with(run_index(self, {&two, &three_long}, out), Error::InvalidArgument, op, "'indices'[1]"));
  EXPECT_TRUE(failed_with(run_index(self, {}, out), Error::InvalidArgument, op, "'indices'"));
  TestTensor scalar_mask = make_tensor<bool>({}, {true});
  EXPECT_TRUE(failed_with(run_index(self, {&scalar_mask}, out), Error::NotSupported, op, "'indices'[0]"));
  TestTensor wrong_dtype = zeros<float>({1, 3, 4});
  TestTensor one = longs({1}, {1});
  EXPECT_TRUE(failed_with(run_index(self, {&one}, wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_shape = zeros<int64_t>({2, 3, 4});
  EXPECT_TRUE(failed_with(run_index(self, {&one}, wrong_shape), Error::InvalidArgument, op, "'out'"));
  TestTensor scalar = make_tensor<int64_t>({}, {5});
  EXPECT_TRUE(failed_with(run_index(scalar, {&one}, out), Error::InvalidArgument, op, "'indices'"));
  // An index into a dim of size 0 is out of range when the result is not empty.
  TestTensor rowless = zeros<float>({0, 3});
  TestTensor zero = longs({1}, {0});
  TestTensor row = zeros<float>({1, 3});
  EXPECT_TRUE(failed_with(run_index(rowless, {&zero}, row), Error::InvalidArgument, op, "'indices'[0]"));
  EXPECT_TRUE(failed_with(KernelCall().tensor(self).tensor(one).tensor(out).run(op), Error::InvalidArgument, op,
                          "'indices'"));
}

// ---- index_select ----

KernelRuntimeContext run_select(const TestTensor& self, int64_t dim, const TestTensor& index, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(dim).tensor(index).tensor(out).run("aten::index_select.out");
}

TEST(IndexSelect, MiddleDimWithRepeats) {
  TestTensor self = cube();
  TestTensor index = longs({3}, {2, 0, 2});
  TestTensor out = zeros<int64_t>({2, 3, 4});
  ASSERT_EQ(run_select(self, 1, index, out).failure_state(), Error::Ok);
  std::vector<int64_t> expected;
  for (int64_t a : {0, 1})
    for (int64_t b : {2, 0, 2})
      for (int64_t k = 0; k < 4; ++k) expected.push_back(12 * a + 4 * b + k);
  EXPECT_EQ(out.values<int64_t>(), expected);
}

TEST(IndexSelect, LastDimByNegativeDimWithAZeroDimIntIndex) {
  TestTensor self = cube();
  TestTensor index = make_tensor<int32_t>({}, {3});
  TestTensor out = zeros<int64_t>({2, 3, 1});
  ASSERT_EQ(run_select(self, -1, index, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{3, 7, 11, 15, 19, 23}));
}

TEST(IndexSelect, NonContiguousSelfZeroDimSelfAndEmptyIndex) {
  TestTensor self(ScalarType::Half, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  std::vector<runtime::Half> stored;
  for (float v : {0, 3, 1, 4, 2, 5}) stored.push_back(runtime::Half(v));  // logical [[0, 1, 2], [3, 4, 5]]
  self.set(stored);
  TestTensor index = longs({2}, {2, 1});
  TestTensor out = zeros<runtime::Half>({2, 2});
  ASSERT_EQ(run_select(self, 1, index, out).failure_state(), Error::Ok);
  std::vector<float> got;
  for (runtime::Half h : out.values<runtime::Half>()) got.push_back(h);
  EXPECT_EQ(got, (std::vector<float>{2, 1, 5, 4}));

  TestTensor scalar = make_tensor<double>({}, {5});
  TestTensor zero = longs({1}, {0});
  TestTensor scalar_out = zeros<double>({});
  ASSERT_EQ(run_select(scalar, 0, zero, scalar_out).failure_state(), Error::Ok);
  EXPECT_EQ(scalar_out.values<double>(), (std::vector<double>{5}));

  TestTensor none = longs({0}, {});
  TestTensor empty = zeros<int64_t>({2, 0, 4});
  EXPECT_EQ(run_select(cube(), 1, none, empty).failure_state(), Error::Ok);
}

TEST(IndexSelect, Errors) {
  const char* op = "aten::index_select.out";
  TestTensor self = cube();
  TestTensor out = zeros<int64_t>({2, 3, 1});
  // No wrapping: -1 is out of range, as in torch.
  EXPECT_TRUE(failed_with(run_select(self, 2, longs({1}, {-1}), out), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_select(self, 2, longs({1}, {4}), out), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_select(self, 2, longs({1, 1}, {0}), out), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_select(self, 2, make_tensor<float>({1}, {0}), out), Error::InvalidArgument, op,
                          "'index'"));
  EXPECT_TRUE(failed_with(run_select(self, 3, longs({1}, {0}), out), Error::InvalidArgument, op, "'dim'"));
  TestTensor wrong_dtype = zeros<int32_t>({2, 3, 1});
  EXPECT_TRUE(failed_with(run_select(self, 2, longs({1}, {0}), wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor scalar = make_tensor<double>({}, {5});
  TestTensor scalar_out = zeros<double>({});
  EXPECT_TRUE(failed_with(run_select(scalar, 0, longs({2}, {0, 0}), scalar_out), Error::InvalidArgument, op,
                          "'index'"));
}

// ---- gather ----

KernelRuntimeContext run_gather(const TestTensor& self, int64_t dim, const TestTensor& index, const TestTensor& out) {
  return KernelCall().tensor(self).scalar(dim).tensor(index).scalar(false).tensor(out).run("aten::gather.out");
}

TEST(Gather, AlongEachDim) {
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor by_column = longs({2, 2}, {2, 0, 1, 1});
  TestTensor out = zeros<float>({2, 2});
  ASSERT_EQ(run_gather(self, 1, by_column, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 1, 5, 5}));  // out[i][j] = self[i][index[i][j]]
  TestTensor by_row = make_tensor<int32_t>({1, 3}, {1, 0, 1});
  TestTensor row = zeros<float>({1, 3});
  ASSERT_EQ(run_gather(self, -2, by_row, row).failure_state(), Error::Ok);
  EXPECT_EQ(row.values<float>(), (std::vector<float>{4, 2, 6}));  // out[i][j] = self[index[i][j]][j]
}

TEST(Gather, NonContiguousSelfAndIndex) {
  TestTensor self(ScalarType::Long, {2, 3}, TensorShapeDynamism::Static, {1, 0});
  self.set<int64_t>({1, 4, 2, 5, 3, 6});  // logical [[1, 2, 3], [4, 5, 6]]
  TestTensor index(ScalarType::Long, {2, 2}, TensorShapeDynamism::Static, {1, 0});
  index.set<int64_t>({2, 1, 0, 1});  // logical [[2, 0], [1, 1]]
  TestTensor out = zeros<int64_t>({2, 2});
  ASSERT_EQ(run_gather(self, 1, index, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{3, 1, 5, 5}));
}

TEST(Gather, ZeroDimAndEmpty) {
  // torch: gather(tensor(5), 0, tensor([0, 0])) = [5, 5]; gather(tensor([5, 6]), 0, tensor(1)) = 6.
  TestTensor scalar = make_tensor<int32_t>({}, {5});
  TestTensor pair = zeros<int32_t>({2});
  ASSERT_EQ(run_gather(scalar, 0, longs({2}, {0, 0}), pair).failure_state(), Error::Ok);
  EXPECT_EQ(pair.values<int32_t>(), (std::vector<int32_t>{5, 5}));
  TestTensor vector = make_tensor<int32_t>({2}, {5, 6});
  TestTensor one = zeros<int32_t>({});
  ASSERT_EQ(run_gather(vector, 0, longs({}, {1}), one).failure_state(), Error::Ok);
  EXPECT_EQ(one.values<int32_t>(), (std::vector<int32_t>{6}));
  // An empty index is not checked against self's sizes.
  TestTensor self = zeros<float>({2, 3});
  TestTensor empty = zeros<float>({0, 5});
  EXPECT_EQ(run_gather(self, 1, longs({0, 5}, {}), empty).failure_state(), Error::Ok);
}

TEST(Gather, Errors) {
  const char* op = "aten::gather.out";
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({1, 1});
  EXPECT_TRUE(failed_with(run_gather(self, 1, longs({1, 1}, {3}), out), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_gather(self, 1, longs({1, 1}, {-1}), out), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_gather(self, 1, longs({1}, {0}), out), Error::InvalidArgument, op, "'index'"));
  TestTensor tall = zeros<float>({3, 1});
  EXPECT_TRUE(failed_with(run_gather(self, 1, longs({3, 1}, {0, 0, 0}), tall), Error::InvalidArgument, op, "'index'"));
  EXPECT_TRUE(failed_with(run_gather(self, 1, make_tensor<int16_t>({1, 1}, {0}), out), Error::InvalidArgument, op,
                          "'index'"));
  EXPECT_TRUE(failed_with(run_gather(self, 2, longs({1, 1}, {0}), out), Error::InvalidArgument, op, "'dim'"));
  TestTensor wrong_dtype = zeros<int64_t>({1, 1});
  EXPECT_TRUE(failed_with(run_gather(self, 1, longs({1, 1}, {0}), wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor columnless = zeros<float>({2, 0});
  TestTensor wide = zeros<float>({2, 3});
  EXPECT_TRUE(failed_with(run_gather(columnless, 1, longs({2, 3}, {0, 0, 0, 0, 0, 0}), wide), Error::InvalidArgument,
                          op, "'index'"));
}

// ---- embedding ----

KernelRuntimeContext run_embedding(const TestTensor& weight, const TestTensor& indices, const TestTensor& out,
                                   int64_t padding_idx = -1) {
  return KernelCall()
      .tensor(weight)
      .tensor(indices)
      .scalar(padding_idx)
      .scalar(false)
      .scalar(false)
      .tensor(out)
      .run("aten::embedding.out");
}

TEST(Embedding, RowsForATwoDimIndex) {
  TestTensor weight = make_tensor<float>({4, 3}, iota(12));  // row r is [3r, 3r + 1, 3r + 2]
  TestTensor indices = longs({2, 2}, {1, 3, 0, 0});
  TestTensor out = zeros<float>({2, 2, 3});
  ASSERT_EQ(run_embedding(weight, indices, out).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 4, 5, 9, 10, 11, 0, 1, 2, 0, 1, 2}));
}

TEST(Embedding, PaddingIdxIsIgnoredInTheForward) {
  TestTensor weight = make_tensor<float>({4, 3}, iota(12));
  TestTensor indices = make_tensor<int32_t>({}, {1});
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_embedding(weight, indices, out, 1).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 4, 5}));
}

TEST(Embedding, NonContiguousWeightAndEmptyIndices) {
  TestTensor weight(ScalarType::BFloat16, {3, 2}, TensorShapeDynamism::Static, {1, 0});
  std::vector<runtime::BFloat16> stored;
  for (float v : {0, 2, 4, 1, 3, 5}) stored.push_back(runtime::BFloat16(v));  // logical [[0, 1], [2, 3], [4, 5]]
  weight.set(stored);
  TestTensor indices = longs({2}, {2, 0});
  TestTensor out = zeros<runtime::BFloat16>({2, 2});
  ASSERT_EQ(run_embedding(weight, indices, out).failure_state(), Error::Ok);
  std::vector<float> got;
  for (runtime::BFloat16 v : out.values<runtime::BFloat16>()) got.push_back(v);
  EXPECT_EQ(got, (std::vector<float>{4, 5, 0, 1}));
  TestTensor none = longs({0}, {});
  TestTensor empty = zeros<runtime::BFloat16>({0, 2});
  EXPECT_EQ(run_embedding(weight, none, empty).failure_state(), Error::Ok);
}

TEST(Embedding, Errors) {
  const char* op = "aten::embedding.out";
  TestTensor weight = make_tensor<float>({4, 3}, iota(12));
  TestTensor out = zeros<float>({1, 3});
  EXPECT_TRUE(failed_with(run_embedding(weight, longs({1}, {4}), out), Error::InvalidArgument, op, "'indices'"));
  EXPECT_TRUE(failed_with(run_embedding(weight, longs({1}, {-1}), out), Error::InvalidArgument, op, "'indices'"));
  EXPECT_TRUE(failed_with(run_embedding(weight, make_tensor<float>({1}, {1}), out), Error::InvalidArgument, op,
                          "'indices'"));
  TestTensor flat = make_tensor<float>({3}, {0, 1, 2});
  EXPECT_TRUE(failed_with(run_embedding(flat, longs({1}, {1}), out), Error::InvalidArgument, op, "'weight'"));
  TestTensor wrong_dtype = zeros<double>({1, 3});
  EXPECT_TRUE(failed_with(run_embedding(weight, longs({1}, {1}), wrong_dtype), Error::InvalidArgument, op, "'out'"));
  TestTensor wrong_shape = zeros<float>({2, 3});
  EXPECT_TRUE(failed_with(run_embedding(weight, longs({1}, {1}), wrong_shape), Error::InvalidArgument, op, "'out'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
