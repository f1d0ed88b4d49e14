// Attribute and item access, the Python methods templates call on strings,
// dicts and lists, and the globals.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>

#include "llm/jinja/builtins.h"
#include "llm/jinja/error.h"
#include "llm/jinja/python_string.h"
#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja {
namespace {

// Jinja's sandbox refuses longer ranges (its MAX_RANGE).
constexpr int64_t kMaxRangeLength = 100000;

// Methods that would change a list or dict; the immutable sandbox refuses them.
constexpr std::string_view kMutatingMethods[] = {"append", "extend",  "insert", "pop",        "remove", "clear",
                                                 "sort",   "reverse", "update", "setdefault", "popitem"};

ValueList strings(const std::vector<std::string>& parts) { return ValueList(parts.begin(), parts.end()); }

int64_t int_argument(const BoundArguments& arguments, size_t index, int64_t fallback) {
  if (!arguments.given(index) || arguments[index].is_none()) return fallback;
  if (!arguments[index].is_int() && !arguments[index].is_bool()) {
    throw TemplateError("expected an integer argument, got " + arguments[index].type_name());
  }
  return arguments[index].as_int();
}

std::optional<std::string_view> optional_string(const BoundArguments& arguments, size_t index) {
  if (!arguments.given(index) || arguments[index].is_none()) return std::nullopt;
  return arguments.string(index);
}

// `text.startswith(prefix)` where prefix may be a tuple of prefixes.
bool matches_affix(const std::string& text, const Value& affixes, bool at_start) {
  const ValueList candidates = affixes.is_list() ? affixes.as_list() : ValueList{affixes};
  for (const Value& candidate : candidates) {
    if (!candidate.is_string()) {
      throw TemplateError(std::string(at_start ? "startswith" : "endswith") +
                          " first arg must be str or a tuple of str, not " + candidate.type_name());
    }
    const std::string& affix = candidate.as_string();
    if (affix.size() > text.size()) continue;
    if (text.compare(at_start ? 0 : text.size() - affix.size(), affix.size(), affix) == 0) return true;
  }
  return false;
}

Value call_string_method(const std::string& self, const std::string& name, const CallArguments& call) {
  const std::string callee = "str." + name;
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    BoundArguments arguments(callee, call, {"chars"});
    const std::optional<std::string_view> chars = optional_string(arguments, 0);
    const std::u32string set = chars ? unicode::decode(*chars) : std::u32string();
    return unicode::strip(self, chars ? &set : nullptr, name != "rstrip", name != "lstrip");
  }
  if (name == "split" || name == "rsplit") {
    BoundArguments arguments(callee, call, {"sep", "maxsplit"});
    const auto parts = name == "split"
                           ? python::split(self, optional_string(arguments, 0), int_argument(arguments, 1, -1))
                           : python::rsplit(self, optional_string(arguments, 0), int_argument(arguments, 1, -1));
    return strings(parts);
  }
  if (name == "splitlines") {
    BoundArguments arguments(callee, call, {});
    return strings(python::splitlines(self));
  }
  if (name == "startswith" || name == "endswith") {
    BoundArguments arguments(callee, call, {"affix"});
    return matches_affix(self, arguments.required(0), name == "startswith");
  }
  if (name == "lower" || name == "upper" || name == "capitalize" || name == "title") {
    BoundArguments arguments(callee, call, {});
    if (name == "lower") return unicode::lower(self);
    if (name == "upper") return unicode::upper(self);
    return name == "capitalize" ? python::capitalize(self) : python::title(self);
  }
  if (name == "replace") {
    BoundArguments arguments(callee, call, {"old", "new", "count"});
    return python::replace(self, arguments.string(0), arguments.string(1), int_argument(arguments, 2, -1));
  }
  if (name == "find" || name == "count") {
    BoundArguments arguments(callee, call, {"sub"});
    return name == "find" ? python::find(self, arguments.string(0)) : python::count(self, arguments.string(0));
  }
  if (name == "join") {
    BoundArguments arguments(callee, call, {"iterable"});
    std::string out;
    bool first = true;
    for (const Value& item : arguments.required(0).iterate()) {
      if (!item.is_string())
        throw TemplateError("sequence item: expected str instance, " + item.type_name() + " found");
      out += (first ? "" : self) + item.as_string();
      first = false;
    }
    return out;
  }
  if (name == "isspace" || name == "isdigit") {
    BoundArguments arguments(callee, call, {});
    const std::u32string characters = unicode::decode(self);
    if (characters.empty()) return false;
    return std::all_of(characters.begin(), characters.end(),
                       [&](char32_t c) { return name == "isspace" ? unicode::is_space(c) : (c >= '0' && c <= '9'); });
  }
  throw TemplateError("no method " + callee);
}

Value call_dict_method(const Value& self, const std::string& name, const CallArguments& call) {
  const std::string callee = "dict." + name;
  if (name == "get") {
    BoundArguments arguments(callee, call, {"key", "default"});
    const Value& key = arguments.required(0);
    const Value* found = key.is_string() ? self.find(key.as_string()) : nullptr;
    return found ? *found : (arguments.given(1) ? arguments[1] : Value::none());
  }
  BoundArguments arguments(callee, call, {});
  ValueList out;
  for (const auto& [key, value] : self.as_dict()) {
    if (name == "keys") {
      out.emplace_back(key);
    } else if (name == "values") {
      out.push_back(value);
    } else {
      out.push_back(Value::tuple({key, value}));
    }
  }
  return out;
}

Value call_list_method(const ValueList& self, const std::string& name, const CallArguments& call) {
  BoundArguments arguments("list." + name, call, {"value"});
  const Value& wanted = arguments.required(0);
  if (name == "count") return static_cast<int64_t>(std::count(self.begin(), self.end(), wanted));
  const auto found = std::find(self.begin(), self.end(), wanted);
  if (found == self.end()) throw TemplateError(wanted.repr() + " is not in list");
  return static_cast<int64_t>(found - self.begin());
}

bool is_string_method(const std::string& name) {
  static constexpr std::string_view kNames[] = {"strip",      "lstrip",   "rstrip", "split", "rsplit",     "splitlines",
                                                "startswith", "endswith", "lower",  "upper", "capitalize", "title",
                                                "replace",    "find",     "count",  "join",  "isspace",    "isdigit"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// The method `name` of `object`, bound to it, if its type has one.
std::optional<Value> find_method(const Value& object, const std::string& name) {
  if ((object.is_list() || object.is_dict()) &&
      std::find(std::begin(kMutatingMethods), std::end(kMutatingMethods), name) != std::end(kMutatingMethods)) {
    throw TemplateError(object.type_name() + "." + name +
                        "() would change a value; chat templates render in Jinja's immutable sandbox");
  }
  const std::string qualified = object.type_name() + "." + name;
  if (object.is_string() && is_string_method(name)) {
    return Value(Function{qualified, [self = object.as_string(), name](const CallArguments& call) {
                            return call_string_method(self, name, call);
                          }});
  }
  if (object.is_dict() && (name == "items" || name == "keys" || name == "values" || name == "get")) {
    return Value(Function{
        qualified, [self = object, name](const CallArguments& call) { return call_dict_method(self, name, call); }});
  }
  if (object.is_list() && (name == "index" || name == "count")) {
    return Value(Function{qualified, [self = object, name](const CallArguments& call) {
                            return call_list_method(self.as_list(), name, call);
                          }});
  }
  return std::nullopt;
}

// Python's slice.indices: the positions `[start:stop:step]` selects from a
// sequence of `length` elements.
std::vector<int64_t> slice_positions(int64_t length, const Value& start, const Value& stop, const Value& step) {
  const auto bound = [](const Value& value, const char* what) -> std::optional<int64_t> {
    if (value.is_undefined() || value.is_none()) return std::nullopt;
    if (!value.is_int() && !value.is_bool()) {
      throw TemplateError(std::string("slice ") + what + " must be an integer or none, not " + value.type_name());
    }
    return value.as_int();
  };
  const int64_t stride = bound(step, "step").value_or(1);
  if (stride == 0) throw TemplateError("slice step cannot be zero");
  const auto clamp = [&](std::optional<int64_t> index, int64_t fallback) {
    if (!index) return fallback;
    int64_t position = *index < 0 ? *index + length : *index;
    const int64_t lowest = stride > 0 ? 0 : -1;
    const int64_t highest = stride > 0 ? length : length - 1;
    return std::clamp(position, lowest, highest);
  };
  const int64_t first = clamp(bound(start, "start"), stride > 0 ? 0 : length - 1);
  const int64_t last = clamp(bound(stop, "stop"), stride > 0 ? length : -1);
  std::vector<int64_t> positions;
  for (int64_t i = first; stride > 0 ? i < last : i > last; i += stride) positions.push_back(i);
  return positions;
}

Value make_namespace(const CallArguments& call) {
  auto result = std::make_shared<Namespace>();
  for (const Value& mapping : call.positional) {
    if (!mapping.is_dict()) throw TemplateError("namespace() takes mappings and keyword arguments");
    for (const auto& entry : mapping.as_dict()) result->attributes.push_back(entry);
  }
  for (const auto& [key, value] : call.keywords) {
    if (!key.empty() && key[0] == '_') {
      throw TemplateError("chat templates cannot store underscore-prefixed attributes on a namespace, but got '" + key +
                          "'");
    }
    result->attributes.emplace_back(key, value);
  }
  return result;
}

Value make_dict(const CallArguments& call) {
  ValueDict entries;
  const auto put = [&](const std::string& key, const Value& value) {
    for (auto& entry : entries) {
      if (entry.first == key) {
        entry.second = value;
        return;
      }
    }
    entries.emplace_back(key, value);
  };
  if (call.positional.size() > 1) throw TemplateError("dict expected at most 1 argument");
  if (!call.positional.empty()) {
    const Value& source = call.positional[0];
    if (source.is_dict()) {
      for (const auto& [key, value] : source.as_dict()) put(key, value);
    } else {
      for (const Value& pair : source.iterate()) {
        if (!pair.is_list() || pair.as_list().size() != 2 || !pair.as_list()[0].is_string()) {
          throw TemplateError("dict() takes a mapping or a sequence of (string key, value) pairs");
        }
        put(pair.as_list()[0].as_string(), pair.as_list()[1]);
      }
    }
  }
  for (const auto& [key, value] : call.keywords) put(key, value);
  return entries;
}

Value make_range(const CallArguments& call) {
  BoundArguments arguments("range", call, {"start", "stop", "step"});
  const auto integer = [&](size_t index) {
    if (!arguments[index].is_int() && !arguments[index].is_bool()) {
      throw TemplateError("range() takes integers, not " + arguments[index].type_name());
    }
    return arguments[index].as_int();
  };
  int64_t start = 0, stop = 0, step = 1;
  if (arguments.given(1)) {
    start = integer(0);
    stop = integer(1);
    if (arguments.given(2)) step = integer(2);
  } else {
    stop = integer(0);
  }
  if (step == 0) throw TemplateError("range() arg 3 must not be zero");
  ValueList out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (static_cast<int64_t>(out.size()) == kMaxRangeLength) {
      throw TemplateError("range too big: the sandbox allows at most " + std::to_string(kMaxRangeLength) + " elements");
    }
    out.emplace_back(i);
  }
  return out;
}

Value strftime_now(const CallArguments& call) {
  BoundArguments arguments("strftime_now", call, {"format"});
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[256];
  const size_t length = std::strftime(text, sizeof text, arguments.string(0).c_str(), &local);
  return std::string(text, length);
}

}  // namespace

BoundArguments::BoundArguments(std::string_view callee, const CallArguments& call,
                               std::initializer_list<const char*> parameters, bool variadic)
    : callee_(callee), names_(parameters), values_(parameters.size()), given_(parameters.size(), false) {
  for (size_t i = 0; i < call.positional.size(); ++i) {
    if (i < names_.size()) {
      values_[i] = call.positional[i];
      given_[i] = true;
    } else if (variadic) {
      rest_.push_back(call.positional[i]);
    } else {
      throw TemplateError(callee_ + "() takes at most " + std::to_string(names_.size()) + " argument" +
                          (names_.size() == 1 ? "" : "s") + " (" + std::to_string(call.positional.size()) + " given)");
    }
  }
  for (const auto& [name, value] : call.keywords) {
    const std::string& wanted = name;  // clang 14 cannot capture a structured binding
    const auto found = std::find_if(names_.begin(), names_.end(), [&](const char* n) { return wanted == n; });
    if (found == names_.end()) throw TemplateError(callee_ + "() got an unexpected keyword argument '" + name + "'");
    const size_t index = found - names_.begin();
    if (given_[index]) throw TemplateError(callee_ + "() got multiple values for argument '" + name + "'");
    values_[index] = value;
    given_[index] = true;
  }
}

const Value& BoundArguments::required(size_t index) const {
  if (!given_[index]) throw TemplateError(callee_ + "() missing required argument '" + names_[index] + "'");
  return values_[index];
}

const std::string& BoundArguments::string(size_t index) const {
  const Value& value = required(index);
  if (!value.is_string()) {
    throw TemplateError(callee_ + "() argument '" + names_[index] + "' must be a string, not " + value.type_name());
  }
  return value.as_string();
}

Value get_attribute(const Value& object, const std::string& name) {
  if (object.is_undefined()) throw TemplateError(object.undefined_reason());
  if (object.is_namespace()) {
    const Value* found = object.find(name);
    return found ? *found : Value::missing(object, name);
  }
  if (std::optional<Value> method = find_method(object, name)) return *method;
  const Value* found = object.find(name);
  return found ? *found : Value::missing(object, name);
}

Value get_item(const Value& object, const Value& key) {
  if (object.is_undefined()) throw TemplateError(object.undefined_reason());
  const bool integer_key = key.is_int() || key.is_bool();
  if ((object.is_list() || object.is_string()) && integer_key) {
    const ValueList elements = object.is_list() ? ValueList() : object.iterate();
    const ValueList& sequence = object.is_list() ? object.as_list() : elements;
    const int64_t length = static_cast<int64_t>(sequence.size());
    const int64_t index = key.as_int() < 0 ? key.as_int() + length : key.as_int();
    if (index >= 0 && index < length) return sequence[index];
  } else if ((object.is_dict() || object.is_namespace()) && key.is_string()) {
    if (const Value* found = object.find(key.as_string())) return *found;
  }
  if (key.is_string()) return get_attribute(object, key.as_string());
  return Value::missing(object, key);
}

Value get_slice(const Value& object, const Value& start, const Value& stop, const Value& step) {
  if (object.is_undefined()) throw TemplateError(object.undefined_reason());
  if (!object.is_list() && !object.is_string())
    throw TemplateError("'" + object.type_name() + "' object is not sliceable");
  const ValueList elements = object.is_list() ? ValueList() : object.iterate();
  const ValueList& sequence = object.is_list() ? object.as_list() : elements;
  const std::vector<int64_t> positions = slice_positions(static_cast<int64_t>(sequence.size()), start, stop, step);
  if (object.is_string()) {
    std::string out;
    for (int64_t i : positions) out += sequence[i].as_string();
    return out;
  }
  ValueList out;
  for (int64_t i : positions) out.push_back(sequence[i]);
  return out;
}

ValueDict builtin_globals() {
  return {
      {"raise_exception", Function{"raise_exception",
                                   [](const CallArguments& call) -> Value {
                                     BoundArguments arguments("raise_exception", call, {"message"});
                                     throw TemplateError("the template raised an exception: " +
                                                         arguments.required(0).str());
                                   }}},
      {"strftime_now", Function{"strftime_now", strftime_now}},
      {"namespace", Function{"namespace", make_namespace}},
      {"dict", Function{"dict", make_dict}},
      {"range", Function{"range", make_range}},
  };
}

}  // namespace kiln::llm::jinja
