// The syntax tree of a parsed template: expressions (what `{{ }}` and tag
// arguments hold) and statements (text, output, if, for, set, ...). The
// parser builds it once; the renderer walks it for each conversation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "llm/jinja/error.h"
#include "llm/jinja/value.h"

namespace kiln::llm::jinja {

struct Expression;
using ExpressionPtr = std::unique_ptr<Expression>;

enum class UnaryOperator { Not, Negate, Plus };
enum class BinaryOperator {
  // logic (short-circuit: the deciding operand is the result)
  Or,
  And,
  // comparison
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  In,
  NotIn,
  // arithmetic and string concatenation
  Add,
  Subtract,
  Concat,
  Multiply,
  Divide,
  FloorDivide,
  Modulo,
  Power,
};
/// How the operator is written: "==", "not in", "~"...
const char* spelling(BinaryOperator op);

/// `f(a, b, key=c)`, a filter's or a test's arguments after the subject.
struct ArgumentList {
  std::vector<ExpressionPtr> positional;
  std::vector<std::pair<std::string, ExpressionPtr>> keywords;
};

struct Literal {
  Value value;
};
struct Name {
  std::string name;
};
/// `[a, b]`, or `(a, b)` and `a, b` as a tuple.
struct ListLiteral {
  std::vector<ExpressionPtr> items;
  bool is_tuple = false;
};
struct DictLiteral {
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> entries;
};
/// `object.name`
struct Attribute {
  ExpressionPtr object;
  std::string name;
};
/// `object[index]`
struct Item {
  ExpressionPtr object;
  ExpressionPtr index;
};
/// `object[start:stop:step]`; absent parts are null.
struct Slice {
  ExpressionPtr object, start, stop, step;
};
struct Call {
  ExpressionPtr callee;
  ArgumentList arguments;
};
/// `subject | name(arguments)`
struct Filter {
  ExpressionPtr subject;
  std::string name;
  ArgumentList arguments;
};
/// `subject is [not] name(arguments)`
struct Test {
  ExpressionPtr subject;
  std::string name;
  ArgumentList arguments;
  bool negated = false;
};
struct Unary {
  UnaryOperator op;
  ExpressionPtr operand;
};
struct Binary {
  BinaryOperator op;
  ExpressionPtr left, right;
};
/// `first op1 second op2 third...`: Jinja chains comparisons as Python does
/// (`a < b < c` is `a < b and b < c`).
struct Comparison {
  ExpressionPtr first;
  std::vector<std::pair<BinaryOperator, ExpressionPtr>> rest;
};
/// `then if condition else otherwise`; without `else`, undefined.
struct Conditional {
  ExpressionPtr then, condition, otherwise;
};

struct Expression {
  std::variant<Literal, Name, ListLiteral, DictLiteral, Attribute, Item, Slice, Call, Filter, Test, Unary, Binary,
               Comparison, Conditional>
      node;
  SourceLocation where;
};

struct Statement;
using Body = std::vector<Statement>;

/// Template text, printed as is.
struct TextStatement {
  std::string text;
};
/// `{{ value }}`
struct OutputStatement {
  ExpressionPtr value;
};
/// `{% if %}...{% elif %}...{% else %}...{% endif %}`: the first branch whose
/// condition holds runs; the `else` branch has no condition.
struct IfStatement {
  struct Branch {
    ExpressionPtr condition;
    Body body;
  };
  std::vector<Branch> branches;
};
/// `{% for a, b in iterable if filter %}...{% else %}...{% endfor %}`
struct ForStatement {
  std::vector<std::string> targets;
  ExpressionPtr iterable;
  ExpressionPtr filter;
  Body body;
  Body otherwise;
};
/// `{% set a, b = value %}` or `{% set ns.attribute = value %}`.
struct SetStatement {
  std::vector<std::string> targets;
  std::string attribute;  ///< set: the one target is a namespace
  ExpressionPtr value;
};
/// `{% set name %}...{% endset %}`: the rendered body is the value.
struct SetBlockStatement {
  std::string target;
  Body body;
};
/// `{% macro name(a, b=default) %}...{% endmacro %}`
struct MacroStatement {
  std::string name;
  std::vector<std::pair<std::string, ExpressionPtr>> parameters;  ///< default null: required
  Body body;
};
/// `{% break %}` / `{% continue %}`
struct LoopControlStatement {
  bool is_break;
};
/// transformers' `{% generation %}...{% endgeneration %}`: marks assistant
/// text for training masks; rendering it renders the body.
struct GenerationStatement {
  Body body;
};

struct Statement {
  std::variant<TextStatement, OutputStatement, IfStatement, ForStatement, SetStatement, SetBlockStatement,
               MacroStatement, LoopControlStatement, GenerationStatement>
      node;
  SourceLocation where;
};

/// A parsed template.
struct Template {
  Body body;
};

}  // namespace kiln::llm::jinja
