#include "runtime/core/evalue.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/core/test/span_util.h"

namespace kiln::runtime {
namespace {

using testing::to_vector;

// A 1-d float tensor of `n` elements over memory the fixture owns.
struct OneDimTensor {
  SizesType sizes[1];
  DimOrderType dim_order[1] = {0};
  StridesType strides[1] = {1};
  float data[8] = {};
  TensorImpl impl;

  explicit OneDimTensor(SizesType n)
      : sizes{n}, impl(ScalarType::Float, 1, sizes, data, dim_order, strides) {}
  Tensor tensor() { return Tensor(&impl); }
};

TEST(TagTest, Names) {
  EXPECT_STREQ(to_string(Tag::None), "None");
  EXPECT_STREQ(to_string(Tag::Tensor), "Tensor");
  EXPECT_STREQ(to_string(Tag::String), "String");
  EXPECT_STREQ(to_string(Tag::Double), "Double");
  EXPECT_STREQ(to_string(Tag::Int), "Int");
  EXPECT_STREQ(to_string(Tag::Bool), "Bool");
  EXPECT_STREQ(to_string(Tag::ListBool), "ListBool");
  EXPECT_STREQ(to_string(Tag::ListDouble), "ListDouble");
  EXPECT_STREQ(to_string(Tag::ListInt), "ListInt");
  EXPECT_STREQ(to_string(Tag::ListTensor), "ListTensor");
  EXPECT_STREQ(to_string(Tag::ListScalar), "ListScalar");
  EXPECT_STREQ(to_string(Tag::ListOptionalTensor), "ListOptionalTensor");
  EXPECT_STREQ(to_string(static_cast<Tag>(99)), "Unknown");
}

TEST(TagTest, OrderIsExecuTorchs) {
  EXPECT_EQ(static_cast<uint32_t>(Tag::None), 0u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Tensor), 1u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::String), 2u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Double), 3u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Int), 4u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Bool), 5u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListBool), 6u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListDouble), 7u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListInt), 8u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListTensor), 9u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListScalar), 10u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListOptionalTensor), 11u);
}

// Exactly one is* predicate is true for a value of a given tag.
void expect_only(const EValue& value, Tag tag) {
  EXPECT_EQ(value.tag(), tag);
  EXPECT_EQ(value.isNone(), tag == Tag::None);
  EXPECT_EQ(value.isInt(), tag == Tag::Int);
  EXPECT_EQ(value.isDouble(), tag == Tag::Double);
  EXPECT_EQ(value.isBool(), tag == Tag::Bool);
  EXPECT_EQ(value.isTensor(), tag == Tag::Tensor);
  EXPECT_EQ(value.isString(), tag == Tag::String);
  EXPECT_EQ(value.isIntList(), tag == Tag::ListInt);
  EXPECT_EQ(value.isDoubleList(), tag == Tag::ListDouble);
  EXPECT_EQ(value.isBoolList(), tag == Tag::ListBool);
  EXPECT_EQ(value.isTensorList(), tag == Tag::ListTensor);
  EXPECT_EQ(value.isListOptionalTensor(), tag == Tag::ListOptionalTensor);
  EXPECT_EQ(value.isScalar(), tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool);
}

TEST(EValueTest, None) {
  EValue value;
  expect_only(value, Tag::None);
  EXPECT_EQ(value.toOptionalTensor(), std::nullopt);
}

TEST(EValueTest, Int) {
  EValue value(int64_t{-42});
  expect_only(value, Tag::Int);
  EXPECT_EQ(value.toInt(), -42);
  EXPECT_EQ(value.toScalarAsDouble(), -42.0);
  EValue big(int64_t{1} << 40);
  EXPECT_EQ(big.toInt(), int64_t{1} << 40);
}

TEST(EValueTest, Double) {
  EValue value(2.5);
  expect_only(value, Tag::Double);
  EXPECT_EQ(value.toDouble(), 2.5);
  EXPECT_EQ(value.toScalarAsDouble(), 2.5);
}

TEST(EValueTest, Bool) {
  EValue yes(true);
  EValue no(false);
  expect_only(yes, Tag::Bool);
  EXPECT_TRUE(yes.toBool());
  EXPECT_FALSE(no.toBool());
  EXPECT_EQ(yes.toScalarAsDouble(), 1.0);
  EXPECT_EQ(no.toScalarAsDouble(), 0.0);
}

TEST(EValueTest, String) {
  const char text[] = "hello world";
  EValue value(text, 5);
  expect_only(value, Tag::String);
  Span<const char> s = value.toString();
  EXPECT_EQ(s.data(), text);  // points at the caller's chars
  EXPECT_EQ(std::string(s.begin(), s.end()), "hello");
}

TEST(EValueTest, PointersDoNotSilentlyBecomeBools) {
  static_assert(!std::is_constructible_v<EValue, const char*>);
  static_assert(!std::is_constructible_v<EValue, int*>);
  static_assert(!std::is_constructible_v<EValue, const BoxedEvalueList<int64_t>*>);
  static_assert(std::is_constructible_v<EValue, BoxedEvalueList<int64_t>*>);
  static_assert(std::is_constructible_v<EValue, BoxedEvalueList<Tensor>*>);
  static_assert(std::is_constructible_v<EValue, BoxedEvalueList<std::optional<Tensor>>*>);
  static_assert(std::is_constructible_v<EValue, const char*, size_t>);
}

TEST(EValueTest, Tensor) {
  OneDimTensor t(3);
  EValue value(t.tensor());
  expect_only(value, Tag::Tensor);
  EXPECT_EQ(value.toTensor().unsafeGetTensorImpl(), &t.impl);
  EXPECT_EQ(value.toTensor().numel(), 3);
  std::optional<Tensor> optional = value.toOptionalTensor();
  ASSERT_TRUE(optional.has_value());
  EXPECT_EQ(optional->unsafeGetTensorImpl(), &t.impl);
}

TEST(EValueTest, BoolList) {
  const bool values[] = {true, false, true};
  EValue value{Span<const bool>(values)};
  expect_only(value, Tag::ListBool);
  EXPECT_EQ(to_vector(value.toBoolList()), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(value.toBoolList().data(), values);
}

TEST(EValueTest, DoubleList) {
  const double values[] = {0.5, -1.0};
  EValue value{Span<const double>(values)};
  expect_only(value, Tag::ListDouble);
  EXPECT_EQ(to_vector(value.toDoubleList()), (std::vector<double>{0.5, -1.0}));
}

TEST(EValueTest, EmptyLists) {
  EValue bools{Span<const bool>()};
  EXPECT_TRUE(bools.isBoolList());
  EXPECT_TRUE(bools.toBoolList().empty());
  BoxedEvalueList<int64_t> no_ints;
  EValue ints(&no_ints);
  EXPECT_TRUE(ints.isIntList());
  EXPECT_TRUE(ints.toIntList().empty());
}

TEST(EValueTest, IntListSeesChangesToItsBoxedValues) {
  EValue a(int64_t{1});
  EValue b(int64_t{2});
  EValue c(int64_t{3});
  EValue* wrapped[] = {&a, &b, &c};
  int64_t unwrapped[3] = {};
  BoxedEvalueList<int64_t> list(wrapped, unwrapped, 3);
  EXPECT_EQ(list.size(), 3u);

  EValue value(&list);
  expect_only(value, Tag::ListInt);
  EXPECT_EQ(to_vector(value.toIntList()), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(value.toIntList().data(), unwrapped);

  // A symbolic size computed at run time lands in the boxed value; the list
  // must see it on the next read.
  b = EValue(int64_t{20});
  EXPECT_EQ(to_vector(value.toIntList()), (std::vector<int64_t>{1, 20, 3}));
  EXPECT_EQ(to_vector(list.get()), (std::vector<int64_t>{1, 20, 3}));
}

TEST(EValueTest, TensorList) {
  OneDimTensor first(2);
  OneDimTensor second(5);
  OneDimTensor replacement(7);
  EValue a(first.tensor());
  EValue b(second.tensor());
  EValue* wrapped[] = {&a, &b};
  Tensor unwrapped[2];
  BoxedEvalueList<Tensor> list(wrapped, unwrapped, 2);

  EValue value(&list);
  expect_only(value, Tag::ListTensor);
  Span<const Tensor> tensors = value.toTensorList();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].unsafeGetTensorImpl(), &first.impl);
  EXPECT_EQ(tensors[1].numel(), 5);

  a = EValue(replacement.tensor());
  EXPECT_EQ(value.toTensorList()[0].unsafeGetTensorImpl(), &replacement.impl);
  EXPECT_EQ(value.toTensorList()[0].numel(), 7);
}

TEST(EValueTest, OptionalTensorListWithNone) {
  OneDimTensor t(4);
  EValue present(t.tensor());
  EValue absent;
  EValue* wrapped[] = {&present, &absent};
  std::optional<Tensor> unwrapped[2];
  BoxedEvalueList<std::optional<Tensor>> list(wrapped, unwrapped, 2);

  EValue value(&list);
  expect_only(value, Tag::ListOptionalTensor);
  Span<const std::optional<Tensor>> tensors = value.toListOptionalTensor();
  ASSERT_EQ(tensors.size(), 2u);
  ASSERT_TRUE(tensors[0].has_value());
  EXPECT_EQ(tensors[0]->unsafeGetTensorImpl(), &t.impl);
  EXPECT_FALSE(tensors[1].has_value());

  // Swap which slot holds the tensor.
  present = EValue();
  absent = EValue(t.tensor());
  tensors = value.toListOptionalTensor();
  EXPECT_FALSE(tensors[0].has_value());
  ASSERT_TRUE(tensors[1].has_value());
  EXPECT_EQ(tensors[1]->numel(), 4);
}

TEST(EValueTest, CopiesShareWhatTheyPointAt) {
  OneDimTensor t(3);
  EValue original(t.tensor());
  EValue copy = original;
  EXPECT_TRUE(copy.isTensor());
  EXPECT_EQ(copy.toTensor().unsafeGetTensorImpl(), &t.impl);

  EValue reassigned(int64_t{5});
  reassigned = original;
  EXPECT_TRUE(reassigned.isTensor());
  reassigned = EValue(1.5);
  EXPECT_TRUE(reassigned.isDouble());
  EXPECT_TRUE(original.isTensor());
}

TEST(EValueDeathTest, AccessorWithTheWrongTagAborts) {
  EValue value(int64_t{1});
  EXPECT_DEATH((void)value.toDouble(), "internal check failed");
  EXPECT_DEATH((void)value.toTensor(), "internal check failed");
  EValue string("abc", 3);
  EXPECT_DEATH((void)string.toScalarAsDouble(), "internal check failed");
  EXPECT_DEATH((void)string.toOptionalTensor(), "internal check failed");
}

TEST(EValueDeathTest, ListWithAMissingBoxAborts) {
  EValue a(int64_t{1});
  EValue* wrapped[] = {&a, nullptr};
  int64_t unwrapped[2];
  BoxedEvalueList<int64_t> list(wrapped, unwrapped, 2);
  EXPECT_DEATH((void)list.get(), "internal check failed");
}

}  // namespace
}  // namespace kiln::runtime
