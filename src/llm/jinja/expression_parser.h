// ExpressionParser: Jinja's expression grammar over a token stream, loosest
// binding first as Jinja's parser.py has it: conditional, or, and, not,
// comparisons (chained), + -, ~, * / // %, **, unary - +, then attribute and
// item access, slices, calls, filters and tests. Filter and test names are
// checked here, as Jinja checks them when it compiles, so a misspelled filter
// fails on every render, not only on the branch that reaches it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "llm/jinja/ast.h"
#include "llm/jinja/token_stream.h"

namespace kiln::llm::jinja {

class ExpressionParser {
 public:
  explicit ExpressionParser(TokenStream& tokens) : tokens_(tokens) {}

  /// An expression, `a if c else b` included.
  ExpressionPtr parse_expression();
  /// `a, b` as a tuple where Jinja allows one (`{{ }}`, set values, loop
  /// iterables), else one expression. Without `with_conditional` an `if`
  /// after it is left to the caller (`{% for x in xs if ... %}`).
  ExpressionPtr parse_tuple(bool with_conditional = true);

 private:
  using Level = ExpressionPtr (ExpressionParser::*)();

  ExpressionPtr parse_or();
  ExpressionPtr parse_and();
  ExpressionPtr parse_not();
  std::optional<BinaryOperator> comparison_operator();
  ExpressionPtr parse_comparison();
  /// `next (op next)*`, left-associative, for the operators given.
  ExpressionPtr parse_left_associative(std::initializer_list<std::pair<std::string_view, BinaryOperator>> operators,
                                       Level next);
  ExpressionPtr parse_math1();
  ExpressionPtr parse_concat();
  ExpressionPtr parse_math2();
  ExpressionPtr parse_power();
  ExpressionPtr parse_unary_with_filters();
  ExpressionPtr parse_unary(bool with_filters);
  ExpressionPtr parse_primary();
  ExpressionPtr parse_parenthesized();
  ExpressionPtr parse_list();
  ExpressionPtr parse_dict();
  ExpressionPtr parse_postfix(ExpressionPtr node);
  ExpressionPtr parse_subscript(ExpressionPtr object);
  ArgumentList parse_call_arguments();
  ExpressionPtr parse_filters_and_tests(ExpressionPtr node);
  Filter parse_filter(ExpressionPtr subject);
  Test parse_test(ExpressionPtr subject);

  TokenStream& tokens_;
};

}  // namespace kiln::llm::jinja
