// SymExpr: the symbolic integer sizes that torch.export records in tensor
// meta, as the sympy strings it prints them ("s0", "2*s0", "((s0 - 1)//2) + 1",
// "Max(1, s0)", "u0", ...), and ValueRange, the bounds it records per symbol.
//
// A SymExpr is an immutable value: copies share one node. Every expression is
// built in a canonical form, so that structural equality (`==`) is equality
// of the canonical forms and `to_string()` is stable:
//   * constants are folded everywhere (2*3 -> 6, Max(2, 5) -> 5, 7//2 -> 3);
//   * a sum is flattened, like terms are collected (s0 + s0 -> 2*s0, s0 - s0
//     -> 0), its non-constant terms are sorted and its constant comes last;
//   * a product is flattened, its integer coefficient comes first and is
//     dropped when 1, its factors are sorted, and a coefficient times a sum is
//     distributed (2*(s0 + 1) -> 2*s0 + 2);
//   * a//d and Mod(a, d) with a constant d > 0 pull out (or drop) the terms of
//     a whose coefficient d divides: (2*s0 + s1)//2 -> s0 + (s1//2),
//     Mod(2*s0 + 1, 2) -> Mod(1, 2) -> 1; (a//b)//c -> a//(b*c) for positive
//     constants b and c; a//1 -> a; Mod(a, 1) -> 0;
//   * Max and Min are flattened, their constants folded into one, duplicates
//     dropped and arguments sorted with the constant first (Max(1, s0)).
//
// Canonical printing follows sympy's StrPrinter as torch uses it:
//   s0   42   -3   2*s0   -s0   s0*s1   s0**2   s0 + 1   -s0 + 5   2*s0 - s1 - 1
//   (s0//2)   ((s0 - 1)//2) + 1   (s0//(-2))   Mod(s0, 2)   Max(1, s0)   Min(8, s0)
// Floor division always prints as "(a//b)", bracketed exactly once wherever it
// appears (sympy would print 2*(s0//2) as "2*((s0//2))"); its operands are
// bracketed when they are sums, products, divisions or negative numbers.
// Terms of a sum are ordered symbols first (by name), then products, floor
// divisions, Mod, Max, Min; a product's factors use the same order. `parse`
// reads every printed form back to an equal expression.
//
// Integer semantics are Python's: a//b rounds toward negative infinity and
// Mod(a, b) (also written a % b) takes the sign of b. Arithmetic overflowing
// int64 and division by zero throw AotError.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::aot {

class SymExpr {
 public:
  /// The node kinds. Sub and Neg are Add and Mul by -1; a**n is a product of n
  /// equal factors.
  enum class Kind : uint8_t { Constant, Symbol, Add, Mul, FloorDiv, Mod, Max, Min };

  /// The constant 0.
  SymExpr();
  /// The constant `value`; implicit so that sizes read naturally: {s0, 3}.
  SymExpr(int64_t value) : SymExpr(constant(value)) {}  // NOLINT(google-explicit-constructor)

  static SymExpr constant(int64_t value);
  /// `name` must be an identifier ([A-Za-z_][A-Za-z0-9_]*) that is not a
  /// function name; throws AotError otherwise.
  static SymExpr symbol(std::string name);
  /// Parses sympy/torch text: integers, symbols, + - * // % **, parentheses
  /// and the calls Max(a, b, ...), Min(a, b, ...), Mod(a, b), PythonMod(a, b)
  /// and FloorDiv(a, b). A ** exponent must be a constant in [0, 64]. Throws
  /// AotError quoting the text and the 0-based position of a syntax error.
  static SymExpr parse(std::string_view text);

  friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a);
  friend SymExpr operator+(const SymExpr& a, int64_t b) { return a + constant(b); }
  friend SymExpr operator+(int64_t a, const SymExpr& b) { return constant(a) + b; }
  friend SymExpr operator-(const SymExpr& a, int64_t b) { return a - constant(b); }
  friend SymExpr operator-(int64_t a, const SymExpr& b) { return constant(a) - b; }
  friend SymExpr operator*(const SymExpr& a, int64_t b) { return a * constant(b); }
  friend SymExpr operator*(int64_t a, const SymExpr& b) { return constant(a) * b; }

  /// Python's a // b. Throws AotError if b is the constant 0.
  static SymExpr floordiv(const SymExpr& a, const SymExpr& b);
  /// Python's a % b (sympy's Mod). Throws AotError if b is the constant 0.
  static SymExpr mod(const SymExpr& a, const SymExpr& b);
  static SymExpr max(const SymExpr& a, const SymExpr& b);
  static SymExpr min(const SymExpr& a, const SymExpr& b);

  Kind kind() const;
  /// The operands: terms of an Add (the constant last), factors of a Mul (the
  /// coefficient first), {base, divisor} of FloorDiv and Mod, the arguments
  /// of Max and Min; empty for Constant and Symbol.
  const std::vector<SymExpr>& args() const;

  bool is_constant() const { return kind() == Kind::Constant; }
  std::optional<int64_t> constant_value() const;
  bool is_symbol() const { return kind() == Kind::Symbol; }
  /// The symbol's name; empty if this is not a symbol.
  const std::string& symbol_name() const;
  /// Every symbol the expression mentions, sorted and without duplicates.
  std::vector<std::string> free_symbols() const;

  /// The value with every symbol bound. Throws AotError naming an unbound
  /// symbol, on division by zero and on int64 overflow.
  int64_t evaluate(const std::map<std::string, int64_t>& bindings) const;

  /// The canonical text (see the file comment).
  std::string to_string() const;

  /// Structural equality of the canonical forms.
  friend bool operator==(const SymExpr& a, const SymExpr& b);

  struct Node;

 private:
  explicit SymExpr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  friend struct SymExprBuilder;

  std::shared_ptr<const Node> node_;
};

/// The integer interval torch records for a symbol, as in its range
/// constraints. `max` nullopt is torch's int_oo; a `min` of INT64_MIN prints
/// as -int_oo.
struct ValueRange {
  int64_t min = 0;
  std::optional<int64_t> max;

  bool contains(int64_t value) const { return value >= min && (!max || value <= *max); }
  /// "VR[1, 8]", "VR[2, int_oo]", "VR[-int_oo, int_oo]".
  std::string to_string() const;

  friend bool operator==(const ValueRange&, const ValueRange&) = default;
};

}  // namespace kiln::aot
