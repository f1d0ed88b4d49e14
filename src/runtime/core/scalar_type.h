// ScalarType: the element types of tensors, numbered as ExecuTorch's
// `scalar_type.fbs` numbers them (the numbers are part of the .pte format).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::runtime {

/// 16-bit IEEE half, stored as bits; converts through float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float value);
  operator float() const;  // NOLINT(google-explicit-constructor)
};

/// bfloat16: the top 16 bits of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value);
  operator float() const;  // NOLINT(google-explicit-constructor)
};

/// X(enumerator, number, C++ type, element size, short name used in printouts)
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

/// PyTorch's type promotion for two tensor operands of the given types.
/// Only types with arithmetic (see KILN_FORALL_SCALAR_TYPES) are handled;
/// returns false when no promotion exists.
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
