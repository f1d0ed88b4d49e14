// Functionalization: walks the graph in order, replaces each in-place call by
// its functional op and remembers it as the current value of the mutated base;
// later uses of the base (or of an earlier in-place result) read that value,
// and each mutated buffer or user input gets a mutation output.
#include <map>

#include "aot/ir/error.h"
#include "aot/passes/decompose.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {
namespace {

using passes::Rewriter;

// The value an in-place call leaves in its `self`, built from the call's args.
Node* functional_value(Rewriter& r, const std::string& target) {
  if (target == "aten::add_.Tensor") {
    KwargList kwargs;
    if (!(r.arg(2) == Argument(1))) kwargs.emplace_back("alpha", r.arg(2));
    return r.call("aten::add.Tensor", {r.arg(0), r.arg(1)}, r.out(), std::move(kwargs));
  }
  if (target == "aten::mul_.Tensor") return r.call("aten::mul.Tensor", {r.arg(0), r.arg(1)}, r.out());
  if (target == "aten::relu_.default") return r.call("aten::relu", {r.arg(0)}, r.out());
  // copy_: the source, broadcast to self's sizes and cast to its dtype.
  const TensorMeta& self = r.tensor_arg(0)->meta.tensor();
  Node* value = r.tensor_arg(1);
  TensorMeta meta = value->meta.tensor();
  if (meta.dtype != self.dtype) {
    meta.dtype = self.dtype;
    value = r.call("aten::_to_copy", {value}, meta, {{"dtype", self.dtype}});
  }
  if (meta.sizes != self.sizes) {
    meta.sizes = self.sizes;
    return r.call("aten::expand", {value, r.size_list(self.sizes, r.tensor_arg(0))}, meta);
  }
  return value == r.tensor_arg(1) ? r.call("aten::clone", {value}, meta) : value;
}

bool is_inplace(const std::string& target) {
  return target == "aten::add_.Tensor" || target == "aten::mul_.Tensor" || target == "aten::relu_.default" ||
         target == "aten::copy_.default";
}

void add_mutation_outputs(ExportedProgram& program, const std::map<Node*, Node*>& current) {
  const auto placeholders = program.graph().placeholders();
  GraphSignature& signature = program.graph_signature();
  std::vector<OutputSpec> specs;
  ArgumentList values;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    auto it = current.find(placeholders[i]);
    if (it == current.end()) continue;
    const InputSpec& input = signature.input_specs.at(i);
    const ArgumentSpec arg = ArgumentSpec::tensor(it->second->name());
    if (input.kind == InputKind::Buffer) {
      specs.push_back({OutputKind::BufferMutation, arg, input.target});
    } else if (input.kind == InputKind::UserInput) {
      specs.push_back({OutputKind::UserInputMutation, arg, placeholders[i]->name()});
    } else {
      throw AotError("node '" + it->second->name() + "' mutates " + to_string(input.kind) + " '" +
                     placeholders[i]->name() + "', which only buffers and user inputs may be");
    }
    values.emplace_back(it->second);
  }
  if (specs.empty()) return;
  // Mutations come first; each buffer's only once (torch's order).
  for (const OutputSpec& spec : signature.output_specs) {
    if (spec.kind == OutputKind::BufferMutation || spec.kind == OutputKind::UserInputMutation) {
      throw AotError("output '" + spec.arg.name + "' already mutates '" + spec.target +
                     "': the program is functional already but calls in-place ops");
    }
  }
  Node* output = program.graph().output_node();
  ArgumentList outputs = values;
  for (const Argument& value : output->args().at(0).list()) outputs.push_back(value);
  output->set_arg(0, std::move(outputs));
  signature.output_specs.insert(signature.output_specs.begin(), specs.begin(), specs.end());
}

}  // namespace

bool functionalize_inplace_ops(ExportedProgram& program) {
  Graph& graph = program.graph();
  std::map<Node*, Node*> base_of;  // a functional value -> the tensor it is the new value of
  std::map<Node*, Node*> current;  // a mutated tensor -> its latest value
  auto base = [&base_of](Node* node) {
    auto it = base_of.find(node);
    return it == base_of.end() ? node : it->second;
  };
  bool changed = false;
  for (Node* node : graph.node_list()) {
    if (!node->is_call_function() && !node->is_output()) continue;
    for (Node* input : node->input_nodes()) {
      auto it = current.find(base(input));
      if (it != current.end() && it->second != input) node->replace_input_with(input, it->second);
    }
    if (node->is_output()) continue;
    const std::string target = passes::canonical_target(node->target());
    if (!is_inplace(target)) continue;
    Rewriter rewriter(*node);
    Node* mutated = base(rewriter.tensor_arg(0));
    Node* value = functional_value(rewriter, target);
    rewriter.replace_with(value);
    base_of[value] = mutated;
    current[mutated] = value;
    changed = true;
  }
  add_mutation_outputs(program, current);
  return changed;
}

}  // namespace kiln::aot
