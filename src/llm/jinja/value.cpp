#include "llm/jinja/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "llm/jinja/error.h"
#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja {
namespace {

std::string hex_escape(char32_t c) {
  char text[16];
  if (c < 0x100) {
    std::snprintf(text, sizeof text, "\\x%02x", static_cast<unsigned>(c));
  } else if (c < 0x10000) {
    std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(c));
  } else {
    std::snprintf(text, sizeof text, "\\U%08x", static_cast<unsigned>(c));
  }
  return text;
}

// Python's str.isprintable for the characters a chat message may hold: the
// controls, the format characters and the separators other than ' ' are not.
bool is_printable(char32_t c) {
  if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return false;
  if (c >= 0xDC80 && c <= 0xDCFF) return false;  // an escaped byte of invalid UTF-8
  if ((c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF)
    return false;
  return c == ' ' || !unicode::is_space(c);
}

std::string string_repr(const std::string& text) {
  const bool has_single = text.find('\'') != std::string::npos;
  const bool has_double = text.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char32_t c : unicode::decode(text)) {
    if (c == '\\' || c == static_cast<char32_t>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (!is_printable(c)) {
      out += hex_escape(c);
    } else {
      unicode::append_utf8(out, c);
    }
  }
  out += quote;
  return out;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return python_float_repr(value);
}

void dump_json_to(const Value& value, const JsonFormat& format, int depth, std::string& out) {
  const auto newline = [&](int level) {
    if (!format.indent) return;
    out += '\n';
    for (int i = 0; i < level; ++i) out += *format.indent;
  };
  switch (value.kind()) {
    case Value::Kind::None:
      out += "null";
      return;
    case Value::Kind::Bool:
      out += value.as_bool() ? "true" : "false";
      return;
    case Value::Kind::Int:
      out += std::to_string(value.as_int());
      return;
    case Value::Kind::Float:
      out += json_float(value.as_float());
      return;
    case Value::Kind::String:
      out += json_string(value.as_string());
      return;
    case Value::Kind::List: {
      const ValueList& items = value.as_list();
      if (items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += format.item_separator;
        newline(depth + 1);
        dump_json_to(items[i], format, depth + 1, out);
      }
      newline(depth);
      out += ']';
      return;
    }
    case Value::Kind::Dict: {
      ValueDict entries = value.as_dict();
      if (entries.empty()) {
        out += "{}";
        return;
      }
      if (format.sort_keys) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      out += '{';
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out += format.item_separator;
        newline(depth + 1);
        out += json_string(entries[i].first) + format.key_separator;
        dump_json_to(entries[i].second, format, depth + 1, out);
      }
      newline(depth);
      out += '}';
      return;
    }
    default:
      throw TemplateError("Object of type " + value.type_name() + " is not JSON serializable");
  }
}

bool dicts_equal(const ValueDict& a, const ValueDict& b) {
  if (a.size() != b.size()) return false;
  for (const auto& entry_of_a : a) {
    const auto match = std::find_if(b.begin(), b.end(), [&](const auto& entry) { return entry.first == entry_of_a.first; });
    if (match == b.end() || !(match->second == entry_of_a.second)) return false;
  }
  return true;
}

}  // namespace

Value::Value(ValueList value) : data_(std::make_shared<const ListData>(ListData{std::move(value), false})) {}

Value Value::tuple(ValueList items) {
  Value value;
  value.data_ = std::make_shared<const ListData>(ListData{std::move(items), true});
  return value;
}
Value::Value(ValueDict value) : data_(std::make_shared<const ValueDict>(std::move(value))) {}
Value::Value(Function value) : data_(std::make_shared<const Function>(std::move(value))) {}

Value Value::missing(const Value& owner, const Value& key) {
  if (owner.is_undefined()) return owner;
  const std::string what = owner.is_none() ? "'None'" : "'" + owner.type_name() + " object'";
  if (key.is_string()) return Value(Undefined{what + " has no attribute '" + key.as_string() + "'"});
  return Value(Undefined{what + " has no element " + key.repr()});
}

int64_t Value::as_int() const { return is_bool() ? static_cast<int64_t>(as_bool()) : std::get<int64_t>(data_); }

double Value::as_float() const { return is_float() ? std::get<double>(data_) : static_cast<double>(as_int()); }

bool Value::truthy() const {
  switch (kind()) {
    case Kind::Undefined:
    case Kind::None:
      return false;
    case Kind::Bool:
      return as_bool();
    case Kind::Int:
      return as_int() != 0;
    case Kind::Float:
      return as_float() != 0.0;
    case Kind::String:
      return !as_string().empty();
    case Kind::List:
      return !as_list().empty();
    case Kind::Dict:
      return !as_dict().empty();
    default:
      return true;
  }
}

std::string Value::str() const {
  switch (kind()) {
    case Kind::Undefined:
      return "";
    case Kind::String:
      return as_string();
    default:
      return repr();
  }
}

std::string Value::repr() const {
  switch (kind()) {
    case Kind::Undefined:
      return "Undefined";
    case Kind::None:
      return "None";
    case Kind::Bool:
      return as_bool() ? "True" : "False";
    case Kind::Int:
      return std::to_string(as_int());
    case Kind::Float:
      return python_float_repr(as_float());
    case Kind::String:
      return string_repr(as_string());
    case Kind::List: {
      std::string out = is_tuple() ? "(" : "[";
      for (const Value& item : as_list()) out += (out.size() > 1 ? ", " : "") + item.repr();
      if (is_tuple()) return out + (as_list().size() == 1 ? ",)" : ")");
      return out + "]";
    }
    case Kind::Dict: {
      std::string out = "{";
      for (const auto& [key, item] : as_dict())
        out += (out.size() > 1 ? ", " : "") + string_repr(key) + ": " + item.repr();
      return out + "}";
    }
    case Kind::Namespace:
      return "<Namespace " + Value(as_namespace().attributes).repr() + ">";
    case Kind::Function:
      return "<function " + as_function().name + ">";
  }
  return "";
}

std::string Value::type_name() const {
  switch (kind()) {
    case Kind::Undefined:
      return "Undefined";
    case Kind::List:
      return is_tuple() ? "tuple" : "list";
    case Kind::None:
      return "NoneType";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "str";
    case Kind::Dict:
      return "dict";
    case Kind::Namespace:
      return "Namespace";
    case Kind::Function:
      return "function";
  }
  return "";
}

const Value* Value::find(std::string_view key) const {
  const ValueDict* entries = is_dict() ? &as_dict() : is_namespace() ? &as_namespace().attributes : nullptr;
  if (entries == nullptr) return nullptr;
  for (const auto& [name, value] : *entries) {
    if (name == key) return &value;
  }
  return nullptr;
}

ValueList Value::iterate() const {
  switch (kind()) {
    case Kind::Undefined:
      return {};
    case Kind::List:
      return as_list();
    case Kind::Dict: {
      ValueList keys;
      for (const auto& entry : as_dict()) keys.emplace_back(entry.first);
      return keys;
    }
    case Kind::String: {
      ValueList characters;
      for (char32_t c : unicode::decode(as_string())) characters.emplace_back(unicode::encode(std::u32string(1, c)));
      return characters;
    }
    default:
      throw TemplateError("'" + type_name() + "' object is not iterable");
  }
}

bool operator==(const Value& a, const Value& b) {
  using Kind = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Undefined:
    case Kind::None:
      return true;
    case Kind::String:
      return a.as_string() == b.as_string();
    case Kind::List:
      return a.is_tuple() == b.is_tuple() && a.as_list() == b.as_list();
    case Kind::Dict:
      return dicts_equal(a.as_dict(), b.as_dict());
    case Kind::Namespace:
      return &a.as_namespace() == &b.as_namespace();
    case Kind::Function:
      return &a.as_function() == &b.as_function();
    default:
      return false;
  }
}

int compare(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) {
      const double x = a.as_float(), y = b.as_float();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    const int64_t x = a.as_int(), y = b.as_int();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const int order = a.as_string().compare(b.as_string());
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
  }
  if (a.is_list() && b.is_list()) {
    const ValueList& x = a.as_list();
    const ValueList& y = b.as_list();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!(x[i] == y[i])) return compare(x[i], y[i]);
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  if (a.is_undefined() || b.is_undefined()) throw TemplateError((a.is_undefined() ? a : b).undefined_reason());
  throw TemplateError("'<' not supported between instances of '" + a.type_name() + "' and '" + b.type_name() + "'");
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::Undefined:
      return false;
    case Value::Kind::String:
      if (!item.is_string()) {
        throw TemplateError("'in <string>' requires string as left operand, not " + item.type_name());
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::List: {
      const ValueList& items = container.as_list();
      return std::find(items.begin(), items.end(), item) != items.end();
    }
    case Value::Kind::Dict:
    case Value::Kind::Namespace:
      return item.is_string() && container.find(item.as_string()) != nullptr;
    default:
      throw TemplateError("argument of type '" + container.type_name() + "' is not iterable");
  }
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // The shortest of "%.{p}e" that reads back as the same double.
  char text[40];
  for (int precision = 0; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*e", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  std::string mantissa(text, std::strchr(text, 'e'));
  const int exponent = std::atoi(std::strchr(text, 'e') + 1);
  const bool negative = mantissa[0] == '-';
  std::string digits;
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits += c;
  }
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0." + std::string(-exponent - 1, '0') + digits;
    } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
      out += digits + std::string(exponent + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + suffix;
}

std::string dump_json(const Value& value, const JsonFormat& format) {
  std::string out;
  dump_json_to(value, format, 0, out);
  return out;
}

Value value_from_json(const nlohmann::ordered_json& json) {
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::null:
      return Value::none();
    case nlohmann::ordered_json::value_t::boolean:
      return json.get<bool>();
    case nlohmann::ordered_json::value_t::number_integer:
      return json.get<int64_t>();
    case nlohmann::ordered_json::value_t::number_unsigned:
      return static_cast<int64_t>(json.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float:
      return json.get<double>();
    case nlohmann::ordered_json::value_t::string:
      return json.get<std::string>();
    case nlohmann::ordered_json::value_t::array: {
      ValueList items;
      for (const auto& item : json) items.push_back(value_from_json(item));
      return items;
    }
    case nlohmann::ordered_json::value_t::object: {
      ValueDict entries;
      for (const auto& [key, item] : json.items()) entries.emplace_back(key, value_from_json(item));
      return entries;
    }
    default:
      throw TemplateError("JSON value of type " + std::string(json.type_name()) + " has no template value");
  }
}

}  // namespace kiln::llm::jinja
