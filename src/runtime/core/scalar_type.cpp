#include "runtime/core/scalar_type.h"

namespace kiln::runtime {

namespace {

uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float bits_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

Half::Half(float value) {
  const uint32_t f = float_bits(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds past the largest half
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // subnormal half: scale into an integer, round to even
    const float scaled = bits_float(abs) * 16777216.0f;  // 2^24
    uint32_t m = static_cast<uint32_t>(scaled);
    const float rest = scaled - static_cast<float>(m);
    if (rest > 0.5f || (rest == 0.5f && (m & 1u))) ++m;
    bits = static_cast<uint16_t>(sign | m);
    return;
  }
  uint32_t mantissa = abs + 0xc8000fffu + ((abs >> 13) & 1u);  // rebias and round to even
  bits = static_cast<uint16_t>(sign | (mantissa >> 13));
}

Half::operator float() const {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) / 16777216.0f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

BFloat16::BFloat16(float value) {
  const uint32_t f = float_bits(value);
  if ((f & 0x7fffffffu) > 0x7f800000u) {
    bits = static_cast<uint16_t>((f >> 16) | 0x40u);
    return;
  }
  bits = static_cast<uint16_t>((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

BFloat16::operator float() const { return bits_float(static_cast<uint32_t>(bits) << 16); }

bool is_valid(ScalarType type) {
  switch (type) {
#define KILN_CASE_(name, number, ctype, size, short_name) case ScalarType::name:
    KILN_FORALL_SCALAR_TYPES(KILN_CASE_)
#undef KILN_CASE_
    return true;
  }
  return false;
}

size_t element_size(ScalarType type) {
  switch (type) {
#define KILN_CASE_(name, number, ctype, size, short_name) \
  case ScalarType::name:                                  \
    return size;
    KILN_FORALL_SCALAR_TYPES(KILN_CASE_)
#undef KILN_CASE_
  }
  return 0;
}

const char* to_string(ScalarType type) {
  switch (type) {
#define KILN_CASE_(name, number, ctype, size, short_name) \
  case ScalarType::name:                                  \
    return #name;
    KILN_FORALL_SCALAR_TYPES(KILN_CASE_)
#undef KILN_CASE_
  }
  return "Invalid";
}

const char* short_name(ScalarType type) {
  switch (type) {
#define KILN_CASE_(name, number, ctype, size, short_name) \
  case ScalarType::name:                                  \
    return short_name;
    KILN_FORALL_SCALAR_TYPES(KILN_CASE_)
#undef KILN_CASE_
  }
  return "invalid";
}

bool is_floating_type(ScalarType type) {
  return type == ScalarType::Half || type == ScalarType::Float || type == ScalarType::Double ||
         type == ScalarType::BFloat16;
}

bool is_integral_type(ScalarType type, bool include_bool) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
      return true;
    case ScalarType::Bool:
      return include_bool;
    default:
      return false;
  }
}

namespace {

// Rank of a type in PyTorch's promotion lattice for the common types:
// bool < u8/i8 < i16 < i32 < i64 < f16/bf16 < f32 < f64.
int promotion_rank(ScalarType type) {
  switch (type) {
    case ScalarType::Bool: return 0;
    case ScalarType::Byte:
    case ScalarType::Char: return 1;
    case ScalarType::Short: return 2;
    case ScalarType::Int: return 3;
    case ScalarType::Long: return 4;
    case ScalarType::Half:
    case ScalarType::BFloat16: return 5;
    case ScalarType::Float: return 6;
    case ScalarType::Double: return 7;
    default: return -1;
  }
}

// uint16/32/64 sit outside the lattice: PyTorch promotes them only with
// themselves or with a floating type (which wins).
bool is_barebones_unsigned(ScalarType type) {
  return type == ScalarType::UInt16 || type == ScalarType::UInt32 || type == ScalarType::UInt64;
}

}  // namespace

bool promote_types(ScalarType a, ScalarType b, ScalarType* out) {
  if (a == b) {
    *out = a;
    return promotion_rank(a) >= 0 || is_barebones_unsigned(a);
  }
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    if (!is_floating_type(a) && !is_floating_type(b)) return false;
    *out = is_floating_type(a) ? a : b;
    return true;
  }
  const int ra = promotion_rank(a);
  const int rb = promotion_rank(b);
  if (ra < 0 || rb < 0) return false;
  // Mixed signedness of bytes goes to i16, as in PyTorch; f16 with bf16 goes to f32.
  if ((a == ScalarType::Byte && b == ScalarType::Char) || (a == ScalarType::Char && b == ScalarType::Byte)) {
    *out = ScalarType::Short;
    return true;
  }
  if ((a == ScalarType::Half && b == ScalarType::BFloat16) ||
      (a == ScalarType::BFloat16 && b == ScalarType::Half)) {
    *out = ScalarType::Float;
    return true;
  }
  *out = ra > rb ? a : b;
  return true;
}

}  // namespace kiln::runtime
