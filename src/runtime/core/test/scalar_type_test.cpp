#include "runtime/core/scalar_type.h"
#include "tests/support/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kiln::runtime {
namespace {

struct TypeCase {
  ScalarType type;
  int number;
  size_t size;
  const char* name;
  const char* short_name;
};

// ExecuTorch's scalar_type.fbs numbering; the numbers are part of the .pte format.
constexpr TypeCase kAllTypes[] = {
    {ScalarType::Byte, 0, 1, "Byte", "u8"},
    {ScalarType::Char, 1, 1, "Char", "i8"},
    {ScalarType::Short, 2, 2, "Short", "i16"},
    {ScalarType::Int, 3, 4, "Int", "i32"},
    {ScalarType::Long, 4, 8, "Long", "i64"},
    {ScalarType::Half, 5, 2, "Half", "f16"},
    {ScalarType::Float, 6, 4, "Float", "f32"},
    {ScalarType::Double, 7, 8, "Double", "f64"},
    {ScalarType::Bool, 11, 1, "Bool", "b8"},
    {ScalarType::QInt8, 12, 1, "QInt8", "qi8"},
    {ScalarType::QUInt8, 13, 1, "QUInt8", "qu8"},
    {ScalarType::QInt32, 14, 4, "QInt32", "qi32"},
    {ScalarType::BFloat16, 15, 2, "BFloat16", "bf16"},
    {ScalarType::QUInt4x2, 16, 1, "QUInt4x2", "qu4x2"},
    {ScalarType::QUInt2x4, 17, 1, "QUInt2x4", "qu2x4"},
    {ScalarType::Bits16, 22, 2, "Bits16", "bits16"},
    {ScalarType::Float8_e5m2, 23, 1, "Float8_e5m2", "f8e5m2"},
    {ScalarType::Float8_e4m3fn, 24, 1, "Float8_e4m3fn", "f8e4m3fn"},
    {ScalarType::Float8_e5m2fnuz, 25, 1, "Float8_e5m2fnuz", "f8e5m2fnuz"},
    {ScalarType::Float8_e4m3fnuz, 26, 1, "Float8_e4m3fnuz", "f8e4m3fnuz"},
    {ScalarType::UInt16, 27, 2, "UInt16", "u16"},
    {ScalarType::UInt32, 28, 4, "UInt32", "u32"},
    {ScalarType::UInt64, 29, 8, "UInt64", "u64"},
};

ScalarType from_number(int number) { return static_cast<ScalarType>(number); }

TEST(ScalarTypeTest, NumbersMatchExecuTorch) {
  for (const TypeCase& c : kAllTypes) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(static_cast<int>(c.type), c.number);
  }
}

TEST(ScalarTypeTest, EveryTypeIsValidWithSizeAndNames) {
  for (const TypeCase& c : kAllTypes) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(is_valid(c.type));
    EXPECT_EQ(element_size(c.type), c.size);
    EXPECT_STREQ(to_string(c.type), c.name);
    EXPECT_STREQ(short_name(c.type), c.short_name);
  }
}

TEST(ScalarTypeTest, GapsAndOutOfRangeNumbersAreInvalid) {
  for (int number : {8, 18, 19, 20, 21, 30, 31, 64, 127, -1, -128}) {
    SCOPED_TRACE(number);
    const ScalarType type = from_number(number);
    EXPECT_FALSE(is_valid(type));
    EXPECT_EQ(element_size(type), 0u);
    EXPECT_STREQ(to_string(type), "Invalid");
    EXPECT_STREQ(short_name(type), "invalid");
    EXPECT_FALSE(is_floating_type(type));
    EXPECT_FALSE(is_integral_type(type, /*include_bool=*/true));
  }
}

TEST(ScalarTypeTest, ElementSizesMatchTheCppTypes) {
  EXPECT_EQ(element_size(ScalarType::Half), sizeof(Half));
  EXPECT_EQ(element_size(ScalarType::BFloat16), sizeof(BFloat16));
  EXPECT_EQ(element_size(ScalarType::Bool), sizeof(bool));
  EXPECT_EQ(element_size(ScalarType::Long), sizeof(int64_t));
  EXPECT_EQ(element_size(ScalarType::Double), sizeof(double));
}

TEST(ScalarTypeTest, CppTypeToScalarType) {
  static_assert(CppTypeToScalarType<uint8_t>::value == ScalarType::Byte);
  static_assert(CppTypeToScalarType<int8_t>::value == ScalarType::Char);
  static_assert(CppTypeToScalarType<int16_t>::value == ScalarType::Short);
  static_assert(CppTypeToScalarType<int32_t>::value == ScalarType::Int);
  static_assert(CppTypeToScalarType<int64_t>::value == ScalarType::Long);
  static_assert(CppTypeToScalarType<Half>::value == ScalarType::Half);
  static_assert(CppTypeToScalarType<float>::value == ScalarType::Float);
  static_assert(CppTypeToScalarType<double>::value == ScalarType::Double);
  static_assert(CppTypeToScalarType<bool>::value == ScalarType::Bool);
  static_assert(CppTypeToScalarType<BFloat16>::value == ScalarType::BFloat16);
  static_assert(CppTypeToScalarType<uint16_t>::value == ScalarType::UInt16);
  static_assert(CppTypeToScalarType<uint32_t>::value == ScalarType::UInt32);
  static_assert(CppTypeToScalarType<uint64_t>::value == ScalarType::UInt64);
}

TEST(ScalarTypeTest, FloatingAndIntegralClassification) {
  for (const TypeCase& c : kAllTypes) {
    SCOPED_TRACE(c.name);
    const bool floating = c.type == ScalarType::Half || c.type == ScalarType::Float ||
                          c.type == ScalarType::Double || c.type == ScalarType::BFloat16;
    const bool integral = c.type == ScalarType::Byte || c.type == ScalarType::Char ||
                          c.type == ScalarType::Short || c.type == ScalarType::Int ||
                          c.type == ScalarType::Long || c.type == ScalarType::UInt16 ||
                          c.type == ScalarType::UInt32 || c.type == ScalarType::UInt64;
    EXPECT_EQ(is_floating_type(c.type), floating);
    EXPECT_EQ(is_integral_type(c.type, false), integral);
    EXPECT_EQ(is_integral_type(c.type, true), integral || c.type == ScalarType::Bool);
  }
}

// ---------------------------------------------------------------------------
// promote_types: the expectations are what torch.promote_types returns.

ScalarType promote(ScalarType a, ScalarType b) {
  ScalarType out = ScalarType::Bits16;  // a sentinel promote_types must overwrite
  EXPECT_TRUE(promote_types(a, b, &out)) << to_string(a) << " + " << to_string(b);
  ScalarType swapped = ScalarType::Bits16;
  EXPECT_TRUE(promote_types(b, a, &swapped)) << to_string(b) << " + " << to_string(a);
  EXPECT_EQ(out, swapped) << "promotion must be symmetric";
  return out;
}

bool promotes(ScalarType a, ScalarType b) {
  ScalarType out;
  return promote_types(a, b, &out);
}

using ST = ScalarType;

TEST(ScalarTypeTest, ComplexTypesAndTheirParts) {
  EXPECT_EQ(real_type_of(ScalarType::ComplexFloat), ScalarType::Float);
  EXPECT_EQ(real_type_of(ScalarType::ComplexDouble), ScalarType::Double);
  EXPECT_EQ(complex_type_of(ScalarType::Float), ScalarType::ComplexFloat);
  EXPECT_EQ(complex_type_of(ScalarType::Double), ScalarType::ComplexDouble);
  EXPECT_EQ(complex_type_of(ScalarType::Half), ScalarType::ComplexFloat);  // computed in float, as PyTorch's FFTs do
  for (ScalarType t : {ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    EXPECT_TRUE(is_complex_type(t));
    EXPECT_EQ(complex_type_of(real_type_of(t)), t);
  }
}

TEST(PromoteTypesTest, SameTypePromotesToItself) {
  for (ST t : {ST::Bool, ST::Byte, ST::Char, ST::Short, ST::Int, ST::Long, ST::Half, ST::BFloat16,
               ST::Float, ST::Double, ST::UInt16, ST::UInt32, ST::UInt64}) {
    SCOPED_TRACE(to_string(t));
    EXPECT_EQ(promote(t, t), t);
  }
}

TEST(PromoteTypesTest, MatchesPyTorch) {
  EXPECT_EQ(promote(ST::Int, ST::Float), ST::Float);
  EXPECT_EQ(promote(ST::Long, ST::Int), ST::Long);
  EXPECT_EQ(promote(ST::Byte, ST::Char), ST::Short);
  EXPECT_EQ(promote(ST::Bool, ST::Int), ST::Int);
  EXPECT_EQ(promote(ST::Half, ST::BFloat16), ST::Float);
  EXPECT_EQ(promote(ST::Half, ST::Float), ST::Float);
  EXPECT_EQ(promote(ST::Bool, ST::Byte), ST::Byte);
  EXPECT_EQ(promote(ST::Bool, ST::Char), ST::Char);
  EXPECT_EQ(promote(ST::Bool, ST::Half), ST::Half);
  EXPECT_EQ(promote(ST::Byte, ST::Short), ST::Short);
  EXPECT_EQ(promote(ST::Byte, ST::Long), ST::Long);
  EXPECT_EQ(promote(ST::Char, ST::Int), ST::Int);
  EXPECT_EQ(promote(ST::Long, ST::Half), ST::Half);  // any float beats any int
  EXPECT_EQ(promote(ST::Long, ST::BFloat16), ST::BFloat16);
  EXPECT_EQ(promote(ST::Long, ST::Float), ST::Float);
  EXPECT_EQ(promote(ST::BFloat16, ST::Float), ST::Float);
  EXPECT_EQ(promote(ST::Float, ST::Double), ST::Double);
  EXPECT_EQ(promote(ST::Half, ST::Double), ST::Double);
  EXPECT_EQ(promote(ST::Bool, ST::Double), ST::Double);
}

TEST(PromoteTypesTest, WideUnsignedTypesPromoteOnlyWithFloats) {
  // PyTorch: uint16/32/64 mixed with a float gives the float; with anything
  // else there is no promotion.
  EXPECT_EQ(promote(ST::UInt16, ST::Float), ST::Float);
  EXPECT_EQ(promote(ST::UInt32, ST::Half), ST::Half);
  EXPECT_EQ(promote(ST::UInt64, ST::Double), ST::Double);
  EXPECT_EQ(promote(ST::UInt64, ST::BFloat16), ST::BFloat16);
  EXPECT_FALSE(promotes(ST::UInt16, ST::Int));
  EXPECT_FALSE(promotes(ST::Long, ST::UInt64));
  EXPECT_FALSE(promotes(ST::UInt16, ST::UInt32));
  EXPECT_FALSE(promotes(ST::Bool, ST::UInt32));
  EXPECT_FALSE(promotes(ST::Byte, ST::UInt16));
}

TEST(PromoteTypesTest, TypesWithoutArithmeticDoNotPromote) {
  for (ST t : {ST::QInt8, ST::QUInt8, ST::QInt32, ST::QUInt4x2, ST::QUInt2x4, ST::Bits16,
               ST::Float8_e5m2, ST::Float8_e4m3fn, ST::Float8_e5m2fnuz, ST::Float8_e4m3fnuz}) {
    SCOPED_TRACE(to_string(t));
    EXPECT_FALSE(promotes(t, ST::Float));
    EXPECT_FALSE(promotes(ST::Int, t));
  }
  EXPECT_FALSE(promotes(from_number(8), ST::Float));
  EXPECT_FALSE(promotes(from_number(8), from_number(8)));
}

// torch.promote_types: complex wins, as wide as the wider side.
TEST(PromoteTypesTest, ComplexWinsAsWideAsTheWiderSide) {
  const auto promoted = [](ST a, ST b) {
    ST out = ST::Bool;
    EXPECT_TRUE(promote_types(a, b, &out)) << to_string(a) << " with " << to_string(b);
    return out;
  };
  for (ST t : {ST::ComplexFloat, ST::ComplexDouble}) EXPECT_EQ(promoted(t, t), t);
  for (ST real : {ST::Bool, ST::Int, ST::Long, ST::Half, ST::BFloat16, ST::Float, ST::Byte}) {
    EXPECT_EQ(promoted(ST::ComplexFloat, real), ST::ComplexFloat);
    EXPECT_EQ(promoted(real, ST::ComplexDouble), ST::ComplexDouble);
  }
  EXPECT_EQ(promoted(ST::Double, ST::ComplexFloat), ST::ComplexDouble);
  EXPECT_EQ(promoted(ST::ComplexFloat, ST::ComplexDouble), ST::ComplexDouble);
  EXPECT_FALSE(promotes(ST::ComplexFloat, ST::QInt8));
}

// ---------------------------------------------------------------------------
// Half

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint16_t half_bits(float value) { return Half(value).bits; }

Half half_from_bits(uint16_t bits) {
  Half h;
  h.bits = bits;
  return h;
}

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(1.5f), 0x3e00);
  EXPECT_EQ(half_bits(0.333251953125f), 0x3555);  // nearest half to 1/3, exactly
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);         // the largest half
  EXPECT_EQ(half_bits(-65504.0f), 0xfbff);
  EXPECT_EQ(half_bits(6.103515625e-05f), 0x0400);  // 2^-14, the smallest normal
}

TEST(HalfTest, RoundTripsEveryFiniteHalf) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00) == 0x7c00) continue;  // inf and nan checked separately
    const float value = half_from_bits(h);
    ASSERT_EQ(Half(value).bits, h) << std::hex << "bits 0x" << bits;
  }
}

TEST(HalfTest, ToFloatValues) {
  EXPECT_EQ(static_cast<float>(half_from_bits(0x3c00)), 1.0f);
  EXPECT_EQ(static_cast<float>(half_from_bits(0x7bff)), 65504.0f);
  EXPECT_EQ(static_cast<float>(half_from_bits(0x0001)), std::ldexp(1.0f, -24));
  EXPECT_EQ(static_cast<float>(half_from_bits(0x03ff)), std::ldexp(1023.0f, -24));
  EXPECT_EQ(bits_of(half_from_bits(0x8000)), 0x80000000u);  // -0 keeps its sign
  EXPECT_EQ(static_cast<float>(half_from_bits(0x8001)), -std::ldexp(1.0f, -24));
}

TEST(HalfTest, RoundsToNearestEven) {
  // Between 1 and 2 a half step is 2^-10; halfway cases go to the even mantissa.
  const float step = std::ldexp(1.0f, -10);
  EXPECT_EQ(half_bits(1.0f + step / 2), 0x3c00);              // tie, 0x3c00 is even
  EXPECT_EQ(half_bits(1.0f + step + step / 2), 0x3c02);       // tie, rounds up to even
  EXPECT_EQ(half_bits(1.0f + step / 2 + step / 1024), 0x3c01);  // just above the tie
  EXPECT_EQ(half_bits(1.0f + step / 2 - step / 1024), 0x3c00);  // just below the tie
  EXPECT_EQ(half_bits(-(1.0f + step + step / 2)), 0xbc02);
  // A mantissa carry into the exponent.
  EXPECT_EQ(half_bits(2.0f - step / 4), 0x4000);
}

TEST(HalfTest, OverflowGoesToInfinity) {
  EXPECT_EQ(half_bits(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);  // the midpoint rounds to even: inf
  EXPECT_EQ(half_bits(65536.0f), 0x7c00);
  EXPECT_EQ(half_bits(1e10f), 0x7c00);
  EXPECT_EQ(half_bits(-1e10f), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7c00);
}

TEST(HalfTest, InfinityAndNan) {
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  const uint16_t nan = half_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A signalling nan whose payload sits below the half's mantissa bits must
  // stay a nan, not become inf.
  const uint16_t small_payload = half_bits(float_of(0x7f800001u));
  EXPECT_EQ(small_payload & 0x7c00, 0x7c00);
  EXPECT_NE(small_payload & 0x03ff, 0);

  EXPECT_TRUE(std::isinf(static_cast<float>(half_from_bits(0x7c00))));
  EXPECT_GT(static_cast<float>(half_from_bits(0x7c00)), 0.0f);
  EXPECT_LT(static_cast<float>(half_from_bits(0xfc00)), 0.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(half_from_bits(0x7e00))));
  EXPECT_TRUE(std::isnan(static_cast<float>(half_from_bits(0xfc01))));
}

TEST(HalfTest, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // the smallest half subnormal
  EXPECT_EQ(half_bits(tiny), 0x0001);
  EXPECT_EQ(half_bits(-tiny), 0x8001);
  EXPECT_EQ(half_bits(3 * tiny), 0x0003);
  EXPECT_EQ(half_bits(1023 * tiny), 0x03ff);  // the largest subnormal
  // Ties round to even.
  EXPECT_EQ(half_bits(0.5f * tiny), 0x0000);
  EXPECT_EQ(half_bits(1.5f * tiny), 0x0002);
  EXPECT_EQ(half_bits(2.5f * tiny), 0x0002);
  EXPECT_EQ(half_bits(0.75f * tiny), 0x0001);
  EXPECT_EQ(half_bits(0.25f * tiny), 0x0000);
  // Rounding the largest subnormal up reaches the smallest normal.
  EXPECT_EQ(half_bits(1023.5f * tiny), 0x0400);
  EXPECT_EQ(half_bits(1e-30f), 0x0000);
  EXPECT_EQ(half_bits(-1e-30f), 0x8000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

// The nearest half to `x` (ties to even) as a double, worked out with double
// arithmetic: independent of the bit manipulation under test.
double nearest_half(float x) {
  if (std::isnan(x)) return x;
  const double magnitude = std::fabs(static_cast<double>(x));
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
  const double step = std::ldexp(1.0, std::max(exponent - 1, -14) - 10);
  double rounded = std::nearbyint(magnitude / step) * step;
  if (rounded > 65504.0) rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, static_cast<double>(x));
}

::testing::AssertionResult converts_like_nearest_half(float x) {
  const float got = Half(x);
  const double want = nearest_half(x);
  if (std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << std::hexfloat << x << " gave " << got << ", expected " << want;
}

TEST(HalfTest, ToFloatMatchesTheFormatForEveryBitPattern) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint32_t exponent = (bits >> 10) & 0x1f;
    const uint32_t mantissa = bits & 0x3ff;
    double want;
    if (exponent == 0x1f) {
      want = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else if (exponent == 0) {
      want = std::ldexp(static_cast<double>(mantissa), -24);
    } else {
      want = std::ldexp(static_cast<double>(mantissa + 1024), static_cast<int>(exponent) - 25);
    }
    if (bits & 0x8000) want = -want;
    const float got = half_from_bits(static_cast<uint16_t>(bits));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << bits;
      // The payload is kept (shifted into the float's mantissa).
      ASSERT_EQ(bits_of(got) & 0x7fffffu, mantissa << 13) << std::hex << bits;
    } else {
      ASSERT_EQ(got, want) << std::hex << bits;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << std::hex << bits;
    }
  }
}

TEST(HalfTest, FromFloatRoundsToNearestForSampledFloats) {
  // Every 251st float bit pattern: all exponents, both signs, nan and inf.
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += kiln::testing::sweep_stride(251)) {
    ASSERT_TRUE(converts_like_nearest_half(float_of(static_cast<uint32_t>(bits))));
  }
}

TEST(HalfTest, FromFloatRoundsEveryTieAndItsNeighbours) {
  // The midpoint between each pair of adjacent finite halves (exact in
  // float), and the floats just either side of it.
  for (uint32_t bits = 0; bits < 0x7bff; ++bits) {
    const float low = half_from_bits(static_cast<uint16_t>(bits));
    const float high = half_from_bits(static_cast<uint16_t>(bits + 1));
    const float mid = low + (high - low) / 2;
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      ASSERT_TRUE(converts_like_nearest_half(x));
      ASSERT_TRUE(converts_like_nearest_half(-x));
    }
  }
  // Past the largest half: the midpoint to 2^16 rounds (to even) to inf.
  EXPECT_TRUE(converts_like_nearest_half(65520.0f));
  EXPECT_TRUE(converts_like_nearest_half(std::nextafter(65520.0f, 0.0f)));
}

TEST(HalfTest, NanKeepsItsSign) {
  EXPECT_EQ(half_bits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::quiet_NaN()), 0xfe00);
  EXPECT_EQ(half_bits(float_of(0xff800001u)), 0xfe00);
}

// ---------------------------------------------------------------------------
// BFloat16

uint16_t bf16_bits(float value) { return BFloat16(value).bits; }

BFloat16 bf16_from_bits(uint16_t bits) {
  BFloat16 b;
  b.bits = bits;
  return b;
}

TEST(BFloat16Test, ExactValues) {
  EXPECT_EQ(bf16_bits(0.0f), 0x0000);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(bf16_bits(3.0f), 0x4040);
  EXPECT_EQ(static_cast<float>(bf16_from_bits(0x3f80)), 1.0f);
  EXPECT_EQ(static_cast<float>(bf16_from_bits(0x4049)), 3.140625f);
  EXPECT_EQ(static_cast<float>(bf16_from_bits(0x7f7f)), float_of(0x7f7f0000u));
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(bf16_bits(float_of(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(bf16_bits(float_of(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(bf16_bits(float_of(0x3f808001u)), 0x3f81);  // above the tie
  EXPECT_EQ(bf16_bits(float_of(0x3f807fffu)), 0x3f80);  // below the tie
  EXPECT_EQ(bf16_bits(float_of(0xbf818000u)), 0xbf82);
  EXPECT_EQ(bf16_bits(3.14159265f), 0x4049);
}

TEST(BFloat16Test, InfinityNanAndOverflow) {
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::max()), 0xff80);
  // A nan whose payload is only in the low bits must not truncate to inf.
  const uint16_t nan = bf16_bits(float_of(0x7f800001u));
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(static_cast<float>(bf16_from_bits(0x7f80))));
}

TEST(BFloat16Test, Subnormals) {
  EXPECT_EQ(bf16_bits(float_of(0x00010000u)), 0x0001);
  EXPECT_EQ(static_cast<float>(bf16_from_bits(0x0001)), float_of(0x00010000u));
  EXPECT_EQ(bf16_bits(float_of(0x00008000u)), 0x0000);  // tie to even
  EXPECT_EQ(bf16_bits(float_of(0x00018000u)), 0x0002);  // tie to even
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(BFloat16Test, RoundTripsEveryNonNanValue) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    if ((b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0) continue;  // nan
    ASSERT_EQ(BFloat16(static_cast<float>(bf16_from_bits(b))).bits, b) << std::hex << bits;
  }
}


// The nearest bfloat16 to `x` (ties to even) as a double, from double arithmetic.
double nearest_bfloat16(float x) {
  if (std::isnan(x)) return x;
  const double magnitude = std::fabs(static_cast<double>(x));
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  const double step = std::ldexp(1.0, std::max(exponent - 1, -126) - 7);
  double rounded = std::nearbyint(magnitude / step) * step;
  if (rounded > static_cast<double>(float_of(0x7f7f0000u))) rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, static_cast<double>(x));
}

TEST(BFloat16Test, FromFloatRoundsToNearestForSampledFloats) {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += kiln::testing::sweep_stride(251)) {
    const float x = float_of(static_cast<uint32_t>(bits));
    const float got = BFloat16(x);
    const double want = nearest_bfloat16(x);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hexfloat << x;
      ASSERT_EQ(std::signbit(got), std::signbit(x)) << std::hexfloat << x;
    } else {
      ASSERT_EQ(got, want) << std::hexfloat << x;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << std::hexfloat << x;
    }
  }
}

}  // namespace
}  // namespace kiln::runtime
