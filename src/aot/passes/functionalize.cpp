// Functionalization: walks the graph in order, replaces each in-place call by
// its functional op and remembers it as the current value of the mutated base;
// later uses of the base (or of an earlier in-place result) read that value,
// and each mutated buffer or user input gets a mutation output.
#include <map>
#include <set>

#include "aot/ir/error.h"
#include "aot/ir/op_schema.h"
#include "aot/passes/decompose.h"
#include "aot/passes/decompositions.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {
namespace {

using passes::Rewriter;

// copy_: the source, broadcast to self's sizes and cast to its dtype.
Node* copied_value(Rewriter& r) {
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

// The value an in-place call leaves in its `self`: the functional op on the
// same arguments (which share names and order), in self's dtype.
Node* functional_value(Rewriter& r, const std::string& target) {
  if (target == "aten::copy_.default") return copied_value(r);
  const OpSchema& schema = *functional_of_inplace(get_op_schema(target));
  ArgumentList args;
  KwargList kwargs;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    if (schema.arguments[i].kwarg_only) {
      kwargs.emplace_back(schema.arguments[i].name, r.arg(i));
    } else {
      args.push_back(r.arg(i));
    }
  }
  Node* value = r.op(schema.qualified_name(), std::move(args), std::move(kwargs));
  const TensorMeta& self = r.tensor_arg(0)->meta.tensor();
  if (value->meta.tensor().sizes != self.sizes) {
    r.fail("the result " + value->meta.tensor().to_string() + " does not fit self " + self.to_string());
  }
  const ScalarType computed = value->meta.tensor().dtype;
  if (computed == self.dtype) return value;
  // PyTorch's canCast: no floats into integers, nothing but bool into bool.
  const bool narrows_kind = (runtime::is_floating_type(computed) && !runtime::is_floating_type(self.dtype)) ||
                            (self.dtype == ScalarType::Bool && computed != ScalarType::Bool);
  if (narrows_kind) {
    r.fail(std::string("the result type ") + runtime::to_string(computed) + " cannot be written into self " + self.to_string());
  }
  return r.op("aten::_to_copy", {value}, {{"dtype", self.dtype}});
}

// True if `node` is a view of another tensor (its op's first argument is
// aliased without being written: slice, select, view, permute, ...; or an
// item of split's list of views).
bool is_view(const Node* node) {
  if (!node->is_call_function()) return false;
  if (node->target() == "getitem") return !node->args().empty() && node->args()[0].is_node() && is_view(node->args()[0].node());
  const OpSchema* schema = find_op_schema(node->target());
  if (schema == nullptr || schema->arguments.empty() || schema->arguments[0].is_write()) return false;
  const std::string& alias = schema->arguments[0].alias;
  return alias == "a" || alias == "a -> *";
}

// Views that keep every element of their input in order (reshapes): a write
// through one is a write of the whole input, reshaped back.
bool reshapes_whole(const Node* view) {
  static const std::set<std::string> reshapes = {
      "aten::view.default",    "aten::_unsafe_view.default", "aten::reshape.default",   "aten::flatten.using_ints",
      "aten::unflatten.int",   "aten::squeeze.default",      "aten::squeeze.dim",       "aten::squeeze.dims",
      "aten::unsqueeze.default", "aten::alias.default"};
  return reshapes.count(passes::canonical_target(view->target())) > 0 && !view->args().empty() &&
         view->args()[0].is_node();
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

namespace passes {

bool is_inplace(const std::string& target) {
  if (target == "aten::copy_.default") return true;
  const OpSchema* schema = find_op_schema(target);
  return schema != nullptr && functional_of_inplace(*schema) != nullptr;
}

}  // namespace passes

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
    if (!passes::is_inplace(target)) continue;
    Rewriter rewriter(*node);
    // Writing through a view must reach the viewed tensor (torch turns it into
    // a slice_scatter of the base); replacing the view alone would silently
    // leave the base unchanged.
    if (Node* view = rewriter.tensor_arg(0); is_view(view) && reshapes_whole(view)) {
      // The new value of the view, and of the tensor it reshapes: the same
      // elements, back in that tensor's sizes.
      Node* viewed = view->args()[0].node();
      Node* mutated = base(viewed);
      Node* value = functional_value(rewriter, target);
      Node* whole = rewriter.op("aten::view", {value, rewriter.size_list(viewed->meta.tensor().sizes, viewed)});
      rewriter.replace_with(value);
      base_of[value] = view;
      current[view] = value;
      base_of[whole] = mutated;
      current[mutated] = whole;
      changed = true;
      continue;
    }
    if (is_view(rewriter.tensor_arg(0))) {
      rewriter.fail("writes in place into '" + rewriter.tensor_arg(0)->name() + "', a view (" +
                    rewriter.tensor_arg(0)->target() + ") of another tensor; writing through views is not supported yet");
    }
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
