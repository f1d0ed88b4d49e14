// Jinja's filters and tests, as Jinja 3.1 defines them, with transformers'
// `tojson` (json.dumps without HTML escaping).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "llm/jinja/builtins.h"
#include "llm/jinja/error.h"
#include "llm/jinja/python_string.h"
#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja {
namespace {

using FilterFunction = Value (*)(const Value& subject, const CallArguments& call);
using TestFunction = bool (*)(const Value& subject, const CallArguments& call);
using unicode::is_digit;

// Follows a dotted path (`"function.name"`, `"0"`) as Jinja's attribute
// getters for map, selectattr, join and friends do.
Value follow_path(Value value, const std::string& path) {
  for (const std::string& part : python::split(path, ".", -1)) {
    // Longer digit strings than an int64 holds stay keys.
    const bool is_index = !part.empty() && part.size() < 19 && std::all_of(part.begin(), part.end(), is_digit);
    value = is_index ? get_item(value, static_cast<int64_t>(std::stoll(part))) : get_item(value, part);
  }
  return value;
}

Value attribute_path(const Value& item, const Value& attribute) {
  if (attribute.is_int()) return get_item(item, attribute);
  if (!attribute.is_string()) throw TemplateError("attribute must be a string or an integer");
  return follow_path(item, attribute.as_string());
}

int64_t length_of(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::Undefined:
      return 0;
    case Value::Kind::String:
      return static_cast<int64_t>(unicode::length(value.as_string()));
    case Value::Kind::List:
      return static_cast<int64_t>(value.as_list().size());
    case Value::Kind::Dict:
      return static_cast<int64_t>(value.as_dict().size());
    default:
      throw TemplateError("object of type '" + value.type_name() + "' has no len()");
  }
}

Value filter_abs(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("abs", call, {});
  if (subject.is_float()) return std::fabs(subject.as_float());
  if (subject.is_int() || subject.is_bool()) {
    const int64_t value = subject.as_int();
    if (value == INT64_MIN) throw TemplateError("integer overflow");
    return value < 0 ? -value : value;
  }
  throw TemplateError("bad operand type for abs(): '" + subject.type_name() + "'");
}

Value filter_capitalize(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("capitalize", call, {});
  return python::capitalize(subject.str());
}

Value filter_default(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("default", call, {"default_value", "boolean"});
  const bool use_default = subject.is_undefined() || (arguments[1].truthy() && !subject.truthy());
  if (!use_default) return subject;
  return arguments.given(0) ? arguments[0] : Value("");
}

Value filter_first(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("first", call, {});
  const ValueList items = subject.iterate();
  return items.empty() ? Value::undefined("first item of an empty sequence") : items.front();
}

Value filter_last(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("last", call, {});
  const ValueList items = subject.iterate();
  return items.empty() ? Value::undefined("last item of an empty sequence") : items.back();
}

// Python's int(text): optional sign, digits with single underscores, spaces around.
std::optional<int64_t> parse_int(const std::string& text) {
  const std::string trimmed = unicode::strip(text, nullptr, true, true);
  std::string digits;
  for (size_t i = 0; i < trimmed.size(); ++i) {
    const char c = trimmed[i];
    if (c == '_' && i > 0 && i + 1 < trimmed.size() && is_digit(trimmed[i - 1]) && is_digit(trimmed[i + 1])) continue;
    if (!is_digit(c) && !((c == '-' || c == '+') && i == 0)) return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits == "-" || digits == "+") return std::nullopt;
  errno = 0;
  const long long value = std::strtoll(digits.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return value;
}

std::optional<double> parse_float(const std::string& text) {
  const std::string trimmed = unicode::strip(text, nullptr, true, true);
  if (trimmed.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(trimmed.c_str(), &end);
  if (end != trimmed.c_str() + trimmed.size()) return std::nullopt;
  return value;
}

Value filter_int(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("int", call, {"default", "base"});
  const Value fallback = arguments.given(0) ? arguments[0] : Value(0);
  if (subject.is_int() || subject.is_bool()) return subject.as_int();
  if (subject.is_float() && std::isfinite(subject.as_float())) return static_cast<int64_t>(subject.as_float());
  if (subject.is_string()) {
    if (std::optional<int64_t> value = parse_int(subject.as_string())) return *value;
    if (std::optional<double> value = parse_float(subject.as_string()); value && std::isfinite(*value)) {
      return static_cast<int64_t>(*value);
    }
  }
  return fallback;
}

Value filter_float(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("float", call, {"default"});
  if (subject.is_number()) return subject.as_float();
  if (subject.is_string()) {
    if (std::optional<double> value = parse_float(subject.as_string())) return *value;
  }
  return arguments.given(0) ? arguments[0] : Value(0.0);
}

Value filter_indent(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("indent", call, {"width", "first", "blank"});
  const Value& width = arguments.given(0) ? arguments[0] : Value(4);
  const std::string indentation =
      width.is_string() ? width.as_string() : std::string(std::max<int64_t>(0, width.as_int()), ' ');
  const std::vector<std::string> lines = python::splitlines(subject.str() + "\n");
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n";
    const bool indented = i > 0 && (arguments[2].truthy() || !lines[i].empty());
    out += (indented ? indentation : "") + lines[i];
  }
  return arguments[1].truthy() ? indentation + out : out;
}

Value filter_items(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("items", call, {});
  if (subject.is_undefined()) return ValueList{};
  if (!subject.is_dict()) throw TemplateError("Can only get item pairs from a mapping.");
  ValueList pairs;
  for (const auto& [key, value] : subject.as_dict()) pairs.push_back(Value::tuple({key, value}));
  return pairs;
}

Value filter_join(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("join", call, {"d", "attribute"});
  const std::string separator = arguments.given(0) ? arguments[0].str() : "";
  std::string out;
  bool first = true;
  for (const Value& item : subject.iterate()) {
    out += (first ? "" : separator) + (arguments.given(1) ? attribute_path(item, arguments[1]) : item).str();
    first = false;
  }
  return out;
}

Value filter_length(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("length", call, {});
  return length_of(subject);
}

Value filter_list(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("list", call, {});
  return subject.iterate();
}

Value filter_lower(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("lower", call, {});
  return unicode::lower(subject.str());
}

Value filter_upper(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("upper", call, {});
  return unicode::upper(subject.str());
}

Value filter_map(const Value& subject, const CallArguments& call) {
  ValueList out;
  if (call.positional.empty()) {
    BoundArguments arguments("map", call, {"attribute", "default"});
    for (const Value& item : subject.iterate()) {
      Value mapped = attribute_path(item, arguments.required(0));
      out.push_back(mapped.is_undefined() && arguments.given(1) ? arguments[1] : mapped);
    }
    return out;
  }
  if (!call.positional[0].is_string()) throw TemplateError("map() takes a filter name or attribute=");
  const std::string& filter = call.positional[0].as_string();
  if (!has_filter(filter)) throw TemplateError("unknown filter '" + filter + "'");
  CallArguments rest{{call.positional.begin() + 1, call.positional.end()}, call.keywords};
  for (const Value& item : subject.iterate()) out.push_back(apply_filter(filter, item, rest));
  return out;
}

// select, reject, selectattr, rejectattr: keep the items whose (attribute's)
// test result is `keep`; without a test name, their truth.
Value select_items(const Value& subject, const CallArguments& call, bool by_attribute, bool keep) {
  const char* name = by_attribute ? (keep ? "selectattr" : "rejectattr") : (keep ? "select" : "reject");
  if (!call.keywords.empty()) throw TemplateError(std::string(name) + "() takes no keyword arguments");
  std::vector<Value> positional = call.positional;
  Value attribute;
  if (by_attribute) {
    if (positional.empty()) throw TemplateError(std::string(name) + "() missing required argument 'attribute'");
    attribute = positional.front();
    positional.erase(positional.begin());
  }
  std::string test;
  if (!positional.empty()) {
    if (!positional.front().is_string()) throw TemplateError(std::string(name) + "() takes a test name");
    test = positional.front().as_string();
    if (!has_test(test)) throw TemplateError("unknown test '" + test + "'");
    positional.erase(positional.begin());
  }
  const CallArguments test_arguments{positional, {}};
  ValueList out;
  for (const Value& item : subject.iterate()) {
    const Value tested = by_attribute ? attribute_path(item, attribute) : item;
    const bool passes = test.empty() ? tested.truthy() : apply_test(test, tested, test_arguments);
    if (passes == keep) out.push_back(item);
  }
  return out;
}

Value filter_select(const Value& s, const CallArguments& c) { return select_items(s, c, false, true); }
Value filter_reject(const Value& s, const CallArguments& c) { return select_items(s, c, false, false); }
Value filter_selectattr(const Value& s, const CallArguments& c) { return select_items(s, c, true, true); }
Value filter_rejectattr(const Value& s, const CallArguments& c) { return select_items(s, c, true, false); }

Value filter_replace(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("replace", call, {"old", "new", "count"});
  const int64_t count = arguments.given(2) && !arguments[2].is_none() ? arguments[2].as_int() : -1;
  return python::replace(subject.str(), arguments.required(0).str(), arguments.required(1).str(), count);
}

Value filter_reverse(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("reverse", call, {});
  ValueList items = subject.iterate();
  std::reverse(items.begin(), items.end());
  if (!subject.is_string()) return items;
  std::string out;
  for (const Value& character : items) out += character.as_string();
  return out;
}

Value filter_string(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("string", call, {});
  return subject.str();
}

// Jinja's title filter: each word (after '-', whitespace or an opening
// bracket) capitalized.
Value filter_title(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("title", call, {});
  std::u32string text = unicode::decode(subject.str());
  bool word_start = true;
  for (char32_t& c : text) {
    const bool separator = unicode::is_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
    c = separator ? c : (word_start ? unicode::to_upper(c) : unicode::to_lower(c));
    word_start = separator;
  }
  return unicode::encode(text);
}

Value filter_tojson(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("tojson", call, {"ensure_ascii", "indent", "separators", "sort_keys"});
  if (arguments[0].truthy()) throw TemplateError("tojson(ensure_ascii=true) is not supported");
  JsonFormat format;
  const Value& indent = arguments[1];
  if (indent.is_string()) {
    format.indent = indent.as_string();
  } else if (indent.is_int()) {
    format.indent = std::string(std::max<int64_t>(0, indent.as_int()), ' ');
  } else if (!indent.is_undefined() && !indent.is_none()) {
    throw TemplateError("tojson() indent must be an integer or a string");
  }
  if (format.indent) format.item_separator = ",";
  const Value& separators = arguments[2];
  if (separators.is_list()) {
    if (separators.as_list().size() != 2 || !separators.as_list()[0].is_string() ||
        !separators.as_list()[1].is_string()) {
      throw TemplateError("tojson() separators must be a pair of strings");
    }
    format.item_separator = separators.as_list()[0].as_string();
    format.key_separator = separators.as_list()[1].as_string();
  }
  format.sort_keys = arguments[3].truthy();
  return dump_json(subject, format);
}

Value filter_trim(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("trim", call, {"chars"});
  if (!arguments.given(0) || arguments[0].is_none()) return unicode::strip(subject.str(), nullptr, true, true);
  const std::u32string chars = unicode::decode(arguments.string(0));
  return unicode::strip(subject.str(), &chars, true, true);
}

Value filter_safe(const Value& subject, const CallArguments& call) {
  BoundArguments arguments("safe", call, {});
  return subject.str();
}

constexpr std::pair<std::string_view, FilterFunction> kFilters[] = {
    {"abs", filter_abs},
    {"capitalize", filter_capitalize},
    {"count", filter_length},
    {"d", filter_default},
    {"default", filter_default},
    {"first", filter_first},
    {"float", filter_float},
    {"indent", filter_indent},
    {"int", filter_int},
    {"items", filter_items},
    {"join", filter_join},
    {"last", filter_last},
    {"length", filter_length},
    {"list", filter_list},
    {"lower", filter_lower},
    {"map", filter_map},
    {"reject", filter_reject},
    {"rejectattr", filter_rejectattr},
    {"replace", filter_replace},
    {"reverse", filter_reverse},
    {"safe", filter_safe},
    {"select", filter_select},
    {"selectattr", filter_selectattr},
    {"string", filter_string},
    {"title", filter_title},
    {"tojson", filter_tojson},
    {"trim", filter_trim},
    {"upper", filter_upper},
};

constexpr std::string_view kOtherJinjaFilters[] = {
    "attr",    "batch",    "center", "dictsort",  "e",      "escape",    "filesizeformat", "forceescape", "format",
    "groupby", "max",      "min",    "pprint",    "random", "round",     "slice",          "sort",        "striptags",
    "sum",     "truncate", "unique", "urlencode", "urlize", "wordcount", "wordwrap",       "xmlattr"};

// ---- Tests.

Value test_operand(const char* name, const CallArguments& call) {
  BoundArguments arguments(name, call, {"other"});
  return arguments.required(0);
}

int64_t integer_operand(const char* name, const Value& subject) {
  if (!subject.is_int() && !subject.is_bool()) {
    throw TemplateError(std::string("test '") + name + "' needs an integer, not " + subject.type_name());
  }
  return subject.as_int();
}

bool test_defined(const Value& s, const CallArguments&) { return !s.is_undefined(); }
bool test_undefined(const Value& s, const CallArguments&) { return s.is_undefined(); }
bool test_none(const Value& s, const CallArguments&) { return s.is_none(); }
bool test_boolean(const Value& s, const CallArguments&) { return s.is_bool(); }
bool test_true(const Value& s, const CallArguments&) { return s.is_bool() && s.as_bool(); }
bool test_false(const Value& s, const CallArguments&) { return s.is_bool() && !s.as_bool(); }
bool test_integer(const Value& s, const CallArguments&) { return s.is_int(); }
bool test_float(const Value& s, const CallArguments&) { return s.is_float(); }
bool test_number(const Value& s, const CallArguments&) { return s.is_number(); }
bool test_string(const Value& s, const CallArguments&) { return s.is_string(); }
bool test_mapping(const Value& s, const CallArguments&) { return s.is_dict(); }
// Jinja's undefined is iterable (it iterates nothing) and a sequence (of length 0).
bool test_iterable(const Value& s, const CallArguments&) {
  return s.is_undefined() || s.is_string() || s.is_list() || s.is_dict();
}
bool test_sequence(const Value& s, const CallArguments& c) { return test_iterable(s, c); }
bool test_callable(const Value& s, const CallArguments&) { return s.is_function(); }
bool test_lower(const Value& s, const CallArguments&) { return python::is_lower(s.str()); }
bool test_upper(const Value& s, const CallArguments&) { return python::is_upper(s.str()); }

bool test_odd(const Value& s, const CallArguments&) { return integer_operand("odd", s) % 2 != 0; }
bool test_even(const Value& s, const CallArguments&) { return integer_operand("even", s) % 2 == 0; }
bool test_divisibleby(const Value& s, const CallArguments& c) {
  const int64_t divisor = integer_operand("divisibleby", test_operand("divisibleby", c));
  if (divisor == 0) throw TemplateError("integer division or modulo by zero");
  return integer_operand("divisibleby", s) % divisor == 0;
}
bool test_sameas(const Value& s, const CallArguments& c) {
  const Value other = test_operand("sameas", c);
  if (s.kind() != other.kind()) return false;
  return (s.is_none() || s.is_bool() || s.is_int() || s.is_string() || s.is_namespace() || s.is_function()) &&
         s == other;
}
bool test_in(const Value& s, const CallArguments& c) { return contains(test_operand("in", c), s); }
bool test_eq(const Value& s, const CallArguments& c) { return s == test_operand("eq", c); }
bool test_ne(const Value& s, const CallArguments& c) { return !(s == test_operand("ne", c)); }
bool test_lt(const Value& s, const CallArguments& c) { return compare(s, test_operand("lt", c)) < 0; }
bool test_le(const Value& s, const CallArguments& c) { return compare(s, test_operand("le", c)) <= 0; }
bool test_gt(const Value& s, const CallArguments& c) { return compare(s, test_operand("gt", c)) > 0; }
bool test_ge(const Value& s, const CallArguments& c) { return compare(s, test_operand("ge", c)) >= 0; }

constexpr std::pair<std::string_view, TestFunction> kTests[] = {
    {"defined", test_defined},
    {"undefined", test_undefined},
    {"none", test_none},
    {"boolean", test_boolean},
    {"true", test_true},
    {"false", test_false},
    {"integer", test_integer},
    {"float", test_float},
    {"number", test_number},
    {"string", test_string},
    {"mapping", test_mapping},
    {"iterable", test_iterable},
    {"sequence", test_sequence},
    {"callable", test_callable},
    {"lower", test_lower},
    {"upper", test_upper},
    {"odd", test_odd},
    {"even", test_even},
    {"divisibleby", test_divisibleby},
    {"sameas", test_sameas},
    {"in", test_in},
    {"eq", test_eq},
    {"equalto", test_eq},
    {"==", test_eq},
    {"ne", test_ne},
    {"!=", test_ne},
    {"lt", test_lt},
    {"lessthan", test_lt},
    {"<", test_lt},
    {"le", test_le},
    {"<=", test_le},
    {"gt", test_gt},
    {"greaterthan", test_gt},
    {">", test_gt},
    {"ge", test_ge},
    {">=", test_ge},
};

constexpr std::string_view kOtherJinjaTests[] = {"escaped", "filter", "test"};

template <typename Function, size_t N>
const Function* find_entry(const std::pair<std::string_view, Function> (&table)[N], std::string_view name) {
  for (const auto& [entry_name, function] : table) {
    if (entry_name == name) return &function;
  }
  return nullptr;
}

}  // namespace

bool has_filter(std::string_view name) { return find_entry(kFilters, name) != nullptr; }
bool has_test(std::string_view name) { return find_entry(kTests, name) != nullptr; }

bool is_unsupported_jinja_filter(std::string_view name) {
  return std::find(std::begin(kOtherJinjaFilters), std::end(kOtherJinjaFilters), name) != std::end(kOtherJinjaFilters);
}

bool is_unsupported_jinja_test(std::string_view name) {
  return std::find(std::begin(kOtherJinjaTests), std::end(kOtherJinjaTests), name) != std::end(kOtherJinjaTests);
}

Value apply_filter(std::string_view name, const Value& subject, const CallArguments& arguments) {
  const FilterFunction* filter = find_entry(kFilters, name);
  if (filter == nullptr) throw TemplateError("unknown filter '" + std::string(name) + "'");
  return (*filter)(subject, arguments);
}

bool apply_test(std::string_view name, const Value& subject, const CallArguments& arguments) {
  const TestFunction* test = find_entry(kTests, name);
  if (test == nullptr) throw TemplateError("unknown test '" + std::string(name) + "'");
  return (*test)(subject, arguments);
}

}  // namespace kiln::llm::jinja
