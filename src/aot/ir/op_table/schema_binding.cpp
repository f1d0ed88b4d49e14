#include "aot/ir/op_table/schema_binding.h"

#include "aot/ir/error.h"

namespace kiln::aot {

std::vector<Argument> bind_arguments(const OpSchema& schema, const ArgumentList& args, const KwargList& kwargs,
                                     const std::string& where, bool include_out) {
  std::vector<const SchemaArgument*> params;
  for (const SchemaArgument& param : schema.arguments) {
    if (include_out || !param.is_out) params.push_back(&param);
  }
  const std::string op = schema.qualified_name();
  size_t positional = 0;
  for (const SchemaArgument* param : params) positional += param->kwarg_only ? 0 : 1;
  if (args.size() > positional) {
    throw AotError(where + ": " + op + " takes " + std::to_string(positional) + " positional arguments but " +
                   std::to_string(args.size()) + " were given");
  }
  std::vector<Argument> bound(params.size());
  std::vector<bool> set(params.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    bound[i] = args[i];
    set[i] = true;
  }
  for (const auto& [key, value] : kwargs) {
    size_t index = params.size();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i]->name == key) index = i;
    }
    if (index == params.size()) throw AotError(where + ": " + op + " has no argument named '" + key + "'");
    if (set[index]) throw AotError(where + ": " + op + " got argument '" + key + "' twice");
    bound[index] = value;
    set[index] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (set[i]) continue;
    if (!params[i]->default_value) {
      throw AotError(where + ": " + op + " is missing argument '" + params[i]->name + "'");
    }
    bound[i] = *params[i]->default_value;
  }
  return bound;
}

std::vector<Argument> bind_node_arguments(const Node& node) {
  return bind_arguments(get_op_schema(node.target()), node.args(), node.kwargs(), "node '" + node.name() + "'");
}

}  // namespace kiln::aot
