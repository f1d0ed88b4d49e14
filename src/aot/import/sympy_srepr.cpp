#include "aot/import/sympy_srepr.h"

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

class SreprParser {
 public:
  explicit SreprParser(std::string_view text) : text_(text) {}

  SymExpr parse() {
    SymExpr result = expression();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the expression");
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw AotError("cannot read symbolic size \"" + std::string(text_) + "\" at position " + std::to_string(pos_) +
                   ": " + why);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  std::string identifier() {
    skip_space();
    const size_t start = pos_;
    if (pos_ >= text_.size() || !(std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      fail("expected a name");
    }
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  int64_t integer() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    try {
      size_t used = 0;
      const std::string digits(text_.substr(start, pos_ - start));
      const int64_t value = std::stoll(digits, &used);
      if (used != digits.size()) fail("bad integer");
      return value;
    } catch (const std::logic_error&) {
      fail("expected an integer that fits in 64 bits");
    }
  }

  std::string quoted() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a quoted name");
    const char quote = text_[pos_++];
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) ++pos_;
    if (pos_ >= text_.size()) fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }

  // Arguments up to ')': expressions, with keyword arguments (name=value) skipped.
  std::vector<SymExpr> arguments() {
    std::vector<SymExpr> args;
    if (accept(')')) return args;
    do {
      skip_space();
      const size_t start = pos_;
      if (std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
        identifier();
        if (accept('=')) {
          identifier();  // True / False
          continue;
        }
        pos_ = start;
      }
      args.push_back(expression());
    } while (accept(','));
    expect(')');
    return args;
  }

  SymExpr expression() {
    const std::string name = identifier();
    static const std::set<std::string> known = {"Zero", "One", "NegativeOne", "Symbol", "Integer", "Add", "Mul",
                                                "FloorDiv", "Mod", "PythonMod", "Max", "Min", "Pow"};
    if (!known.count(name)) fail("unsupported sympy function '" + name + "'");
    if (name == "Zero" || name == "One" || name == "NegativeOne") {
      if (accept('(')) expect(')');
      return SymExpr::constant(name == "Zero" ? 0 : name == "One" ? 1 : -1);
    }
    expect('(');
    if (name == "Symbol") {
      const std::string symbol = quoted();
      while (accept(',')) {
        identifier();
        expect('=');
        identifier();
      }
      expect(')');
      return SymExpr::symbol(symbol);
    }
    if (name == "Integer") {
      const int64_t value = integer();
      expect(')');
      return SymExpr::constant(value);
    }
    const std::vector<SymExpr> args = arguments();
    auto need = [&](size_t count) {
      if (args.size() != count) fail(name + " takes " + std::to_string(count) + " arguments");
    };
    if (name == "Add" || name == "Mul") {
      if (args.empty()) fail(name + " needs arguments");
      SymExpr result = args[0];
      for (size_t i = 1; i < args.size(); ++i) result = name == "Add" ? result + args[i] : result * args[i];
      return result;
    }
    if (name == "FloorDiv") return need(2), SymExpr::floordiv(args[0], args[1]);
    if (name == "Mod" || name == "PythonMod") return need(2), SymExpr::mod(args[0], args[1]);
    if (name == "Max" || name == "Min") {
      if (args.empty()) fail(name + " needs arguments");
      SymExpr result = args[0];
      for (size_t i = 1; i < args.size(); ++i) result = name == "Max" ? SymExpr::max(result, args[i]) : SymExpr::min(result, args[i]);
      return result;
    }
    if (name == "Pow") {
      need(2);
      const auto exponent = args[1].constant_value();
      if (!exponent || *exponent < 0 || *exponent > 64) fail("Pow needs a constant exponent from 0 to 64");
      SymExpr result = SymExpr::constant(1);
      for (int64_t i = 0; i < *exponent; ++i) result = result * args[0];
      return result;
    }
    fail("unsupported sympy function '" + name + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

SymExpr parse_sympy_srepr(std::string_view text) { return SreprParser(text).parse(); }

}  // namespace kiln::aot
