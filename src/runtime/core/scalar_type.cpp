#include "runtime/core/scalar_type.h"

namespace kiln::runtime {

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

bool is_complex_type(ScalarType type) { return type == ScalarType::ComplexFloat || type == ScalarType::ComplexDouble; }

ScalarType real_type_of(ScalarType complex) {
  return complex == ScalarType::ComplexDouble ? ScalarType::Double : ScalarType::Float;
}

ScalarType complex_type_of(ScalarType real) {
  return real == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
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
    return promotion_rank(a) >= 0 || is_barebones_unsigned(a) || is_complex_type(a);
  }
  if (is_complex_type(a) || is_complex_type(b)) {
    // The complex type as wide as the wider of the two: a double (or
    // ComplexDouble) operand makes ComplexDouble; anything else with
    // arithmetic keeps ComplexFloat.
    const ScalarType other = is_complex_type(a) ? b : a;
    if (!is_complex_type(other) && promotion_rank(other) < 0 && !is_barebones_unsigned(other)) return false;
    const bool wide = a == ScalarType::ComplexDouble || b == ScalarType::ComplexDouble || other == ScalarType::Double;
    *out = wide ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
    return true;
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
