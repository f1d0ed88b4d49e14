// Value: what a template expression evaluates to, with Python's semantics
// for the operations chat templates use (truth, equality, ordering, str(),
// repr(), json.dumps). Lists and dicts are immutable (transformers renders in
// Jinja's immutable sandbox), so they are shared, not copied; a namespace is
// the one mutable object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kiln::llm::jinja {

class Value;
using ValueList = std::vector<Value>;
/// Keys in insertion order, as a Python dict iterates them. Keys are strings:
/// chat templates index messages and tools by name.
using ValueDict = std::vector<std::pair<std::string, Value>>;

/// The arguments of a call: `f(a, b, key=c)`.
struct CallArguments {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

/// A callable: a global (`raise_exception`, `namespace`, `range`...), a bound
/// method (`message.content.strip`) or a loop's `cycle`.
struct Function {
  std::string name;
  std::function<Value(const CallArguments&)> call;
};

/// What `namespace(...)` makes: attributes `{% set ns.name = ... %}` can
/// change from inside a loop.
struct Namespace {
  ValueDict attributes;
};

class Value {
 public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Function };

  /// An undefined value whose use as an object fails with "'x' is undefined".
  Value() : Value(undefined("value")) {}
  static Value undefined(std::string name) { return Value(Undefined{"'" + std::move(name) + "' is undefined"}); }
  /// An undefined value that is the missing attribute (a string key) or
  /// element (another key) `key` of `owner`.
  static Value missing(const Value& owner, const Value& key);
  static Value none() { return Value(None{}); }
  /// A tuple: a list that prints as `(a, b)` and never equals a list.
  static Value tuple(ValueList items);

  Value(bool value) : data_(value) {}                                   // NOLINT
  Value(int64_t value) : data_(value) {}                                // NOLINT
  Value(int value) : data_(static_cast<int64_t>(value)) {}              // NOLINT
  Value(double value) : data_(value) {}                                 // NOLINT
  Value(std::string value) : data_(std::move(value)) {}                 // NOLINT
  Value(const char* value) : data_(std::string(value)) {}               // NOLINT
  Value(ValueList value);                                               // NOLINT
  Value(ValueDict value);                                               // NOLINT
  Value(std::shared_ptr<Namespace> value) : data_(std::move(value)) {}  // NOLINT
  Value(Function value);                                                // NOLINT

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_undefined() const { return kind() == Kind::Undefined; }
  bool is_none() const { return kind() == Kind::None; }
  bool is_bool() const { return kind() == Kind::Bool; }
  bool is_int() const { return kind() == Kind::Int; }
  bool is_float() const { return kind() == Kind::Float; }
  /// bool, int or float (Python's bool is an int).
  bool is_number() const { return is_bool() || is_int() || is_float(); }
  bool is_string() const { return kind() == Kind::String; }
  /// A list or a tuple.
  bool is_list() const { return kind() == Kind::List; }
  bool is_dict() const { return kind() == Kind::Dict; }
  bool is_namespace() const { return kind() == Kind::Namespace; }
  bool is_function() const { return kind() == Kind::Function; }

  bool as_bool() const { return std::get<bool>(data_); }
  /// An int or a bool as an integer.
  int64_t as_int() const;
  /// Any number as a double.
  double as_float() const;
  const std::string& as_string() const { return std::get<std::string>(data_); }
  const ValueList& as_list() const { return std::get<ListPtr>(data_)->items; }
  bool is_tuple() const { return is_list() && std::get<ListPtr>(data_)->is_tuple; }
  const ValueDict& as_dict() const { return *std::get<DictPtr>(data_); }
  Namespace& as_namespace() const { return *std::get<std::shared_ptr<Namespace>>(data_); }
  const Function& as_function() const { return *std::get<FunctionPtr>(data_); }
  /// Why an undefined value is undefined: "'x' is undefined".
  const std::string& undefined_reason() const { return std::get<Undefined>(data_).reason; }

  /// Python's bool(value); undefined is false.
  bool truthy() const;
  /// Python's str(value), which `{{ value }}` prints; undefined prints "".
  std::string str() const;
  /// Python's repr(value).
  std::string repr() const;
  /// Python's type name: 'str', 'int', 'list', 'dict', 'NoneType'...
  std::string type_name() const;

  /// The value of `key` in a dict or a namespace, or nullptr.
  const Value* find(std::string_view key) const;
  /// The elements `for x in value` visits: a list's items, a dict's keys, a
  /// string's characters; undefined visits nothing. Throws TemplateError for
  /// values that are not iterable.
  ValueList iterate() const;

 private:
  struct Undefined {
    std::string reason;
  };
  struct None {};
  struct ListData {
    ValueList items;
    bool is_tuple = false;
  };
  using ListPtr = std::shared_ptr<const ListData>;
  using DictPtr = std::shared_ptr<const ValueDict>;
  using FunctionPtr = std::shared_ptr<const Function>;

  explicit Value(Undefined value) : data_(std::move(value)) {}
  explicit Value(None value) : data_(value) {}

  // The order of the alternatives is the order of Kind.
  std::variant<Undefined, None, bool, int64_t, double, std::string, ListPtr, DictPtr, std::shared_ptr<Namespace>,
               FunctionPtr>
      data_;
};

/// Python's `a == b` (1 == 1.0 == True; undefined equals only undefined).
bool operator==(const Value& a, const Value& b);
/// Python's ordering of numbers, strings and lists: negative, zero or
/// positive. Throws TemplateError for other pairs, as Python's `<` does.
int compare(const Value& a, const Value& b);

/// Python's `item in container` for strings (substring), lists, dicts
/// (keys) and undefined (nothing). Throws TemplateError for other containers.
bool contains(const Value& container, const Value& item);

/// Python's repr of a float: the shortest text that reads back as `value`.
std::string python_float_repr(double value);

/// Options of Python's `json.dumps` (transformers' `tojson` filter passes
/// `ensure_ascii=False`).
struct JsonFormat {
  std::optional<std::string> indent;  ///< None: one line
  std::string item_separator = ", ";  ///< ", " on one line, "," when indented
  std::string key_separator = ": ";
  bool sort_keys = false;
};
/// `json.dumps(value, ensure_ascii=False, ...)`. Throws TemplateError for a
/// value JSON cannot hold (undefined, a namespace, a function).
std::string dump_json(const Value& value, const JsonFormat& format = {});
/// A JSON document as a value (objects keep their key order).
Value value_from_json(const nlohmann::ordered_json& json);

}  // namespace kiln::llm::jinja
