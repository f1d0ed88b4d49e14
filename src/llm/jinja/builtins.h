// Builtins: what a template can call and read besides its own variables.
// Jinja's filters and tests chat templates use (with transformers' `tojson`),
// Python's attribute and item access with the str, dict and list methods the
// sandbox allows, and the globals transformers defines (`raise_exception`,
// `strftime_now`, `namespace`) plus Jinja's `range` and `dict`.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "llm/jinja/value.h"

namespace kiln::llm::jinja {

/// A builtin's arguments bound to its parameters as Python binds them:
/// positional first, then keywords by name. Throws TemplateError for an
/// unknown keyword, a repeated parameter or too many positional arguments.
class BoundArguments {
 public:
  /// `variadic`: positional arguments past `parameters` go to `rest()`
  /// instead of failing.
  BoundArguments(std::string_view callee, const CallArguments& call, std::initializer_list<const char*> parameters,
                 bool variadic = false);

  bool given(size_t index) const { return given_[index]; }
  /// The argument, undefined if not given.
  const Value& operator[](size_t index) const { return values_[index]; }
  /// The argument, or a TemplateError naming the missing parameter.
  const Value& required(size_t index) const;
  /// The argument as a string, or a TemplateError naming its type.
  const std::string& string(size_t index) const;
  /// Positional arguments past the parameters (variadic builtins).
  const std::vector<Value>& rest() const { return rest_; }

 private:
  std::string callee_;
  std::vector<const char*> names_;
  std::vector<Value> values_;
  std::vector<bool> given_;
  std::vector<Value> rest_;
};

bool has_filter(std::string_view name);
bool has_test(std::string_view name);
/// Whether `name` is one of Jinja's own filters or tests that this
/// interpreter leaves out (the error then says so, rather than "unknown").
bool is_unsupported_jinja_filter(std::string_view name);
bool is_unsupported_jinja_test(std::string_view name);

/// `subject | name(arguments)`. Throws TemplateError on a bad argument.
Value apply_filter(std::string_view name, const Value& subject, const CallArguments& arguments);
/// `subject is name(arguments)`.
bool apply_test(std::string_view name, const Value& subject, const CallArguments& arguments);

/// Jinja's `object.name`: a method of the object's type, else the item
/// `name`; missing: undefined. Throws TemplateError if `object` is undefined.
Value get_attribute(const Value& object, const std::string& name);
/// Jinja's `object[key]`: the item, else the attribute `key`; missing:
/// undefined (an index out of range too).
Value get_item(const Value& object, const Value& key);
/// `object[start:stop:step]` of a list or string; absent bounds are undefined.
Value get_slice(const Value& object, const Value& start, const Value& stop, const Value& step);

/// The globals every chat template sees: `raise_exception`, `strftime_now`,
/// `namespace`, `dict`, `range`. `raise_exception` throws a TemplateError
/// whose reason starts "the template raised an exception: ".
ValueDict builtin_globals();

}  // namespace kiln::llm::jinja
