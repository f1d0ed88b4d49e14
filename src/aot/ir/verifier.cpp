#include "aot/ir/verifier.h"

#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {

bool is_builtin_op(const std::string& target) {
  switch (exec_kind(target)) {
    case ExecKind::GetItem:
    case ExecKind::DelegateCall:
    case ExecKind::Alloc:
    case ExecKind::View: return true;
    case ExecKind::CopyInPlace:
    case ExecKind::SymSize:
    case ExecKind::KernelCall: return false;
  }
  return false;
}

const char* Verifier::dialect() const { return kAtenDialect; }

namespace {

// The schema of the op `node` calls; throws AotError if there is none.
const OpSchema& known_op_schema(const Node& node) {
  const OpSchema* schema = find_op_schema(node.target());
  if (schema == nullptr) throw AotError("node '" + node.name() + "' calls unknown op '" + node.target() + "'");
  return *schema;
}

}  // namespace

void Verifier::check_op(const Node& node) const {
  if (is_builtin_op(node.target())) return;
  known_op_schema(node);
}

const char* EdgeVerifier::dialect() const { return kEdgeDialect; }

void EdgeVerifier::check_op(const Node& node) const {
  if (is_builtin_op(node.target())) return;
  const OpSchema* schema = &known_op_schema(node);
  // The executable form (memory_ops.h) calls out variants and writes
  // mutations back with copy_.
  if (!schema->is_canonical() && !schema->is_out_variant() && exec_kind(node) != ExecKind::CopyInPlace) {
    throw AotError("node '" + node.name() + "' calls '" + node.target() +
                   "', which is not a core ATen op (the EDGE dialect allows core ATen ops only; decompose it first)");
  }
}

namespace {

// The placeholders lead the graph (lint checked it): `nodes` up to the first
// other node.
std::vector<const Node*> leading_placeholders(const std::vector<Node*>& nodes) {
  std::vector<const Node*> placeholders;
  for (const Node* node : nodes) {
    if (!node->is_placeholder()) break;
    placeholders.push_back(node);
  }
  return placeholders;
}

void check_placeholders(const ExportedProgram& program, const std::vector<const Node*>& placeholders) {
  const auto& specs = program.graph_signature().input_specs;
  if (placeholders.size() != specs.size()) {
    throw AotError("the graph has " + std::to_string(placeholders.size()) + " placeholders but the signature has " +
                   std::to_string(specs.size()) + " input specs");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].arg.names_node() && specs[i].arg.name != placeholders[i]->name()) {
      throw AotError("input spec " + std::to_string(i) + " names '" + specs[i].arg.name + "' but placeholder " +
                     std::to_string(i) + " is '" + placeholders[i]->name() + "'");
    }
  }
}

void check_outputs(const ExportedProgram& program) {
  const Node* output = program.graph().output_node();
  const ArgumentList& values = output->args().at(0).list();
  const auto& specs = program.graph_signature().output_specs;
  if (values.size() != specs.size()) {
    throw AotError("the graph returns " + std::to_string(values.size()) + " values but the signature has " +
                   std::to_string(specs.size()) + " output specs");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].arg.names_node()) continue;
    const std::string actual = values[i].is_node() ? values[i].node()->name() : to_string(values[i]);
    if (specs[i].arg.name != actual) {
      throw AotError("output spec " + std::to_string(i) + " names '" + specs[i].arg.name + "' but the graph returns '" +
                     actual + "' there");
    }
  }
}

// The tensor a placeholder stands for must exist and match its meta.
void check_lifted_tensor(const Node& placeholder, const InputSpec& spec, const HostTensor* tensor,
                         const char* where) {
  const auto what = [&] {
    return "placeholder '" + placeholder.name() + "' (" + to_string(spec.kind) + " '" + spec.target + "')";
  };
  if (tensor == nullptr) throw AotError(what() + " has no tensor in the " + where);
  const auto* meta = std::get_if<TensorMeta>(&placeholder.meta.val);
  if (meta == nullptr) return;
  const auto same_sizes = [&] {
    if (meta->sizes.size() != tensor->sizes().size()) return false;
    for (size_t d = 0; d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].constant_value() != tensor->sizes()[d]) return false;
    }
    return true;
  };
  if (meta->dtype != tensor->dtype() || !meta->is_static() || !same_sizes()) {
    throw AotError(what() + " is " + meta->to_string() + " but the " + where + " holds " + tensor->describe());
  }
}

void check_weights(const ExportedProgram& program, const std::vector<const Node*>& placeholders) {
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& spec = specs[i];
    if (spec.kind == InputKind::Parameter || spec.kind == InputKind::Buffer || spec.kind == InputKind::ConstantTensor) {
      check_lifted_tensor(*placeholders[i], spec, program.find_lifted_tensor(spec),
                          spec.in_state_dict() ? "state dict" : "constants");
    } else if (spec.kind == InputKind::CustomObj && !program.constants().count(spec.target)) {
      throw AotError("placeholder '" + placeholders[i]->name() + "' (CUSTOM_OBJ '" + spec.target +
                     "') has no object in the constants");
    }
  }
}

// The attribute a get_attr fetches; throws AotError if the program has none.
const ModuleAttribute* check_get_attr(const ExportedProgram& program, const Node& node) {
  if (const auto attribute = program.find_attribute(node.target())) return attribute.get();
  std::string known;
  for (const auto& [name, attribute] : program.attributes()) known += (known.empty() ? "" : ", ") + name;
  throw AotError("get_attr node '" + node.name() + "' fetches '" + node.target() +
                 "', which the program does not hold (its attributes: " + (known.empty() ? "none" : known) + ")");
}

// executorch_call_delegate(lowered_module, *inputs): the module comes from a
// get_attr, and the inputs are as many as the delegate's user inputs.
// `fetched` is the attribute `fetched_by` fetches (check_get_attr found it),
// which spares a lookup when that is this call's module.
void check_call_delegate(const ExportedProgram& program, const Node& node, const Node* fetched_by,
                         const ModuleAttribute* fetched) {
  const auto where = [&node] { return "node '" + node.name() + "' (" + kCallDelegate + ")"; };
  if (node.args().empty() || !node.args()[0].is_node() || !node.args()[0].node()->is_get_attr()) {
    throw AotError(where() + ": its first argument must be a get_attr of a lowered module");
  }
  if (!node.kwargs().empty()) throw AotError(where() + " takes no keyword arguments");
  const Node& module = *node.args()[0].node();
  const ModuleAttribute* attribute = &module == fetched_by ? fetched : program.find_attribute(module.target()).get();
  if (attribute == nullptr) return;  // check_get_attr names it
  size_t user_inputs = 0;
  for (const InputSpec& spec : attribute->delegated_program().graph_signature().input_specs) {
    if (spec.kind == InputKind::UserInput) ++user_inputs;
  }
  if (node.args().size() - 1 != user_inputs) {
    throw AotError(where() + " passes " + std::to_string(node.args().size() - 1) + " inputs to '" + module.target() +
                   "', which takes " + std::to_string(user_inputs));
  }
}

}  // namespace

void Verifier::check(const ExportedProgram& program) const {
  program.graph().lint();
  program.graph_signature().validate();
  // One walk of the graph's list for all the checks below: on a large graph
  // each step of a walk is a cache miss that waits for the one before.
  const std::vector<Node*> nodes = program.graph().node_list();
  const std::vector<const Node*> placeholders = leading_placeholders(nodes);
  check_placeholders(program, placeholders);
  check_outputs(program);
  check_weights(program, placeholders);
  const Node* last_get_attr = nullptr;
  const ModuleAttribute* last_attribute = nullptr;
  for (const Node* node : nodes) {
    if (node->is_get_attr()) {
      last_attribute = check_get_attr(program, *node);
      last_get_attr = node;
    }
    if (!node->is_call_function()) continue;
    check_op(*node);
    if (is_call_of(*node, ExecKind::DelegateCall)) check_call_delegate(program, *node, last_get_attr, last_attribute);
  }
  for (const auto& [symbol, range] : program.range_constraints()) {
    if (range.max && *range.max < range.min) {
      throw AotError("range constraint of '" + symbol + "' is empty: " + range.to_string());
    }
  }
}

const Verifier& verifier_for(const std::string& dialect) {
  static const Verifier aten;
  static const EdgeVerifier edge;
  // The training IR differs from ATEN in the ops it allows (in-place ones
  // included), which the ATEN checks already accept.
  if (dialect == kAtenDialect || dialect == kTrainingDialect) return aten;
  if (dialect == kEdgeDialect) return edge;
  throw AotError("unknown dialect '" + dialect + "' (known: TRAINING, ATEN, EDGE)");
}

}  // namespace kiln::aot
