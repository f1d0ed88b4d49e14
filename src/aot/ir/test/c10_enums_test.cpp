// c10's numbering of the enums kernels receive, checked against the values of
// torch/headeronly/core/{Layout,MemoryFormat}.h and c10's ScalarType.
#include <gtest/gtest.h>

#include "aot/ir/c10_enums.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {
namespace {

TEST(C10EnumsTest, LayoutsAreNumberedAsC10NumbersThem) {
  EXPECT_EQ(c10_layout(Layout::Strided), 0);
  EXPECT_EQ(c10_layout(Layout::SparseCoo), 1);
  EXPECT_EQ(c10_layout(Layout::SparseCsr), 2);
  EXPECT_EQ(c10_layout(Layout::Mkldnn), 3);
  EXPECT_EQ(c10_layout(Layout::SparseCsc), 4);
  EXPECT_EQ(c10_layout(Layout::SparseBsr), 5);
  EXPECT_EQ(c10_layout(Layout::SparseBsc), 6);
  EXPECT_EQ(static_cast<int>(C10Layout::Jagged), 7);
  EXPECT_EQ(c10_layout(Layout::Unknown), std::nullopt);
  for (int64_t code = 0; code <= 6; ++code) EXPECT_EQ(c10_layout(layout_from_c10(code).value()), code);
  EXPECT_EQ(layout_from_c10(7), std::nullopt);  // Jagged: no Kiln layout
}

TEST(C10EnumsTest, MemoryFormatsAreNumberedAsC10NumbersThem) {
  EXPECT_EQ(c10_memory_format(MemoryFormat::Contiguous), 0);
  EXPECT_EQ(c10_memory_format(MemoryFormat::Preserve), 1);
  EXPECT_EQ(c10_memory_format(MemoryFormat::ChannelsLast), 2);
  EXPECT_EQ(c10_memory_format(MemoryFormat::ChannelsLast3d), 3);
  EXPECT_EQ(c10_memory_format(MemoryFormat::Unknown), std::nullopt);
  for (int64_t code = 0; code <= 3; ++code) EXPECT_EQ(c10_memory_format(memory_format_from_c10(code).value()), code);
  EXPECT_EQ(memory_format_from_c10(4), std::nullopt);
}

TEST(C10EnumsTest, ScalarTypesAreNumberedAsC10NumbersThem) {
  EXPECT_EQ(c10_scalar_type(ScalarType::Byte), 0);
  EXPECT_EQ(c10_scalar_type(ScalarType::Long), 4);
  EXPECT_EQ(c10_scalar_type(ScalarType::Float), 6);
  EXPECT_EQ(c10_scalar_type(ScalarType::Bool), 11);
  EXPECT_EQ(c10_scalar_type(ScalarType::BFloat16), 15);
}

// The schema printer and parser use the same numbers: str(schema) prints
// `Layout? layout=2` for a sparse CSR default.
TEST(C10EnumsTest, SchemaDefaultsRoundTripThroughC10Numbers) {
  const OpSchema schema = parse_op_schema("aten::f(Tensor self, *, Layout layout=2, MemoryFormat format=2) -> Tensor");
  EXPECT_EQ(schema.arguments[1].default_value->value, Argument::Variant(Layout::SparseCsr));
  EXPECT_EQ(schema.arguments[2].default_value->value, Argument::Variant(MemoryFormat::ChannelsLast));
  EXPECT_EQ(schema.to_string(), "aten::f(Tensor self, *, Layout layout=2, MemoryFormat format=2) -> Tensor");
}

}  // namespace
}  // namespace kiln::aot
