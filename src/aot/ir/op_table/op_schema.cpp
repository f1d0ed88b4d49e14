#include "aot/ir/op_table/op_schema.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "aot/ir/c10_enums.h"
#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

using Kind = SchemaType::Kind;

constexpr std::array<std::pair<Kind, const char*>, 17> kKindNames = {{
    {Kind::Tensor, "Tensor"},
    {Kind::Int, "int"},
    {Kind::SymInt, "SymInt"},
    {Kind::Float, "float"},
    {Kind::SymFloat, "SymFloat"},
    {Kind::Bool, "bool"},
    {Kind::SymBool, "SymBool"},
    {Kind::Scalar, "Scalar"},
    {Kind::ScalarType, "ScalarType"},
    {Kind::Layout, "Layout"},
    {Kind::MemoryFormat, "MemoryFormat"},
    {Kind::Device, "Device"},
    {Kind::String, "str"},
    {Kind::Generator, "Generator"},
    {Kind::Dimname, "Dimname"},
    {Kind::Storage, "Storage"},
    {Kind::Any, "Any"},
}};

std::optional<Kind> kind_from_name(std::string_view name) {
  for (const auto& [kind, text] : kKindNames) {
    if (name == text) return kind;
  }
  return std::nullopt;
}

std::string known_type_names() {
  std::string names;
  for (const auto& [kind, text] : kKindNames) names += (names.empty() ? "" : ", ") + std::string(text);
  return names;
}

std::optional<ScalarType> scalar_type_from_code(int64_t code) {
  switch (code) {
#define KILN_SCALAR_CASE_(name, number, ctype, size, short_name) \
  case number:                                                   \
    return ScalarType::name;
    KILN_FORALL_SCALAR_TYPES(KILN_SCALAR_CASE_)
#undef KILN_SCALAR_CASE_
    default:
      return std::nullopt;
  }
}

std::optional<ScalarType> scalar_type_from_name(std::string_view name) {
  // native_functions.yaml spells dtype defaults as `long` and `float`.
  if (name == "long") return ScalarType::Long;
  if (name == "float") return ScalarType::Float;
#define KILN_SCALAR_NAME_(enumerator, number, ctype, size, short_name) \
  if (name == #enumerator) return ScalarType::enumerator;
  KILN_FORALL_SCALAR_TYPES(KILN_SCALAR_NAME_)
#undef KILN_SCALAR_NAME_
  return std::nullopt;
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Python's float literal grammar (what a schema default can hold), plus inf and nan.
bool is_number_literal(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  if (text.substr(i) == "inf" || text.substr(i) == "nan") return true;
  size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == text.size();
}

bool is_integer_literal(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

// As c10's IValue printer prints a double: "1." for whole numbers below 1e10,
// else 17 significant digits ("1.0000000000000001e-05").
std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::abs(value) < 1e10 && value == std::trunc(value)) {
    const auto whole = static_cast<int64_t>(value);
    return (whole == 0 && std::signbit(value) ? "-0" : std::to_string(whole)) + ".";
  }
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.17g", value);
  std::string text = buffer.data();
  // c10 prints 1e10 as "10000000000", which reads back as an int; keep it a float.
  if (text.find_first_of(".e") == std::string::npos) text += ".";
  return text;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (std::isprint(static_cast<unsigned char>(c))) {
          out += c;
        } else {
          std::array<char, 8> octal{};
          std::snprintf(octal.data(), octal.size(), "\\%03o", static_cast<unsigned char>(c));
          out += octal.data();
        }
    }
  }
  return out + "\"";
}

std::string default_to_string(const Argument& value, const SchemaType& type) {
  struct Printer {
    const SchemaType& type;
    std::string operator()(None) const { return "None"; }
    std::string operator()(Node*) const { return "<node>"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return format_double(v); }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::string& v) const { return quote(v); }
    std::string operator()(ScalarType v) const { return std::to_string(static_cast<int>(v)); }
    // str(schema) prints c10's numbers.
    std::string operator()(MemoryFormat v) const {
      const auto code = c10_memory_format(v);
      return code ? std::to_string(*code) : "None";
    }
    std::string operator()(Layout v) const {
      const auto code = c10_layout(v);
      return code ? std::to_string(*code) : "None";
    }
    std::string operator()(const Device& v) const {
      return quote(v.index < 0 ? v.type : v.type + ":" + std::to_string(v.index));
    }
    std::string operator()(const ArgumentList& items) const {
      // PyTorch prints `int[2] padding=0` for [0, 0]: a sized int list whose
      // items are all equal prints as one item (not SymInt lists, not optional ones).
      const bool compact = type.kind == Kind::Int && !type.optional && !type.list_of_optional &&
                           type.fixed_length && static_cast<size_t>(*type.fixed_length) == items.size() &&
                           items.size() > 1 && items[0].is_int() &&
                           std::all_of(items.begin(), items.end(), [&](const Argument& a) { return a == items[0]; });
      if (compact) return std::to_string(items[0].to_int());
      std::string text = "[";
      for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + std::visit(*this, items[i].value);
      return text + "]";
    }
  };
  return std::visit(Printer{type}, value.value);
}

// Type with its alias annotation, as PyTorch prints it: "Tensor(a!)", "Tensor(a!)[]", "Tensor(a)?".
std::string annotated_type(const SchemaType& type, const std::string& alias) {
  std::string text = to_string(type.kind);
  if (!alias.empty()) text += "(" + alias + ")";
  if (type.is_list) {
    if (type.list_of_optional) text += "?";
    text += "[" + (type.fixed_length ? std::to_string(*type.fixed_length) : std::string()) + "]";
  }
  if (type.optional) text += "?";
  return text;
}

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  OpSchema parse() {
    OpSchema schema;
    parse_name(schema);
    expect("(", "'(' to open the argument list");
    parse_arguments(schema);
    expect("->", "'->' before the returns");
    parse_returns(schema);
    skip_space();
    if (pos_ < text_.size()) fail("expected the end of the schema after the returns", pos_);
    return schema;
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t at) const {
    throw AotError("invalid op schema \"" + std::string(text_) + "\": " + what + " at column " +
                   std::to_string(at + 1) + ", found " + describe(at));
  }

  // The token at `at`, for error messages.
  std::string describe(size_t at) const {
    if (at >= text_.size()) return "the end of the schema";
    size_t end = at + 1;
    if (is_ident_char(text_[at]) || text_[at] == '-') {
      while (end < text_.size() && (is_ident_char(text_[end]) || text_[end] == '.')) ++end;
    }
    return "'" + std::string(text_.substr(at, end - at)) + "'";
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool consume(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  void expect(std::string_view token, const std::string& what) {
    if (!consume(token)) fail("expected " + what, pos_);
  }

  std::string identifier(const std::string& what) {
    skip_space();
    if (pos_ >= text_.size() || !is_ident_start(text_[pos_])) fail("expected " + what, pos_);
    const size_t start = pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  void parse_name(OpSchema& schema) {
    const std::string ns = identifier("an operator name such as 'aten::add'");
    if (text_.substr(pos_, 2) != "::") fail("expected '::' after the namespace '" + ns + "'", pos_);
    pos_ += 2;
    if (pos_ >= text_.size() || !is_ident_start(text_[pos_])) fail("expected an operator name after '::'", pos_);
    schema.name = ns + "::" + identifier("an operator name");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      const size_t start = pos_;
      if (pos_ >= text_.size() || !is_ident_start(text_[pos_])) fail("expected an overload name after '.'", pos_);
      schema.overload = identifier("an overload name");
      if (schema.overload == "default") {
        fail("the overload name 'default' is reserved for an empty overload; leave it out", start);
      }
    }
  }

  void parse_arguments(OpSchema& schema) {
    if (consume(")")) return;
    bool kwarg_only = false;
    while (true) {
      const size_t start = pos_;
      if (consume("*")) {
        if (kwarg_only) fail("'*' appears twice", start);
        kwarg_only = true;
        expect(",", "',' and a keyword-only argument after '*'");
        continue;
      }
      SchemaArgument argument = parse_argument(kwarg_only);
      if (schema.find_argument(argument.name) != nullptr) {
        fail("argument '" + argument.name + "' appears twice", start);
      }
      schema.arguments.push_back(std::move(argument));
      if (consume(",")) continue;
      expect(")", "',' or ')' after argument '" + schema.arguments.back().name + "'");
      return;
    }
  }

  SchemaArgument parse_argument(bool kwarg_only) {
    SchemaArgument argument;
    parse_type(argument.type, argument.alias);
    argument.name = identifier("an argument name after type '" + annotated_type(argument.type, argument.alias) + "'");
    argument.kwarg_only = kwarg_only;
    argument.is_out = kwarg_only && argument.is_write();
    if (consume("=")) argument.default_value = parse_default(argument);
    return argument;
  }

  void parse_returns(OpSchema& schema) {
    skip_space();
    if (!consume("(")) {
      schema.returns.push_back(parse_return());
      return;
    }
    if (consume(")")) return;
    while (true) {
      schema.returns.push_back(parse_return());
      if (consume(",")) continue;
      expect(")", "',' or ')' in the returns");
      return;
    }
  }

  SchemaReturn parse_return() {
    SchemaReturn result;
    parse_type(result.type, result.alias);
    skip_space();
    if (pos_ < text_.size() && is_ident_start(text_[pos_])) result.name = identifier("a return name");
    return result;
  }

  // type := BASE [alias] ['?'] [ '[' [N] ']' ['?'] ]
  void parse_type(SchemaType& type, std::string& alias) {
    skip_space();
    const size_t start = pos_;
    const std::string base = identifier("a type");
    const std::optional<Kind> kind = kind_from_name(base);
    if (!kind) fail("unknown type '" + base + "' (known: " + known_type_names() + ")", start);
    type.kind = *kind;
    if (pos_ < text_.size() && text_[pos_] == '(') alias = parse_alias();
    const bool item_optional = consume("?");
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '[') {
      type.optional = item_optional;
      return;
    }
    ++pos_;
    skip_space();
    if (pos_ < text_.size() && is_digit(text_[pos_])) {
      const size_t length_start = pos_;
      int length = 0;
      const auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), length);
      pos_ = static_cast<size_t>(end - text_.data());
      if (error != std::errc() || length <= 0) fail("expected a positive list length", length_start);
      type.fixed_length = length;
    }
    expect("]", "']' to close the list type");
    type.is_list = true;
    type.list_of_optional = item_optional;
    if (peek() == '(') fail("an alias annotation after '[]' is not supported (annotate the items: Tensor(a!)[])", pos_);
    type.optional = consume("?");
    if (peek() == '[') fail("lists of lists are not supported", pos_);
  }

  // "(a!)", "(a -> *)", "(b|a)": stored without parentheses, spaced as PyTorch prints it.
  std::string parse_alias() {
    expect("(", "'('");
    auto alias_set = [&] {
      std::string sets;
      do {
        if (!sets.empty()) sets += '|';
        sets += consume("*") ? std::string("*") : identifier("an alias set such as 'a'");
      } while (consume("|"));
      return sets;
    };
    std::string alias = alias_set();
    if (consume("!")) alias += "!";
    if (consume("->")) alias += " -> " + alias_set();
    expect(")", "')' to close the alias annotation");
    return alias;
  }

  // A bare default token: "1", "-1", "1e-05", "True", "None", "contiguous_format".
  std::string word(const std::string& what) {
    skip_space();
    const size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           std::string_view(",)[]").find(text_[pos_]) == std::string_view::npos) {
      ++pos_;
    }
    if (pos_ == start) fail("expected " + what, start);
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string string_literal() {
    const size_t start = pos_;
    const char quote_char = text_[pos_++];
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote_char) {
      char c = text_[pos_++];
      if (c != '\\') {
        value += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      c = text_[pos_++];
      switch (c) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
          int code = c - '0';
          for (int i = 0; i < 2 && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '7'; ++i) {
            code = code * 8 + (text_[pos_++] - '0');
          }
          value += static_cast<char>(code);
          break;
        }
        default: value += c;
      }
    }
    if (pos_ >= text_.size()) fail("unterminated string", start);
    ++pos_;
    return value;
  }

  Argument parse_default(const SchemaArgument& argument) {
    const SchemaType& type = argument.type;
    const std::string what = "default of " + annotated_type(type, argument.alias) + " " + argument.name;
    if (!type.is_list) return parse_item(type.kind, type.optional, what);
    if (consume("[")) {
      ArgumentList items;
      if (consume("]")) return items;
      do {
        items.push_back(parse_item(type.kind, type.list_of_optional, what));
      } while (consume(","));
      expect("]", "',' or ']' in the " + what);
      return items;
    }
    skip_space();
    const size_t start = pos_;
    if (text_.substr(pos_, 4) == "None" && (pos_ + 4 == text_.size() || !is_ident_char(text_[pos_ + 4]))) {
      pos_ += 4;
      if (!type.optional) fail("bad " + what + ": None, but the type is not optional", start);
      return None{};
    }
    // A sized list takes one item for all: `int[2] padding=0` is [0, 0].
    if (!type.fixed_length) fail("bad " + what + ": expected a list such as [0, 1]", start);
    const Argument item = parse_item(type.kind, type.list_of_optional, what);
    return ArgumentList(static_cast<size_t>(*type.fixed_length), item);
  }

  Argument parse_item(Kind kind, bool allow_none, const std::string& what) {
    skip_space();
    const size_t start = pos_;
    const bool quoted = pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'');
    const std::string text = quoted ? string_literal() : word("a value for the " + what);
    auto bad = [&](const std::string& expected) -> Argument { fail("bad " + what + ": expected " + expected, start); };
    if (!quoted && text == "None") {
      if (!allow_none) fail("bad " + what + ": None, but the type is not optional", start);
      return None{};
    }
    if (quoted != (kind == Kind::String || kind == Kind::Dimname || kind == Kind::Device)) {
      return bad(quoted ? "no string" : "a string in quotes");
    }
    switch (kind) {
      case Kind::Int:
      case Kind::SymInt:
        if (text == "Mean") return int64_t{1};  // at::Reduction::Mean, as native_functions.yaml writes it
        return parse_int(text, start, what);
      case Kind::Float:
      case Kind::SymFloat:
        if (!is_number_literal(text)) return bad("a number");
        return parse_double(text, start, what);
      case Kind::Scalar:
        if (text == "True" || text == "False") return text == "True";
        if (!is_number_literal(text)) return bad("a number");
        if (is_integer_literal(text)) return parse_int(text, start, what);
        return parse_double(text, start, what);
      case Kind::Bool:
      case Kind::SymBool:
        if (text != "True" && text != "False") return bad("True or False");
        return text == "True";
      case Kind::ScalarType: {
        const std::optional<ScalarType> dtype = is_integer_literal(text)
                                                    ? scalar_type_from_code(parse_int(text, start, what))
                                                    : scalar_type_from_name(text);
        if (!dtype) return bad("a dtype such as long, float or a ScalarType number");
        return *dtype;
      }
      case Kind::Layout:
        if (text == "strided") return Layout::Strided;
        if (is_integer_literal(text)) {
          if (const auto layout = layout_from_c10(parse_int(text, start, what))) return *layout;
        }
        return bad("strided or a c10 layout number");
      case Kind::MemoryFormat:
        if (text == "contiguous_format") return MemoryFormat::Contiguous;
        if (text == "preserve_format") return MemoryFormat::Preserve;
        if (text == "channels_last") return MemoryFormat::ChannelsLast;
        if (text == "channels_last_3d") return MemoryFormat::ChannelsLast3d;
        if (is_integer_literal(text)) {
          if (const auto format = memory_format_from_c10(parse_int(text, start, what))) return *format;
        }
        return bad("contiguous_format or a c10 memory format number");
      case Kind::String:
      case Kind::Dimname:
        return text;
      case Kind::Device:
        return parse_device(text, start, what);
      case Kind::Tensor:
      case Kind::Generator:
      case Kind::Storage:
      case Kind::Any:
        break;
    }
    return bad("None (this type takes no other default)");
  }

  int64_t parse_int(const std::string& text, size_t at, const std::string& what) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!is_integer_literal(text) || error != std::errc() || end != text.data() + text.size()) {
      fail("bad " + what + ": expected an integer", at);
    }
    return value;
  }

  double parse_double(const std::string& text, size_t at, const std::string& what) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view magnitude = std::string_view(text).substr(negative ? 1 : 0);
    double value = 0;
    if (magnitude == "inf") {
      value = HUGE_VAL;
    } else if (magnitude == "nan") {
      value = std::nan("");
    } else if (std::from_chars(magnitude.data(), magnitude.data() + magnitude.size(), value).ec != std::errc()) {
      fail("bad " + what + ": the number is out of range of a double", at);
    }
    return negative ? -value : value;
  }

  Device parse_device(const std::string& text, size_t at, const std::string& what) {
    Device device;
    const size_t colon = text.find(':');
    device.type = text.substr(0, colon);
    const bool good_type = !device.type.empty() && std::all_of(device.type.begin(), device.type.end(), is_ident_char);
    if (colon != std::string::npos) {
      const std::string index = text.substr(colon + 1);
      if (!good_type || index.empty() || !std::all_of(index.begin(), index.end(), is_digit) || index.size() > 6) {
        fail("bad " + what + ": expected a device such as \"cpu\" or \"cuda:0\"", at);
      }
      device.index = std::stoi(index);
    } else if (!good_type) {
      fail("bad " + what + ": expected a device such as \"cpu\" or \"cuda:0\"", at);
    }
    return device;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ---- the table ---------------------------------------------------------------

}  // namespace

const char* to_string(SchemaType::Kind kind) {
  for (const auto& [candidate, text] : kKindNames) {
    if (candidate == kind) return text;
  }
  return "?";
}

std::string SchemaType::to_string() const { return annotated_type(*this, ""); }

std::string SchemaArgument::to_string() const {
  std::string text = annotated_type(type, alias) + " " + name;
  if (default_value) text += "=" + default_to_string(*default_value, type);
  return text;
}

std::string SchemaReturn::to_string() const {
  return annotated_type(type, alias) + (name.empty() ? "" : " " + name);
}

std::string OpSchema::qualified_name() const { return name + "." + (overload.empty() ? "default" : overload); }

std::string OpSchema::to_string() const {
  std::string text = name + (overload.empty() ? "" : "." + overload) + "(";
  bool seen_kwarg_only = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) text += ", ";
    if (arguments[i].kwarg_only && !seen_kwarg_only) {
      text += "*, ";
      seen_kwarg_only = true;
    }
    text += arguments[i].to_string();
  }
  text += ") -> ";
  if (returns.size() == 1) return text + returns[0].to_string();
  text += "(";
  for (size_t i = 0; i < returns.size(); ++i) text += (i ? ", " : "") + returns[i].to_string();
  return text + ")";
}

const SchemaArgument* OpSchema::find_argument(std::string_view wanted) const {
  for (const SchemaArgument& argument : arguments) {
    if (argument.name == wanted) return &argument;
  }
  return nullptr;
}

size_t OpSchema::num_out_arguments() const {
  return static_cast<size_t>(
      std::count_if(arguments.begin(), arguments.end(), [](const SchemaArgument& a) { return a.is_out; }));
}

OpSchema parse_op_schema(std::string_view text) { return SchemaParser(text).parse(); }

const OpSchema* view_copy_twin(const OpSchema& schema) {
  if (!schema.out_variant.empty() || schema.arguments.empty()) return nullptr;
  const std::string& alias = schema.arguments[0].alias;
  if (alias != "a" && alias != "a -> *") return nullptr;
  const OpSchema* copy =
      find_op_schema(schema.name + "_copy." + (schema.overload.empty() ? "default" : schema.overload));
  return copy != nullptr && !copy->out_variant.empty() ? copy : nullptr;
}

const OpSchema* functional_of_inplace(const OpSchema& schema) {
  if (schema.name.size() < 2 || schema.name.back() != '_' || schema.name[schema.name.size() - 2] == '_' ||
      schema.arguments.empty() || !schema.arguments[0].is_write() || schema.is_out_variant()) {
    return nullptr;
  }
  for (size_t i = 1; i < schema.arguments.size(); ++i) {
    if (schema.arguments[i].is_write()) return nullptr;
  }
  const std::string base = schema.name.substr(0, schema.name.size() - 1);
  const std::string overload = "." + (schema.overload.empty() ? std::string("default") : schema.overload);
  // Where the name is taken by other overloads, torch names the functional
  // twin <op>_functional (normal_ and normal_functional).
  const OpSchema* functional = find_op_schema(base + overload);
  if (functional == nullptr) functional = find_op_schema(base + "_functional" + overload);
  if (functional == nullptr || functional->is_out_variant() || functional->returns.size() != 1 ||
      functional->arguments.size() != schema.arguments.size()) {
    return nullptr;
  }
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    SchemaArgument self = schema.arguments[i];
    if (i == 0) {  // dropout_(Tensor(a!) self, ...) and dropout(Tensor input, ...): self's name may differ
      self.alias = functional->arguments[0].alias;
      self.name = functional->arguments[0].name;
    }
    if (!(self == functional->arguments[i])) return nullptr;
  }
  return functional;
}

}  // namespace kiln::aot
