#include "aot/interpreter/interpreter.h"

#include <functional>
#include <map>
#include <optional>

#include "aot/interpreter/kernel_call.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/passes/lowering.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {

namespace {

// "[0][1]" -> "args[1]", "[1]['x']" -> "kwargs['x']": torch's way of naming inputs.
std::string pretty_path(const std::string& path) {
  if (path.rfind("[0]", 0) == 0) return "args" + path.substr(3);
  if (path.rfind("[1]", 0) == 0) return "kwargs" + path.substr(3);
  return path.empty() ? "input" : path;
}

struct UserInput {
  const Node* placeholder;
  const InputSpec* spec;
  std::string label;  // "input 'x' (args[0])"
};

class InputChecker {
 public:
  explicit InputChecker(const ExportedProgram& program) : program_(program) {}

  SymbolBindings check(const std::vector<UserInput>& inputs, const std::vector<FlatLeaf>& leaves) {
    // Plain symbols first, so that sizes like 2*s0 can be checked once s0 is known.
    for (size_t i = 0; i < inputs.size(); ++i) check_structure(inputs[i], leaves[i].value);
    for (size_t i = 0; i < inputs.size(); ++i) check_expressions(inputs[i], leaves[i].value);
    return bindings_;
  }

 private:
  void bind(const std::string& symbol, int64_t value, const std::string& what) {
    auto [it, inserted] = bindings_.emplace(symbol, value);
    if (!inserted && it->second != value) {
      throw AotError(what + " is " + symbol + ", which an earlier input set to " + std::to_string(it->second) +
                     ", but got " + std::to_string(value));
    }
    auto range = program_.range_constraints().find(symbol);
    if (range != program_.range_constraints().end() && !range->second.contains(value)) {
      throw AotError(what + " (" + symbol + ") must be in " + range->second.to_string() + ", but got " +
                     std::to_string(value));
    }
  }

  void check_structure(const UserInput& input, const Value& value) {
    if (input.spec->arg.kind == ArgumentSpec::Kind::Constant) {
      const Argument& expected = input.spec->arg.constant_value;
      const bool same = (expected.is_none() && std::holds_alternative<None>(value)) ||
                        (expected.is_int() && std::holds_alternative<int64_t>(value) &&
                         std::get<int64_t>(value) == expected.to_int()) ||
                        (expected.is_double() && std::holds_alternative<double>(value) &&
                         std::get<double>(value) == expected.to_double()) ||
                        (expected.is_bool() && std::holds_alternative<bool>(value) &&
                         std::get<bool>(value) == expected.to_bool()) ||
                        (expected.is_string() && std::holds_alternative<std::string>(value) &&
                         std::get<std::string>(value) == expected.to_string());
      if (!same) {
        throw AotError(input.label + " was exported as the constant " + to_string(expected) + "; got " + describe(value));
      }
      return;
    }
    if (const auto* sym = std::get_if<SymExpr>(&input.placeholder->meta.val)) {
      const auto* integer = std::get_if<int64_t>(&value);
      if (integer == nullptr) throw AotError(input.label + " must be an int (" + sym->to_string() + "), got " + describe(value));
      if (sym->is_symbol()) bind(sym->symbol_name(), *integer, input.label);
      return;
    }
    const auto* meta = std::get_if<TensorMeta>(&input.placeholder->meta.val);
    if (meta == nullptr) return;
    const auto* tensor = std::get_if<HostTensor>(&value);
    if (tensor == nullptr) throw AotError(input.label + " must be a tensor " + meta->to_string() + ", got " + describe(value));
    if (tensor->dtype() != meta->dtype) {
      throw AotError(input.label + " must have dtype " + runtime::to_string(meta->dtype) + " (" + meta->to_string() +
                     "), got " + runtime::to_string(tensor->dtype()) + " (" + tensor->describe() + ")");
    }
    if (tensor->rank() != meta->rank()) {
      throw AotError(input.label + " must have " + std::to_string(meta->rank()) + " dimensions (" + meta->to_string() +
                     "), got " + std::to_string(tensor->rank()) + " (" + tensor->describe() + ")");
    }
    for (size_t d = 0; d < meta->rank(); ++d) {
      const SymExpr& expected = meta->sizes[d];
      const int64_t actual = tensor->sizes()[d];
      const std::string what = input.label + " dim " + std::to_string(d);
      if (const auto constant = expected.constant_value()) {
        if (*constant != actual) {
          throw AotError(what + " must be " + std::to_string(*constant) + " (" + meta->to_string() + "), got " +
                         std::to_string(actual) + " (" + tensor->describe() + ")");
        }
      } else if (expected.is_symbol()) {
        bind(expected.symbol_name(), actual, what);
      }
    }
  }

  void check_expressions(const UserInput& input, const Value& value) {
    const auto* meta = std::get_if<TensorMeta>(&input.placeholder->meta.val);
    const auto* tensor = std::get_if<HostTensor>(&value);
    if (meta == nullptr || tensor == nullptr) return;
    for (size_t d = 0; d < meta->rank(); ++d) {
      const SymExpr& expected = meta->sizes[d];
      if (expected.is_constant() || expected.is_symbol()) continue;
      const std::string what = input.label + " dim " + std::to_string(d);
      const int64_t actual = tensor->sizes()[d];
      solve_if_linear(expected, actual, what);
      int64_t want;
      try {
        want = expected.evaluate(bindings_);
      } catch (const AotError& error) {
        throw AotError(what + " is " + expected.to_string() + ", which the inputs do not determine: " + error.what());
      }
      if (want != actual) {
        throw AotError(what + " must be " + expected.to_string() + " = " + std::to_string(want) + ", got " +
                       std::to_string(actual));
      }
    }
  }

  // A size like 2*s0 + 1 with s0 not yet bound: as torch does, take s0 from
  // the size when the expression is linear in it and the division is exact.
  void solve_if_linear(const SymExpr& expected, int64_t actual, const std::string& what) {
    std::vector<std::string> unbound;
    for (const std::string& symbol : expected.free_symbols()) {
      if (!bindings_.count(symbol)) unbound.push_back(symbol);
    }
    if (unbound.size() != 1) return;
    SymbolBindings probe = bindings_;
    auto at = [&](int64_t value) {
      probe[unbound[0]] = value;
      return expected.evaluate(probe);
    };
    const int64_t offset = at(0);
    const int64_t slope = at(1) - offset;
    if (slope == 0 || at(2) != 2 * slope + offset || at(7) != 7 * slope + offset) return;
    if ((actual - offset) % slope != 0) {
      throw AotError(what + " must be " + expected.to_string() + " for some " + unbound[0] + ", but got " +
                     std::to_string(actual));
    }
    bind(unbound[0], (actual - offset) / slope, what);
  }

  const ExportedProgram& program_;
  SymbolBindings bindings_;
};

std::vector<UserInput> user_inputs_of(const ExportedProgram& program, const std::vector<FlatLeaf>& leaves) {
  const auto placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  std::vector<UserInput> inputs;
  for (size_t i = 0; i < specs.size() && i < placeholders.size(); ++i) {
    if (specs[i].kind != InputKind::UserInput) continue;
    const size_t k = inputs.size();
    std::string label = "input '" + placeholders[i]->name() + "'";
    if (k < leaves.size()) label += " (" + pretty_path(leaves[k].path) + ")";
    inputs.push_back({placeholders[i], &specs[i], label});
  }
  return inputs;
}

}  // namespace

SymbolBindings check_user_inputs(const ExportedProgram& program, const std::vector<FlatLeaf>& user_inputs) {
  const auto inputs = user_inputs_of(program, user_inputs);
  if (inputs.size() != user_inputs.size()) {
    throw AotError("the program takes " + std::to_string(inputs.size()) + " user inputs, got " +
                   std::to_string(user_inputs.size()));
  }
  return InputChecker(program).check(inputs, user_inputs);
}

namespace {

// A literal argument (int, float, bool, None) as the Value a kernel or a graph gets.
Value literal_value(const Argument& value, const std::string& where) {
  if (value.is_none()) return None{};
  if (value.is_int()) return value.to_int();
  if (value.is_double()) return value.to_double();
  if (value.is_bool()) return value.to_bool();
  throw AotError(where + ": " + to_string(value) + " is not a value the interpreter can produce");
}

// executorch_call_delegate(lowered_module, *inputs): the lowered module's
// program runs in place of its backend.
NodeValue run_call_delegate(const ExportedProgram& program, const Node& node,
                            const std::function<const NodeValue&(const Node*)>& lookup) {
  const std::string where = "node '" + node.name() + "'";
  if (node.args().empty() || !node.args()[0].is_node() || !node.args()[0].node()->is_get_attr()) {
    throw AotError(where + ": " + kCallDelegate + " expects a get_attr of a lowered module first");
  }
  const std::string& module = node.args()[0].node()->target();
  std::vector<Value> inputs;
  for (size_t i = 1; i < node.args().size(); ++i) {
    const Argument& arg = node.args()[i];
    inputs.push_back(arg.is_node() ? lookup(arg.node()).values.at(0) : literal_value(arg, where));
  }
  try {
    return NodeValue{run_delegated_program(program.attribute(module).delegated_program(), inputs), true};
  } catch (const AotError& error) {
    throw AotError(where + " (lowered module '" + module + "'): " + error.what());
  }
}

// memory.alloc: a new tensor of the alloc's meta, its symbolic sizes bound.
NodeValue allocate(const Node& node, const SymbolBindings& bindings) {
  const auto* meta = std::get_if<TensorMeta>(&node.meta.val);
  if (meta == nullptr) throw AotError("node '" + node.name() + "' (memory.alloc) has no tensor meta");
  try {
    return NodeValue{{HostTensor::zeros(meta->dtype, meta->concrete_sizes(bindings))}, false};
  } catch (const AotError& error) {
    throw AotError("node '" + node.name() + "' (memory.alloc): cannot size " + meta->to_string() + ": " + error.what());
  }
}

// memory.view(base, sizes): base's storage under the view's sizes.
NodeValue view_of(const Node& node, const std::function<const NodeValue&(const Node*)>& lookup) {
  const std::string where = "node '" + node.name() + "' (memory.view)";
  const HostTensor* base = node.args().empty() || !node.args()[0].is_node()
                               ? nullptr
                               : std::get_if<HostTensor>(&lookup(node.args()[0].node()).values.at(0));
  if (base == nullptr || !base->is_contiguous()) throw AotError(where + ": needs a contiguous tensor to view");
  const std::vector<int64_t> sizes = node.meta.tensor().static_sizes();
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  return NodeValue{{HostTensor(base->dtype(), sizes, strides, base->storage_offset(), base->storage())}, false};
}

// aten::copy_.default(target, value): a mutation written back into the
// buffer's or input's own tensor, which is also its result.
NodeValue write_mutation_back(const Node& node, const std::function<const NodeValue&(const Node*)>& lookup) {
  const std::string where = "node '" + node.name() + "' (" + node.target() + ")";
  const HostTensor* target = nullptr;
  const HostTensor* value = nullptr;
  if (node.args().size() == 2 && node.args()[0].is_node() && node.args()[1].is_node()) {
    target = std::get_if<HostTensor>(&lookup(node.args()[0].node()).values.at(0));
    value = std::get_if<HostTensor>(&lookup(node.args()[1].node()).values.at(0));
  }
  if (target == nullptr || value == nullptr) throw AotError(where + ": copy_ needs two tensors");
  HostTensor written = *target;  // shares the target's storage
  try {
    written.copy_from(*value);
  } catch (const AotError& error) {
    throw AotError(where + ": " + error.what());
  }
  return NodeValue{{written}, false};
}

// Runs one call_function node on the values of its inputs.
NodeValue run_node(const ExportedProgram& program, const Node& node,
                   const std::function<const NodeValue&(const Node*)>& lookup, const SymbolBindings& bindings) {
  const std::string where = "node '" + node.name() + "'";
  switch (exec_kind(node)) {
    case ExecKind::DelegateCall: return run_call_delegate(program, node, lookup);
    case ExecKind::GetItem: {
      if (node.args().size() != 2 || !node.args()[0].is_node() || !node.args()[1].is_int()) {
        throw AotError(where + ": getitem expects (node, index)");
      }
      const NodeValue& source = lookup(node.args()[0].node());
      const int64_t index = node.args()[1].to_int();
      if (index < 0 || static_cast<size_t>(index) >= source.values.size()) {
        throw AotError(where + ": getitem index " + std::to_string(index) + " is out of range");
      }
      return NodeValue{{source.values[static_cast<size_t>(index)]}, false};
    }
    case ExecKind::Alloc: return allocate(node, bindings);
    case ExecKind::View: return view_of(node, lookup);
    case ExecKind::CopyInPlace: return write_mutation_back(node, lookup);
    case ExecKind::SymSize: {
      const auto bound = bind_node_arguments(node);
      const HostTensor* input =
          bound.at(0).is_node() ? std::get_if<HostTensor>(&lookup(bound[0].node()).values.at(0)) : nullptr;
      if (input == nullptr || !bound.at(1).is_int()) throw AotError(where + ": sym_size needs a tensor and a dim");
      int64_t dim = bound[1].to_int();
      const auto rank = static_cast<int64_t>(input->rank());
      if (dim < 0) dim += rank;
      if (dim < 0 || dim >= rank) throw AotError(where + ": dim " + std::to_string(bound[1].to_int()) + " is out of range");
      return NodeValue{{input->sizes()[static_cast<size_t>(dim)]}, false};
    }
    case ExecKind::KernelCall: break;
  }
  return call_out_variant_kernel(node, lookup);
}

// Runs a program in executable form (memory_ops.h).
std::vector<Value> run_executable_graph(const ExportedProgram& program, const std::vector<Value>& graph_inputs,
                                        const SymbolBindings& bindings, const NodeObserver& observer = {}) {
  std::map<const Node*, NodeValue> values;
  auto lookup = [&values](const Node* node) -> const NodeValue& {
    auto it = values.find(node);
    if (it == values.end()) throw AotError("node '" + node->name() + "' is used before it has a value");
    return it->second;
  };
  // Each value is dropped after its last use, so memory follows the live set.
  std::map<const Node*, const Node*> last_use;
  for (const Node* node : program.graph()) {
    for (const Node* input : node->input_nodes()) last_use[input] = node;
  }
  size_t next_input = 0;
  std::vector<Value> outputs;
  for (const Node* node : program.graph()) {
    switch (node->op()) {
      case OpKind::Placeholder:
        if (next_input >= graph_inputs.size()) {
          throw AotError("the graph has more placeholders than the " + std::to_string(graph_inputs.size()) +
                         " inputs given");
        }
        values[node] = NodeValue{{graph_inputs[next_input++]}, false};
        break;
      case OpKind::GetAttr:
        // A module attribute has no Value; the delegate call that uses it
        // looks the attribute up by the node's target.
        program.attribute(node->target());
        values[node] = NodeValue{{None{}}, false};
        break;
      case OpKind::CallFunction:
        values[node] = run_node(program, *node, lookup, bindings);
        if (observer) observer(*node, values[node].values);
        break;
      case OpKind::Output:
        for (const Argument& value : node->args().at(0).list()) {
          outputs.push_back(value.is_node() ? lookup(value.node()).values.at(0)
                                            : literal_value(value, "the graph's output"));
        }
        break;
    }
    for (const Node* input : node->input_nodes()) {
      if (last_use[input] == node) values.erase(input);
    }
  }
  return outputs;
}

// The program in executable form: `program` itself, or a lowered copy that
// shares its weights, constants and module attributes, so that write-backs
// into them reach `program`'s own tensors.
struct Executable {
  explicit Executable(const ExportedProgram& program) {
    if (!is_executable_form(program)) {
      check_ops_supported(program, interpreter_has_kernel, "the portable kernels");
      lowered.emplace(lower_to_executable(program));
    }
    form = lowered ? &*lowered : &program;
  }
  std::optional<ExportedProgram> lowered;
  const ExportedProgram* form;
};

HostTensor& lifted_tensor(ExportedProgram& program, const InputSpec& spec) {
  HostTensor* tensor = program.find_lifted_tensor(spec);
  if (tensor == nullptr) {
    throw AotError(to_string(spec.kind) + " '" + spec.target + "' has no tensor in the " +
                   (spec.in_state_dict() ? "state dict" : "constants"));
  }
  return *tensor;
}

// The user outputs (tokens dropped), in output-spec order. Mutations need no
// write-back here: the graph's copy_ nodes wrote them into the buffers' and
// inputs' own tensors.
std::vector<Value> user_outputs_of(const ExportedProgram& program, std::vector<Value>& results) {
  const auto& output_specs = program.graph_signature().output_specs;
  std::vector<Value> user_outputs;
  for (size_t i = 0; i < output_specs.size(); ++i) {
    switch (output_specs[i].kind) {
      case OutputKind::BufferMutation:
      case OutputKind::UserInputMutation:
      case OutputKind::Token:
        break;
      default:
        user_outputs.push_back(std::move(results[i]));
    }
  }
  return user_outputs;
}

}  // namespace

std::vector<Value> run_delegated_program(const ExportedProgram& delegated, const std::vector<Value>& inputs) {
  std::vector<FlatLeaf> leaves;
  for (size_t i = 0; i < inputs.size(); ++i) leaves.push_back({"[0][" + std::to_string(i) + "]", inputs[i]});
  const SymbolBindings bindings = check_user_inputs(delegated, leaves);
  // The delegate owns its mutable buffers: the lowered program's copy_ nodes
  // write their new values into storage the delegate's state dict shares.
  const Executable executable(delegated);
  const ExportedProgram& program = *executable.form;
  std::vector<Value> graph_inputs;
  size_t next_input = 0;
  for (const InputSpec& spec : program.graph_signature().input_specs) {
    switch (spec.kind) {
      case InputKind::UserInput:
        graph_inputs.push_back(inputs[next_input++]);
        break;
      case InputKind::Parameter:
      case InputKind::Buffer:
      case InputKind::ConstantTensor: {
        const HostTensor* tensor = program.find_lifted_tensor(spec);
        if (tensor == nullptr) throw AotError(to_string(spec.kind) + " '" + spec.target + "' has no tensor");
        graph_inputs.emplace_back(*tensor);
        break;
      }
      case InputKind::CustomObj:
        throw AotError("input '" + spec.arg.name + "' is a custom object, which the interpreter cannot pass");
      case InputKind::Token:
        graph_inputs.emplace_back(None{});
        break;
    }
  }
  std::vector<Value> results = run_executable_graph(program, graph_inputs, bindings);
  std::vector<Value> returned;
  for (size_t index : delegate_call_output_indices(program)) returned.push_back(std::move(results[index]));
  return returned;
}

PyTree call_program(ExportedProgram& program, const PyTree& args, const PyTree& kwargs, const NodeObserver& observer) {
  const PyTree call_tree = PyTree::tuple({args, kwargs});
  std::vector<FlatLeaf> leaves;
  if (const TreeSpec* in_spec = program.in_spec()) {
    try {
      leaves = flatten_by_spec(call_tree, *in_spec);
    } catch (const AotError& error) {
      throw AotError(std::string("the inputs do not match the program's input structure ") + in_spec->to_string() +
                     ": " + error.what());
    }
  } else {
    auto [flat, spec] = tree_flatten(call_tree);
    for (Value& value : flat) leaves.push_back({"", std::move(value)});
  }
  const SymbolBindings bindings = check_user_inputs(program, leaves);

  // Buffers written back land in `program`'s state dict and constants, whose
  // tensors the lowered copy shares.
  Executable executable(program);
  ExportedProgram& lowered = executable.lowered ? *executable.lowered : program;
  std::vector<Value> graph_inputs;
  size_t next_leaf = 0;
  for (const InputSpec& spec : lowered.graph_signature().input_specs) {
    switch (spec.kind) {
      case InputKind::UserInput:
        graph_inputs.push_back(leaves[next_leaf++].value);
        break;
      case InputKind::Parameter:
      case InputKind::Buffer:
      case InputKind::ConstantTensor:
        graph_inputs.emplace_back(lifted_tensor(lowered, spec));
        break;
      case InputKind::CustomObj:
        throw AotError("input '" + spec.arg.name + "' is a custom object, which the interpreter cannot pass");
      case InputKind::Token:
        graph_inputs.emplace_back(None{});
        break;
    }
  }

  std::vector<Value> results = run_executable_graph(lowered, graph_inputs, bindings, observer);
  std::vector<Value> user_outputs = user_outputs_of(lowered, results);
  if (const TreeSpec* out_spec = program.out_spec()) return tree_unflatten(user_outputs, *out_spec);
  std::vector<PyTree> items;
  for (Value& value : user_outputs) items.push_back(PyTree::make_leaf(std::move(value)));
  return PyTree::tuple(std::move(items));
}

}  // namespace kiln::aot
