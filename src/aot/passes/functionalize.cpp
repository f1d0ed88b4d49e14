// Functionalization: walks the graph in order, replaces each in-place call by
// its functional op and remembers it as the current value of the mutated base;
// later uses of the base (or of an earlier in-place result) read that value,
// and each mutated buffer or user input gets a mutation output (a mutated
// lifted constant becomes a non-persistent buffer first: program state).
#include <map>
#include <set>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
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
  if (target == kCopyInPlace) return copied_value(r);
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
  const TensorMeta& self = r.tensor_arg(0)->meta.tensor();
  const bool has_meta = std::holds_alternative<TensorMeta>(r.node().meta.val);
  // A functional op without a meta rule is one with a decomposition
  // (addcmul, lerp, ...): it leaves its result in self, so it takes self's
  // meta, and its decomposition then checks that its value fits.
  Node* value = has_meta_rule(schema.qualified_name())
                    ? r.op(schema.qualified_name(), std::move(args), std::move(kwargs))
                    : r.call(schema.qualified_name(), std::move(args), has_meta ? r.out() : self, std::move(kwargs));
  // self keeps its sizes, but for the ops that change them (resize_,
  // squeeze_, t_, ...), whose call the export gave the new sizes.
  if (value->meta.tensor().sizes != (has_meta ? r.out() : self).sizes) {
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

// True if `node` is aten::to (any overload): it returns its input itself when
// the dtype (and so the tensor) does not change, a new tensor otherwise.
bool is_to(const Node* node) { return passes::canonical_target(node->target()).rfind("aten::to.", 0) == 0; }

bool returns_its_input(const Node* node) {
  const Node* input = node->args().empty() || !node->args()[0].is_node() ? nullptr : node->args()[0].node();
  if (input == nullptr || !std::holds_alternative<TensorMeta>(input->meta.val) ||
      !std::holds_alternative<TensorMeta>(node->meta.val) || input->meta.tensor().dtype != node->meta.tensor().dtype) {
    return false;
  }
  const OpSchema* schema = find_op_schema(node->target());
  if (schema == nullptr) return false;
  const std::vector<Argument> args = bind_node_arguments(*node);
  for (size_t i = 0; i < schema->arguments.size() && i < args.size(); ++i) {
    if (schema->arguments[i].name == "copy" && args[i].is_bool() && args[i].to_bool()) return false;
  }
  return true;
}

// True if `node` views the same elements in the same order under other sizes.
bool is_reshape(const Node* node) {
  static const std::set<std::string> reshapes = {
      "aten::view.default",    "aten::_unsafe_view.default", "aten::reshape.default",   "aten::flatten.using_ints",
      "aten::unflatten.int",   "aten::squeeze.default",      "aten::squeeze.dim",       "aten::squeeze.dims",
      "aten::unsqueeze.default", "aten::alias.default"};
  return node->is_call_function() && reshapes.count(passes::canonical_target(node->target())) > 0;
}

bool is_view(const Node* node);

// Whether aten::contiguous returns its input itself, as it does for a
// tensor laid out contiguously: one in the default dim order that is not a
// view picking elements apart (a slice, a transpose); a copy otherwise,
// whose writes stay its own (BEiT writes into a contiguous copy of a
// permuted index table).
bool contiguous_returns_its_input(const Node* node) {
  const Node* input = node->args().empty() || !node->args()[0].is_node() ? nullptr : node->args()[0].node();
  if (input == nullptr || !std::holds_alternative<TensorMeta>(input->meta.val)) return false;
  const std::vector<uint8_t> order = input->meta.tensor().resolved_dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return !is_view(input) || is_reshape(input);
}

// True if `node` is a view of another tensor (its op's first argument is
// aliased without being written: slice, select, view, permute, a `to` that
// changes nothing, a contiguous of a contiguous tensor, ...; or an item of
// split's list of views).
bool is_view(const Node* node) {
  if (!node->is_call_function()) return false;
  if (is_to(node)) return returns_its_input(node);
  if (passes::canonical_target(node->target()) == "aten::contiguous.default") return contiguous_returns_its_input(node);
  if (is_call_of(*node, ExecKind::GetItem)) return !node->args().empty() && node->args()[0].is_node() && is_view(node->args()[0].node());
  const OpSchema* schema = find_op_schema(node->target());
  if (schema == nullptr || schema->arguments.empty() || schema->arguments[0].is_write()) return false;
  const std::string& alias = schema->arguments[0].alias;
  return alias == "a" || alias == "a -> *";
}

// The tensor `view` looks into (its first argument).
Node* viewed_tensor(const Node* view) { return view->args().at(0).node(); }

// The new value of the tensor `view` looks into, `viewed` (its current
// value), when the view's elements become `written`: the scatter inverse to
// the view (torch's functionalization does the same).
Node* written_back(Rewriter& r, const Node* view, Node* viewed, Node* written) {
  const std::string target = passes::canonical_target(view->target());
  if (is_to(view) || target == "aten::contiguous.default") return written;  // the tensor itself
  if (is_reshape(view)) {
    // The same elements in order: the whole tensor, reshaped back.
    return r.op("aten::view", {written, r.size_list(viewed->meta.tensor().sizes, viewed)});
  }
  const std::vector<Argument> args = bind_node_arguments(*view);
  if (target == "aten::slice.Tensor") {
    return r.op("aten::slice_scatter", {viewed, written, args.at(1), args.at(2), args.at(3), args.at(4)});
  }
  if (target == "aten::select.int") return r.op("aten::select_scatter", {viewed, written, args.at(1), args.at(2)});
  if (target == "aten::transpose.int") return r.op("aten::transpose.int", {written, args.at(1), args.at(2)});
  if (target == "aten::t.default") return r.op("aten::t", {written});
  if (target == "aten::permute.default") {
    const ArgumentList& dims = args.at(1).list();
    ArgumentList inverse(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      inverse.at(static_cast<size_t>(passes::normalize_dim(dims[i].to_int(), dims.size(), "permute"))) = static_cast<int64_t>(i);
    }
    return r.op("aten::permute", {written, std::move(inverse)});
  }
  r.fail("writes in place into '" + view->name() + "', a view (" + view->target() +
         ") of another tensor; writing through this kind of view is not supported yet");
}

void add_mutation_outputs(ExportedProgram& program, const std::map<Node*, Node*>& current) {
  const auto placeholders = program.graph().placeholders();
  GraphSignature& signature = program.graph_signature();
  std::vector<OutputSpec> specs;
  ArgumentList values;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    auto it = current.find(placeholders[i]);
    if (it == current.end()) continue;
    InputSpec& input = signature.input_specs.at(i);
    const ArgumentSpec arg = ArgumentSpec::tensor(it->second->name());
    if (input.kind == InputKind::ConstantTensor) {
      // A non-strict export lifts a plain tensor attribute that forward
      // writes (transformers' static cache: its length, and its keys and
      // values) as a constant; torch's module() keeps the write between
      // calls. It is program state: a non-persistent buffer, whose value the
      // constants hold already.
      input.kind = InputKind::Buffer;
      input.persistent = false;
    }
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
  if (target == kCopyInPlace) return true;
  const OpSchema* schema = find_op_schema(target);
  return schema != nullptr && functional_of_inplace(*schema) != nullptr;
}

}  // namespace passes

namespace {

// The state of functionalization as it walks the graph: the latest value of
// every mutated tensor, and views read again after their tensor changed.
class Functionalizer {
 public:
  explicit Functionalizer(Graph& graph) : graph_(graph) {}

  // Points `node`'s inputs at the current values: a mutated tensor's latest
  // value, and a view taken before its tensor changed taken again.
  void read_current_values(Node& node) {
    for (Node* input : node.input_nodes()) {
      Node* value = current_value(input, node);
      if (value != input) node.replace_input_with(input, value);
    }
  }

  // Replaces the in-place call `node` by its functional op; a write through
  // views becomes the new value of the tensor they look into.
  void functionalize(Node& node, const std::string& target) {
    Rewriter rewriter(node);
    Node* self = written_view(rewriter.tensor_arg(0), node);
    Node* value = functional_value(rewriter, target);
    Node* written = value;
    Node* tensor = self;
    for (; is_view(tensor); tensor = viewed_tensor(tensor)) {
      written = written_back(rewriter, tensor, viewed_tensor(tensor), written);
    }
    rewriter.replace_with(value);
    Node* mutated = base(tensor);
    base_of_[written] = mutated;
    current_[mutated] = written;
    if (self != tensor) alias_of_[value] = {self, written};  // the call's result is the view, as it is now
  }

  const std::map<Node*, Node*>& mutations() const { return current_; }

 private:
  struct ViewOf {
    Node* view;
    Node* tensor_value;  // the value of the viewed tensor the view was taken of
  };

  // The tensor `value` is a value of (itself unless it is an in-place result).
  Node* base(Node* value) const {
    auto it = base_of_.find(value);
    return it == base_of_.end() ? value : it->second;
  }

  // The first non-view tensor under a chain of views.
  static Node* root_of(Node* view) {
    while (is_view(view)) view = viewed_tensor(view);
    return view;
  }

  Node* latest(Node* tensor) const {
    auto it = current_.find(base(tensor));
    return it == current_.end() ? tensor : it->second;
  }

  // What an in-place call on `self` writes: self, or the view that self (an
  // earlier in-place result) stands for, over the latest values.
  Node* written_view(Node* self, Node& user) {
    auto alias = alias_of_.find(self);
    if (alias == alias_of_.end()) return self;
    Node* view = alias->second.view;
    return latest(root_of(view)) == root_of(view) ? view : view_again(view, user);
  }

  Node* current_value(Node* input, Node& user) {
    if (auto alias = alias_of_.find(input); alias != alias_of_.end()) {
      const ViewOf& of = alias->second;
      return latest(root_of(of.view)) == of.tensor_value ? input : view_again(of.view, user);
    }
    if (is_view(input)) {
      Node* root = root_of(input);
      return latest(root) == root ? input : view_again(input, user);
    }
    return latest(input);
  }

  // `view`'s chain of views taken again of its tensor's latest value, before
  // `user` (once per view and value).
  Node* view_again(Node* view, Node& user) {
    Node* tensor = latest(root_of(view));
    auto [it, fresh] = views_again_.try_emplace({view, tensor}, nullptr);
    if (!fresh) return it->second;
    Node* viewed = is_view(viewed_tensor(view)) ? view_again(viewed_tensor(view), user) : tensor;
    Node* saved = graph_.insert_point();
    graph_.set_insert_point(&user);
    ArgumentList args = view->args();
    args.at(0) = viewed;
    Node* again = graph_.call_function(view->target(), std::move(args), view->kwargs());
    graph_.set_insert_point(saved);
    again->meta = view->meta;
    it->second = again;
    return again;
  }

  Graph& graph_;
  std::map<Node*, Node*> base_of_;  // a functional value -> the tensor it is the new value of
  std::map<Node*, Node*> current_;  // a mutated tensor -> its latest value
  std::map<Node*, ViewOf> alias_of_;  // an in-place result that is a view -> that view
  std::map<std::pair<Node*, Node*>, Node*> views_again_;
};

}  // namespace

bool functionalize_inplace_ops(ExportedProgram& program) {
  Functionalizer functionalizer(program.graph());
  bool changed = false;
  for (Node* node : program.graph().node_list()) {
    if (!node->is_call_function() && !node->is_output()) continue;
    functionalizer.read_current_values(*node);
    if (node->is_output()) continue;
    const std::string target = passes::canonical_target(node->target());
    if (!passes::is_inplace(target)) continue;
    functionalizer.functionalize(*node, target);
    changed = true;
  }
  add_mutation_outputs(program, functionalizer.mutations());
  return changed;
}

}  // namespace kiln::aot
