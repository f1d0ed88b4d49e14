#include "aot/emit/constant_methods.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "aot/emit/tree_spec_json.h"
#include "aot/ir/error.h"

namespace kiln::aot {

namespace fb = executorch_flatbuffer;
using nlohmann::json;

namespace {

enum class Kind { Int, Float, Bool, String, Other };

Kind kind_of(const json& value) {
  if (value.is_boolean()) return Kind::Bool;
  if (value.is_number_integer()) return Kind::Int;
  if (value.is_number_float()) return Kind::Float;
  if (value.is_string()) return Kind::String;
  return Kind::Other;
}

// "an integer (3)", "a list", ... for error messages.
std::string describe_json(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "a list";
    case json::value_t::boolean: return "a boolean (" + value.dump() + ")";
    case json::value_t::string: return "a string (" + value.dump() + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer (" + value.dump() + ")";
    case json::value_t::number_float: return "a float (" + value.dump() + ")";
    default: return "a " + std::string(value.type_name());
  }
}

const char* plural_name(Kind kind) {
  switch (kind) {
    case Kind::Int: return "integers";
    case Kind::Float: return "floats";
    case Kind::Bool: return "booleans";
    case Kind::String: return "strings";
    case Kind::Other: break;
  }
  return "values";
}

int64_t to_int64(const json& value, const std::string& where) {
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw AotError(where + " is an integer (" + value.dump() + ") out of the range of int64");
  }
  return value.get<int64_t>();
}

template <typename T, typename Read>
std::vector<T> list_of(const json& items, Kind kind, const std::string& key, Read&& read) {
  std::vector<T> list;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string where = key + "[" + std::to_string(i) + "]";
    if (kind_of(items[i]) != kind) {
      throw AotError(where + " is " + describe_json(items[i]) + " in a list of " + plural_name(kind) +
                     " (a list holds one kind of value)");
    }
    list.push_back(read(items[i], where));
  }
  return list;
}

ConstantValue from_json(const json& value, const std::string& key) {
  const auto read_int = [](const json& item, const std::string& where) { return to_int64(item, where); };
  const auto read_double = [](const json& item, const std::string&) { return item.get<double>(); };
  const auto read_bool = [](const json& item, const std::string&) { return item.get<bool>(); };
  const auto read_string = [](const json& item, const std::string&) { return item.get<std::string>(); };
  switch (kind_of(value)) {
    case Kind::Int: return read_int(value, key);
    case Kind::Float: return value.get<double>();
    case Kind::Bool: return value.get<bool>();
    case Kind::String: return value.get<std::string>();
    case Kind::Other: break;
  }
  if (!value.is_array()) {
    throw AotError(key + " is " + describe_json(value) +
                   "; a constant method returns an integer, a float, a boolean, a string or a list of one of those");
  }
  if (value.empty()) return std::vector<int64_t>{};
  const Kind kind = kind_of(value[0]);
  switch (kind) {
    case Kind::Int: return list_of<int64_t>(value, kind, key, read_int);
    case Kind::Float: return list_of<double>(value, kind, key, read_double);
    case Kind::Bool: return list_of<bool>(value, kind, key, read_bool);
    case Kind::String: return list_of<std::string>(value, kind, key, read_string);
    case Kind::Other: break;
  }
  throw AotError(key + "[0] is " + describe_json(value[0]) +
                 "; a list holds integers, floats, booleans or strings (no nested lists or objects)");
}

// One EValue per leaf, as ExecuTorch's emitter boxes each flattened item.
template <typename Payload>
fb::EValueT boxed(Payload payload) {
  fb::EValueT value;
  value.val.Set(std::move(payload));
  return value;
}
fb::EValueT evalue(int64_t v) {
  fb::IntT payload;
  payload.int_val = v;
  return boxed(std::move(payload));
}
fb::EValueT evalue(double v) {
  fb::DoubleT payload;
  payload.double_val = v;
  return boxed(std::move(payload));
}
fb::EValueT evalue(bool v) {
  fb::BoolT payload;
  payload.bool_val = v;
  return boxed(std::move(payload));
}
fb::EValueT evalue(const std::string& v) {
  fb::StringT payload;
  payload.string_val = v;
  return boxed(std::move(payload));
}

template <typename T>
constexpr bool is_list = false;
template <typename T>
constexpr bool is_list<std::vector<T>> = true;

}  // namespace

std::string to_string(const ConstantValue& value) {
  const auto text = [](const json& item) { return item.dump(-1, ' ', false, json::error_handler_t::replace); };
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (!is_list<T>) {
          return text(v);
        } else {
          std::string list = "[";  // spaced as json.dumps writes it
          for (size_t i = 0; i < v.size(); ++i) list += (i ? ", " : "") + text(static_cast<typename T::value_type>(v[i]));
          return list + "]";
        }
      },
      value);
}

ConstantMethods parse_constant_methods(std::string_view json_text, const std::string& source) {
  json document;
  try {
    document = json::parse(json_text);
  } catch (const json::exception& error) {
    throw AotError(source + ": not valid JSON: " + error.what());
  }
  if (!document.is_object()) {
    throw AotError(source + ": expected a JSON object of method name -> value, got " + describe_json(document));
  }
  ConstantMethods methods;
  for (const auto& [name, value] : document.items()) {
    if (name.empty()) throw AotError(source + ": a constant method has an empty name");
    try {
      methods.emplace(name, from_json(value, "'" + name + "'"));
    } catch (const AotError& error) {
      throw AotError(source + ": " + error.what());
    }
  }
  return methods;
}

std::unique_ptr<fb::ExecutionPlanT> emit_constant_method(const std::string& name, const ConstantValue& value) {
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan->name = name;
  TreeSpec spec;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (is_list<T>) {
          spec.kind = TreeSpec::Kind::List;
          for (const auto& item : v) {
            plan->values.push_back(std::make_unique<fb::EValueT>(evalue(static_cast<typename T::value_type>(item))));
            spec.children.push_back(TreeSpec::leaf());
          }
        } else {
          plan->values.push_back(std::make_unique<fb::EValueT>(evalue(v)));
        }
      },
      value);
  for (size_t i = 0; i < plan->values.size(); ++i) plan->outputs.push_back(static_cast<int32_t>(i));
  plan->container_meta_type = std::make_unique<fb::ContainerMetadataT>();
  plan->container_meta_type->encoded_out_str = tree_spec_to_json(spec);
  plan->chains.push_back(std::make_unique<fb::ChainT>());
  plan->non_const_buffer_sizes = {0};
  return plan;
}

}  // namespace kiln::aot
