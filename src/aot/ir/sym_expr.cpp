#include "aot/ir/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <utility>

#include "aot/ir/error.h"

namespace kiln::aot {

struct SymExpr::Node {
  Kind kind = Kind::Constant;
  int64_t value = 0;
  std::string name;
  std::vector<SymExpr> args;
};

namespace {

std::shared_ptr<const SymExpr::Node> new_constant(int64_t value) {
  auto node = std::make_shared<SymExpr::Node>();
  node->value = value;
  return node;
}

// The shared constant nodes, for kFirstShared .. kFirstShared + kSharedCount - 1.
constexpr int64_t kFirstShared = -16;
constexpr int64_t kSharedCount = 4096 + 16;

const std::vector<std::shared_ptr<const SymExpr::Node>>& shared_constants() {
  static const std::vector<std::shared_ptr<const SymExpr::Node>> nodes = [] {
    std::vector<std::shared_ptr<const SymExpr::Node>> made;
    made.reserve(kSharedCount);
    for (int64_t i = 0; i < kSharedCount; ++i) made.push_back(new_constant(kFirstShared + i));
    return made;
  }();
  return nodes;
}

}  // namespace

// Builds nodes; the only place that sees SymExpr's private constructor.
struct SymExprBuilder {
  static SymExpr make(SymExpr::Kind kind, std::vector<SymExpr> args) {
    auto node = std::make_shared<SymExpr::Node>();
    node->kind = kind;
    node->args = std::move(args);
    return SymExpr(std::move(node));
  }
  static SymExpr make_constant(int64_t value) {
    // Nodes are immutable, so the small constants every shape is made of
    // share one node each: a large program's metas then hold no node per
    // size and stride, and reading them misses the cache less.
    if (value >= kFirstShared && value < kFirstShared + kSharedCount) {
      return SymExpr(shared_constants()[static_cast<size_t>(value - kFirstShared)]);
    }
    return SymExpr(new_constant(value));
  }
  static SymExpr make_symbol(std::string name) {
    auto node = std::make_shared<SymExpr::Node>();
    node->kind = SymExpr::Kind::Symbol;
    node->name = std::move(name);
    return SymExpr(std::move(node));
  }
};

namespace {

using Kind = SymExpr::Kind;
using Builder = SymExprBuilder;

// ---------------------------------------------------------------------------
// Python integer arithmetic on int64, throwing instead of overflowing.

int64_t checked_add(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) throw AotError("int64 overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return out;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) throw AotError("int64 overflow in " + std::to_string(a) + "*" + std::to_string(b));
  return out;
}

int64_t python_floordiv(int64_t a, int64_t b) {
  if (b == 0) throw AotError("division by zero in " + std::to_string(a) + "//0");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) {
    throw AotError("int64 overflow in " + std::to_string(a) + "//-1");
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0))) --q;
  return q;
}

int64_t python_mod(int64_t a, int64_t b) {
  if (b == 0) throw AotError("division by zero in Mod(" + std::to_string(a) + ", 0)");
  if (b == -1) return 0;  // INT64_MIN % -1 is undefined in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// ---------------------------------------------------------------------------
// The canonical order of operands (see the header).

int kind_rank(Kind kind) {
  switch (kind) {
    case Kind::Symbol: return 0;
    case Kind::Mul: return 1;
    case Kind::FloorDiv: return 2;
    case Kind::Mod: return 3;
    case Kind::Max: return 4;
    case Kind::Min: return 5;
    case Kind::Add: return 6;
    case Kind::Constant: return 7;
  }
  return 8;
}

int compare(const SymExpr& a, const SymExpr& b) {
  if (a.kind() != b.kind()) return kind_rank(a.kind()) < kind_rank(b.kind()) ? -1 : 1;
  switch (a.kind()) {
    case Kind::Constant: {
      const int64_t x = *a.constant_value(), y = *b.constant_value();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case Kind::Symbol: {
      const int c = a.symbol_name().compare(b.symbol_name());
      return (c > 0) - (c < 0);
    }
    default:
      break;
  }
  const auto& x = a.args();
  const auto& y = b.args();
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (int c = compare(x[i], y[i]); c != 0) return c;
  }
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

void sort_canonically(std::vector<SymExpr>& exprs) {
  std::stable_sort(exprs.begin(), exprs.end(), [](const SymExpr& a, const SymExpr& b) { return compare(a, b) < 0; });
}

// ---------------------------------------------------------------------------
// Canonical constructors. Each takes canonical operands.

// A term of a sum as coefficient * monomial; a constant has no monomial.
struct Term {
  int64_t coefficient;
  std::optional<SymExpr> monomial;
};

Term split_term(const SymExpr& e) {
  if (auto value = e.constant_value()) return {*value, std::nullopt};
  if (e.kind() == Kind::Mul && e.args().front().is_constant()) {
    std::vector<SymExpr> rest(e.args().begin() + 1, e.args().end());
    SymExpr monomial = rest.size() == 1 ? rest.front() : Builder::make(Kind::Mul, std::move(rest));
    return {*e.args().front().constant_value(), std::move(monomial)};
  }
  return {1, e};
}

std::vector<SymExpr> terms_of(const SymExpr& e) {
  if (e.kind() == Kind::Add) return e.args();
  return {e};
}

SymExpr make_add(const std::vector<SymExpr>& operands);

SymExpr make_mul(const std::vector<SymExpr>& operands) {
  int64_t coefficient = 1;
  std::vector<SymExpr> factors;
  for (const SymExpr& operand : operands) {
    for (const SymExpr& f : operand.kind() == Kind::Mul ? operand.args() : std::vector<SymExpr>{operand}) {
      if (auto value = f.constant_value()) {
        coefficient = checked_mul(coefficient, *value);
      } else {
        factors.push_back(f);
      }
    }
  }
  if (coefficient == 0 || factors.empty()) return Builder::make_constant(coefficient);
  if (factors.size() == 1 && factors.front().kind() == Kind::Add && coefficient != 1) {
    std::vector<SymExpr> scaled;  // as sympy does: a number times a sum is distributed
    for (const SymExpr& term : factors.front().args()) scaled.push_back(make_mul({Builder::make_constant(coefficient), term}));
    return make_add(scaled);
  }
  sort_canonically(factors);
  if (coefficient == 1 && factors.size() == 1) return factors.front();
  if (coefficient != 1) factors.insert(factors.begin(), Builder::make_constant(coefficient));
  return Builder::make(Kind::Mul, std::move(factors));
}

SymExpr scale(int64_t coefficient, const std::optional<SymExpr>& monomial) {
  if (!monomial) return Builder::make_constant(coefficient);
  return make_mul({Builder::make_constant(coefficient), *monomial});
}

SymExpr make_add(const std::vector<SymExpr>& operands) {
  int64_t constant = 0;
  std::vector<std::pair<SymExpr, int64_t>> collected;  // monomial -> coefficient
  for (const SymExpr& operand : operands) {
    for (const SymExpr& term : terms_of(operand)) {
      Term t = split_term(term);
      if (!t.monomial) {
        constant = checked_add(constant, t.coefficient);
        continue;
      }
      auto it = std::find_if(collected.begin(), collected.end(), [&](const auto& c) { return c.first == *t.monomial; });
      if (it == collected.end()) {
        collected.emplace_back(*t.monomial, t.coefficient);
      } else {
        it->second = checked_add(it->second, t.coefficient);
      }
    }
  }
  std::stable_sort(collected.begin(), collected.end(),
                   [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
  std::vector<SymExpr> terms;
  for (const auto& [monomial, coefficient] : collected) {
    if (coefficient != 0) terms.push_back(scale(coefficient, monomial));
  }
  if (terms.empty()) return Builder::make_constant(constant);
  if (terms.size() == 1 && constant == 0) return terms.front();
  if (constant != 0) terms.push_back(Builder::make_constant(constant));
  return Builder::make(Kind::Add, std::move(terms));
}

// Splits the terms of `a` into those whose coefficient `d` divides (divided
// by d) and the rest.
void partition_divisible(const SymExpr& a, int64_t d, std::vector<SymExpr>* divided, std::vector<SymExpr>* rest) {
  for (const SymExpr& term : terms_of(a)) {
    Term t = split_term(term);
    if (t.coefficient % d == 0) {
      divided->push_back(scale(t.coefficient / d, t.monomial));
    } else {
      rest->push_back(term);
    }
  }
}

SymExpr make_floordiv(const SymExpr& a, const SymExpr& b) {
  const std::optional<int64_t> divisor = b.constant_value();
  if (!divisor) return Builder::make(Kind::FloorDiv, {a, b});
  const int64_t d = *divisor;
  if (d == 0) throw AotError("division by zero in (" + a.to_string() + "//0)");
  if (auto value = a.constant_value()) return Builder::make_constant(python_floordiv(*value, d));
  if (d == 1) return a;
  if (d == -1) return make_mul({Builder::make_constant(-1), a});
  if (d < 0) return Builder::make(Kind::FloorDiv, {a, b});
  if (a.kind() == Kind::FloorDiv) {
    if (auto inner = a.args()[1].constant_value(); inner && *inner > 0) {
      return make_floordiv(a.args()[0], Builder::make_constant(checked_mul(*inner, d)));
    }
  }
  std::vector<SymExpr> divided, rest;
  partition_divisible(a, d, &divided, &rest);
  if (divided.empty()) return Builder::make(Kind::FloorDiv, {a, b});
  if (!rest.empty()) divided.push_back(make_floordiv(make_add(rest), b));  // a constant rest folds
  return make_add(divided);
}

SymExpr make_mod(const SymExpr& a, const SymExpr& b) {
  const std::optional<int64_t> divisor = b.constant_value();
  if (!divisor) return Builder::make(Kind::Mod, {a, b});
  const int64_t d = *divisor;
  if (d == 0) throw AotError("division by zero in Mod(" + a.to_string() + ", 0)");
  if (auto value = a.constant_value()) return Builder::make_constant(python_mod(*value, d));
  if (d == 1 || d == -1) return Builder::make_constant(0);
  if (d < 0) return Builder::make(Kind::Mod, {a, b});
  std::vector<SymExpr> divided, rest;
  partition_divisible(a, d, &divided, &rest);
  if (rest.empty()) return Builder::make_constant(0);
  if (divided.empty()) return Builder::make(Kind::Mod, {a, b});
  return make_mod(make_add(rest), b);
}

SymExpr make_extremum(Kind kind, const std::vector<SymExpr>& operands) {
  std::optional<int64_t> constant;
  std::vector<SymExpr> others;
  for (const SymExpr& operand : operands) {
    for (const SymExpr& arg : operand.kind() == kind ? operand.args() : std::vector<SymExpr>{operand}) {
      if (auto value = arg.constant_value()) {
        constant = !constant ? *value : kind == Kind::Max ? std::max(*constant, *value) : std::min(*constant, *value);
      } else if (std::find(others.begin(), others.end(), arg) == others.end()) {
        others.push_back(arg);
      }
    }
  }
  sort_canonically(others);
  if (constant) others.insert(others.begin(), Builder::make_constant(*constant));
  if (others.size() == 1) return others.front();
  return Builder::make(kind, std::move(others));
}

// ---------------------------------------------------------------------------
// Printing.

std::string print(const SymExpr& e);

std::string magnitude(int64_t value) {
  // Through unsigned so that INT64_MIN prints too.
  const uint64_t m = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::to_string(m);
}

// A factor of a product: sums need brackets, floor division brings its own.
std::string print_factor(const SymExpr& f) {
  return f.kind() == Kind::Add ? "(" + print(f) + ")" : print(f);
}

// coefficient * monomial as sympy prints a term, without the sign when
// `unsigned_form` (a sum prints the sign as its operator).
std::string print_term(int64_t coefficient, const std::optional<SymExpr>& monomial, bool unsigned_form) {
  std::string out = unsigned_form || coefficient >= 0 ? "" : "-";
  if (!monomial) return out + magnitude(coefficient);
  if (coefficient != 1 && coefficient != -1) out += magnitude(coefficient) + "*";
  const std::vector<SymExpr> factors =
      monomial->kind() == Kind::Mul ? monomial->args() : std::vector<SymExpr>{*monomial};
  for (size_t i = 0; i < factors.size();) {
    size_t j = i + 1;
    while (j < factors.size() && factors[j] == factors[i]) ++j;
    if (i > 0) out += "*";
    out += print_factor(factors[i]);
    if (j - i > 1) out += "**" + std::to_string(j - i);
    i = j;
  }
  return out;
}

// An operand of a//b: anything but an atom, a call or a non-negative number
// is bracketed (floor division already is).
std::string print_division_operand(const SymExpr& e) {
  const bool bracket = e.kind() == Kind::Add || e.kind() == Kind::Mul || (e.is_constant() && *e.constant_value() < 0);
  return bracket ? "(" + print(e) + ")" : print(e);
}

std::string print_call(const char* name, const std::vector<SymExpr>& args) {
  std::string out = std::string(name) + "(";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + print(args[i]);
  return out + ")";
}

std::string print(const SymExpr& e) {
  switch (e.kind()) {
    case Kind::Constant: return std::to_string(*e.constant_value());
    case Kind::Symbol: return e.symbol_name();
    case Kind::Add: {
      std::string out;
      for (size_t i = 0; i < e.args().size(); ++i) {
        Term t = split_term(e.args()[i]);
        if (i == 0) {
          out += print_term(t.coefficient, t.monomial, false);
        } else {
          out += (t.coefficient < 0 ? " - " : " + ") + print_term(t.coefficient, t.monomial, true);
        }
      }
      return out;
    }
    case Kind::Mul: {
      Term t = split_term(e);
      return print_term(t.coefficient, t.monomial, false);
    }
    case Kind::FloorDiv:
      return "(" + print_division_operand(e.args()[0]) + "//" + print_division_operand(e.args()[1]) + ")";
    case Kind::Mod: return print_call("Mod", e.args());
    case Kind::Max: return print_call("Max", e.args());
    case Kind::Min: return print_call("Min", e.args());
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Parsing: recursive descent over Python's precedence.
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '//' | '%') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary ('**' unary)?
//   primary := INTEGER | NAME | NAME '(' sum (',' sum)* ')' | '(' sum ')'

// A syntax error; already names the text and the position.
class ParseFailure : public AotError {
 public:
  using AotError::AotError;
};

bool is_function_name(std::string_view name) {
  return name == "Max" || name == "Min" || name == "Mod" || name == "PythonMod" || name == "FloorDiv";
}

bool is_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  SymExpr parse_all() {
    SymExpr e = parse_sum();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { fail_at(pos_, reason); }
  [[noreturn]] void fail_at(size_t pos, const std::string& reason) const {
    throw ParseFailure("cannot parse sym expr \"" + std::string(text_) + "\": " + reason + " at position " +
                   std::to_string(pos));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `token` if it comes next (after spaces). "*" does not match the
  // start of "**", nor "/" of "//".
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    const size_t after = pos_ + token.size();
    if ((token == "*" || token == "/") && after < text_.size() && text_[after] == token[0]) return false;
    pos_ = after;
    return true;
  }

  void expect(std::string_view token) {
    if (!accept(token)) {
      fail(pos_ < text_.size() ? "expected '" + std::string(token) + "', found '" + std::string(1, text_[pos_]) + "'"
                               : "expected '" + std::string(token) + "' before the end");
    }
  }

  SymExpr parse_sum() {
    SymExpr e = parse_product();
    while (true) {
      if (accept("+")) {
        e = e + parse_product();
      } else if (accept("-")) {
        e = e - parse_product();
      } else {
        return e;
      }
    }
  }

  SymExpr parse_product() {
    SymExpr e = parse_unary();
    while (true) {
      if (accept("*")) {
        e = e * parse_unary();
      } else if (accept("//")) {
        const size_t at = pos_;
        e = divide(SymExpr::floordiv, e, parse_unary(), at);
      } else if (accept("%")) {
        const size_t at = pos_;
        e = divide(SymExpr::mod, e, parse_unary(), at);
      } else if (accept("/")) {
        fail_at(pos_ - 1, "true division '/' is not an integer operation (use '//')");
      } else {
        return e;
      }
    }
  }

  // A division by a literal zero is reported as a parse error, with its place.
  template <typename Op>
  SymExpr divide(Op op, const SymExpr& a, const SymExpr& b, size_t at) {
    if (b.constant_value() == 0) fail_at(at, "division by zero");
    return op(a, b);
  }

  SymExpr parse_unary() {
    if (accept("-")) return -parse_unary();
    if (accept("+")) return parse_unary();
    return parse_power();
  }

  SymExpr parse_power() {
    SymExpr base = parse_primary();
    if (!accept("**")) return base;
    const size_t at = pos_;
    const SymExpr exponent = parse_unary();
    const std::optional<int64_t> n = exponent.constant_value();
    if (!n || *n < 0 || *n > 64) fail_at(at, "exponent must be a constant in [0, 64]");
    SymExpr power = SymExpr::constant(1);
    for (int64_t i = 0; i < *n; ++i) power = power * base;
    return power;
  }

  SymExpr parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected an expression before the end");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      SymExpr e = parse_sum();
      expect(")");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return parse_integer();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
    fail("expected an expression, found '" + std::string(1, c) + "'");
  }

  SymExpr parse_integer() {
    const size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        fail_at(start, "integer literal does not fit in int64");
      }
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == '.' || std::isalpha(static_cast<unsigned char>(text_[pos_])))) {
      fail("malformed integer literal (only decimal integers are allowed)");
    }
    return SymExpr::constant(value);
  }

  SymExpr parse_name() {
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string name(text_.substr(start, pos_ - start));
    skip_space();
    const bool call = pos_ < text_.size() && text_[pos_] == '(';
    if (!call) {
      if (is_function_name(name)) fail_at(start, "function '" + name + "' needs arguments");
      return SymExpr::symbol(name);
    }
    if (!is_function_name(name)) fail_at(start, "unknown function '" + name + "'");
    ++pos_;
    std::vector<SymExpr> args{parse_sum()};
    while (accept(",")) args.push_back(parse_sum());
    expect(")");
    return apply(name, args, start);
  }

  SymExpr apply(const std::string& name, const std::vector<SymExpr>& args, size_t at) {
    if (name == "Max" || name == "Min") {
      return make_extremum(name == "Max" ? Kind::Max : Kind::Min, args);
    }
    if (args.size() != 2) fail_at(at, name + " takes 2 arguments, got " + std::to_string(args.size()));
    if (args[1].constant_value() == 0) fail_at(at, "division by zero");
    return name == "FloorDiv" ? SymExpr::floordiv(args[0], args[1]) : SymExpr::mod(args[0], args[1]);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Evaluation.

int64_t evaluate_node(const SymExpr& e, const std::map<std::string, int64_t>& bindings) {
  switch (e.kind()) {
    case Kind::Constant: return *e.constant_value();
    case Kind::Symbol: {
      auto it = bindings.find(e.symbol_name());
      if (it == bindings.end()) throw AotError("symbol '" + e.symbol_name() + "' is unbound");
      return it->second;
    }
    case Kind::Add: {
      int64_t sum = 0;
      for (const SymExpr& a : e.args()) sum = checked_add(sum, evaluate_node(a, bindings));
      return sum;
    }
    case Kind::Mul: {
      int64_t product = 1;
      for (const SymExpr& a : e.args()) product = checked_mul(product, evaluate_node(a, bindings));
      return product;
    }
    case Kind::FloorDiv:
      return python_floordiv(evaluate_node(e.args()[0], bindings), evaluate_node(e.args()[1], bindings));
    case Kind::Mod:
      return python_mod(evaluate_node(e.args()[0], bindings), evaluate_node(e.args()[1], bindings));
    case Kind::Max:
    case Kind::Min: {
      int64_t best = evaluate_node(e.args()[0], bindings);
      for (size_t i = 1; i < e.args().size(); ++i) {
        const int64_t v = evaluate_node(e.args()[i], bindings);
        best = e.kind() == Kind::Max ? std::max(best, v) : std::min(best, v);
      }
      return best;
    }
  }
  return 0;
}

void collect_symbols(const SymExpr& e, std::set<std::string>* out) {
  if (e.is_symbol()) out->insert(e.symbol_name());
  for (const SymExpr& a : e.args()) collect_symbols(a, out);
}

const std::shared_ptr<const SymExpr::Node>& zero_node() {
  static const std::shared_ptr<const SymExpr::Node> zero = std::make_shared<SymExpr::Node>();
  return zero;
}

}  // namespace

// ---------------------------------------------------------------------------
// SymExpr

SymExpr::SymExpr() : node_(zero_node()) {}

SymExpr SymExpr::constant(int64_t value) { return Builder::make_constant(value); }

SymExpr SymExpr::symbol(std::string name) {
  if (!is_identifier(name) || is_function_name(name)) {
    throw AotError("sym expr: \"" + name + "\" is not a valid symbol name");
  }
  return Builder::make_symbol(std::move(name));
}

SymExpr SymExpr::parse(std::string_view text) {
  try {
    return Parser(text).parse_all();
  } catch (const ParseFailure&) {
    throw;
  } catch (const AotError& e) {  // overflow while folding constants
    throw AotError("cannot parse sym expr \"" + std::string(text) + "\": " + e.what());
  }
}

SymExpr operator+(const SymExpr& a, const SymExpr& b) { return make_add({a, b}); }
SymExpr operator-(const SymExpr& a, const SymExpr& b) { return make_add({a, -b}); }
SymExpr operator*(const SymExpr& a, const SymExpr& b) { return make_mul({a, b}); }
SymExpr operator-(const SymExpr& a) { return make_mul({SymExpr::constant(-1), a}); }

SymExpr SymExpr::floordiv(const SymExpr& a, const SymExpr& b) { return make_floordiv(a, b); }
SymExpr SymExpr::mod(const SymExpr& a, const SymExpr& b) { return make_mod(a, b); }
SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b) { return make_extremum(Kind::Max, {a, b}); }
SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b) { return make_extremum(Kind::Min, {a, b}); }

SymExpr::Kind SymExpr::kind() const { return node_->kind; }
const std::vector<SymExpr>& SymExpr::args() const { return node_->args; }

std::optional<int64_t> SymExpr::constant_value() const {
  if (node_->kind != Kind::Constant) return std::nullopt;
  return node_->value;
}

const std::string& SymExpr::symbol_name() const { return node_->name; }

std::vector<std::string> SymExpr::free_symbols() const {
  std::set<std::string> symbols;
  collect_symbols(*this, &symbols);
  return {symbols.begin(), symbols.end()};
}

int64_t SymExpr::evaluate(const std::map<std::string, int64_t>& bindings) const {
  try {
    return evaluate_node(*this, bindings);
  } catch (const AotError& e) {
    throw AotError("cannot evaluate sym expr \"" + to_string() + "\": " + e.what());
  }
}

std::string SymExpr::to_string() const { return print(*this); }

bool operator==(const SymExpr& a, const SymExpr& b) {
  if (a.node_ == b.node_) return true;
  const SymExpr::Node& x = *a.node_;
  const SymExpr::Node& y = *b.node_;
  return x.kind == y.kind && x.value == y.value && x.name == y.name && x.args == y.args;
}

// ---------------------------------------------------------------------------
// ValueRange

std::string ValueRange::to_string() const {
  const std::string low = min == std::numeric_limits<int64_t>::min() ? "-int_oo" : std::to_string(min);
  const std::string high = max ? std::to_string(*max) : "int_oo";
  return "VR[" + low + ", " + high + "]";
}

}  // namespace kiln::aot
