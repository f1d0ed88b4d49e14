#include "aot/emit/tree_spec_json.h"

#include <nlohmann/json.hpp>

namespace kiln::aot {

namespace {

// json.dumps's default separators are ", " and ": "; nlohmann's dump has none.
std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

std::string node_text(const TreeSpec& spec) {
  if (spec.kind == TreeSpec::Kind::Leaf) return R"({"type": null, "context": null, "children_spec": []})";
  std::string type;
  std::string context = "null";
  switch (spec.kind) {
    case TreeSpec::Kind::Tuple: type = "builtins.tuple"; break;
    case TreeSpec::Kind::List: type = "builtins.list"; break;
    case TreeSpec::Kind::None: type = "builtins.NoneType"; break;
    case TreeSpec::Kind::Dict: {
      type = "builtins.dict";
      context = "[";
      for (size_t i = 0; i < spec.context.size(); ++i) context += (i ? ", " : "") + json_string(spec.context[i]);
      context += "]";
      break;
    }
    case TreeSpec::Kind::Leaf: break;
  }
  std::string text = R"({"type": )" + json_string(type) + R"(, "context": )" + json_string(context) + R"(, "children_spec": [)";
  for (size_t i = 0; i < spec.children.size(); ++i) text += (i ? ", " : "") + node_text(spec.children[i]);
  return text + "]}";
}

TreeSpec tuple_of_leaves(size_t count) {
  TreeSpec spec;
  spec.kind = TreeSpec::Kind::Tuple;
  spec.children.assign(count, TreeSpec::leaf());
  return spec;
}

}  // namespace

std::string tree_spec_to_json(const TreeSpec& spec) { return "[1, " + node_text(spec) + "]"; }

std::string encode_in_spec(const ExportedProgram& program) {
  if (const TreeSpec* spec = program.in_spec()) return tree_spec_to_json(*spec);
  size_t inputs = 0;
  for (const InputSpec& spec : program.graph_signature().input_specs) inputs += spec.kind == InputKind::UserInput;
  TreeSpec kwargs;
  kwargs.kind = TreeSpec::Kind::Dict;
  TreeSpec call;
  call.kind = TreeSpec::Kind::Tuple;
  call.children = {tuple_of_leaves(inputs), kwargs};
  return tree_spec_to_json(call);
}

std::string encode_out_spec(const ExportedProgram& program) {
  if (const TreeSpec* spec = program.out_spec()) return tree_spec_to_json(*spec);
  size_t outputs = 0;
  for (const OutputSpec& spec : program.graph_signature().output_specs) {
    outputs += spec.kind != OutputKind::BufferMutation && spec.kind != OutputKind::Token;
  }
  return tree_spec_to_json(tuple_of_leaves(outputs));
}

}  // namespace kiln::aot
