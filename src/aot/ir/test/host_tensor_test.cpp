#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/host_tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// [[0, 1, 2], [3, 4, 5]]
HostTensor two_by_three() { return HostTensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5}); }

// The transpose of `t` (2-d), sharing its storage.
HostTensor transposed(const HostTensor& t) {
  return HostTensor(t.dtype(), {t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]}, t.storage_offset(),
                    t.storage());
}

std::shared_ptr<Storage> floats(size_t count) { return Storage::allocate(count * sizeof(float)); }

// ---------------------------------------------------------------------------
// Creation

TEST(HostTensorTest, ZerosIsAContiguousZeroFilledTensor) {
  const HostTensor t = HostTensor::zeros(ScalarType::Float, {2, 3});

  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  EXPECT_THAT(t.sizes(), ElementsAre(2, 3));
  EXPECT_THAT(t.strides(), ElementsAre(3, 1));
  EXPECT_EQ(t.storage_offset(), 0);
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_THAT(t.to_doubles(), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(HostTensorTest, FromVectorFillsRowMajorWithTheMatchingDtype) {
  const HostTensor t = HostTensor::from_vector<int64_t>({2, 2}, {1, 2, 3, 4});

  EXPECT_EQ(t.dtype(), ScalarType::Long);
  EXPECT_EQ(t.nbytes(), 32u);
  EXPECT_EQ(t.data<int64_t>()[2], 3);
  EXPECT_THAT(t.to_doubles(), ElementsAre(1, 2, 3, 4));
}

TEST(HostTensorTest, FromVectorWithTheWrongCountThrowsAotError) {
  EXPECT_THROW(HostTensor::from_vector<float>({2, 2}, {1, 2, 3}), AotError);
}

TEST(HostTensorTest, AScalarHasOneElement) {
  const HostTensor t = HostTensor::zeros(ScalarType::Long, {});
  EXPECT_EQ(t.rank(), 0u);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.nbytes(), 8u);
  EXPECT_TRUE(t.is_contiguous());
}

TEST(HostTensorTest, ADefaultTensorIsUndefined) {
  const HostTensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_EQ(t.data(), nullptr);
}

// ---------------------------------------------------------------------------
// Strides and contiguity

TEST(HostTensorTest, ContiguousStridesAreRowMajorAndTreatEmptyDimsAsOne) {
  EXPECT_THAT(contiguous_strides({}), IsEmpty());
  EXPECT_THAT(contiguous_strides({2, 3, 4}), ElementsAre(12, 4, 1));
  EXPECT_THAT(contiguous_strides({2, 1, 3}), ElementsAre(3, 3, 1));
  EXPECT_THAT(contiguous_strides({2, 0, 3}), ElementsAre(3, 3, 1));
  EXPECT_THAT(contiguous_strides({0}), ElementsAre(1));
}

TEST(HostTensorTest, ATransposedViewIsNotContiguous) {
  const HostTensor t = two_by_three();
  const HostTensor view = transposed(t);

  EXPECT_FALSE(view.is_contiguous());
  EXPECT_EQ(view.storage(), t.storage());
  EXPECT_THAT(view.to_doubles(), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(HostTensorTest, StridesOfSizeOneDimsDoNotMatterForContiguity) {
  const HostTensor t(ScalarType::Float, {1, 3}, {99, 1}, 0, floats(3));
  EXPECT_TRUE(t.is_contiguous());
}

TEST(HostTensorTest, AnEmptyTensorIsContiguous) {
  EXPECT_TRUE(HostTensor::zeros(ScalarType::Float, {2, 0, 3}).is_contiguous());
}

TEST(HostTensorTest, DataStartsAtTheStorageOffset) {
  const HostTensor t = two_by_three();
  const HostTensor row(ScalarType::Float, {3}, {1}, 3, t.storage());
  EXPECT_EQ(row.data<float>(), static_cast<float*>(t.storage()->data) + 3);
  EXPECT_THAT(row.to_doubles(), ElementsAre(3, 4, 5));
}

// ---------------------------------------------------------------------------
// copy_from and clone

TEST(HostTensorTest, CopyFromAStridedViewGathersInRowMajorOrder) {
  const HostTensor source = two_by_three();
  HostTensor destination = HostTensor::zeros(ScalarType::Float, {3, 2});

  destination.copy_from(transposed(source));

  EXPECT_THAT(destination.to_doubles(), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(source.to_doubles(), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(HostTensorTest, CopyFromIntoAStridedViewScattersToTheRightPlaces) {
  const HostTensor base = HostTensor::zeros(ScalarType::Float, {2, 3});
  HostTensor view = transposed(base);

  view.copy_from(HostTensor::from_vector<float>({3, 2}, {10, 11, 12, 13, 14, 15}));

  EXPECT_THAT(base.to_doubles(), ElementsAre(10, 12, 14, 11, 13, 15));
}

TEST(HostTensorTest, CopyFromIntoAColumnWritesOnlyThatColumn) {
  const HostTensor base = HostTensor::zeros(ScalarType::Float, {2, 3});
  HostTensor column(ScalarType::Float, {2}, {3}, 1, base.storage());

  column.copy_from(HostTensor::from_vector<float>({2}, {7, 8}));

  EXPECT_THAT(base.to_doubles(), ElementsAre(0, 7, 0, 0, 8, 0));
}

TEST(HostTensorTest, CopyFromRejectsADifferentDtypeOrSize) {
  HostTensor t = HostTensor::zeros(ScalarType::Float, {2});

  const std::string dtype = error_of([&] { t.copy_from(HostTensor::zeros(ScalarType::Long, {2})); });
  EXPECT_THAT(dtype, HasSubstr("i64[2]"));
  EXPECT_THAT(dtype, HasSubstr("f32[2]"));
  const std::string size = error_of([&] { t.copy_from(HostTensor::zeros(ScalarType::Float, {3})); });
  EXPECT_THAT(size, HasSubstr("f32[3]"));
  EXPECT_THAT(size, HasSubstr("f32[2]"));
}

TEST(HostTensorTest, CloneIsADeepContiguousCopy) {
  const HostTensor t = two_by_three();
  const HostTensor copy = t.clone();
  const HostTensor copy_of_view = transposed(t).clone();

  copy.data<float>()[0] = 42;

  EXPECT_NE(copy.storage(), t.storage());
  EXPECT_EQ(t.data<float>()[0], 0);
  EXPECT_THAT(copy.to_doubles(), ElementsAre(42, 1, 2, 3, 4, 5));
  EXPECT_TRUE(copy_of_view.is_contiguous());
  EXPECT_THAT(copy_of_view.strides(), ElementsAre(2, 1));
  EXPECT_THAT(copy_of_view.to_doubles(), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(HostTensorTest, CopiesAreShallowAndShareWrites) {
  const HostTensor t = two_by_three();
  const HostTensor alias = t;  // NOLINT(performance-unnecessary-copy-initialization)

  alias.data<float>()[1] = 9;

  EXPECT_EQ(alias.storage(), t.storage());
  EXPECT_EQ(t.data<float>()[1], 9);
}

TEST(HostTensorTest, TiedWeightsOnOneStorageSeeEachOthersWrites) {
  const std::shared_ptr<Storage> storage = floats(4);
  const HostTensor encoder(ScalarType::Float, {2, 2}, {2, 1}, 0, storage);
  const HostTensor decoder(ScalarType::Float, {2, 2}, {2, 1}, 0, storage);

  encoder.data<float>()[3] = 5;
  decoder.data<float>()[0] = -1;

  EXPECT_THAT(decoder.to_doubles(), ElementsAre(-1, 0, 0, 5));
  EXPECT_THAT(encoder.to_doubles(), ElementsAre(-1, 0, 0, 5));
}

// ---------------------------------------------------------------------------
// The constructor's checks

TEST(HostTensorTest, AViewThatFitsItsStorageExactlyIsAccepted) {
  EXPECT_NO_THROW(HostTensor(ScalarType::Float, {4}, {1}, 0, floats(4)));
  EXPECT_NO_THROW(HostTensor(ScalarType::Float, {2}, {2}, 1, floats(4)));  // elements 1 and 3
  EXPECT_NO_THROW(HostTensor(ScalarType::Float, {0}, {1}, 0, floats(0)));
}

TEST(HostTensorTest, AViewPastTheEndOfItsStorageThrows) {
  const std::string message = error_of([] { HostTensor(ScalarType::Float, {5}, {1}, 0, floats(4)); });
  EXPECT_THAT(message, HasSubstr("f32[5]"));
  EXPECT_THAT(message, HasSubstr("past its storage of 16 bytes"));
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {4}, {1}, 1, floats(4)); }), HasSubstr("past its storage"));
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2, 2}, {3, 1}, 0, floats(4)); }),
              HasSubstr("past its storage"));
}

TEST(HostTensorTest, ANegativeSizeThrows) {
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2, -1}, {1, 1}, 0, floats(4)); }),
              HasSubstr("negative size -1"));
}

TEST(HostTensorTest, ANegativeStrideThrows) {
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2}, {-1}, 1, floats(4)); }), HasSubstr("negative stride"));
}

TEST(HostTensorTest, ANegativeOffsetThrows) {
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2}, {1}, -1, floats(4)); }),
              HasSubstr("negative storage offset"));
}

TEST(HostTensorTest, ASizeTimesStrideOverflowThrows) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(error_of([&] { HostTensor(ScalarType::Float, {huge, 2}, {2, 1}, 0, floats(4)); }),
              HasSubstr("overflow"));
  EXPECT_THAT(error_of([&] { HostTensor(ScalarType::Float, {2, 2}, {huge, 1}, 0, floats(4)); }),
              HasSubstr("overflow"));
}

TEST(HostTensorTest, AViewWhoseElementCountOverflowsThrows) {
  const int64_t big = int64_t{1} << 32;
  EXPECT_THAT(error_of([&] { HostTensor(ScalarType::Float, {big, big}, {0, 0}, 0, floats(1)); }),
              HasSubstr("overflow"));
}

TEST(HostTensorTest, AnInvalidDtypeCodeThrows) {
  EXPECT_THAT(error_of([] { HostTensor(static_cast<ScalarType>(8), {1}, {1}, 0, floats(4)); }),
              HasSubstr("invalid dtype code 8"));
}

TEST(HostTensorTest, MismatchedSizesAndStridesOrNoStorageThrow) {
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2, 2}, {1}, 0, floats(4)); }),
              HasSubstr("2 sizes but 1 strides"));
  EXPECT_THAT(error_of([] { HostTensor(ScalarType::Float, {2}, {1}, 0, nullptr); }), HasSubstr("no storage"));
}

// ---------------------------------------------------------------------------
// Reading elements

TEST(HostTensorTest, ToDoublesReadsEveryArithmeticDtype) {
  EXPECT_THAT(HostTensor::from_vector<float>({2}, {1.5f, -2}).to_doubles(), ElementsAre(1.5, -2));
  EXPECT_THAT(HostTensor::from_vector<int64_t>({2}, {-3, int64_t{1} << 40}).to_doubles(),
              ElementsAre(-3, 1099511627776.0));
  EXPECT_THAT(HostTensor::from_vector<bool>({3}, {true, false, true}).to_doubles(), ElementsAre(1, 0, 1));

  HostTensor half = HostTensor::zeros(ScalarType::Half, {2});
  half.data<uint16_t>()[0] = 0x3E00;  // 1.5
  half.data<uint16_t>()[1] = 0xC000;  // -2.0
  EXPECT_THAT(half.to_doubles(), ElementsAre(1.5, -2));

  HostTensor bfloat = HostTensor::zeros(ScalarType::BFloat16, {2});
  bfloat.data<uint16_t>()[0] = 0x3FC0;  // 1.5
  bfloat.data<uint16_t>()[1] = 0xC050;  // -3.25
  EXPECT_THAT(bfloat.to_doubles(), ElementsAre(1.5, -3.25));
}

TEST(HostTensorTest, ToDoublesOfADtypeWithoutArithmeticThrowsNamingIt) {
  EXPECT_THAT(error_of([] { HostTensor::zeros(ScalarType::QInt8, {2}).to_doubles(); }), HasSubstr("QInt8"));
}

TEST(HostTensorTest, DescribeShowsDtypeAndSizes) {
  EXPECT_EQ(two_by_three().describe(), "f32[2, 3]");
  EXPECT_EQ(HostTensor::zeros(ScalarType::Long, {}).describe(), "i64[]");
  EXPECT_EQ(HostTensor::zeros(ScalarType::Bool, {0}).describe(), "b8[0]");
  EXPECT_EQ(HostTensor::zeros(ScalarType::BFloat16, {4, 1}).describe(), "bf16[4, 1]");
}

}  // namespace
}  // namespace kiln::aot
