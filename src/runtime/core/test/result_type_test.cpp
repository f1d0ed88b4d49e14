// result_type and can_cast against what torch 2.15 gives for the same
// operands (torch.result_type; torch.can_cast).
#include "runtime/core/result_type.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace kiln::runtime {
namespace {

using S = ScalarType;

struct Operand {
  enum Kind { Dims, ZeroDim, Number } kind;
  S type;
};
Operand dims(S type) { return {Operand::Dims, type}; }
Operand zero_dim(S type) { return {Operand::ZeroDim, type}; }
Operand number(S kind) { return {Operand::Number, kind}; }

std::optional<S> result_of(std::initializer_list<Operand> operands) {
  ResultTypeState state;
  for (const Operand& operand : operands) {
    if (operand.kind == Operand::Number) {
      state.add_number(operand.type);
    } else {
      state.add_tensor(operand.type, operand.kind == Operand::ZeroDim);
    }
  }
  S out = S::Bool;
  if (!state.result(&out)) return std::nullopt;
  return out;
}

TEST(ResultType, AFloatTensorWithAComplexZeroDimTensorIsComplexOfItsWidth) {
  EXPECT_EQ(result_of({dims(S::Float), zero_dim(S::ComplexDouble)}), S::ComplexFloat);
  EXPECT_EQ(result_of({dims(S::Float), zero_dim(S::ComplexFloat)}), S::ComplexFloat);
  EXPECT_EQ(result_of({dims(S::Double), zero_dim(S::ComplexFloat)}), S::ComplexDouble);
  EXPECT_EQ(result_of({dims(S::Int), zero_dim(S::ComplexDouble)}), S::ComplexDouble);
  EXPECT_EQ(result_of({dims(S::ComplexFloat), dims(S::Double)}), S::ComplexDouble);
}

TEST(ResultType, ALowerTierCountsOnlyWhenItRaisesTheCategory) {
  EXPECT_EQ(result_of({dims(S::Int), zero_dim(S::Double)}), S::Double);
  EXPECT_EQ(result_of({dims(S::Int), zero_dim(S::Long)}), S::Int);
  EXPECT_EQ(result_of({dims(S::Bool), zero_dim(S::Int)}), S::Int);
  EXPECT_EQ(result_of({dims(S::Bool), zero_dim(S::Half)}), S::Half);
  EXPECT_EQ(result_of({dims(S::Long), zero_dim(S::Half)}), S::Half);
  EXPECT_EQ(result_of({dims(S::Half), zero_dim(S::BFloat16)}), S::Half);
  EXPECT_EQ(result_of({zero_dim(S::Int), number(S::Double)}), S::Float);
  EXPECT_EQ(result_of({zero_dim(S::Double), number(S::Double)}), S::Double);
  EXPECT_EQ(result_of({zero_dim(S::Bool), number(S::Long)}), S::Long);
}

TEST(ResultType, NumbersTakeTheDefaultDtypeOfTheirKind) {
  EXPECT_EQ(result_of({dims(S::Int), number(S::Double)}), S::Float);
  EXPECT_EQ(result_of({dims(S::Int), number(S::Long)}), S::Int);
  EXPECT_EQ(result_of({dims(S::Bool), number(S::Long)}), S::Long);
  EXPECT_EQ(result_of({dims(S::Half), number(S::Double)}), S::Half);
  EXPECT_EQ(result_of({dims(S::Int), number(S::ComplexDouble)}), S::ComplexFloat);
  EXPECT_EQ(result_of({dims(S::Double), number(S::ComplexDouble)}), S::ComplexDouble);
  EXPECT_EQ(result_of({dims(S::Bool), number(S::Bool)}), S::Bool);
  EXPECT_EQ(result_of({dims(S::Byte), number(S::Long)}), S::Byte);
}

TEST(ResultType, TensorsOfOneTierPromote) {
  EXPECT_EQ(result_of({dims(S::Byte), dims(S::Char)}), S::Short);
  EXPECT_EQ(result_of({dims(S::Half), dims(S::BFloat16)}), S::Float);
}

TEST(ResultType, NoCommonDtypeIsAFailure) {
  // torch has ComplexHalf (complex32) for these; Kiln has no such dtype.
  EXPECT_EQ(result_of({dims(S::Half), zero_dim(S::ComplexFloat)}), std::nullopt);
  EXPECT_EQ(result_of({dims(S::BFloat16), zero_dim(S::ComplexFloat)}), std::nullopt);
  EXPECT_EQ(result_of({dims(S::Float), dims(S::QInt8)}), std::nullopt);
  EXPECT_EQ(result_of({}), std::nullopt);
}

TEST(CanCast, FollowsTorch) {
  EXPECT_TRUE(can_cast(S::Int, S::Float));
  EXPECT_TRUE(can_cast(S::Float, S::ComplexFloat));
  EXPECT_TRUE(can_cast(S::Bool, S::Bool));
  EXPECT_TRUE(can_cast(S::Bool, S::Int));
  EXPECT_FALSE(can_cast(S::Float, S::Long));
  EXPECT_FALSE(can_cast(S::Float, S::Bool));
  EXPECT_FALSE(can_cast(S::Int, S::Bool));
  EXPECT_FALSE(can_cast(S::ComplexFloat, S::Double));
}

}  // namespace
}  // namespace kiln::runtime
