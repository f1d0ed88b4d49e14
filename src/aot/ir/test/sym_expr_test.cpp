#include "aot/ir/sym_expr.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {

// Readable failure messages (found by ADL, so outside the anonymous namespace).
void PrintTo(const SymExpr& e, std::ostream* os) { *os << "SymExpr(" << e.to_string() << ")"; }
void PrintTo(const ValueRange& r, std::ostream* os) { *os << r.to_string(); }

namespace {

SymExpr s(const std::string& name) { return SymExpr::symbol(name); }
SymExpr c(int64_t value) { return SymExpr::constant(value); }
SymExpr p(std::string_view text) { return SymExpr::parse(text); }

using testing::error_of;

void expect_error(const std::function<void()>& run, const std::vector<std::string>& parts) {
  const std::string message = error_of(run);
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "message \"" << message << "\" lacks \"" << part << "\"";
  }
}

// ---------------------------------------------------------------------------
// What torch.export writes

struct Example {
  const char* text;
  const char* canonical;
  std::map<std::string, int64_t> bindings;
  int64_t value;
};

const Example kTorchExamples[] = {
    {"s0", "s0", {{"s0", 5}}, 5},
    {"2*s0", "2*s0", {{"s0", 5}}, 10},
    {"s0 + 1", "s0 + 1", {{"s0", 5}}, 6},
    {"s0*s1", "s0*s1", {{"s0", 3}, {"s1", 4}}, 12},
    {"((s0 - 1)//2) + 1", "((s0 - 1)//2) + 1", {{"s0", 7}}, 4},
    {"(s0//2)", "(s0//2)", {{"s0", 7}}, 3},
    {"Max(1, s0)", "Max(1, s0)", {{"s0", 0}}, 1},
    {"Min(s0, 8)", "Min(8, s0)", {{"s0", 10}}, 8},
    {"Mod(s0, 2)", "Mod(s0, 2)", {{"s0", 7}}, 1},
    {"FloorDiv(s0, 2)", "(s0//2)", {{"s0", 9}}, 4},
    {"-s0 + 5", "-s0 + 5", {{"s0", 2}}, 3},
    {"s77", "s77", {{"s77", 64}}, 64},
    {"u0", "u0", {{"u0", 0}}, 0},
};

TEST(SymExprParseTest, TorchExamplesParsePrintAndEvaluate) {
  for (const Example& example : kTorchExamples) {
    SCOPED_TRACE(example.text);
    const SymExpr e = p(example.text);
    EXPECT_EQ(e.to_string(), example.canonical);
    EXPECT_EQ(e.evaluate(example.bindings), example.value);
    EXPECT_EQ(p(e.to_string()), e) << "the canonical text reads back to the same expression";
  }
}

TEST(SymExprParseTest, TorchExamplesHaveTheExpectedShape) {
  EXPECT_TRUE(p("s0").is_symbol());
  EXPECT_EQ(p("s77").symbol_name(), "s77");
  EXPECT_EQ(p("u0").symbol_name(), "u0");
  EXPECT_EQ(p("2*s0"), c(2) * s("s0"));
  EXPECT_EQ(p("s0 + 1"), s("s0") + 1);
  EXPECT_EQ(p("s0*s1"), s("s0") * s("s1"));
  EXPECT_EQ(p("((s0 - 1)//2) + 1"), SymExpr::floordiv(s("s0") - 1, c(2)) + 1);
  EXPECT_EQ(p("(s0//2)"), SymExpr::floordiv(s("s0"), c(2)));
  EXPECT_EQ(p("FloorDiv(s0, 2)"), SymExpr::floordiv(s("s0"), c(2)));
  EXPECT_EQ(p("Max(1, s0)"), SymExpr::max(c(1), s("s0")));
  EXPECT_EQ(p("Min(s0, 8)"), SymExpr::min(s("s0"), c(8)));
  EXPECT_EQ(p("Mod(s0, 2)"), SymExpr::mod(s("s0"), c(2)));
  EXPECT_EQ(p("-s0 + 5"), 5 - s("s0"));
  EXPECT_EQ(p("-s0 + 5").kind(), SymExpr::Kind::Add);
}

TEST(SymExprParseTest, OtherSpellingsOfTheSameExpression) {
  EXPECT_EQ(p("s0 % 2"), p("Mod(s0, 2)"));
  EXPECT_EQ(p("PythonMod(s0, 2)"), p("Mod(s0, 2)"));
  EXPECT_EQ(p("s0//2"), p("(s0//2)"));
  EXPECT_EQ(p("2*((s0//2))"), p("2*(s0//2)"));  // how sympy brackets a floor division in a product
  EXPECT_EQ(p("1 + s0"), p("s0 + 1"));
  EXPECT_EQ(p("5 - s0"), p("-s0 + 5"));
  EXPECT_EQ(p("s1*s0"), p("s0*s1"));
  EXPECT_EQ(p("s0**2"), p("s0*s0"));
  EXPECT_EQ(p("  s0\t+ 1 "), p("s0 + 1"));
  EXPECT_EQ(p("+s0"), p("s0"));
  EXPECT_EQ(p("--s0"), p("s0"));
  EXPECT_EQ(p("Max(s0, 1)"), p("Max(1, s0)"));
}

TEST(SymExprParseTest, PythonPrecedence) {
  EXPECT_EQ(p("1 + 2*3").constant_value(), 7);
  EXPECT_EQ(p("(1 + 2)*3").constant_value(), 9);
  EXPECT_EQ(p("7 - 2 - 1").constant_value(), 4);  // left-associative
  EXPECT_EQ(p("12//2//3").constant_value(), 2);
  EXPECT_EQ(p("2*7//4").constant_value(), 3);     // (2*7)//4, not 2*(7//4)
  EXPECT_EQ(p("7 % 4 * 2").constant_value(), 6);  // (7 % 4)*2
  EXPECT_EQ(p("-2**2").constant_value(), -4);     // -(2**2)
  EXPECT_EQ(p("2**3**2").constant_value(), 512);  // right-associative
  EXPECT_EQ(p("s0**0").constant_value(), 1);
  EXPECT_EQ(p("2 + Max(3, 4)*2").constant_value(), 10);
}

TEST(SymExprParseTest, NaryMaxAndMin) {
  const SymExpr e = p("Max(s0, s1, 3, 5)");
  EXPECT_EQ(e.to_string(), "Max(5, s0, s1)");
  EXPECT_EQ(e.evaluate({{"s0", 2}, {"s1", 9}}), 9);
  EXPECT_EQ(p("Min(s1, 2, s0)").to_string(), "Min(2, s0, s1)");
  EXPECT_EQ(p("Max(s0)"), s("s0"));
}

// ---------------------------------------------------------------------------
// Canonical forms

TEST(SymExprFoldTest, ConstantsFold) {
  EXPECT_EQ((c(2) * c(3)).constant_value(), 6);
  EXPECT_EQ((c(2) + c(3) - c(10)).constant_value(), -5);
  EXPECT_EQ((-c(4)).constant_value(), -4);
  EXPECT_EQ(SymExpr::floordiv(c(7), c(2)).constant_value(), 3);
  EXPECT_EQ(SymExpr::mod(c(7), c(4)).constant_value(), 3);
  EXPECT_EQ(SymExpr::max(c(2), c(5)).constant_value(), 5);
  EXPECT_EQ(SymExpr::min(c(2), c(5)).constant_value(), 2);
  EXPECT_EQ(p("Max(1, 2) + (10//3)*Mod(7, 5)").constant_value(), 8);
  EXPECT_TRUE(p("3*4 - 12").is_constant());
  EXPECT_EQ(p("3*4 - 12").to_string(), "0");
}

TEST(SymExprFoldTest, IdentitiesVanish) {
  const SymExpr s0 = s("s0");
  EXPECT_EQ(s0 + 0, s0);
  EXPECT_EQ(0 + s0, s0);
  EXPECT_EQ(1 * s0, s0);
  EXPECT_EQ(s0 * 1, s0);
  EXPECT_EQ((0 * s0).constant_value(), 0);
  EXPECT_EQ(-(-s0), s0);
  EXPECT_EQ(s0 - 0, s0);
  EXPECT_EQ(p("s0 + 0").to_string(), "s0");
  EXPECT_EQ(p("1*s0").to_string(), "s0");
}

TEST(SymExprFoldTest, LikeTermsAreCollected) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ((s0 + s0).to_string(), "2*s0");
  EXPECT_EQ((s0 - s0).constant_value(), 0);
  EXPECT_EQ((2 * s0 + 3 * s0 - s1).to_string(), "5*s0 - s1");
  EXPECT_EQ(((s0 + 1) + (s1 - 1)).to_string(), "s0 + s1");
  EXPECT_EQ((s0 + 1 + 2).to_string(), "s0 + 3");
  EXPECT_EQ((s0 * s1 + s1 * s0).to_string(), "2*s0*s1");
  EXPECT_EQ(p("s0 + 2*s0 - 3*s0 + 4").to_string(), "4");
}

TEST(SymExprFoldTest, ProductsAreCanonical) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ((s1 * s0), (s0 * s1));
  EXPECT_EQ((s1 * 3 * s0).to_string(), "3*s0*s1");
  EXPECT_EQ((s0 * s0).to_string(), "s0**2");
  EXPECT_EQ((-s0 * s0 * 2).to_string(), "-2*s0**2");
  EXPECT_EQ((2 * (s0 + 1)).to_string(), "2*s0 + 2");   // a number distributes over a sum
  EXPECT_EQ((-(s0 - s1)).to_string(), "-s0 + s1");
  EXPECT_EQ((s0 * (s1 + 1)).to_string(), "s0*(s1 + 1)");  // a symbol does not
  EXPECT_EQ(((s0 + 1) * (s0 + 1)).to_string(), "(s0 + 1)**2");
  EXPECT_EQ((2 * SymExpr::floordiv(s0, c(2))).to_string(), "2*(s0//2)");
  EXPECT_EQ((SymExpr::floordiv(s0, c(2)) * SymExpr::floordiv(s0, c(2))).to_string(), "(s0//2)**2");
}

TEST(SymExprFoldTest, SumsPrintWithTheConstantLast) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ((1 + s0).to_string(), "s0 + 1");
  EXPECT_EQ((5 - s0).to_string(), "-s0 + 5");
  EXPECT_EQ((s1 + 2 * s0 - 1).to_string(), "2*s0 + s1 - 1");
  EXPECT_EQ((s0 - 2 * s1).to_string(), "s0 - 2*s1");
  EXPECT_EQ((s0 * s1 + s0).to_string(), "s0 + s0*s1");  // symbols before products
  EXPECT_EQ((SymExpr::max(c(1), s0) + SymExpr::floordiv(s1, c(2)) + s0).to_string(), "s0 + (s1//2) + Max(1, s0)");
}

TEST(SymExprFoldTest, FloorDivision) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ(SymExpr::floordiv(s0, c(1)), s0);
  EXPECT_EQ(SymExpr::floordiv(s0, c(-1)), -s0);
  EXPECT_EQ(SymExpr::floordiv(4 * s0, c(2)).to_string(), "2*s0");
  EXPECT_EQ(SymExpr::floordiv(2 * s0 + 1, c(2)).to_string(), "s0");
  EXPECT_EQ(SymExpr::floordiv(2 * s0 + s1, c(2)).to_string(), "s0 + (s1//2)");
  EXPECT_EQ(SymExpr::floordiv(s0 + 4, c(2)).to_string(), "(s0//2) + 2");
  EXPECT_EQ(SymExpr::floordiv(SymExpr::floordiv(s0, c(2)), c(3)).to_string(), "(s0//6)");
  EXPECT_EQ(SymExpr::floordiv(3 * s0, c(2)).to_string(), "((3*s0)//2)");
  EXPECT_EQ(SymExpr::floordiv(s0, s1).to_string(), "(s0//s1)");
  EXPECT_EQ(SymExpr::floordiv(s0, c(-2)).to_string(), "(s0//(-2))");
  EXPECT_EQ(SymExpr::floordiv(SymExpr::floordiv(s0, c(2)), s1).to_string(), "((s0//2)//s1)");
  EXPECT_EQ(SymExpr::floordiv(SymExpr::max(c(1), s0), c(2)).to_string(), "(Max(1, s0)//2)");
  for (const SymExpr& e : {SymExpr::floordiv(s0, c(-2)), SymExpr::floordiv(3 * s0, c(2)),
                           SymExpr::floordiv(SymExpr::floordiv(s0, c(2)), s1)}) {
    EXPECT_EQ(p(e.to_string()), e) << e.to_string();
  }
}

TEST(SymExprFoldTest, Modulo) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ(SymExpr::mod(s0, c(1)).constant_value(), 0);
  EXPECT_EQ(SymExpr::mod(s0, c(-1)).constant_value(), 0);
  EXPECT_EQ(SymExpr::mod(2 * s0, c(2)).constant_value(), 0);
  EXPECT_EQ(SymExpr::mod(2 * s0 + 1, c(2)).constant_value(), 1);
  EXPECT_EQ(SymExpr::mod(2 * s0 + s1, c(2)).to_string(), "Mod(s1, 2)");
  EXPECT_EQ(SymExpr::mod(s0 + 3, c(2)).to_string(), "Mod(s0 + 3, 2)");
  EXPECT_EQ(SymExpr::mod(s0, s1).to_string(), "Mod(s0, s1)");
}

TEST(SymExprFoldTest, MaxAndMin) {
  const SymExpr s0 = s("s0"), s1 = s("s1");
  EXPECT_EQ(SymExpr::max(s0, s0), s0);
  EXPECT_EQ(SymExpr::max(s0, c(1)).to_string(), "Max(1, s0)");
  EXPECT_EQ(SymExpr::max(c(1), SymExpr::max(s0, c(3))).to_string(), "Max(3, s0)");
  EXPECT_EQ(SymExpr::min(SymExpr::min(s1, c(4)), SymExpr::min(s0, c(2))).to_string(), "Min(2, s0, s1)");
  // Max inside Min stays nested.
  EXPECT_EQ(SymExpr::min(SymExpr::max(c(1), s0), c(8)).to_string(), "Min(8, Max(1, s0))");
  EXPECT_EQ(SymExpr::max(s1, s0), SymExpr::max(s0, s1));
}

// ---------------------------------------------------------------------------
// Python integer semantics

TEST(SymExprSemanticsTest, FloorDivisionRoundsTowardNegativeInfinity) {
  EXPECT_EQ(SymExpr::floordiv(c(-7), c(2)).constant_value(), -4);
  EXPECT_EQ(SymExpr::floordiv(c(7), c(-2)).constant_value(), -4);
  EXPECT_EQ(SymExpr::floordiv(c(-7), c(-2)).constant_value(), 3);
  EXPECT_EQ(SymExpr::floordiv(c(-8), c(2)).constant_value(), -4);
  EXPECT_EQ(SymExpr::floordiv(c(0), c(-3)).constant_value(), 0);
  const SymExpr e = p("s0//s1");
  EXPECT_EQ(e.evaluate({{"s0", -7}, {"s1", 2}}), -4);
  EXPECT_EQ(e.evaluate({{"s0", 7}, {"s1", -2}}), -4);
  EXPECT_EQ(e.evaluate({{"s0", -7}, {"s1", -2}}), 3);
  EXPECT_EQ(e.evaluate({{"s0", 7}, {"s1", 2}}), 3);
  EXPECT_EQ(p("(s0 - 1)//2").evaluate({{"s0", 0}}), -1);
}

TEST(SymExprSemanticsTest, ModTakesTheSignOfTheDivisor) {
  EXPECT_EQ(SymExpr::mod(c(-7), c(2)).constant_value(), 1);
  EXPECT_EQ(SymExpr::mod(c(7), c(-2)).constant_value(), -1);
  EXPECT_EQ(SymExpr::mod(c(-7), c(-2)).constant_value(), -1);
  EXPECT_EQ(SymExpr::mod(c(-8), c(2)).constant_value(), 0);
  EXPECT_EQ(SymExpr::mod(c(std::numeric_limits<int64_t>::min()), c(-1)).constant_value(), 0);
  const SymExpr e = p("Mod(s0, s1)");
  EXPECT_EQ(e.evaluate({{"s0", -7}, {"s1", 2}}), 1);
  EXPECT_EQ(e.evaluate({{"s0", 7}, {"s1", -2}}), -1);
  EXPECT_EQ(e.evaluate({{"s0", -7}, {"s1", -2}}), -1);
  EXPECT_EQ(p("s0 % s1").evaluate({{"s0", -7}, {"s1", 3}}), 2);
}

TEST(SymExprSemanticsTest, DivisionIdentityHolds) {
  // a == (a // b) * b + a % b for every sign combination.
  const SymExpr identity = p("(a//b)*b + Mod(a, b)");
  for (int64_t a : {-9, -7, -1, 0, 1, 6, 7}) {
    for (int64_t b : {-4, -2, -1, 1, 2, 3}) {
      EXPECT_EQ(identity.evaluate({{"a", a}, {"b", b}}), a) << a << ", " << b;
    }
  }
}

TEST(SymExprEvaluateTest, WithBindings) {
  const SymExpr e = p("s0*s1 + 2*s2 - Max(1, s0)");
  EXPECT_EQ(e.evaluate({{"s0", 3}, {"s1", 4}, {"s2", 5}}), 12 + 10 - 3);
  EXPECT_EQ(e.evaluate({{"s0", 0}, {"s1", 4}, {"s2", 5}, {"unused", 7}}), 0 + 10 - 1);
  EXPECT_EQ(p("s0**3").evaluate({{"s0", -2}}), -8);
  EXPECT_EQ(c(42).evaluate({}), 42);
  EXPECT_EQ(p("Min(s0, 8)").evaluate({{"s0", 3}}), 3);
}

TEST(SymExprEvaluateTest, UnboundSymbolIsNamed) {
  expect_error([] { (void)p("s0 + s1").evaluate({{"s0", 1}}); }, {"'s1'", "unbound", "s0 + s1"});
  expect_error([] { (void)s("u0").evaluate({}); }, {"'u0'"});
}

TEST(SymExprEvaluateTest, DivisionByZeroThrows) {
  expect_error([] { (void)p("s0//s1").evaluate({{"s0", 7}, {"s1", 0}}); }, {"division by zero", "(s0//s1)"});
  expect_error([] { (void)p("Mod(s0, s1)").evaluate({{"s0", 7}, {"s1", 0}}); }, {"division by zero", "Mod(s0, s1)"});
}

TEST(SymExprEvaluateTest, OverflowThrows) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  expect_error([&] { (void)p("s0*s1").evaluate({{"s0", big}, {"s1", 2}}); }, {"overflow"});
  expect_error([&] { (void)p("s0 + 1").evaluate({{"s0", big}}); }, {"overflow"});
  expect_error([&] { (void)p("s0//s1").evaluate({{"s0", std::numeric_limits<int64_t>::min()}, {"s1", -1}}); },
               {"overflow"});
  expect_error([&] { (void)(c(big) + 1); }, {"overflow"});
  expect_error([] { (void)p("2**63"); }, {"2**63", "overflow"});
}

// ---------------------------------------------------------------------------
// Errors

TEST(SymExprErrorTest, UnbalancedParentheses) {
  expect_error([] { (void)p("((s0 + 1)"); }, {"\"((s0 + 1)\"", "expected ')'", "position 9"});
  expect_error([] { (void)p("s0 + 1)"); }, {"\"s0 + 1)\"", "unexpected ')'", "position 6"});
  expect_error([] { (void)p("Max(1, s0"); }, {"expected ')'", "position 9"});
  expect_error([] { (void)p("()"); }, {"found ')'", "position 1"});
}

TEST(SymExprErrorTest, UnknownFunction) {
  expect_error([] { (void)p("s0 + Foo(s0)"); }, {"unknown function 'Foo'", "position 5", "\"s0 + Foo(s0)\""});
  expect_error([] { (void)p("CeilToInt(s0)"); }, {"unknown function 'CeilToInt'", "position 0"});
  expect_error([] { (void)p("Max + 1"); }, {"'Max' needs arguments"});
}

TEST(SymExprErrorTest, BadArgumentsAndSyntax) {
  expect_error([] { (void)p(""); }, {"expected an expression", "position 0"});
  expect_error([] { (void)p("s0 +"); }, {"expected an expression", "position 4"});
  expect_error([] { (void)p("s0 $ 1"); }, {"unexpected '$'", "position 3"});
  expect_error([] { (void)p("Mod(s0)"); }, {"Mod takes 2 arguments, got 1"});
  expect_error([] { (void)p("FloorDiv(s0, 2, 3)"); }, {"FloorDiv takes 2 arguments, got 3"});
  expect_error([] { (void)p("s0 / 2"); }, {"true division", "position 3"});
  expect_error([] { (void)p("1.5*s0"); }, {"integer literal", "position 1"});
  expect_error([] { (void)p("s0**s1"); }, {"exponent", "position 4"});
  expect_error([] { (void)p("s0**-1"); }, {"exponent"});
  expect_error([] { (void)p("99999999999999999999"); }, {"does not fit in int64", "position 0"});
  expect_error([] { (void)p("s0,"); }, {"unexpected ','"});
}

TEST(SymExprErrorTest, DivisionByZeroWhileBuilding) {
  expect_error([] { (void)p("s0//0"); }, {"division by zero", "position 4"});
  expect_error([] { (void)p("Mod(s0, 0)"); }, {"division by zero", "position 0"});
  expect_error([] { (void)p("s0 % (1 - 1)"); }, {"division by zero"});
  expect_error([] { (void)SymExpr::floordiv(s("s0"), c(0)); }, {"division by zero", "s0"});
  expect_error([] { (void)SymExpr::mod(c(3), c(0)); }, {"division by zero"});
}

TEST(SymExprErrorTest, InvalidSymbolNames) {
  expect_error([] { (void)SymExpr::symbol(""); }, {"not a valid symbol name"});
  expect_error([] { (void)SymExpr::symbol("2x"); }, {"\"2x\""});
  expect_error([] { (void)SymExpr::symbol("s 0"); }, {"not a valid symbol name"});
  expect_error([] { (void)SymExpr::symbol("Max"); }, {"not a valid symbol name"});
  EXPECT_EQ(SymExpr::symbol("_tmp1").symbol_name(), "_tmp1");
}

// ---------------------------------------------------------------------------
// Accessors

TEST(SymExprAccessTest, ConstantsAndSymbols) {
  EXPECT_TRUE(SymExpr().is_constant());
  EXPECT_EQ(SymExpr().constant_value(), 0);
  EXPECT_EQ(SymExpr(), c(0));
  EXPECT_EQ(c(-3).to_string(), "-3");
  EXPECT_EQ(c(std::numeric_limits<int64_t>::min()).to_string(), "-9223372036854775808");
  EXPECT_FALSE(s("s0").is_constant());
  EXPECT_EQ(s("s0").constant_value(), std::nullopt);
  EXPECT_EQ(s("s0").kind(), SymExpr::Kind::Symbol);
  EXPECT_EQ(c(1).symbol_name(), "");
  EXPECT_FALSE(p("2*s0").is_symbol());
  EXPECT_NE(s("s0"), s("s1"));
  EXPECT_NE(s("s0"), c(0));
}

TEST(SymExprAccessTest, Operands) {
  const SymExpr sum = p("2*s0 + s1 + 3");
  ASSERT_EQ(sum.kind(), SymExpr::Kind::Add);
  ASSERT_EQ(sum.args().size(), 3u);
  EXPECT_EQ(sum.args()[0], p("2*s0"));
  EXPECT_EQ(sum.args()[2].constant_value(), 3);

  const SymExpr product = p("s1*3*s0");
  ASSERT_EQ(product.kind(), SymExpr::Kind::Mul);
  EXPECT_EQ(product.args()[0].constant_value(), 3);
  EXPECT_EQ(product.args()[1], s("s0"));

  const SymExpr division = p("(s0//s1)");
  ASSERT_EQ(division.kind(), SymExpr::Kind::FloorDiv);
  EXPECT_EQ(division.args()[0], s("s0"));
  EXPECT_EQ(division.args()[1], s("s1"));
  EXPECT_EQ(p("Mod(s0, 4)").kind(), SymExpr::Kind::Mod);
  EXPECT_EQ(p("Max(s0, 4)").kind(), SymExpr::Kind::Max);
  EXPECT_EQ(p("Min(s0, 4)").kind(), SymExpr::Kind::Min);
  EXPECT_TRUE(s("s0").args().empty());
}

TEST(SymExprAccessTest, FreeSymbolsAreSortedAndUnique) {
  EXPECT_EQ(p("s1*s0 + Max(s2, s0) + (u0//s1)").free_symbols(),
            (std::vector<std::string>{"s0", "s1", "s2", "u0"}));
  EXPECT_TRUE(p("Max(2, 3) + 1").free_symbols().empty());
  EXPECT_EQ(p("s0 - s0 + s1").free_symbols(), (std::vector<std::string>{"s1"}));
}

TEST(SymExprAccessTest, CopiesAreEqualValues) {
  SymExpr a = p("((s0 - 1)//2) + 1");
  const SymExpr b = a;
  EXPECT_EQ(a, b);
  a = a + 1;  // rebinding one copy leaves the other alone
  EXPECT_EQ(b.to_string(), "((s0 - 1)//2) + 1");
  EXPECT_EQ(a.to_string(), "((s0 - 1)//2) + 2");
}

TEST(SymExprAccessTest, CanonicalTextRoundTrips) {
  const SymExpr s0 = s("s0"), s1 = s("s1"), u0 = s("u0");
  const std::vector<SymExpr> exprs = {
      s0 * s0 * s1 - 3 * s1 + 7,
      -s0 * s0,
      (s0 + 1) * (s1 - 2),
      SymExpr::max(c(1), SymExpr::floordiv(s0 - 1, c(2)) + 1),
      SymExpr::min(SymExpr::mod(u0, c(4)), s1 * 2),
      SymExpr::floordiv(s0 * s1, s1 + 1),
      SymExpr::floordiv(c(5), s0),
      2 * SymExpr::floordiv(s0, c(2)) + SymExpr::mod(s0, c(2)),
      c(-5),
      -s0 - 1,
  };
  for (const SymExpr& e : exprs) {
    EXPECT_EQ(p(e.to_string()), e) << e.to_string();
    EXPECT_EQ(p(e.to_string()).to_string(), e.to_string());
  }
}

// ---------------------------------------------------------------------------
// ValueRange

TEST(ValueRangeTest, Contains) {
  const ValueRange bounded{1, 8};
  EXPECT_FALSE(bounded.contains(0));
  EXPECT_TRUE(bounded.contains(1));
  EXPECT_TRUE(bounded.contains(8));
  EXPECT_FALSE(bounded.contains(9));

  const ValueRange unbounded{2, std::nullopt};
  EXPECT_FALSE(unbounded.contains(1));
  EXPECT_TRUE(unbounded.contains(2));
  EXPECT_TRUE(unbounded.contains(std::numeric_limits<int64_t>::max()));

  const ValueRange empty{5, 4};
  EXPECT_FALSE(empty.contains(4));
  EXPECT_FALSE(empty.contains(5));
}

TEST(ValueRangeTest, PrintsLikeTorch) {
  EXPECT_EQ((ValueRange{1, 8}).to_string(), "VR[1, 8]");
  EXPECT_EQ((ValueRange{2, std::nullopt}).to_string(), "VR[2, int_oo]");
  EXPECT_EQ((ValueRange{0, 0}).to_string(), "VR[0, 0]");
  EXPECT_EQ((ValueRange{-3, -1}).to_string(), "VR[-3, -1]");
  EXPECT_EQ((ValueRange{std::numeric_limits<int64_t>::min(), std::nullopt}).to_string(), "VR[-int_oo, int_oo]");
  EXPECT_EQ(ValueRange().to_string(), "VR[0, int_oo]");
}

TEST(ValueRangeTest, Equality) {
  EXPECT_EQ((ValueRange{2, std::nullopt}), (ValueRange{2, std::nullopt}));
  EXPECT_NE((ValueRange{2, std::nullopt}), (ValueRange{2, 8}));
  EXPECT_NE((ValueRange{1, 8}), (ValueRange{2, 8}));
}

}  // namespace
}  // namespace kiln::aot
