// Parser: template source to the syntax tree. The statements (text, output,
// if, for, set, macro, break/continue, generation) are parsed here, their
// expressions by ExpressionParser; a block that is never closed, an end tag
// that closes nothing and a tag outside the subset are errors naming the
// place.
#pragma once

#include <string_view>

#include "llm/jinja/ast.h"

namespace kiln::llm::jinja {

/// Parses template source. Throws TemplateError naming the place and the
/// reason: a syntax error, an unclosed block, an unknown filter or test, a
/// tag outside the supported subset.
Template parse(std::string_view source);

}  // namespace kiln::llm::jinja
