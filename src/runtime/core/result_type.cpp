#include "runtime/core/result_type.h"

namespace kiln::runtime {

namespace {

// c10's toComplexType: the complex dtype of a float's width.
bool to_complex(ScalarType type, ScalarType* out) {
  switch (type) {
    case ScalarType::Float:
    case ScalarType::ComplexFloat: *out = ScalarType::ComplexFloat; return true;
    case ScalarType::Double:
    case ScalarType::ComplexDouble: *out = ScalarType::ComplexDouble; return true;
    default: return false;  // Kiln has no ComplexHalf; BFloat16 has no complex twin in PyTorch either
  }
}

struct Combined {
  ScalarType type = ScalarType::Bool;
  bool present = false;
  bool ok = true;
};

// c10's combine_categories: `lower` (a lower-priority tier) only counts when
// its category is above `higher`'s.
Combined combine(Combined higher, Combined lower) {
  if (!higher.ok || !lower.ok) return {ScalarType::Bool, false, false};
  if (!higher.present) return lower;
  if (!lower.present) return higher;
  const TypeCategory high = type_category(higher.type);
  const TypeCategory low = type_category(lower.type);
  if (high == TypeCategory::Complex) return higher;
  if (low == TypeCategory::Complex) {
    if (high != TypeCategory::Floating) return lower;
    Combined widened = higher;
    widened.ok = to_complex(higher.type, &widened.type);
    return widened;
  }
  if (high == TypeCategory::Floating) return higher;
  if (high == TypeCategory::Bool || low == TypeCategory::Floating) {
    Combined promoted = higher;
    promoted.ok = promote_types(higher.type, lower.type, &promoted.type);
    return promoted;
  }
  return higher;
}

}  // namespace

TypeCategory type_category(ScalarType type) {
  if (type == ScalarType::Bool) return TypeCategory::Bool;
  if (is_complex_type(type)) return TypeCategory::Complex;
  return is_floating_type(type) ? TypeCategory::Floating : TypeCategory::Integral;
}

void ResultTypeState::merge(Slot& slot, ScalarType type) {
  if (!slot.present) {
    slot = {type, true};
  } else if (!promote_types(slot.type, type, &slot.type)) {
    failed_ = true;
  }
}

void ResultTypeState::add_tensor(ScalarType dtype, bool zero_dim) { merge(zero_dim ? zero_dim_ : dims_, dtype); }

void ResultTypeState::add_number(ScalarType kind) {
  ScalarType typed = kind;
  if (is_floating_type(kind)) typed = ScalarType::Float;
  if (is_complex_type(kind)) typed = ScalarType::ComplexFloat;
  merge(numbers_, typed);
}

bool ResultTypeState::result(ScalarType* out) const {
  if (failed_) return false;
  const Combined lower = combine({zero_dim_.type, zero_dim_.present, true}, {numbers_.type, numbers_.present, true});
  const Combined all = combine({dims_.type, dims_.present, true}, lower);
  if (!all.ok || !all.present) return false;
  *out = all.type;
  return true;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && is_integral_type(to, /*include_bool=*/true)) return false;
  return from == ScalarType::Bool || to != ScalarType::Bool;
}

}  // namespace kiln::runtime
