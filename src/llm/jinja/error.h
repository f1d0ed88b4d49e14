// The one error type of the template interpreter: a reason and the place in
// the template source it belongs to.
#pragma once

#include <stdexcept>
#include <string>

namespace kiln::llm::jinja {

/// A place in the template source, 1-based. Line 0: not known yet.
struct SourceLocation {
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
};

/// Thrown for anything the interpreter cannot parse or render: a syntax error,
/// a construct outside the supported subset, a type error, a value the
/// template itself raised. `what()` is the reason alone; callers add the
/// place (`where()`) and the template's name.
class TemplateError : public std::runtime_error {
 public:
  explicit TemplateError(const std::string& reason, SourceLocation where = {})
      : std::runtime_error(reason), where_(where) {}

  SourceLocation where() const { return where_; }
  /// Sets the place if it is not known yet: the innermost expression that
  /// sees an error without a place names it.
  void locate(SourceLocation where) {
    if (!where_.known()) where_ = where;
  }

 private:
  SourceLocation where_;
};

}  // namespace kiln::llm::jinja
