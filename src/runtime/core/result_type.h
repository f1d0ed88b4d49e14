// PyTorch's type promotion where operands of different kinds meet: its
// result_type (c10's ResultTypeState) and its canCast rule. The one
// implementation the portable kernels and the compiler's meta rules share,
// so an op's dtype at lowering time is the dtype its kernel computes in.
#pragma once

#include "runtime/core/scalar_type.h"

namespace kiln::runtime {

/// The kinds PyTorch's type promotion ranks: bool < integral < floating < complex.
enum class TypeCategory : int8_t { Bool, Integral, Floating, Complex };
TypeCategory type_category(ScalarType type);

/// PyTorch's result_type, operand by operand. Operands fall in three tiers:
/// tensors with dims, 0-dim tensors, Python numbers. Each tier promotes within
/// itself; a lower tier counts only when it raises the category of the tiers
/// above it, and then:
///   - a complex lower tier over a floating one makes that float complex
///     (f32[3] with a c128 0-dim tensor is ComplexFloat);
///   - a floating lower tier over a bool or integral one promotes with it
///     (i32[3] with f64[] is Double; i32[3] with 2.5 is Float, the number's
///     default dtype);
///   - an integral lower tier over bool promotes with it; over an integral
///     tier it does not count (i32[3] with i64[] or 2**40 stays Int).
class ResultTypeState {
 public:
  /// A tensor operand of `dtype`; `zero_dim` for a 0-dim tensor.
  void add_tensor(ScalarType dtype, bool zero_dim);
  /// A Python number of the kind `kind` stands for: Bool, Long (an int) or
  /// Double (a float, typed as the default dtype Float) or ComplexDouble (a
  /// complex, typed as ComplexFloat).
  void add_number(ScalarType kind);
  /// The result dtype; false if two operands of one tier have no promotion,
  /// if the complex type of a lower tier has no float to widen (BFloat16), or
  /// if nothing was added.
  [[nodiscard]] bool result(ScalarType* out) const;

 private:
  struct Slot {
    ScalarType type = ScalarType::Bool;
    bool present = false;
  };
  void merge(Slot& slot, ScalarType type);

  Slot dims_, zero_dim_, numbers_;
  bool failed_ = false;
};

/// PyTorch's canCast, the rule for writing a result into a tensor of another
/// dtype (an out tensor, an in-place op's self): no complex into a non-complex
/// dtype, no floating into an integral or bool one, no non-bool into bool.
bool can_cast(ScalarType from, ScalarType to);

}  // namespace kiln::runtime
