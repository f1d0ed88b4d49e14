#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/tensor_meta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/node.h"

namespace kiln::aot {
namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;


// ---------------------------------------------------------------------------
// Static and symbolic sizes

TEST(TensorMetaTest, AStaticMetaKnowsItsSizes) {
  const TensorMeta meta(ScalarType::Float, std::vector<int64_t>{4, 3});  // the static-size constructor

  EXPECT_TRUE(meta.is_static());
  EXPECT_EQ(meta.rank(), 2u);
  EXPECT_THAT(meta.static_sizes(), ElementsAre(4, 3));
  EXPECT_THAT(meta.concrete_sizes({}), ElementsAre(4, 3));
  EXPECT_EQ(meta.to_string(), "f32[4, 3]");
}

TEST(TensorMetaTest, AScalarPrintsEmptyBrackets) {
  const TensorMeta meta = i64({});
  EXPECT_TRUE(meta.is_static());
  EXPECT_THAT(meta.static_sizes(), IsEmpty());
  EXPECT_EQ(meta.to_string(), "i64[]");
}

TEST(TensorMetaTest, ASymbolicMetaPrintsItsExpressions) {
  EXPECT_EQ(f32({4, SymExpr::symbol("s0"), 3}).to_string(), "f32[4, s0, 3]");
  EXPECT_EQ(i64({2 * SymExpr::symbol("s0"), SymExpr::symbol("s0") + 1}).to_string(), "i64[2*s0, s0 + 1]");
  EXPECT_FALSE(f32({4, SymExpr::symbol("s0")}).is_static());
  EXPECT_FALSE(f32({2 * SymExpr::symbol("s0")}).is_static());
  EXPECT_TRUE(f32({4, SymExpr::symbol("s0") - SymExpr::symbol("s0")}).is_static());  // folds to the constant 0
}

TEST(TensorMetaTest, StaticSizesOfASymbolicMetaThrowsNamingTheSize) {
  const TensorMeta meta = f32({4, 2 * SymExpr::symbol("s0")});
  const std::string message = error_of([&] { meta.static_sizes(); });
  EXPECT_THAT(message, HasSubstr("f32[4, 2*s0]"));
  EXPECT_THAT(message, HasSubstr("symbolic size 2*s0"));
}

TEST(TensorMetaTest, ConcreteSizesSubstituteTheBindings) {
  const TensorMeta meta = f32({4, SymExpr::symbol("s0"), 2 * SymExpr::symbol("s0")});
  EXPECT_THAT(meta.concrete_sizes({{"s0", 5}}), ElementsAre(4, 5, 10));
  EXPECT_THAT(meta.concrete_sizes({{"s0", 1}, {"s1", 9}}), ElementsAre(4, 1, 2));
}

TEST(TensorMetaTest, ConcreteSizesWithAnUnboundSymbolThrowsNamingIt) {
  const TensorMeta meta = f32({4, SymExpr::symbol("s1")});
  EXPECT_THAT(error_of([&] { meta.concrete_sizes({{"s0", 5}}); }), HasSubstr("'s1' is unbound"));
}

// ---------------------------------------------------------------------------
// Dim order and equality

TEST(TensorMetaTest, ResolvedDimOrderFillsInTheContiguousOrder) {
  TensorMeta meta = f32({2, 3, 4});
  EXPECT_THAT(meta.resolved_dim_order(), ElementsAre(0, 1, 2));

  meta.dim_order = {0, 2, 1};
  EXPECT_THAT(meta.resolved_dim_order(), ElementsAre(0, 2, 1));

  EXPECT_THAT(f32({}).resolved_dim_order(), IsEmpty());
}

TEST(TensorMetaTest, EqualityTreatsAnImplicitDimOrderAsContiguous) {
  const TensorMeta implicit = f32({2, 3});
  TensorMeta explicit_order = implicit;
  explicit_order.dim_order = {0, 1};
  TensorMeta channels_last = implicit;
  channels_last.dim_order = {1, 0};
  TensorMeta with_grad = implicit;
  with_grad.requires_grad = true;

  EXPECT_EQ(implicit, explicit_order);
  EXPECT_FALSE(implicit == channels_last);
  EXPECT_FALSE(implicit == with_grad);
  EXPECT_FALSE(implicit == i64({2, 3}));
  EXPECT_FALSE(implicit == f32({2, SymExpr::symbol("s0")}));
}

// ---------------------------------------------------------------------------
// ValueMeta

TEST(ValueMetaTest, ToStringOfEveryAlternative) {
  EXPECT_EQ(to_string(ValueMeta{}), "");
  EXPECT_EQ(to_string(ValueMeta{f32({4, SymExpr::symbol("s0"), 3})}), "f32[4, s0, 3]");
  EXPECT_EQ(to_string(ValueMeta{std::vector<TensorMeta>{f32({2}), i64({3})}}),
            "(f32[2], i64[3])");
  EXPECT_EQ(to_string(ValueMeta{std::vector<TensorMeta>{f32({2})}}), "(f32[2],)");
  EXPECT_EQ(to_string(ValueMeta{SymExpr::symbol("s0")}), "Sym(s0)");
  EXPECT_EQ(to_string(ValueMeta{2 * SymExpr::symbol("s0")}), "Sym(2*s0)");
}

TEST(ValueMetaTest, NodeMetaTensorReturnsTheTensorOrThrowsShowingTheValue) {
  NodeMeta meta;
  meta.val = f32({2});
  EXPECT_EQ(meta.tensor().to_string(), "f32[2]");

  meta.val = SymExpr::symbol("s0");
  EXPECT_THAT(error_of([&] { meta.tensor(); }), HasSubstr("Sym(s0)"));
}

}  // namespace
}  // namespace kiln::aot
