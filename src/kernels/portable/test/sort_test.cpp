// sort.values and topk.values. PyTorch leaves the order of equal values to
// its algorithm (and topk's CPU kernel does not keep them in index order);
// these kernels always give the stable order, which the tests pin. The large
// cases compare against a reference ordering built in the test with
// std::stable_sort.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

using runtime::Half;

constexpr const char* kSort = "aten::sort.values";
constexpr const char* kTopk = "aten::topk.values";

#define EXPECT_OK(ctx) ASSERT_EQ((ctx).failure_state(), Error::Ok) << (ctx).failure_message()

KernelRuntimeContext sort(const TestTensor& self, int64_t dim, bool descending, const TestTensor& values,
                          const TestTensor& indices) {
  return KernelCall().tensor(self).scalar(dim).scalar(descending).tensor(values).tensor(indices).run(kSort);
}

KernelRuntimeContext topk(const TestTensor& self, int64_t k, int64_t dim, bool largest, const TestTensor& values,
                          const TestTensor& indices, bool sorted = true) {
  return KernelCall()
      .tensor(self)
      .scalar(k)
      .scalar(dim)
      .scalar(largest)
      .scalar(sorted)
      .tensor(values)
      .tensor(indices)
      .run(kTopk);
}

// The stable order of `values` (NaN largest), as indices.
std::vector<int64_t> reference_order(const std::vector<float>& values, bool descending) {
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [](float v) { return std::isnan(v) ? kInf : v; };
  auto ranks_above = [&](int64_t a, int64_t b) {
    const bool a_nan = std::isnan(values[a]), b_nan = std::isnan(values[b]);
    if (a_nan != b_nan) return descending ? a_nan : b_nan;
    return descending ? key(values[a]) > key(values[b]) : key(values[a]) < key(values[b]);
  };
  std::stable_sort(order.begin(), order.end(), ranks_above);
  return order;
}

std::vector<float> gather(const std::vector<float>& values, const std::vector<int64_t>& order) {
  std::vector<float> result;
  for (int64_t i : order) result.push_back(values[i]);
  return result;
}

TEST(Sort, AscendingAndDescendingWithTiesAndNaN) {
  TestTensor self = make_tensor<float>({7}, {3, 1, 3, kNaN, 2, kNaN, 1});
  TestTensor values = zeros<float>({7});
  TestTensor indices = zeros<int64_t>({7});
  auto ctx = sort(self, 0, false, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {1, 1, 2, 3, 3, kNaN, kNaN}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 6, 4, 0, 2, 3, 5}));
  ctx = sort(self, -1, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {kNaN, kNaN, 3, 3, 2, 1, 1}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{3, 5, 0, 2, 4, 1, 6}));
  // -0.0 and 0.0 are equal, so they keep their order.
  TestTensor zeros_ = make_tensor<float>({3}, {-0.0f, 0.0f, -0.0f});
  TestTensor zero_values = zeros<float>({3});
  ctx = sort(zeros_, 0, true, zero_values, indices);
  EXPECT_TRUE(failed_with(ctx, Error::InvalidArgument, kSort, "'indices'"));  // static [7] cannot become [3]
  TestTensor zero_indices = zeros<int64_t>({3});
  ctx = sort(zeros_, 0, true, zero_values, zero_indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(zero_indices.values<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(std::signbit(zero_values.values<float>()[0]));
}

TEST(Sort, ManyTiesStayInIndexOrderOnContiguousAndStridedLines) {
  // 300 values from {0, 1, 2, 3, NaN}, laid out as the rows of [2, 300] (contiguous
  // lines) and as the columns of [300, 2] (strided lines).
  std::mt19937 rng(7);
  std::vector<float> line(300);
  for (float& v : line) {
    const int r = static_cast<int>(rng() % 5);
    v = r == 4 ? kNaN : static_cast<float>(r);
  }
  std::vector<float> rows(line);
  rows.insert(rows.end(), line.rbegin(), line.rend());
  std::vector<float> reversed(line.rbegin(), line.rend());
  std::vector<float> columns;
  for (size_t i = 0; i < 300; ++i) {
    columns.push_back(line[i]);
    columns.push_back(reversed[i]);
  }
  for (bool descending : {false, true}) {
    TestTensor by_rows = make_tensor<float>({2, 300}, rows);
    TestTensor row_values = zeros<float>({2, 300});
    TestTensor row_indices = zeros<int64_t>({2, 300});
    auto ctx = sort(by_rows, 1, descending, row_values, row_indices);
    EXPECT_OK(ctx);
    TestTensor by_columns = make_tensor<float>({300, 2}, columns);
    TestTensor column_values = zeros<float>({300, 2});
    TestTensor column_indices = zeros<int64_t>({300, 2});
    ctx = sort(by_columns, 0, descending, column_values, column_indices);
    EXPECT_OK(ctx);
    for (size_t which = 0; which < 2; ++which) {
      const std::vector<float>& source = which == 0 ? line : reversed;
      const std::vector<int64_t> order = reference_order(source, descending);
      std::vector<int64_t> from_rows, from_columns;
      std::vector<float> row_sorted, column_sorted;
      for (size_t i = 0; i < 300; ++i) {
        from_rows.push_back(row_indices.values<int64_t>()[which * 300 + i]);
        row_sorted.push_back(row_values.values<float>()[which * 300 + i]);
        from_columns.push_back(column_indices.values<int64_t>()[i * 2 + which]);
        column_sorted.push_back(column_values.values<float>()[i * 2 + which]);
      }
      EXPECT_EQ(from_rows, order) << descending << which;
      EXPECT_EQ(from_columns, order) << descending << which;
      EXPECT_TRUE(all_near(row_sorted, gather(source, order), 0));
      EXPECT_TRUE(all_near(column_sorted, gather(source, order), 0));
    }
  }
}

TEST(Sort, DtypesZeroDimAndEmpty) {
  TestTensor bools = make_tensor<bool>({3}, {true, false, true});
  TestTensor bool_values = zeros<bool>({3});
  TestTensor indices = zeros<int64_t>({3});
  auto ctx = sort(bools, 0, false, bool_values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(bool_values.values<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  TestTensor ints = make_tensor<int32_t>({3}, {3, 1, 2});
  TestTensor int_values = zeros<int32_t>({3});
  ctx = sort(ints, 0, true, int_values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(int_values.values<int32_t>(), (std::vector<int32_t>{3, 2, 1}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{0, 2, 1}));
  TestTensor halfs = make_tensor<Half>({3}, {Half(2.5f), Half(-1), Half(0.5f)});
  TestTensor half_values = zeros<Half>({3});
  ctx = sort(halfs, 0, false, half_values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(static_cast<float>(half_values.values<Half>()[2]), 2.5f);
  TestTensor scalar = make_tensor<float>({}, {3});
  TestTensor scalar_value = zeros<float>({});
  TestTensor scalar_index = make_tensor<int64_t>({}, {5});
  ctx = sort(scalar, -1, false, scalar_value, scalar_index);
  EXPECT_OK(ctx);
  EXPECT_EQ(scalar_value.values<float>(), std::vector<float>{3});
  EXPECT_EQ(scalar_index.values<int64_t>(), std::vector<int64_t>{0});
  TestTensor empty = zeros<float>({2, 0});
  TestTensor empty_values = zeros<float>({2, 0});
  TestTensor empty_indices = zeros<int64_t>({2, 0});
  ctx = sort(empty, 1, false, empty_values, empty_indices);
  EXPECT_OK(ctx);
}

TEST(Sort, AlongAnOuterDim) {
  TestTensor self = make_tensor<float>({2, 2}, {3, 1, 2, 4});
  TestTensor values = zeros<float>({2, 2});
  TestTensor indices = zeros<int64_t>({2, 2});
  const auto ctx = sort(self, 0, false, values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(values.values<float>(), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1}));
}

TEST(Sort, Errors) {
  TestTensor self = make_tensor<float>({2}, {1, 2});
  TestTensor values = zeros<float>({2});
  TestTensor indices = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(sort(self, 1, false, values, indices), Error::InvalidArgument, kSort, "'dim'"));
  TestTensor int_indices = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(sort(self, 0, false, values, int_indices), Error::InvalidArgument, kSort, "'indices'"));
  TestTensor double_values = zeros<double>({2});
  EXPECT_TRUE(failed_with(sort(self, 0, false, double_values, indices), Error::InvalidArgument, kSort, "'values'"));
}

TEST(Topk, LargestAndSmallestWithNaNOnTop) {
  TestTensor self = make_tensor<float>({7}, {3, 1, 3, kNaN, 2, kNaN, 1});
  TestTensor values = zeros<float>({3});
  TestTensor indices = zeros<int64_t>({3});
  auto ctx = topk(self, 3, 0, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {kNaN, kNaN, 3}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{3, 5, 0}));
  ctx = topk(self, 3, -1, false, values, indices, false);  // sorted=False: sorted anyway
  EXPECT_OK(ctx);
  EXPECT_EQ(values.values<float>(), (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 6, 4}));
  TestTensor extremes = make_tensor<float>({3}, {kInf, kNaN, -kInf});
  ctx = topk(extremes, 3, 0, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {kNaN, kInf, -kInf}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  ctx = topk(extremes, 3, 0, false, values, indices);
  EXPECT_OK(ctx);
  EXPECT_TRUE(all_near(values.values<float>(), {-kInf, kInf, kNaN}, 0));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{2, 0, 1}));
}

TEST(Topk, TiesKeepTheLowerIndexFirst) {
  TestTensor self = make_tensor<float>({5}, {1, 2, 2, 2, 3});
  TestTensor values = zeros<float>({4});
  TestTensor indices = zeros<int64_t>({4});
  const auto ctx = topk(self, 4, 0, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(values.values<float>(), (std::vector<float>{3, 2, 2, 2}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{4, 1, 2, 3}));
}

TEST(Topk, LongLinesAgainstAStableSort) {
  // Rows of [3, 1000] with many ties and a few NaN; k from 1 to all.
  std::mt19937 rng(11);
  std::vector<float> data(3000);
  for (float& v : data) v = rng() % 50 == 0 ? kNaN : static_cast<float>(rng() % 200) - 100;
  for (int64_t k : {1, 10, 999, 1000}) {
    for (bool largest : {true, false}) {
      TestTensor self = make_tensor<float>({3, 1000}, data);
      TestTensor values = zeros<float>({3, static_cast<SizesType>(k)});
      TestTensor indices = zeros<int64_t>({3, static_cast<SizesType>(k)});
      const auto ctx = topk(self, k, 1, largest, values, indices);
      EXPECT_OK(ctx);
      const std::vector<int64_t> all_indices = indices.values<int64_t>();
      const std::vector<float> all_values = values.values<float>();
      for (size_t r = 0; r < 3; ++r) {
        const std::vector<float> row(data.begin() + static_cast<ptrdiff_t>(r * 1000),
                                     data.begin() + static_cast<ptrdiff_t>((r + 1) * 1000));
        std::vector<int64_t> order = reference_order(row, largest);
        order.resize(static_cast<size_t>(k));
        const auto first = static_cast<ptrdiff_t>(r * static_cast<size_t>(k));
        const std::vector<int64_t> got(all_indices.begin() + first, all_indices.begin() + first + k);
        const std::vector<float> got_values(all_values.begin() + first, all_values.begin() + first + k);
        EXPECT_EQ(got, order) << k << largest << r;
        EXPECT_TRUE(all_near(got_values, gather(row, order), 0));
      }
    }
  }
}

TEST(Topk, AlongAnOuterDimDtypesAndZeroDim) {
  TestTensor self = make_tensor<float>({2, 2}, {1, 4, 3, 2});
  TestTensor values = zeros<float>({1, 2});
  TestTensor indices = zeros<int64_t>({1, 2});
  auto ctx = topk(self, 1, 0, true, values, indices);
  EXPECT_OK(ctx);
  EXPECT_EQ(values.values<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 0}));
  TestTensor ints = make_tensor<int32_t>({3}, {1, 5, 2});
  TestTensor int_values = zeros<int32_t>({2});
  TestTensor two = zeros<int64_t>({2});
  ctx = topk(ints, 2, 0, true, int_values, two);
  EXPECT_OK(ctx);
  EXPECT_EQ(int_values.values<int32_t>(), (std::vector<int32_t>{5, 2}));
  EXPECT_EQ(two.values<int64_t>(), (std::vector<int64_t>{1, 2}));
  TestTensor halfs = make_tensor<Half>({3}, {Half(1), Half(5), Half(2)});
  TestTensor half_values = zeros<Half>({2});
  ctx = topk(halfs, 2, 0, false, half_values, two);
  EXPECT_OK(ctx);
  EXPECT_EQ(two.values<int64_t>(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(static_cast<float>(half_values.values<Half>()[1]), 2.0f);
  // A 0-dim self gives its element for k 0 or 1, as PyTorch.
  TestTensor scalar = make_tensor<float>({}, {3});
  TestTensor scalar_value = zeros<float>({});
  TestTensor scalar_index = make_tensor<int64_t>({}, {5});
  for (int64_t k : {0, 1}) {
    ctx = topk(scalar, k, 0, true, scalar_value, scalar_index);
    EXPECT_OK(ctx);
    EXPECT_EQ(scalar_value.values<float>(), std::vector<float>{3});
    EXPECT_EQ(scalar_index.values<int64_t>(), std::vector<int64_t>{0});
  }
  EXPECT_TRUE(failed_with(topk(scalar, 2, 0, true, scalar_value, scalar_index), Error::InvalidArgument, kTopk, "'k'"));
}

TEST(Topk, KZeroEmptyAndErrors) {
  TestTensor self = make_tensor<float>({3}, {1, 5, 2});
  TestTensor none = zeros<float>({0});
  TestTensor no_indices = zeros<int64_t>({0});
  auto ctx = topk(self, 0, 0, true, none, no_indices);
  EXPECT_OK(ctx);
  TestTensor empty_rows = zeros<float>({0, 3});
  TestTensor values = zeros<float>({0, 2});
  TestTensor indices = zeros<int64_t>({0, 2});
  ctx = topk(empty_rows, 2, 1, true, values, indices);
  EXPECT_OK(ctx);
  TestTensor four = zeros<float>({4});
  TestTensor four_indices = zeros<int64_t>({4});
  EXPECT_TRUE(failed_with(topk(self, 4, 0, true, four, four_indices), Error::InvalidArgument, kTopk, "'k'"));
  EXPECT_TRUE(failed_with(topk(self, -1, 0, true, four, four_indices), Error::InvalidArgument, kTopk, "'k'"));
  TestTensor two = zeros<float>({2});
  TestTensor two_indices = zeros<int64_t>({2});
  EXPECT_TRUE(failed_with(topk(self, 2, 1, true, two, two_indices), Error::InvalidArgument, kTopk, "'dim'"));
  TestTensor bools = make_tensor<bool>({3}, {true, false, true});
  TestTensor bool_values = zeros<bool>({2});
  EXPECT_TRUE(failed_with(topk(bools, 2, 0, true, bool_values, two_indices), Error::InvalidArgument, kTopk, "'self'"));
  TestTensor int_indices = zeros<int32_t>({2});
  EXPECT_TRUE(failed_with(topk(self, 2, 0, true, two, int_indices), Error::InvalidArgument, kTopk, "'indices'"));
  TestTensor double_values = zeros<double>({2});
  EXPECT_TRUE(failed_with(topk(self, 2, 0, true, double_values, two_indices), Error::InvalidArgument, kTopk,
                          "'values'"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
