// Deserializes torch.export's ExportedProgram JSON. Each node of the JSON
// becomes a call_function node whose arguments follow its op schema (absent
// defaults filled in); a multi-output node gets one getitem per output that is
// used, as fx has them; graph inputs become placeholders in signature order.
#include "aot/import/program_json.h"

#include <limits>

#include "aot/import/sympy_srepr.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"

namespace kiln::aot {

using nlohmann::json;

namespace {

const json& field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw AotError(where + ": missing field '" + key + "'");
  }
  return object.at(key);
}

// A union is an object with one key: {"as_tensor": {...}}.
std::pair<std::string, const json*> union_of(const json& value, const std::string& where) {
  if (!value.is_object() || value.empty()) throw AotError(where + ": expected a one-key object (a union)");
  const auto it = value.begin();
  return {it.key(), &it.value()};
}

int64_t as_int(const json& value, const std::string& where) {
  if (!value.is_number_integer()) throw AotError(where + ": expected an integer, got " + value.dump());
  return value.get<int64_t>();
}

double as_float(const json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  throw AotError(where + ": expected a float, got " + value.dump());
}

std::string as_string(const json& value, const std::string& where) {
  if (!value.is_string()) throw AotError(where + ": expected a string, got " + value.dump());
  return value.get<std::string>();
}

const json& as_array(const json& value, const std::string& where) {
  if (!value.is_array()) throw AotError(where + ": expected a list, got " + value.dump());
  return value;
}

SymExpr sym_int_from_json(const json& value, const std::string& where) {
  const auto [kind, payload] = union_of(value, where);
  if (kind == "as_int") return SymExpr::constant(as_int(*payload, where));
  if (kind == "as_expr") return parse_sympy_srepr(as_string(field(*payload, "expr_str", where), where));
  throw AotError(where + ": unknown SymInt kind '" + kind + "'");
}

Layout layout_from_pt2(int64_t code, const std::string& where) {
  if (code < 0 || code > 7) throw AotError(where + ": unknown layout code " + std::to_string(code));
  return static_cast<Layout>(code);
}

MemoryFormat memory_format_from_pt2(int64_t code, const std::string& where) {
  if (code < 0 || code > 4) throw AotError(where + ": unknown memory format code " + std::to_string(code));
  return static_cast<MemoryFormat>(code);
}

Device device_from_json(const json& value, const std::string& where) {
  Device device;
  device.type = as_string(field(value, "type", where), where);
  if (value.contains("index") && !value.at("index").is_null()) device.index = static_cast<int>(as_int(value.at("index"), where));
  return device;
}

// Dim order from strides: outermost (largest stride) first, ties by index.
std::vector<uint8_t> dim_order_from_strides(const std::vector<SymExpr>& strides) {
  std::vector<uint8_t> order(strides.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
  for (const SymExpr& stride : strides) {
    if (!stride.is_constant()) return {};  // symbolic strides: assume contiguous
  }
  std::stable_sort(order.begin(), order.end(), [&](uint8_t a, uint8_t b) {
    return *strides[a].constant_value() > *strides[b].constant_value();
  });
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != i) return order;
  }
  return {};
}

}  // namespace

ScalarType scalar_type_from_pt2(int64_t code) {
  switch (code) {
    case 1: return ScalarType::Byte;
    case 2: return ScalarType::Char;
    case 3: return ScalarType::Short;
    case 4: return ScalarType::Int;
    case 5: return ScalarType::Long;
    case 6: return ScalarType::Half;
    case 7: return ScalarType::Float;
    case 8: return ScalarType::Double;
    case 10: return ScalarType::ComplexFloat;
    case 11: return ScalarType::ComplexDouble;
    case 12: return ScalarType::Bool;
    case 13: return ScalarType::BFloat16;
    case 28: return ScalarType::UInt16;
    case 29: return ScalarType::Float8_e4m3fn;
    case 30: return ScalarType::Float8_e5m2;
    case 31: return ScalarType::Float8_e4m3fnuz;
    case 32: return ScalarType::Float8_e5m2fnuz;
    case 34: return ScalarType::UInt32;
    case 35: return ScalarType::UInt64;
    default: break;
  }
  throw AotError("unknown or unsupported dtype code " + std::to_string(code) +
                 (code == 9 ? " (ComplexHalf is not supported)" : ""));
}

TensorMeta tensor_meta_from_json(const json& value) {
  const std::string where = "tensor meta";
  TensorMeta meta;
  meta.dtype = scalar_type_from_pt2(as_int(field(value, "dtype", where), where));
  for (const json& size : as_array(field(value, "sizes", where), where)) meta.sizes.push_back(sym_int_from_json(size, where));
  if (value.contains("strides")) {
    std::vector<SymExpr> strides;
    for (const json& stride : as_array(value.at("strides"), where)) strides.push_back(sym_int_from_json(stride, where));
    if (strides.size() != meta.sizes.size()) throw AotError(where + ": " + std::to_string(strides.size()) + " strides for " + std::to_string(meta.sizes.size()) + " sizes");
    meta.dim_order = dim_order_from_strides(strides);
  }
  if (value.contains("requires_grad") && value.at("requires_grad").is_boolean()) meta.requires_grad = value.at("requires_grad").get<bool>();
  return meta;
}

TreeSpec tree_spec_from_json(const std::string& text) {
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::exception& error) {
    throw AotError("tree spec is not JSON: " + std::string(error.what()));
  }
  if (!parsed.is_array() || parsed.size() != 2 || !parsed[0].is_number_integer()) {
    throw AotError("tree spec must be [protocol, node], got " + text.substr(0, 80));
  }
  if (parsed[0].get<int64_t>() != 1) throw AotError("tree spec protocol " + parsed[0].dump() + " is not supported (Kiln reads 1)");
  std::function<TreeSpec(const json&)> node = [&](const json& value) -> TreeSpec {
    const std::string where = "tree spec";
    TreeSpec spec;
    const json& type = field(value, "type", where);
    std::vector<TreeSpec> children;
    for (const json& child : as_array(field(value, "children_spec", where), where)) children.push_back(node(child));
    if (type.is_null()) {
      if (!children.empty()) throw AotError(where + ": a leaf with children");
      return TreeSpec::leaf();
    }
    const std::string name = as_string(type, where);
    spec.children = std::move(children);
    if (name == "builtins.tuple" || name == "collections.namedtuple") {
      spec.kind = TreeSpec::Kind::Tuple;
    } else if (name == "builtins.list") {
      spec.kind = TreeSpec::Kind::List;
    } else if (name == "builtins.NoneType" || name == "NoneType") {
      spec.kind = TreeSpec::Kind::None;
    } else if (name == "builtins.dict" || name == "collections.OrderedDict") {
      spec.kind = TreeSpec::Kind::Dict;
      json keys;
      try {
        keys = json::parse(as_string(field(value, "context", where), where));
      } catch (const json::exception& error) {
        throw AotError(where + ": dict keys are not JSON: " + error.what());
      }
      for (const json& key : as_array(keys, where)) spec.context.push_back(key.is_string() ? key.get<std::string>() : key.dump());
      if (spec.context.size() != spec.children.size()) throw AotError(where + ": dict keys and children differ in number");
    } else {
      throw AotError(where + ": unsupported container type '" + name + "'");
    }
    return spec;
  };
  return node(parsed[1]);
}

namespace {

class GraphReader {
 public:
  explicit GraphReader(const json& graph) : json_(graph), graph_(std::make_unique<Graph>()) {}

  ProgramParts read(const json& program) {
    const json& module = field(program, "graph_module", "program");
    read_signature(field(module, "signature", "graph_module"));
    read_inputs();
    for (const json& node : as_array(field(json_, "nodes", "graph"), "graph.nodes")) read_node(node);
    read_outputs();
    ProgramParts parts;
    parts.signature = std::move(signature_);
    parts.range_constraints = read_range_constraints(program);
    parts.module_call_graph = read_module_call_graph(module);
    parts.graph = std::move(graph_);
    return parts;
  }

 private:
  ValueMeta meta_of(const std::string& name) const {
    if (json_.contains("tensor_values") && json_.at("tensor_values").contains(name)) {
      try {
        return tensor_meta_from_json(json_.at("tensor_values").at(name));
      } catch (const AotError& error) {
        throw AotError("value '" + name + "': " + error.what());
      }
    }
    if (json_.contains("sym_int_values") && json_.at("sym_int_values").contains(name)) {
      return sym_int_from_json(json_.at("sym_int_values").at(name), "value '" + name + "'");
    }
    return {};
  }

  Node* lookup(const std::string& name, const std::string& where) const {
    Node* node = graph_->find_node(name);
    if (node == nullptr) throw AotError(where + ": refers to '" + name + "', which is not defined before it");
    return node;
  }

  // The name a graph input or output argument carries.
  static std::string argument_name(const json& argument, const std::string& where) {
    const auto [kind, payload] = union_of(argument, where);
    if (kind == "as_tensor" || kind == "as_custom_obj" || kind == "as_token") return as_string(field(*payload, "name", where), where);
    if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
      const auto [inner, name] = union_of(*payload, where);
      if (inner != "as_name") throw AotError(where + ": expected a named symbolic value");
      return as_string(*name, where);
    }
    if (kind == "name") return as_string(*payload, where);
    return "";
  }

  ArgumentSpec argument_spec(const json& argument, const std::string& where) const {
    // Mutation and loss outputs carry a bare TensorArgument ({"name": ...}).
    if (argument.is_object() && argument.contains("name") && argument.at("name").is_string()) {
      return ArgumentSpec::tensor(argument.at("name").get<std::string>());
    }
    const auto [kind, payload] = union_of(argument, where);
    if (kind == "as_tensor") return ArgumentSpec::tensor(argument_name(argument, where));
    if (kind == "as_sym_int") return ArgumentSpec::sym_int(argument_name(argument, where));
    if (kind == "as_custom_obj") {
      return ArgumentSpec::custom_obj(argument_name(argument, where), as_string(field(*payload, "class_fqn", where), where));
    }
    if (kind == "as_token") return ArgumentSpec::token(argument_name(argument, where));
    return ArgumentSpec::constant("", constant_argument(kind, *payload, where));
  }

  static Argument constant_argument(const std::string& kind, const json& payload, const std::string& where) {
    if (kind == "as_none") return None{};
    if (kind == "as_int") return as_int(payload, where);
    if (kind == "as_float") return as_float(payload, where);
    if (kind == "as_bool") return payload.get<bool>();
    if (kind == "as_string") return as_string(payload, where);
    throw AotError(where + ": unsupported constant kind '" + kind + "'");
  }

  void read_signature(const json& signature) {
    for (const json& spec : as_array(field(signature, "input_specs", "signature"), "input_specs")) {
      const std::string where = "input spec " + std::to_string(signature_.input_specs.size());
      const auto [kind, payload] = union_of(spec, where);
      InputSpec input;
      const json& p = *payload;
      if (kind == "user_input") {
        input.kind = InputKind::UserInput;
        input.arg = argument_spec(field(p, "arg", where), where);
      } else if (kind == "parameter") {
        input = {InputKind::Parameter, ArgumentSpec::tensor(as_string(field(field(p, "arg", where), "name", where), where)),
                 as_string(field(p, "parameter_name", where), where), std::nullopt};
      } else if (kind == "buffer") {
        input = {InputKind::Buffer, ArgumentSpec::tensor(as_string(field(field(p, "arg", where), "name", where), where)),
                 as_string(field(p, "buffer_name", where), where), field(p, "persistent", where).get<bool>()};
      } else if (kind == "tensor_constant") {
        input = {InputKind::ConstantTensor, ArgumentSpec::tensor(as_string(field(field(p, "arg", where), "name", where), where)),
                 as_string(field(p, "tensor_constant_name", where), where), std::nullopt};
      } else if (kind == "custom_obj") {
        const json& arg = field(p, "arg", where);
        input = {InputKind::CustomObj,
                 ArgumentSpec::custom_obj(as_string(field(arg, "name", where), where), as_string(field(arg, "class_fqn", where), where)),
                 as_string(field(p, "custom_obj_name", where), where), std::nullopt};
      } else if (kind == "token") {
        input = {InputKind::Token, ArgumentSpec::token(as_string(field(field(p, "arg", where), "name", where), where)), "", std::nullopt};
      } else if (kind == "constant_input") {
        const auto [value_kind, value] = union_of(field(p, "value", where), where);
        input.kind = InputKind::UserInput;
        input.arg = ArgumentSpec::constant(as_string(field(p, "name", where), where), constant_argument(value_kind, *value, where));
      } else {
        throw AotError(where + ": unknown input kind '" + kind + "'");
      }
      signature_.input_specs.push_back(std::move(input));
    }
    for (const json& spec : as_array(field(signature, "output_specs", "signature"), "output_specs")) {
      const std::string where = "output spec " + std::to_string(signature_.output_specs.size());
      const auto [kind, payload] = union_of(spec, where);
      const json& p = *payload;
      OutputSpec output;
      output.arg = argument_spec(field(p, "arg", where), where);
      if (kind == "user_output") {
        output.kind = OutputKind::UserOutput;
      } else if (kind == "loss_output") {
        output.kind = OutputKind::LossOutput;
      } else if (kind == "buffer_mutation") {
        output.kind = OutputKind::BufferMutation;
        output.target = as_string(field(p, "buffer_name", where), where);
      } else if (kind == "gradient_to_parameter") {
        output.kind = OutputKind::GradientToParameter;
        output.target = as_string(field(p, "parameter_name", where), where);
      } else if (kind == "gradient_to_user_input") {
        output.kind = OutputKind::GradientToUserInput;
        output.target = as_string(field(p, "user_input_name", where), where);
      } else if (kind == "user_input_mutation") {
        output.kind = OutputKind::UserInputMutation;
        output.target = as_string(field(p, "user_input_name", where), where);
      } else if (kind == "token") {
        output.kind = OutputKind::Token;
      } else {
        throw AotError(where + ": unsupported output kind '" + kind + "'");
      }
      signature_.output_specs.push_back(std::move(output));
    }
  }

  void read_inputs() {
    const json& inputs = as_array(field(json_, "inputs", "graph"), "graph.inputs");
    if (inputs.size() != signature_.input_specs.size()) {
      throw AotError("graph has " + std::to_string(inputs.size()) + " inputs but the signature has " +
                     std::to_string(signature_.input_specs.size()) + " input specs");
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string where = "graph input " + std::to_string(i);
      InputSpec& spec = signature_.input_specs[i];
      std::string name = argument_name(inputs[i], where);
      if (name.empty()) name = spec.arg.name.empty() ? "arg" + std::to_string(i) : spec.arg.name;
      Node* node = graph_->placeholder(name, meta_of(name));
      if (node->name() != name) throw AotError(where + ": name '" + name + "' is used twice or is not an identifier");
      if (spec.arg.kind == ArgumentSpec::Kind::Constant) spec.arg.name = name;
    }
  }

  Argument argument(const json& value, const std::string& where) const {
    const auto [kind, payload] = union_of(value, where);
    const json& p = *payload;
    auto names = [&](const json& list) {
      ArgumentList items;
      for (const json& item : as_array(list, where)) items.push_back(lookup(as_string(field(item, "name", where), where), where));
      return items;
    };
    auto sym = [&](const json& item) -> Argument {
      const auto [inner, inner_payload] = union_of(item, where);
      if (inner == "as_name") return lookup(as_string(*inner_payload, where), where);
      if (inner == "as_int") return as_int(*inner_payload, where);
      if (inner == "as_float") return as_float(*inner_payload, where);
      if (inner == "as_bool") return inner_payload->get<bool>();
      throw AotError(where + ": unknown symbolic value kind '" + inner + "'");
    };
    if (kind == "as_none") return None{};
    if (kind == "as_tensor") return lookup(as_string(field(p, "name", where), where), where);
    if (kind == "as_tensors") return names(p);
    if (kind == "as_int") return as_int(p, where);
    if (kind == "as_float") return as_float(p, where);
    if (kind == "as_bool") return p.get<bool>();
    if (kind == "as_string") return as_string(p, where);
    if (kind == "as_ints" || kind == "as_floats" || kind == "as_bools" || kind == "as_strings") {
      ArgumentList items;
      for (const json& item : as_array(p, where)) {
        if (kind == "as_ints") items.push_back(as_int(item, where));
        else if (kind == "as_floats") items.push_back(as_float(item, where));
        else if (kind == "as_bools") items.push_back(item.get<bool>());
        else items.push_back(as_string(item, where));
      }
      return items;
    }
    if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") return sym(p);
    if (kind == "as_sym_ints" || kind == "as_sym_floats" || kind == "as_sym_bools") {
      ArgumentList items;
      for (const json& item : as_array(p, where)) items.push_back(sym(item));
      return items;
    }
    if (kind == "as_scalar_type") return scalar_type_from_pt2(as_int(p, where));
    if (kind == "as_memory_format") return memory_format_from_pt2(as_int(p, where), where);
    if (kind == "as_layout") return layout_from_pt2(as_int(p, where), where);
    if (kind == "as_device") return device_from_json(p, where);
    if (kind == "as_optional_tensor") return argument(p, where);
    if (kind == "as_optional_tensors") {
      ArgumentList items;
      for (const json& item : as_array(p, where)) items.push_back(argument(item, where));
      return items;
    }
    throw AotError(where + ": argument kind '" + kind + "' is not supported");
  }

  void read_node(const json& node) {
    const std::string raw_target = as_string(field(node, "target", "node"), "node");
    const json& outputs = as_array(field(node, "outputs", "node '" + raw_target + "'"), "node outputs");
    std::string name = node.contains("name") && node.at("name").is_string() ? node.at("name").get<std::string>() : "";
    if (name.empty() && outputs.size() == 1) name = argument_name(outputs[0], "node '" + raw_target + "'");
    std::string where = "node '" + (name.empty() ? raw_target : name) + "'";

    const std::string prefix = "torch.ops.";
    if (raw_target.rfind(prefix, 0) != 0) {
      throw AotError(where + ": target '" + raw_target + "' is not an ATen op (Kiln reads torch.ops.* targets)");
    }
    std::string target = raw_target.substr(prefix.size());
    const auto dot = target.find('.');
    if (dot == std::string::npos) throw AotError(where + ": malformed target '" + raw_target + "'");
    target = target.substr(0, dot) + "::" + target.substr(dot + 1);
    const OpSchema* schema = find_op_schema(target);
    if (schema == nullptr) throw AotError(where + ": unknown op '" + target + "' (it is not in Kiln's op schema table)");
    where = "node '" + (name.empty() ? schema->qualified_name() : name) + "' (" + schema->qualified_name() + ")";

    ArgumentList args;
    KwargList kwargs;
    for (const json& input : as_array(field(node, "inputs", where), where)) {
      const std::string arg_name = as_string(field(input, "name", where), where);
      Argument value = argument(field(input, "arg", where), where + " argument '" + arg_name + "'");
      const SchemaArgument* param = schema->find_argument(arg_name);
      if (param == nullptr) throw AotError(where + ": op has no argument named '" + arg_name + "'");
      const bool keyword = param->kwarg_only || (input.contains("kind") && input.at("kind") == 2);
      if (keyword) {
        kwargs.emplace_back(arg_name, std::move(value));
      } else {
        if (kwargs.size() > 0 || args.size() != static_cast<size_t>(param - schema->arguments.data())) {
          kwargs.emplace_back(arg_name, std::move(value));  // positional past a gap: pass by name
        } else {
          args.push_back(std::move(value));
        }
      }
    }
    // Fill defaults: positional parameters in args, keyword-only ones in kwargs.
    const std::vector<Argument> bound = bind_arguments(*schema, args, kwargs, where);
    args.clear();
    kwargs.clear();
    size_t index = 0;
    for (const SchemaArgument& param : schema->arguments) {
      if (param.is_out) continue;
      if (param.kwarg_only) kwargs.emplace_back(param.name, bound[index]);
      else args.push_back(bound[index]);
      ++index;
    }
    Node* call = add_call(*schema, name, outputs, std::move(args), std::move(kwargs), where);
    NodeMeta meta = node_meta(node.contains("metadata") ? node.at("metadata") : json::object());
    meta.val = call->meta.val;
    call->meta = std::move(meta);
  }

  Node* add_call(const OpSchema& schema, const std::string& name, const json& outputs, ArgumentList args,
                 KwargList kwargs, const std::string& where) {
    // One output named like the node: the node is the value. Several: the
    // node holds a tuple and getitem nodes take the used elements out.
    std::vector<std::pair<std::string, ValueMeta>> values;
    bool list_return = false;
    for (const json& output : outputs) {
      const auto [kind, payload] = union_of(output, where);
      if (kind == "as_tensors") {
        list_return = true;
        for (const json& item : as_array(*payload, where)) {
          const std::string item_name = as_string(field(item, "name", where), where);
          values.emplace_back(item_name, meta_of(item_name));
        }
      } else if (kind == "as_none") {
        values.emplace_back("", ValueMeta{});
      } else {
        const std::string value_name = argument_name(output, where);
        values.emplace_back(value_name, meta_of(value_name));
      }
    }
    if (values.size() == 1 && !list_return && !values[0].first.empty()) {
      Node* node = graph_->call_function(schema.qualified_name(), std::move(args), std::move(kwargs), values[0].first);
      if (node->name() != values[0].first) throw AotError(where + ": value name '" + values[0].first + "' is used twice");
      NodeMeta meta;
      meta.val = values[0].second;
      node->meta = meta;
      return node;
    }
    Node* node = graph_->call_function(schema.qualified_name(), std::move(args), std::move(kwargs), name);
    std::vector<TensorMeta> metas;
    for (const auto& [value_name, meta] : values) {
      const auto* tensor = std::get_if<TensorMeta>(&meta);
      metas.push_back(tensor != nullptr ? *tensor : TensorMeta());
    }
    pending_meta_[node] = metas;
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string& value_name = values[i].first;
      if (value_name.empty() || value_name.find("_unused_") != std::string::npos) continue;
      Node* item = graph_->call_function(kGetItem, {node, static_cast<int64_t>(i)}, {}, value_name);
      if (item->name() != value_name) throw AotError(where + ": value name '" + value_name + "' is used twice");
      item->meta.val = values[i].second;
    }
    return node;
  }

  static NodeMeta node_meta(const json& metadata) {
    NodeMeta meta;
    if (!metadata.is_object()) return meta;
    if (metadata.contains("stack_trace") && metadata.at("stack_trace").is_string()) {
      meta.stack_trace = metadata.at("stack_trace").get<std::string>();
    }
    if (metadata.contains("torch_fn") && metadata.at("torch_fn").is_string()) meta.torch_fn = metadata.at("torch_fn").get<std::string>();
    if (metadata.contains("nn_module_stack") && metadata.at("nn_module_stack").is_string()) {
      const std::string text = metadata.at("nn_module_stack").get<std::string>();
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find(';', start);
        if (end == std::string::npos) end = text.size();
        const std::string frame = text.substr(start, end - start);
        const size_t first = frame.find(',');
        const size_t last = frame.rfind(',');
        if (first != std::string::npos && last != first) {
          meta.nn_module_stack.push_back(
              {frame.substr(0, first), frame.substr(first + 1, last - first - 1), frame.substr(last + 1)});
        }
        start = end + 1;
      }
    }
    return meta;
  }

  void read_outputs() {
    ArgumentList values;
    const json& outputs = as_array(field(json_, "outputs", "graph"), "graph.outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string where = "graph output " + std::to_string(i);
      const std::string name = argument_name(outputs[i], where);
      if (!name.empty()) {
        values.push_back(lookup(name, where));
      } else {
        const auto [kind, payload] = union_of(outputs[i], where);
        values.push_back(constant_argument(kind, *payload, where));
      }
    }
    graph_->output(std::move(values));
    // Multi-output nodes carry the metas of all their results.
    for (auto& [node, metas] : pending_meta_) node->meta.val = metas;
  }

  static RangeConstraints read_range_constraints(const json& program) {
    RangeConstraints ranges;
    if (!program.contains("range_constraints") || !program.at("range_constraints").is_object()) return ranges;
    for (const auto& [symbol, range] : program.at("range_constraints").items()) {
      const std::string where = "range constraint of '" + symbol + "'";
      ValueRange value;
      value.min = range.contains("min_val") && !range.at("min_val").is_null() ? as_int(range.at("min_val"), where)
                                                                              : std::numeric_limits<int64_t>::min();
      if (range.contains("max_val") && !range.at("max_val").is_null()) value.max = as_int(range.at("max_val"), where);
      ranges[symbol] = value;
    }
    return ranges;
  }

  std::vector<ModuleCallEntry> read_module_call_graph(const json& module) const {
    std::vector<ModuleCallEntry> entries;
    if (!module.contains("module_call_graph")) return entries;
    for (const json& entry : as_array(module.at("module_call_graph"), "module_call_graph")) {
      ModuleCallEntry call;
      call.fqn = as_string(field(entry, "fqn", "module call entry"), "module call entry");
      const std::string where = "module call entry '" + call.fqn + "'";
      if (entry.contains("signature") && !entry.at("signature").is_null()) {
        const json& sig = entry.at("signature");
        ModuleCallSignature signature;
        for (const json& arg : as_array(field(sig, "inputs", where), where)) signature.inputs.push_back(argument_spec(arg, where));
        for (const json& arg : as_array(field(sig, "outputs", where), where)) signature.outputs.push_back(argument_spec(arg, where));
        try {
          signature.in_spec = tree_spec_from_json(as_string(field(sig, "in_spec", where), where));
          signature.out_spec = tree_spec_from_json(as_string(field(sig, "out_spec", where), where));
        } catch (const AotError& error) {
          throw AotError(where + ": " + error.what());
        }
        if (sig.contains("forward_arg_names") && sig.at("forward_arg_names").is_array()) {
          for (const json& name : sig.at("forward_arg_names")) signature.forward_arg_names.push_back(as_string(name, where));
        }
        call.signature = std::move(signature);
      }
      entries.push_back(std::move(call));
    }
    return entries;
  }

  const json& json_;
  std::unique_ptr<Graph> graph_;
  GraphSignature signature_;
  std::map<Node*, std::vector<TensorMeta>> pending_meta_;
};

}  // namespace

ProgramParts program_from_json(const json& program) {
  try {
    const json& version = field(program, "schema_version", "program");
    const int64_t major = as_int(field(version, "major", "schema_version"), "schema_version.major");
    if (major != kPt2SchemaMajor) {
      throw AotError("schema major version " + std::to_string(major) + " is not supported (Kiln reads version " +
                     std::to_string(kPt2SchemaMajor) + ".x)");
    }
    const json& graph = field(field(program, "graph_module", "program"), "graph", "graph_module");
    ProgramParts parts = GraphReader(graph).read(program);
    parts.dialect = kAtenDialect;
    if (program.contains("verifiers") && program.at("verifiers").is_array() && !program.at("verifiers").empty()) {
      parts.dialect = as_string(program.at("verifiers")[0], "verifiers");
    } else if (program.contains("dialect") && program.at("dialect").is_string()) {
      parts.dialect = program.at("dialect").get<std::string>();
    }
    return parts;
  } catch (const json::exception& error) {
    throw AotError(std::string("malformed program JSON: ") + error.what());
  }
}

}  // namespace kiln::aot
