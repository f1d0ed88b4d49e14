// Renderer: walks a parsed template with the variables of one conversation
// and returns the text. Scopes follow Jinja's: a loop iteration and a macro
// call open one, `if` does not, so `{% set %}` inside a loop is lost after
// it (templates carry state out of loops in a `namespace()`).
#pragma once

#include <string>

#include "llm/jinja/ast.h"
#include "llm/jinja/value.h"

namespace kiln::llm::jinja {

/// Renders `program` with `variables` as its top-level variables (they hide
/// the builtin globals of the same name). Throws TemplateError naming the
/// place of the expression or statement that failed.
std::string render(const Template& program, const ValueDict& variables);

}  // namespace kiln::llm::jinja
