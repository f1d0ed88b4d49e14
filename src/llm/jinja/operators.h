// Python's arithmetic, concatenation and comparison operators on template
// values, as Jinja evaluates `a + b`, `a ~ b`, `a in b`, `-a`...
#pragma once

#include "llm/jinja/ast.h"
#include "llm/jinja/value.h"

namespace kiln::llm::jinja {

/// Strings and lists an operator may build; past these a template is
/// runaway (doubling a string in a loop), not a chat prompt.
constexpr size_t kMaxStringBytes = size_t{1} << 26;
constexpr size_t kMaxListLength = size_t{1} << 20;

/// `a op b` for every operator but `and` and `or` (which the renderer
/// short-circuits). Throws TemplateError with Python's message for operand
/// types the operator does not take, and for an undefined operand where
/// Jinja's Undefined fails.
Value apply_binary(BinaryOperator op, const Value& a, const Value& b);
/// `not a`, `-a`, `+a`.
Value apply_unary(UnaryOperator op, const Value& a);

}  // namespace kiln::llm::jinja
