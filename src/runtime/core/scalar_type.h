// ScalarType: the element types of tensors, numbered as ExecuTorch's
// `scalar_type.fbs` numbers them (the numbers are part of the .pte format).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::runtime {

namespace detail {

inline uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float bits_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The conversions are inline and choose between their cases with bit masks
// rather than branches, so elementwise loops over 16-bit floats neither call
// out per element nor mispredict, and the compiler can vectorize them. (With
// a ternary, the compiler may turn the choice into a branch around the float
// arithmetic, which it then cannot make branch-free again.)

/// `if_true` where `condition` holds, else `if_false`.
inline uint32_t select_bits(bool condition, uint32_t if_true, uint32_t if_false) {
  const uint32_t mask = 0u - static_cast<uint32_t>(condition);
  return (if_true & mask) | (if_false & ~mask);
}

/// float -> IEEE half bits, rounded to nearest even; overflow gives inf, any
/// NaN gives the quiet NaN 0x7e00 with the input's sign.
inline uint16_t float_to_half_bits(float value) {
  const uint32_t f = float_bits(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  // Normal halves: rebias the exponent (127 -> 15) and round the 13 dropped
  // mantissa bits to nearest even; a carry rolls into the exponent.
  const uint32_t normal = (abs - (112u << 23) + 0xfffu + ((abs >> 13) & 1u)) >> 13;
  // Subnormal halves (|value| < 2^-14): adding 0.5 puts the value where a
  // float's last mantissa bit weighs 2^-24, the half subnormal step, so the
  // float addition does the rounding and the low mantissa bits are the half's.
  const uint32_t subnormal = float_bits(bits_float(abs) + 0.5f) - float_bits(0.5f);
  uint32_t h = select_bits(abs < 0x38800000u, subnormal, normal);
  h = select_bits(abs >= 0x477ff000u, 0x7c00u, h);  // rounds past 65504: inf
  h = select_bits(abs > 0x7f800000u, 0x7e00u, h);   // NaN
  return static_cast<uint16_t>(sign | h);
}

/// IEEE half bits -> float (exact).
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  // Normal: move exponent and mantissa into place and rebias the exponent
  // (15 -> 127); inf and NaN need the exponent raised to all ones.
  uint32_t bits = (magnitude << 13) + (112u << 23);
  bits = select_bits(magnitude >= 0x7c00u, bits + (112u << 23), bits);
  // Subnormal and zero: the mantissa counts steps of 2^-24.
  const float subnormal = static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f;
  bits = select_bits(magnitude < 0x0400u, float_bits(subnormal), bits);
  return bits_float(sign | bits);
}

/// float -> bfloat16 bits, rounded to nearest even; a NaN stays a quiet NaN
/// with its sign and top payload bits.
inline uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t f = float_bits(value);
  const uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
  const uint32_t nan = (f >> 16) | 0x40u;
  return static_cast<uint16_t>(select_bits((f & 0x7fffffffu) > 0x7f800000u, nan, rounded));
}

inline float bfloat16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

}  // namespace detail

/// 16-bit IEEE half, stored as bits; converts through float (to half rounds
/// to nearest even).
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float value) : bits(detail::float_to_half_bits(value)) {}
  operator float() const { return detail::half_bits_to_float(bits); }  // NOLINT(google-explicit-constructor)
};

/// bfloat16: the top 16 bits of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value) : bits(detail::float_to_bfloat16_bits(value)) {}
  operator float() const { return detail::bfloat16_bits_to_float(bits); }  // NOLINT(google-explicit-constructor)
};

/// X(enumerator, number, C++ type, element size, short name used in printouts)
/// The complex types are std::complex<float> and <double> in memory (real,
/// imaginary interleaved); kernels that take them name the type themselves.
/// Types Kiln stores but has no arithmetic for use `void`.
#define KILN_FORALL_SCALAR_TYPES(X)               \
  X(Byte, 0, uint8_t, 1, "u8")                    \
  X(Char, 1, int8_t, 1, "i8")                     \
  X(Short, 2, int16_t, 2, "i16")                  \
  X(Int, 3, int32_t, 4, "i32")                    \
  X(Long, 4, int64_t, 8, "i64")                   \
  X(Half, 5, ::kiln::runtime::Half, 2, "f16")     \
  X(Float, 6, float, 4, "f32")                    \
  X(Double, 7, double, 8, "f64")                  \
  X(ComplexFloat, 9, void, 8, "c64")              \
  X(ComplexDouble, 10, void, 16, "c128")          \
  X(Bool, 11, bool, 1, "b8")                      \
  X(QInt8, 12, void, 1, "qi8")                    \
  X(QUInt8, 13, void, 1, "qu8")                   \
  X(QInt32, 14, void, 4, "qi32")                  \
  X(BFloat16, 15, ::kiln::runtime::BFloat16, 2, "bf16") \
  X(QUInt4x2, 16, void, 1, "qu4x2")               \
  X(QUInt2x4, 17, void, 1, "qu2x4")               \
  X(Bits16, 22, void, 2, "bits16")                \
  X(Float8_e5m2, 23, void, 1, "f8e5m2")           \
  X(Float8_e4m3fn, 24, void, 1, "f8e4m3fn")       \
  X(Float8_e5m2fnuz, 25, void, 1, "f8e5m2fnuz")   \
  X(Float8_e4m3fnuz, 26, void, 1, "f8e4m3fnuz")   \
  X(UInt16, 27, uint16_t, 2, "u16")               \
  X(UInt32, 28, uint32_t, 4, "u32")               \
  X(UInt64, 29, uint64_t, 8, "u64")

enum class ScalarType : int8_t {
#define KILN_SCALAR_ENUM_(name, number, ctype, size, short_name) name = number,
  KILN_FORALL_SCALAR_TYPES(KILN_SCALAR_ENUM_)
#undef KILN_SCALAR_ENUM_
};

/// True for the numbers above; false for gaps (complex, bits) and out-of-range codes.
bool is_valid(ScalarType type);
/// Bytes per element; 0 for an invalid type.
size_t element_size(ScalarType type);
/// "Float", "Long", ...; "Invalid" for an invalid type.
const char* to_string(ScalarType type);
/// "f32", "i64", ... as in ExportedProgram printouts.
const char* short_name(ScalarType type);

bool is_floating_type(ScalarType type);  // Half, Float, Double, BFloat16
bool is_integral_type(ScalarType type, bool include_bool);
bool is_complex_type(ScalarType type);  // ComplexFloat, ComplexDouble
/// The type of a complex type's parts: Double for ComplexDouble, else Float
/// (check is_complex_type first where the type may be real).
ScalarType real_type_of(ScalarType complex);
/// The complex type of a real one: ComplexDouble for Double, else
/// ComplexFloat (PyTorch's FFTs compute every other real type in float).
ScalarType complex_type_of(ScalarType real);

/// PyTorch's type promotion for two tensor operands of the given types.
/// Only types with arithmetic (see KILN_FORALL_SCALAR_TYPES) and the complex
/// types are handled (a complex type with any of them is complex, ComplexDouble
/// if either side is double); returns false when no promotion exists.
bool promote_types(ScalarType a, ScalarType b, ScalarType* out);

template <typename T>
struct CppTypeToScalarType;
#define KILN_SCALAR_MAP_(name, number, ctype, size, short_name) \
  template <>                                                   \
  struct CppTypeToScalarType<ctype> {                           \
    static constexpr ScalarType value = ScalarType::name;       \
  };
KILN_SCALAR_MAP_(Byte, 0, uint8_t, 1, "")
KILN_SCALAR_MAP_(Char, 1, int8_t, 1, "")
KILN_SCALAR_MAP_(Short, 2, int16_t, 2, "")
KILN_SCALAR_MAP_(Int, 3, int32_t, 4, "")
KILN_SCALAR_MAP_(Long, 4, int64_t, 8, "")
KILN_SCALAR_MAP_(Half, 5, Half, 2, "")
KILN_SCALAR_MAP_(Float, 6, float, 4, "")
KILN_SCALAR_MAP_(Double, 7, double, 8, "")
KILN_SCALAR_MAP_(Bool, 11, bool, 1, "")
KILN_SCALAR_MAP_(BFloat16, 15, BFloat16, 2, "")
KILN_SCALAR_MAP_(UInt16, 27, uint16_t, 2, "")
KILN_SCALAR_MAP_(UInt32, 28, uint32_t, 4, "")
KILN_SCALAR_MAP_(UInt64, 29, uint64_t, 8, "")
#undef KILN_SCALAR_MAP_

}  // namespace kiln::runtime
