#include "llm/jinja/expression_parser.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "llm/jinja/builtins.h"

namespace kiln::llm::jinja {
namespace {

template <typename Node>
ExpressionPtr make(Node node, SourceLocation where) {
  return std::make_unique<Expression>(Expression{std::move(node), where});
}

}  // namespace

ExpressionPtr ExpressionParser::parse_tuple(bool with_conditional) {
  const SourceLocation where = tokens_.current().where;
  ExpressionPtr first = with_conditional ? parse_expression() : parse_or();
  if (!tokens_.is_operator(",")) return first;
  ListLiteral tuple{{}, true};
  tuple.items.push_back(std::move(first));
  while (tokens_.accept_operator(",")) {
    if (tokens_.current().kind == TokenKind::BlockEnd || tokens_.current().kind == TokenKind::VariableEnd) break;
    tuple.items.push_back(with_conditional ? parse_expression() : parse_or());
  }
  return make(std::move(tuple), where);
}

ExpressionPtr ExpressionParser::parse_expression() {
  TokenStream::NestingGuard guard(tokens_, tokens_.current().where);
  const SourceLocation where = tokens_.current().where;
  ExpressionPtr expression = parse_or();
  while (tokens_.accept_name("if")) {
    ExpressionPtr condition = parse_or();
    ExpressionPtr otherwise = tokens_.accept_name("else") ? parse_expression() : nullptr;
    expression = make(Conditional{std::move(expression), std::move(condition), std::move(otherwise)}, where);
  }
  return expression;
}

ExpressionPtr ExpressionParser::parse_or() {
  ExpressionPtr left = parse_and();
  while (tokens_.is_name("or")) {
    const SourceLocation where = tokens_.advance().where;
    left = make(Binary{BinaryOperator::Or, std::move(left), parse_and()}, where);
  }
  return left;
}

ExpressionPtr ExpressionParser::parse_and() {
  ExpressionPtr left = parse_not();
  while (tokens_.is_name("and")) {
    const SourceLocation where = tokens_.advance().where;
    left = make(Binary{BinaryOperator::And, std::move(left), parse_not()}, where);
  }
  return left;
}

ExpressionPtr ExpressionParser::parse_not() {
  if (tokens_.is_name("not")) {
    TokenStream::NestingGuard guard(tokens_, tokens_.current().where);
    const SourceLocation where = tokens_.advance().where;
    return make(Unary{UnaryOperator::Not, parse_not()}, where);
  }
  return parse_comparison();
}

std::optional<BinaryOperator> ExpressionParser::comparison_operator() {
  static constexpr std::pair<std::string_view, BinaryOperator> kOperators[] = {
      {"==", BinaryOperator::Equal},     {"!=", BinaryOperator::NotEqual}, {"<", BinaryOperator::Less},
      {"<=", BinaryOperator::LessEqual}, {">", BinaryOperator::Greater},   {">=", BinaryOperator::GreaterEqual},
  };
  if (tokens_.current().kind == TokenKind::Operator) {
    for (const auto& [text, op] : kOperators) {
      if (tokens_.current().text == text) {
        tokens_.advance();
        return op;
      }
    }
    return std::nullopt;
  }
  if (tokens_.accept_name("in")) return BinaryOperator::In;
  if (tokens_.is_name("not") && tokens_.peek().kind == TokenKind::Name && tokens_.peek().text == "in") {
    tokens_.advance();
    tokens_.advance();
    return BinaryOperator::NotIn;
  }
  return std::nullopt;
}

ExpressionPtr ExpressionParser::parse_comparison() {
  const SourceLocation where = tokens_.current().where;
  ExpressionPtr first = parse_math1();
  Comparison comparison;
  while (std::optional<BinaryOperator> op = comparison_operator()) {
    comparison.rest.emplace_back(*op, parse_math1());
  }
  if (comparison.rest.empty()) return first;
  if (comparison.rest.size() == 1) {
    auto& [op, second] = comparison.rest[0];
    return make(Binary{op, std::move(first), std::move(second)}, where);
  }
  comparison.first = std::move(first);
  return make(std::move(comparison), where);
}

ExpressionPtr ExpressionParser::parse_left_associative(
    std::initializer_list<std::pair<std::string_view, BinaryOperator>> operators, Level next) {
  ExpressionPtr left = (this->*next)();
  for (;;) {
    const auto match = std::find_if(operators.begin(), operators.end(),
                                    [&](const auto& entry) { return tokens_.is_operator(entry.first); });
    if (match == operators.end()) return left;
    const SourceLocation where = tokens_.advance().where;
    left = make(Binary{match->second, std::move(left), (this->*next)()}, where);
  }
}

ExpressionPtr ExpressionParser::parse_math1() {
  return parse_left_associative({{"+", BinaryOperator::Add}, {"-", BinaryOperator::Subtract}},
                                &ExpressionParser::parse_concat);
}
ExpressionPtr ExpressionParser::parse_concat() {
  return parse_left_associative({{"~", BinaryOperator::Concat}}, &ExpressionParser::parse_math2);
}
ExpressionPtr ExpressionParser::parse_math2() {
  return parse_left_associative({{"*", BinaryOperator::Multiply},
                                 {"/", BinaryOperator::Divide},
                                 {"//", BinaryOperator::FloorDivide},
                                 {"%", BinaryOperator::Modulo}},
                                &ExpressionParser::parse_power);
}
ExpressionPtr ExpressionParser::parse_power() {
  return parse_left_associative({{"**", BinaryOperator::Power}}, &ExpressionParser::parse_unary_with_filters);
}
ExpressionPtr ExpressionParser::parse_unary_with_filters() { return parse_unary(true); }

ExpressionPtr ExpressionParser::parse_unary(bool with_filters) {
  TokenStream::NestingGuard guard(tokens_, tokens_.current().where);
  const SourceLocation where = tokens_.current().where;
  ExpressionPtr node;
  if (tokens_.accept_operator("-")) {
    node = make(Unary{UnaryOperator::Negate, parse_unary(false)}, where);
  } else if (tokens_.accept_operator("+")) {
    node = make(Unary{UnaryOperator::Plus, parse_unary(false)}, where);
  } else {
    node = parse_primary();
  }
  node = parse_postfix(std::move(node));
  if (!with_filters) return node;
  return parse_filters_and_tests(std::move(node));
}

ExpressionPtr ExpressionParser::parse_primary() {
  const Token& token = tokens_.current();
  const SourceLocation where = token.where;
  switch (token.kind) {
    case TokenKind::Name: {
      tokens_.advance();
      if (token.text == "true" || token.text == "True") return make(Literal{true}, where);
      if (token.text == "false" || token.text == "False") return make(Literal{false}, where);
      if (token.text == "none" || token.text == "None") return make(Literal{Value::none()}, where);
      return make(Name{token.text}, where);
    }
    case TokenKind::String: {
      std::string text;
      while (tokens_.current().kind == TokenKind::String) text += tokens_.advance().text;
      return make(Literal{std::move(text)}, where);
    }
    case TokenKind::Integer: {
      errno = 0;
      const long long value = std::strtoll(token.text.c_str(), nullptr, 10);
      if (errno == ERANGE) throw TemplateError("integer literal " + token.text + " is too large", where);
      tokens_.advance();
      return make(Literal{static_cast<int64_t>(value)}, where);
    }
    case TokenKind::Float:
      tokens_.advance();
      return make(Literal{std::strtod(token.text.c_str(), nullptr)}, where);
    case TokenKind::Operator:
      if (token.text == "(") return parse_parenthesized();
      if (token.text == "[") return parse_list();
      if (token.text == "{") return parse_dict();
      break;
    default:
      break;
  }
  tokens_.fail_expected("an expression");
}

ExpressionPtr ExpressionParser::parse_parenthesized() {
  const SourceLocation where = tokens_.advance().where;
  if (tokens_.accept_operator(")")) return make(ListLiteral{{}, true}, where);
  ExpressionPtr first = parse_expression();
  if (tokens_.accept_operator(")")) return first;
  ListLiteral tuple{{}, true};
  tuple.items.push_back(std::move(first));
  while (tokens_.accept_operator(",")) {
    if (tokens_.is_operator(")")) break;
    tuple.items.push_back(parse_expression());
  }
  tokens_.expect_operator(")");
  return make(std::move(tuple), where);
}

ExpressionPtr ExpressionParser::parse_list() {
  const SourceLocation where = tokens_.advance().where;
  ListLiteral list;
  while (!tokens_.accept_operator("]")) {
    if (!list.items.empty()) tokens_.expect_operator(",");
    if (tokens_.accept_operator("]")) break;
    list.items.push_back(parse_expression());
  }
  return make(std::move(list), where);
}

ExpressionPtr ExpressionParser::parse_dict() {
  const SourceLocation where = tokens_.advance().where;
  DictLiteral dict;
  while (!tokens_.accept_operator("}")) {
    if (!dict.entries.empty()) tokens_.expect_operator(",");
    if (tokens_.accept_operator("}")) break;
    ExpressionPtr key = parse_expression();
    tokens_.expect_operator(":");
    dict.entries.emplace_back(std::move(key), parse_expression());
  }
  return make(std::move(dict), where);
}

ExpressionPtr ExpressionParser::parse_postfix(ExpressionPtr node) {
  for (;;) {
    const SourceLocation where = tokens_.current().where;
    if (tokens_.accept_operator(".")) {
      if (tokens_.current().kind == TokenKind::Integer) {
        node = make(Item{std::move(node), parse_primary()}, where);
      } else {
        node = make(Attribute{std::move(node), tokens_.expect_identifier("an attribute name")}, where);
      }
    } else if (tokens_.is_operator("[")) {
      node = parse_subscript(std::move(node));
    } else if (tokens_.is_operator("(")) {
      const SourceLocation callee = node->where;
      node = make(Call{std::move(node), parse_call_arguments()}, callee);
    } else {
      return node;
    }
  }
}

ExpressionPtr ExpressionParser::parse_subscript(ExpressionPtr object) {
  const SourceLocation where = tokens_.advance().where;
  ExpressionPtr start;
  if (!tokens_.is_operator(":")) {
    start = parse_expression();
    if (tokens_.accept_operator("]")) return make(Item{std::move(object), std::move(start)}, where);
    if (tokens_.is_operator(",")) throw TemplateError("tuple subscripts are not supported", tokens_.current().where);
  }
  tokens_.expect_operator(":");
  ExpressionPtr stop = tokens_.is_operator(":") || tokens_.is_operator("]") ? nullptr : parse_expression();
  ExpressionPtr step;
  if (tokens_.accept_operator(":") && !tokens_.is_operator("]")) step = parse_expression();
  tokens_.expect_operator("]");
  return make(Slice{std::move(object), std::move(start), std::move(stop), std::move(step)}, where);
}

ArgumentList ExpressionParser::parse_call_arguments() {
  tokens_.expect_operator("(");
  ArgumentList arguments;
  while (!tokens_.accept_operator(")")) {
    if (!arguments.positional.empty() || !arguments.keywords.empty()) tokens_.expect_operator(",");
    if (tokens_.accept_operator(")")) break;
    if (tokens_.is_operator("*") || tokens_.is_operator("**")) {
      throw TemplateError("'*' and '**' arguments are not supported", tokens_.current().where);
    }
    if (tokens_.current().kind == TokenKind::Name && TokenStream::is_operator(tokens_.peek(), "=")) {
      std::string name = tokens_.advance().text;
      tokens_.advance();
      arguments.keywords.emplace_back(std::move(name), parse_expression());
    } else {
      if (!arguments.keywords.empty()) {
        throw TemplateError("a positional argument follows a keyword argument", tokens_.current().where);
      }
      arguments.positional.push_back(parse_expression());
    }
  }
  return arguments;
}

ExpressionPtr ExpressionParser::parse_filters_and_tests(ExpressionPtr node) {
  for (;;) {
    if (tokens_.accept_operator("|")) {
      const SourceLocation where = tokens_.current().where;
      node = make(parse_filter(std::move(node)), where);
    } else if (tokens_.accept_name("is")) {
      const SourceLocation where = tokens_.current().where;
      node = make(parse_test(std::move(node)), where);
    } else if (tokens_.is_operator("(")) {
      const SourceLocation callee = node->where;
      node = make(Call{std::move(node), parse_call_arguments()}, callee);
    } else {
      return node;
    }
  }
}

Filter ExpressionParser::parse_filter(ExpressionPtr subject) {
  const SourceLocation where = tokens_.current().where;
  std::string name = tokens_.expect_identifier("a filter name");
  if (!has_filter(name)) {
    throw TemplateError(
        is_unsupported_jinja_filter(name) ? "filter '" + name + "' is not supported" : "unknown filter '" + name + "'",
        where);
  }
  ArgumentList arguments = tokens_.is_operator("(") ? parse_call_arguments() : ArgumentList{};
  return Filter{std::move(subject), std::move(name), std::move(arguments)};
}

Test ExpressionParser::parse_test(ExpressionPtr subject) {
  const bool negated = tokens_.accept_name("not");
  const SourceLocation where = tokens_.current().where;
  std::string name = tokens_.expect_identifier("a test name");
  if (!has_test(name)) {
    throw TemplateError(
        is_unsupported_jinja_test(name) ? "test '" + name + "' is not supported" : "unknown test '" + name + "'",
        where);
  }
  ArgumentList arguments;
  const TokenKind kind = tokens_.current().kind;
  const bool starts_argument = kind == TokenKind::Name || kind == TokenKind::String || kind == TokenKind::Integer ||
                               kind == TokenKind::Float || tokens_.is_operator("[") || tokens_.is_operator("{");
  if (tokens_.is_operator("(")) {
    arguments = parse_call_arguments();
  } else if (starts_argument && !tokens_.is_name("else") && !tokens_.is_name("or") && !tokens_.is_name("and")) {
    if (tokens_.is_name("is")) throw TemplateError("tests cannot be chained with 'is'", tokens_.current().where);
    arguments.positional.push_back(parse_postfix(parse_primary()));
  }
  return Test{std::move(subject), std::move(name), std::move(arguments), negated};
}

const char* spelling(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Or:
      return "or";
    case BinaryOperator::And:
      return "and";
    case BinaryOperator::Equal:
      return "==";
    case BinaryOperator::NotEqual:
      return "!=";
    case BinaryOperator::Less:
      return "<";
    case BinaryOperator::LessEqual:
      return "<=";
    case BinaryOperator::Greater:
      return ">";
    case BinaryOperator::GreaterEqual:
      return ">=";
    case BinaryOperator::In:
      return "in";
    case BinaryOperator::NotIn:
      return "not in";
    case BinaryOperator::Add:
      return "+";
    case BinaryOperator::Subtract:
      return "-";
    case BinaryOperator::Concat:
      return "~";
    case BinaryOperator::Multiply:
      return "*";
    case BinaryOperator::Divide:
      return "/";
    case BinaryOperator::FloorDivide:
      return "//";
    case BinaryOperator::Modulo:
      return "%";
    case BinaryOperator::Power:
      return "**";
  }
  return "?";
}

}  // namespace kiln::llm::jinja
