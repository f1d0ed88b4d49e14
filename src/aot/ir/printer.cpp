// ExportedProgram::to_string: the text torch prints for an ExportedProgram —
// the graph as Python source (fx's print_readable), then the signature and
// the range constraints — so that users can hold the two side by side. A
// program holding lowered modules lists them at the end.
#include <set>
#include <string_view>

#include "aot/ir/exec_kind.h"
#include "aot/ir/exported_program.h"

namespace kiln::aot {

namespace {

// One literal: GCC 12 flags `std::string("torch.ops.higher_order.") +
// kCallDelegate` with a false -Warray-bounds once inlined.
constexpr std::string_view kPythonCallDelegate = "torch.ops.higher_order.executorch_call_delegate";
static_assert(kPythonCallDelegate.ends_with(kCallDelegate));

// "aten::add.Tensor" -> "torch.ops.aten.add.Tensor"; "aten::relu" -> "...relu.default".
std::string python_target(const std::string& target) {
  if (target == kGetItem) return "operator.getitem";
  if (target == kCallDelegate) return std::string(kPythonCallDelegate);
  const auto colons = target.find("::");
  if (colons == std::string::npos) return target;
  std::string name = target.substr(colons + 2);
  if (name.find('.') == std::string::npos) name += ".default";
  return "torch.ops." + target.substr(0, colons) + "." + name;
}

std::string annotation(const ValueMeta& val) {
  if (std::holds_alternative<TensorMeta>(val) || std::holds_alternative<SymExpr>(val)) {
    return ": \"" + to_string(val) + "\"";
  }
  return "";
}

std::string call_text(const Node& node) {
  if (is_call_of(node, ExecKind::GetItem) && node.args().size() == 2) {
    return to_string(node.args()[0]) + "[" + to_string(node.args()[1]) + "]";
  }
  std::string text = python_target(node.target()) + "(";
  bool first = true;
  for (const Argument& arg : node.args()) {
    text += (first ? "" : ", ") + to_string(arg);
    first = false;
  }
  for (const auto& [key, value] : node.kwargs()) {
    text += (first ? "" : ", ") + key + " = " + to_string(value);
    first = false;
  }
  return text + ")";
}

std::string graph_text(const Graph& graph, const std::string& indent) {
  std::string params;
  for (const Node* node : graph.placeholders()) {
    params += ", " + node->name() + annotation(node->meta.val);
  }
  std::string text = indent + "class GraphModule(torch.nn.Module):\n";
  text += indent + "    def forward(self" + params + "):\n";
  const std::string body = indent + "        ";

  // Like fx, drop each value after its last use ("x = None").
  std::map<const Node*, const Node*> last_use;
  for (const Node* node : graph) {
    for (Node* input : node->input_nodes()) last_use[input] = node;
  }
  for (const Node* node : graph) {
    if (node->is_placeholder()) continue;
    if (node->is_output()) {
      const ArgumentList& values = node->args().at(0).list();
      std::string returned;
      for (size_t i = 0; i < values.size(); ++i) returned += (i ? ", " : "") + to_string(values[i]);
      if (values.size() == 1) returned += ",";
      text += body + "return (" + returned + ")\n";
      continue;
    }
    std::string line = body + node->name() + annotation(node->meta.val) + " = ";
    line += node->is_get_attr() ? "self." + node->target() : call_text(*node);
    std::vector<std::string> dead;
    for (Node* input : node->input_nodes()) {
      if (last_use[input] == node) dead.push_back(input->name());
    }
    if (!dead.empty()) {
      line += ";  ";
      for (const std::string& name : dead) line += name + " = ";
      line += "None";
    }
    text += line + "\n";
  }
  return text;
}

// Indents every line, blank ones too, as torch's printer does.
std::string indented(const std::string& text, const std::string& indent) {
  std::string result;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    result += indent + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return result;
}

}  // namespace

std::string ExportedProgram::to_string() const {
  std::string text = "ExportedProgram:\n";
  text += graph_text(*graph_, "    ") + "    \n";
  text += "Graph signature:\n" + indented(signature_.to_string() + "\n", "    ");
  text += "Range constraints: {";
  bool first = true;
  for (const auto& [symbol, range] : range_constraints_) {
    text += (first ? "" : ", ") + symbol + ": " + range.to_string();
    first = false;
  }
  text += "}\n";
  if (!attributes_.empty()) {
    text += "\nModule attributes:\n";
    for (const auto& [name, attribute] : attributes_) {
      text += "    " + name + ": " + attribute->type_name() + "(" + attribute->describe() + ")\n";
    }
  }
  return text;
}

}  // namespace kiln::aot
