#include "runtime/core/tensor_impl.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/core/test/log_capture.h"
#include "runtime/core/test/span_util.h"

namespace kiln::runtime {
namespace {

using testing::to_vector;

// ---------------------------------------------------------------------------
// Span

TEST(SpanTest, DefaultIsEmpty) {
  Span<int> span;
  EXPECT_TRUE(span.empty());
  EXPECT_EQ(span.size(), 0u);
  EXPECT_EQ(span.data(), nullptr);
  EXPECT_EQ(span.begin(), span.end());
}

TEST(SpanTest, ViewsAnArrayWithoutCopying) {
  int values[] = {1, 2, 3};
  Span<int> span(values);
  EXPECT_EQ(span.size(), 3u);
  EXPECT_FALSE(span.empty());
  EXPECT_EQ(span.data(), values);
  span[1] = 20;
  EXPECT_EQ(values[1], 20);
  int sum = 0;
  for (int v : span) sum += v;
  EXPECT_EQ(sum, 24);
}

TEST(SpanTest, PointerAndSize) {
  std::vector<int64_t> values = {4, 5, 6, 7};
  Span<int64_t> span(values.data() + 1, 2);
  EXPECT_EQ(span.size(), 2u);
  EXPECT_EQ(span[0], 5);
  EXPECT_EQ(span[1], 6);
  EXPECT_EQ(span.end() - span.begin(), 2);
}

TEST(SpanTest, ConvertsToConst) {
  int values[] = {1, 2};
  Span<int> mutable_span(values);
  Span<const int> const_span = mutable_span;
  EXPECT_EQ(const_span.data(), values);
  EXPECT_EQ(const_span.size(), 2u);
  static_assert(std::is_convertible_v<Span<int>, Span<const int>>);
  static_assert(!std::is_convertible_v<Span<const int>, Span<int>>);
  static_assert(!std::is_convertible_v<Span<int>, Span<int64_t>>);
}

TEST(SpanTest, IsUsableAtCompileTime) {
  static constexpr int kValues[] = {1, 2, 3};
  constexpr Span<const int> span(kValues);
  static_assert(span.size() == 3);
  static_assert(!span.empty());
}

TEST(SpanDeathTest, IndexPastTheEndAborts) {
  int values[] = {1, 2};
  Span<int> span(values);
  EXPECT_DEATH((void)span[2], "internal check failed");
}

// ---------------------------------------------------------------------------
// compute_strides

std::vector<StridesType> strides_for(std::vector<SizesType> sizes, std::vector<DimOrderType> dim_order) {
  std::vector<StridesType> strides(sizes.size(), -1);
  const Error error = compute_strides({sizes.data(), sizes.size()}, {dim_order.data(), dim_order.size()},
                                      {strides.data(), strides.size()});
  EXPECT_EQ(error, Error::Ok);
  return strides;
}

TEST(ComputeStridesTest, Contiguous) {
  EXPECT_EQ(strides_for({2, 3, 4, 5}, {0, 1, 2, 3}), (std::vector<StridesType>{60, 20, 5, 1}));
  EXPECT_EQ(strides_for({7}, {0}), (std::vector<StridesType>{1}));
  EXPECT_EQ(strides_for({}, {}), (std::vector<StridesType>{}));
}

TEST(ComputeStridesTest, ChannelsLast) {
  EXPECT_EQ(strides_for({2, 3, 4, 5}, {0, 2, 3, 1}), (std::vector<StridesType>{60, 1, 15, 3}));
  EXPECT_EQ(strides_for({1, 8, 2, 2}, {0, 2, 3, 1}), (std::vector<StridesType>{32, 1, 16, 8}));
}

TEST(ComputeStridesTest, Transposed) {
  EXPECT_EQ(strides_for({3, 4}, {1, 0}), (std::vector<StridesType>{1, 3}));
}

TEST(ComputeStridesTest, SizeZeroAndOneDimsStillGetAStride) {
  // As in PyTorch, a size-0 or size-1 dim counts as 1 for the dims outside it.
  EXPECT_EQ(strides_for({2, 0, 3}, {0, 1, 2}), (std::vector<StridesType>{3, 3, 1}));
  EXPECT_EQ(strides_for({2, 1, 3}, {0, 1, 2}), (std::vector<StridesType>{3, 3, 1}));
}

TEST(ComputeStridesTest, RejectsAStrideThatDoesNotFit) {
  // No element (a size-0 dim), but the inner sizes' product passes INT32_MAX
  // (pte_fuzz: signed overflow in compute_strides).
  SizesType sizes[] = {0, 6144, 67108865};
  DimOrderType dim_order[] = {0, 1, 2};
  StridesType strides[3];
  EXPECT_EQ(compute_strides(sizes, dim_order, strides), Error::InvalidArgument);
  // The product past the outermost dim is never a stride: it may pass 32 bits.
  SizesType wide[] = {67108865, 32};
  StridesType two[2];
  EXPECT_EQ(compute_strides(wide, {dim_order, 2}, two), Error::Ok);
  EXPECT_EQ(two[0], 32);
}

TEST(ComputeStridesTest, RejectsMismatchedLengths) {
  SizesType sizes[] = {2, 3};
  DimOrderType dim_order[] = {0, 1};
  DimOrderType short_order[] = {0};
  StridesType strides[2];
  StridesType short_strides[1];
  testing::LogCapture log;
  EXPECT_EQ(compute_strides(sizes, short_order, strides), Error::InvalidArgument);
  EXPECT_EQ(compute_strides(sizes, dim_order, short_strides), Error::InvalidArgument);
  EXPECT_EQ(log.errors().size(), 2u) << log.text();
}

TEST(ComputeStridesTest, RejectsADimOrderThatIsNotAPermutation) {
  SizesType sizes[] = {2, 3};
  StridesType strides[2];
  DimOrderType out_of_range[] = {0, 2};
  EXPECT_EQ(compute_strides(sizes, out_of_range, strides), Error::InvalidArgument);
  DimOrderType repeated[] = {1, 1};
  EXPECT_EQ(compute_strides(sizes, repeated, strides), Error::InvalidArgument);
}

TEST(DimOrderTest, IsContiguous) {
  DimOrderType contiguous[] = {0, 1, 2, 3};
  DimOrderType channels_last[] = {0, 2, 3, 1};
  EXPECT_TRUE(is_contiguous_dim_order(contiguous));
  EXPECT_FALSE(is_contiguous_dim_order(channels_last));
  EXPECT_TRUE(is_contiguous_dim_order({}));
}

// ---------------------------------------------------------------------------
// TensorImpl and Tensor

// The storage a TensorImpl points into, kept alive by the test.
template <size_t N>
struct TensorStorage {
  std::array<SizesType, N> sizes;
  std::array<DimOrderType, N> dim_order;
  std::array<StridesType, N> strides{};
  std::vector<float> data;

  TensorStorage(std::array<SizesType, N> s, std::array<DimOrderType, N> order) : sizes(s), dim_order(order) {
    EXPECT_EQ(compute_strides(Span<const SizesType>(sizes.data(), N), Span<const DimOrderType>(dim_order.data(), N),
                              Span<StridesType>(strides.data(), N)),
              Error::Ok);
    size_t numel = 1;
    for (SizesType size : sizes) numel *= static_cast<size_t>(size);
    data.resize(numel);
  }

  TensorImpl make(TensorShapeDynamism dynamism = TensorShapeDynamism::Static) {
    return TensorImpl(ScalarType::Float, N, sizes.data(), data.data(), dim_order.data(), strides.data(), dynamism);
  }
};

TEST(TensorImplTest, DescribesItsStorage) {
  TensorStorage<4> storage({2, 3, 4, 5}, {0, 1, 2, 3});
  TensorImpl impl = storage.make();
  EXPECT_EQ(impl.scalar_type(), ScalarType::Float);
  EXPECT_EQ(impl.dim(), 4);
  EXPECT_EQ(impl.numel(), 120);
  EXPECT_EQ(impl.element_size(), 4u);
  EXPECT_EQ(impl.nbytes(), 480u);
  EXPECT_EQ(impl.shape_dynamism(), TensorShapeDynamism::Static);
  EXPECT_EQ(to_vector(impl.sizes()), (std::vector<SizesType>{2, 3, 4, 5}));
  EXPECT_EQ(to_vector(impl.dim_order()), (std::vector<DimOrderType>{0, 1, 2, 3}));
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{60, 20, 5, 1}));
  EXPECT_EQ(impl.data(), storage.data.data());
  EXPECT_EQ(impl.sizes().data(), storage.sizes.data());  // a view, not a copy
}

TEST(TensorImplTest, ChannelsLastStrides) {
  TensorStorage<4> storage({2, 3, 4, 5}, {0, 2, 3, 1});
  TensorImpl impl = storage.make();
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{60, 1, 15, 3}));
  EXPECT_EQ(impl.numel(), 120);
}

TEST(TensorImplTest, ScalarTensorHasOneElement) {
  int64_t value = 9;
  TensorImpl impl(ScalarType::Long, 0, nullptr, &value, nullptr, nullptr);
  EXPECT_EQ(impl.dim(), 0);
  EXPECT_EQ(impl.numel(), 1);
  EXPECT_EQ(impl.nbytes(), 8u);
  EXPECT_TRUE(impl.sizes().empty());
  EXPECT_EQ(impl.internal_resize_contiguous({}), Error::Ok);
}

TEST(TensorImplTest, ZeroSizedDimMeansNoElements) {
  TensorStorage<2> storage({0, 3}, {0, 1});
  TensorImpl impl = storage.make();
  EXPECT_EQ(impl.numel(), 0);
  EXPECT_EQ(impl.nbytes(), 0u);
}

TEST(TensorImplTest, NbytesUsesTheElementSize) {
  SizesType sizes[] = {3};
  DimOrderType dim_order[] = {0};
  StridesType strides[] = {1};
  uint16_t data[3] = {};
  TensorImpl half(ScalarType::Half, 1, sizes, data, dim_order, strides);
  EXPECT_EQ(half.nbytes(), 6u);
  TensorImpl byte(ScalarType::Byte, 1, sizes, data, dim_order, strides);
  EXPECT_EQ(byte.nbytes(), 3u);
}

TEST(TensorImplTest, SetData) {
  TensorStorage<1> storage({4}, {0});
  TensorImpl impl = storage.make();
  float other[4] = {};
  impl.set_data(other);
  EXPECT_EQ(impl.data(), other);
  EXPECT_EQ(impl.mutable_data(), other);
}

TEST(TensorResizeTest, StaticAcceptsOnlyItsOwnShape) {
  TensorStorage<2> storage({2, 3}, {0, 1});
  TensorImpl impl = storage.make(TensorShapeDynamism::Static);
  const SizesType same[] = {2, 3};
  EXPECT_EQ(impl.internal_resize_contiguous(same), Error::Ok);
  const SizesType smaller[] = {2, 2};
  testing::LogCapture log;
  EXPECT_EQ(impl.internal_resize_contiguous(smaller), Error::NotSupported);
  EXPECT_TRUE(log.contains("the tensor's sizes are static")) << log.text();
  const SizesType one[] = {6};
  EXPECT_EQ(impl.internal_resize_contiguous(one), Error::NotSupported);
  EXPECT_TRUE(log.contains("1 sizes for a tensor of rank 2")) << log.text();
  const SizesType same_numel[] = {3, 2};
  EXPECT_EQ(impl.internal_resize_contiguous(same_numel), Error::NotSupported);
  EXPECT_EQ(to_vector(impl.sizes()), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(impl.numel(), 6);
}

TEST(TensorResizeTest, DynamicBoundAcceptsUpToItsNumelAndRecomputesStrides) {
  TensorStorage<3> storage({2, 3, 4}, {0, 1, 2});
  TensorImpl impl = storage.make(TensorShapeDynamism::DynamicBound);

  const SizesType smaller[] = {1, 2, 4};
  ASSERT_EQ(impl.internal_resize_contiguous(smaller), Error::Ok);
  EXPECT_EQ(to_vector(impl.sizes()), (std::vector<SizesType>{1, 2, 4}));
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{8, 4, 1}));
  EXPECT_EQ(impl.numel(), 8);
  EXPECT_EQ(impl.nbytes(), 32u);
  EXPECT_EQ(storage.sizes[1], 2);  // resized in place, in the caller's memory

  // Growing back up to the bound is allowed; the bound is the original numel,
  // not the current one.
  const SizesType reshaped[] = {4, 3, 2};
  ASSERT_EQ(impl.internal_resize_contiguous(reshaped), Error::Ok);
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{6, 2, 1}));
  EXPECT_EQ(impl.numel(), 24);

  const SizesType too_big[] = {5, 3, 2};
  EXPECT_EQ(impl.internal_resize_contiguous(too_big), Error::NotSupported);
  EXPECT_EQ(to_vector(impl.sizes()), (std::vector<SizesType>{4, 3, 2}));
  EXPECT_EQ(impl.numel(), 24);

  const SizesType empty[] = {0, 3, 2};
  ASSERT_EQ(impl.internal_resize_contiguous(empty), Error::Ok);
  EXPECT_EQ(impl.numel(), 0);
}

TEST(TensorResizeTest, DynamicBoundKeepsTheDimOrder) {
  TensorStorage<4> storage({2, 3, 4, 5}, {0, 2, 3, 1});
  TensorImpl impl = storage.make(TensorShapeDynamism::DynamicBound);
  const SizesType smaller[] = {1, 3, 2, 5};
  ASSERT_EQ(impl.internal_resize_contiguous(smaller), Error::Ok);
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{30, 1, 15, 3}));
  EXPECT_EQ(to_vector(impl.dim_order()), (std::vector<DimOrderType>{0, 2, 3, 1}));
}

TEST(TensorResizeTest, DynamicUnboundAcceptsAnyShape) {
  TensorStorage<2> storage({2, 2}, {0, 1});
  TensorImpl impl = storage.make(TensorShapeDynamism::DynamicUnbound);
  const SizesType bigger[] = {10, 10};
  ASSERT_EQ(impl.internal_resize_contiguous(bigger), Error::Ok);
  EXPECT_EQ(impl.numel(), 100);
  EXPECT_EQ(to_vector(impl.strides()), (std::vector<StridesType>{10, 1}));
}

TEST(TensorResizeTest, RankChangeIsNotSupported) {
  TensorStorage<2> storage({2, 3}, {0, 1});
  for (TensorShapeDynamism dynamism : {TensorShapeDynamism::Static, TensorShapeDynamism::DynamicBound,
                                       TensorShapeDynamism::DynamicUnbound}) {
    TensorImpl impl = storage.make(dynamism);
    const SizesType flat[] = {6};
    EXPECT_EQ(impl.internal_resize_contiguous(flat), Error::NotSupported);
    const SizesType deeper[] = {1, 2, 3};
    EXPECT_EQ(impl.internal_resize_contiguous(deeper), Error::NotSupported);
    EXPECT_EQ(impl.dim(), 2);
  }
}

TEST(TensorResizeTest, NegativeSizeIsInvalidArgument) {
  TensorStorage<2> storage({2, 3}, {0, 1});
  for (TensorShapeDynamism dynamism : {TensorShapeDynamism::Static, TensorShapeDynamism::DynamicBound,
                                       TensorShapeDynamism::DynamicUnbound}) {
    TensorImpl impl = storage.make(dynamism);
    const SizesType negative[] = {2, -1};
    EXPECT_EQ(impl.internal_resize_contiguous(negative), Error::InvalidArgument);
    EXPECT_EQ(to_vector(impl.sizes()), (std::vector<SizesType>{2, 3}));
  }
}

TEST(TensorTest, HandleForwardsToTheImpl) {
  TensorStorage<3> storage({2, 3, 4}, {0, 1, 2});
  TensorImpl impl = storage.make(TensorShapeDynamism::DynamicBound);
  Tensor tensor(&impl);
  EXPECT_EQ(tensor.unsafeGetTensorImpl(), &impl);
  EXPECT_EQ(tensor.scalar_type(), ScalarType::Float);
  EXPECT_EQ(tensor.dim(), 3);
  EXPECT_EQ(tensor.numel(), 24);
  EXPECT_EQ(tensor.nbytes(), 96u);
  EXPECT_EQ(tensor.element_size(), 4u);
  EXPECT_EQ(tensor.shape_dynamism(), TensorShapeDynamism::DynamicBound);
  EXPECT_EQ(tensor.size(0), 2);
  EXPECT_EQ(tensor.size(2), 4);
  EXPECT_EQ(tensor.size(-1), 4);
  EXPECT_EQ(tensor.size(-3), 2);
  EXPECT_EQ(to_vector(tensor.strides()), (std::vector<StridesType>{12, 4, 1}));

  tensor.mutable_data_ptr<float>()[5] = 2.5f;
  EXPECT_EQ(storage.data[5], 2.5f);
  EXPECT_EQ(tensor.const_data_ptr<float>()[5], 2.5f);
  EXPECT_EQ(tensor.const_data_ptr(), storage.data.data());
  EXPECT_EQ(tensor.mutable_data_ptr(), storage.data.data());

  // Copies of the handle share the impl.
  Tensor copy = tensor;
  const SizesType smaller[] = {1, 3, 4};
  ASSERT_EQ(resize_tensor(copy, smaller), Error::Ok);
  EXPECT_EQ(tensor.numel(), 12);
  EXPECT_EQ(tensor.size(0), 1);
}

TEST(TensorTest, ResizeTensorReportsErrors) {
  TensorStorage<2> storage({2, 3}, {0, 1});
  TensorImpl impl = storage.make();
  const SizesType other[] = {3, 3};
  EXPECT_EQ(resize_tensor(Tensor(&impl), other), Error::NotSupported);
}

TEST(TensorTest, DefaultHandleIsNull) {
  Tensor tensor;
  EXPECT_EQ(tensor.unsafeGetTensorImpl(), nullptr);
}

}  // namespace
}  // namespace kiln::runtime
