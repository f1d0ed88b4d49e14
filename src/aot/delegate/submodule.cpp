// Cutting one tagged partition out of a program and calling it as a
// delegate: create_submodule_from_nodes fuses the nodes into a subgraph (and
// refuses a cycle through an outside node), the signature steps decide what
// data moves into the delegate, and insert_lowered_submodule puts the delegate
// call in the partition's place and adjusts the owning program.
#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/delegate/lowering_steps.h"
#include "aot/delegate/partitioner.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/pass_manager.h"

namespace kiln::aot {

namespace {

using NodeSet = std::unordered_set<const Node*>;

std::string join_names(const std::vector<Node*>& nodes) {
  std::string text;
  for (const Node* node : nodes) text += (text.empty() ? "" : ", ") + node->name();
  return text;
}

// An outside node on a path between two partition nodes would have to run
// both after and before the fused call. Walks the graph from the partition's
// first node to its last, marking outside nodes that depend on the partition
// ("tainted", with the input they got it from), and fails when a partition
// node uses one.
void check_no_cycle(const std::vector<Node*>& sorted, const NodeSet& in_partition, const std::string& tag) {
  std::unordered_map<const Node*, const Node*> tainted_by;
  for (Node* node = sorted.front(); node != nullptr; node = node->next()) {
    if (in_partition.count(node)) {
      for (Node* input : node->input_nodes()) {
        if (!tainted_by.count(input)) continue;
        // The path back: node <- input <- ... <- a partition node.
        std::vector<const Node*> path = {node};
        for (const Node* step = input; step != nullptr;) {
          path.push_back(step);
          auto it = tainted_by.find(step);
          step = it == tainted_by.end() ? nullptr : it->second;
        }
        std::string route;
        std::string outside;
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
          route += (route.empty() ? "" : " -> ") + (*it)->name();
          if (!in_partition.count(*it)) outside += (outside.empty() ? "'" : ", '") + (*it)->name() + "'";
        }
        throw AotError("Invalid partition '" + tag + "', found dependency cycles: " + route + " (" + outside +
                       " outside the partition would have to run both after and before it; partition nodes: " +
                       join_names(sorted) + ")");
      }
      if (node == sorted.back()) return;
      continue;
    }
    for (Node* input : node->input_nodes()) {
      if (in_partition.count(input) || tainted_by.count(input)) {
        tainted_by[node] = input;
        break;
      }
    }
  }
}

// The values a partition takes from outside (in order of first use; get_attr
// nodes excluded: a module is no value to pass) and those it gives to nodes
// outside (in graph order).
struct Boundary {
  std::vector<Node*> inputs;
  std::vector<Node*> outputs;
};

Boundary find_boundary(const std::vector<Node*>& sorted, const NodeSet& in_partition, const std::string& tag) {
  Boundary boundary;
  NodeSet taken;
  for (Node* node : sorted) {
    for (Node* input : node->input_nodes()) {
      if (!in_partition.count(input) && !input->is_get_attr() && taken.insert(input).second) {
        boundary.inputs.push_back(input);
      }
    }
    const auto& users = node->users();
    auto outside = std::find_if(users.begin(), users.end(), [&](Node* user) { return !in_partition.count(user); });
    if (outside == users.end()) continue;
    if (!std::holds_alternative<TensorMeta>(node->meta.val)) {
      throw AotError("partition '" + tag + "': '" + (*outside)->name() + "', outside the partition, uses '" +
                     node->name() + "', which is not a tensor (" + to_string(node->meta.val) +
                     "); a delegate returns tensors only (tag the getitems of a multi-output node with it)");
    }
    boundary.outputs.push_back(node);
  }
  return boundary;
}

// The partition as a graph of its own: inputs become placeholders, get_attr
// nodes are copied in, names and metas are kept.
std::unique_ptr<Graph> copy_partition(const std::vector<Node*>& sorted, const Boundary& boundary) {
  auto submodule = std::make_unique<Graph>();
  std::unordered_map<const Node*, Node*> twin;
  for (Node* input : boundary.inputs) {
    Node* placeholder = submodule->placeholder(input->name(), input->meta.val);
    placeholder->meta = input->meta;
    placeholder->meta.delegation_tag.clear();
    twin[input] = placeholder;
  }
  std::function<Argument(const Argument&)> remap = [&](const Argument& arg) -> Argument {
    if (arg.is_node()) {
      Node* node = arg.node();
      if (!twin.count(node) && node->is_get_attr()) twin[node] = submodule->get_attr(node->target());
      return twin.at(node);
    }
    if (!arg.is_list()) return arg;
    ArgumentList list;
    for (const Argument& item : arg.list()) list.push_back(remap(item));
    return list;
  };
  for (Node* node : sorted) {
    Node* copy = nullptr;
    if (node->is_placeholder()) {
      copy = submodule->placeholder(node->name(), node->meta.val);
    } else if (node->is_get_attr()) {
      copy = submodule->get_attr(node->target());
    } else {
      ArgumentList args;
      for (const Argument& arg : node->args()) args.push_back(remap(arg));
      KwargList kwargs;
      for (const auto& [key, value] : node->kwargs()) kwargs.emplace_back(key, remap(value));
      copy = submodule->call_function(node->target(), std::move(args), std::move(kwargs), node->name());
    }
    copy->meta = node->meta;
    twin[node] = copy;
  }
  ArgumentList returned;
  for (Node* output : boundary.outputs) returned.push_back(twin.at(output));
  submodule->output(std::move(returned));
  return submodule;
}

// In the program: "fused_<tag>"(inputs...) after the partition's last node,
// one getitem per output taking over its uses outside, the partition's
// operator nodes erased. Tagged placeholders stay until the program's
// signature drops them.
Node* replace_partition_with_call(Graph& graph, const std::vector<Node*>& sorted, const NodeSet& in_partition,
                                  const Boundary& boundary, const std::string& tag) {
  Node* anchor = sorted.back()->next();
  while (anchor->is_placeholder()) anchor = anchor->next();
  Node* saved_insert_point = graph.insert_point();
  if (in_partition.count(saved_insert_point)) saved_insert_point = nullptr;
  graph.set_insert_point(anchor);
  Node* call = graph.call_function("fused_" + tag, ArgumentList(boundary.inputs.begin(), boundary.inputs.end()), {},
                                   "fused_" + tag);
  std::vector<TensorMeta> metas;
  for (size_t i = 0; i < boundary.outputs.size(); ++i) {
    Node* output = boundary.outputs[i];
    Node* item = graph.call_function(kGetItem, {call, static_cast<int64_t>(i)});
    item->meta.val = output->meta.val;
    metas.push_back(std::get<TensorMeta>(output->meta.val));
    const std::vector<Node*> users = output->users();
    for (Node* user : users) {
      if (!in_partition.count(user)) user->replace_input_with(output, item);
    }
  }
  call->meta.val = std::move(metas);
  graph.set_insert_point(saved_insert_point);
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
    if (!(*it)->is_placeholder()) graph.erase_node(*it);
  }
  return call;
}

// Whether a use of the call's results comes before them (the only uses the
// cut can have put out of order in a sorted graph).
bool results_used_early(const Node& call) {
  for (const Node* item : call.users()) {
    for (const Node* user : item->users()) {
      if (!item->is_before(*user)) return true;
    }
  }
  return false;
}

}  // namespace

namespace detail {

SubmoduleCall cut_partition(Graph& graph, const std::vector<Node*>& node_list, const std::string& tag,
                            bool graph_was_sorted) {
  if (node_list.empty()) throw AotError("create_submodule_from_nodes: no nodes carry tag '" + tag + "'");
  std::vector<Node*> sorted;
  NodeSet in_partition;
  for (Node* node : node_list) {
    if (&node->graph() != &graph) {
      throw AotError("create_submodule_from_nodes: a node of tag '" + tag + "' is not in the graph");
    }
    if (node->is_output()) throw AotError("output node '" + node->name() + "' should not be tagged");
    if (in_partition.insert(node).second) sorted.push_back(node);
  }
  std::sort(sorted.begin(), sorted.end(), [](Node* a, Node* b) { return a->is_before(*b); });
  check_no_cycle(sorted, in_partition, tag);
  const Boundary boundary = find_boundary(sorted, in_partition, tag);
  std::unique_ptr<Graph> submodule = copy_partition(sorted, boundary);
  Node* call = replace_partition_with_call(graph, sorted, in_partition, boundary, tag);
  // Uses of the outputs may come before the call: sort as fx's legalize_graph
  // does (on a graph that was sorted and still is, that changes nothing).
  if (!graph_was_sorted || results_used_early(*call)) graph.stable_topological_sort();
  return {std::move(submodule), call};
}

}  // namespace detail

SubmoduleCall create_submodule_from_nodes(Graph& graph, const std::vector<Node*>& node_list, const std::string& tag) {
  return detail::cut_partition(graph, node_list, tag, false);
}

namespace {

void arrange_placeholders(Graph& submodule, const ExportedProgram& owning_program, const std::string& tag,
                          const InputSpecIndex& specs) {
  std::vector<Node*> groups[4];  // parameters, buffers, constants, user inputs
  for (Node* node : submodule.placeholders()) {
    const InputSpec* spec = specs.input_spec_of(*owning_program.graph().node(node->name()));
    const bool consumed = node->meta.delegation_tag == tag && spec != nullptr;
    if (consumed && spec->kind == InputKind::Parameter) {
      groups[0].push_back(node);
    } else if (consumed && spec->kind == InputKind::Buffer) {
      groups[1].push_back(node);
    } else if (consumed && spec->kind == InputKind::ConstantTensor) {
      groups[2].push_back(node);
    } else {
      groups[3].push_back(node);
    }
  }
  Node* first_body = submodule.placeholders().back()->next();
  for (const auto& group : groups) {
    for (Node* node : group) submodule.move_before(node, first_body);
  }
}

}  // namespace

void arrange_graph_placeholders(Graph& submodule, const ExportedProgram& owning_program, const std::string& tag) {
  arrange_placeholders(submodule, owning_program, tag, InputSpecIndex(owning_program));
}

namespace {

// A placeholder tagged like the partition keeps its spec (its data moves into
// the delegate); any other is a user input of the delegate.
std::vector<InputSpec> new_input_specs(const ExportedProgram& original_program, const Graph& submodule,
                                       const std::string& tag, const InputSpecIndex& specs, NewSignature& result,
                                       std::set<std::string>& consumed_buffers) {
  std::vector<InputSpec> input_specs;
  for (Node* node : submodule.placeholders()) {
    const InputSpec* spec = specs.input_spec_of(*original_program.graph().node(node->name()));
    if (spec == nullptr) {
      const bool is_sym = std::holds_alternative<SymExpr>(node->meta.val);
      input_specs.push_back({InputKind::UserInput,
                             is_sym ? ArgumentSpec::sym_int(node->name()) : ArgumentSpec::tensor(node->name()), "",
                             std::nullopt});
    } else if (spec->arg.kind != ArgumentSpec::Kind::Tensor) {
      if (spec->kind != InputKind::UserInput) {
        throw AotError("partition '" + tag + "' uses '" + node->name() + "' (" + to_string(spec->kind) +
                       "), which a delegate cannot take");
      }
      input_specs.push_back(*spec);
    } else if (node->meta.delegation_tag == tag) {
      if (spec->kind == InputKind::UserInput) {
        throw AotError("placeholder node for non-params, non-buffer, and non-tensor constants should not be tagged: " +
                       node->name());
      }
      input_specs.push_back(*spec);
      result.input_specs_to_delete[node->name()] = *spec;
      const HostTensor* tensor = original_program.find_lifted_tensor(*spec);
      if (tensor == nullptr) throw AotError("input spec '" + node->name() + "' has no tensor");
      if (spec->in_state_dict()) {
        result.state_dict[spec->target] = *tensor;
      } else {
        result.constants[spec->target] = *tensor;
      }
      if (spec->kind == InputKind::Buffer) consumed_buffers.insert(spec->target);
    } else {
      input_specs.push_back({InputKind::UserInput, ArgumentSpec::tensor(node->name()), "", std::nullopt});
    }
  }
  return input_specs;
}

// An output that is the new value of a consumed buffer is a buffer mutation
// (returned once more as a user output if the program also uses it
// otherwise); any other output is a user output.
std::vector<OutputSpec> new_output_specs(const ExportedProgram& original_program, Graph& submodule,
                                         const Node& call_module_node, const std::set<std::string>& consumed_buffers,
                                         NewSignature& result) {
  std::map<int64_t, const Node*> getitem_at;
  for (const Node* user : call_module_node.users()) getitem_at[user->args().at(1).to_int()] = user;
  const Node* top_output = original_program.graph().output_node();
  std::vector<OutputSpec> output_specs;
  Node* output = submodule.output_node();
  ArgumentList values = output->args().at(0).list();
  const size_t partition_outputs = values.size();
  for (size_t i = 0; i < partition_outputs; ++i) {
    const Node* value = values[i].node();
    const auto found = getitem_at.find(static_cast<int64_t>(i));
    const Node* item = found == getitem_at.end() ? nullptr : found->second;
    const OutputSpec* mutation = nullptr;
    size_t uses_as_output = 0;
    for (const OutputSpec& spec : original_program.graph_signature().output_specs) {
      if (item == nullptr || !spec.arg.names_node() || spec.arg.name != item->name()) continue;
      ++uses_as_output;
      if (spec.kind == OutputKind::BufferMutation && consumed_buffers.count(spec.target)) mutation = &spec;
    }
    if (mutation == nullptr) {
      output_specs.push_back({OutputKind::UserOutput, ArgumentSpec::tensor(value->name()), ""});
      continue;
    }
    output_specs.push_back({OutputKind::BufferMutation, ArgumentSpec::tensor(value->name()), mutation->target});
    result.output_specs_to_delete[item->name()] = *mutation;
    const bool used_otherwise = uses_as_output > 1 || std::any_of(item->users().begin(), item->users().end(),
                                                                  [&](Node* user) { return user != top_output; });
    if (used_otherwise) {
      result.also_returned.emplace_back(i, values.size());
      values.push_back(values[i]);
    }
  }
  for (size_t i = partition_outputs; i < values.size(); ++i) {
    output_specs.push_back({OutputKind::UserOutput, ArgumentSpec::tensor(values[i].node()->name()), ""});
  }
  output->set_args({Argument(std::move(values))});
  return output_specs;
}

NewSignature new_signature(const ExportedProgram& original_program, Graph& submodule, const Node& call_module_node,
                           const std::string& tag, const InputSpecIndex& specs) {
  NewSignature result;
  std::set<std::string> consumed_buffers;
  std::vector<InputSpec> input_specs =
      new_input_specs(original_program, submodule, tag, specs, result, consumed_buffers);
  std::vector<OutputSpec> output_specs =
      new_output_specs(original_program, submodule, call_module_node, consumed_buffers, result);
  for (const OutputSpec& spec : original_program.graph_signature().output_specs) {
    if (spec.kind != OutputKind::BufferMutation || !consumed_buffers.count(spec.target)) continue;
    if (!result.output_specs_to_delete.count(spec.arg.name)) {
      throw AotError("buffer '" + spec.target + "' moves into the delegate of partition '" + tag +
                     "', but its new value '" + spec.arg.name +
                     "' is computed outside the partition; tag the mutation with the buffer, or leave the buffer "
                     "untagged");
    }
  }
  result.signature = GraphSignature(std::move(input_specs), std::move(output_specs));
  return result;
}

}  // namespace

NewSignature get_new_signature(const ExportedProgram& original_program, Graph& submodule,
                               const Node& call_module_node, const std::string& tag) {
  return new_signature(original_program, submodule, call_module_node, tag, InputSpecIndex(original_program));
}

std::vector<size_t> arrange_graph_outputs(Graph& submodule, GraphSignature& signature) {
  Node* output = submodule.output_node();
  const ArgumentList& values = output->args().at(0).list();
  std::vector<size_t> order;
  for (size_t pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < signature.output_specs.size(); ++i) {
      if ((signature.output_specs[i].kind == OutputKind::BufferMutation) == (pass == 0)) order.push_back(i);
    }
  }
  ArgumentList new_values;
  std::vector<OutputSpec> new_specs;
  std::vector<size_t> new_index(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    new_values.push_back(values.at(order[k]));
    new_specs.push_back(signature.output_specs[order[k]]);
    new_index[order[k]] = k;
  }
  output->set_args({Argument(std::move(new_values))});
  signature.output_specs = std::move(new_specs);
  return new_index;
}

namespace {

// A consumed buffer's new value that the program also uses otherwise: a
// second getitem of the call (at `user_index`) takes every use but the buffer
// mutation output.
void split_mutation_getitem(ExportedProgram& program, Node& call, size_t mutation_index, size_t user_index,
                            const std::map<std::string, OutputSpec>& output_specs_to_delete) {
  Graph& graph = program.graph();
  Node* mutation = nullptr;
  for (Node* user : call.users()) {
    if (user->args().at(1).to_int() == static_cast<int64_t>(mutation_index)) mutation = user;
  }
  const OutputSpec& consumed = output_specs_to_delete.at(mutation->name());
  Node* saved = graph.insert_point();
  graph.set_insert_point(mutation->next());
  Node* item = graph.call_function(kGetItem, {&call, static_cast<int64_t>(user_index)});
  graph.set_insert_point(saved);
  item->meta.val = mutation->meta.val;
  Node* output = graph.output_node();
  const auto& specs = program.graph_signature().output_specs;
  ArgumentList values = output->args().at(0).list();
  for (size_t j = 0; j < values.size(); ++j) {
    const bool is_consumed = specs[j].kind == OutputKind::BufferMutation && specs[j].target == consumed.target;
    if (values[j].is_node() && values[j].node() == mutation && !is_consumed) values[j] = item;
  }
  output->set_args({Argument(std::move(values))});
  const std::vector<Node*> users = mutation->users();
  for (Node* user : users) {
    if (user != output) user->replace_input_with(mutation, item);
  }
  update_signature_from_graph(program);
}

}  // namespace

SubmoduleProgram detail::make_submodule_program(std::unique_ptr<Graph> submodule, ExportedProgram& owning_program,
                                                const std::string& tag, Node& call_module_node,
                                                const InputSpecIndex& specs) {
  arrange_placeholders(*submodule, owning_program, tag, specs);
  NewSignature signature = new_signature(owning_program, *submodule, call_module_node, tag, specs);
  for (const auto& [mutation_index, user_index] : signature.also_returned) {
    split_mutation_getitem(owning_program, call_module_node, mutation_index, user_index,
                           signature.output_specs_to_delete);
  }
  const std::vector<size_t> new_index = arrange_graph_outputs(*submodule, signature.signature);
  const std::vector<Node*> getitems = call_module_node.users();
  for (Node* user : getitems) {
    user->set_arg(1, static_cast<int64_t>(new_index.at(static_cast<size_t>(user->args().at(1).to_int()))));
  }
  ModuleAttributes attributes;
  for (Node* node : *submodule) {
    node->meta.delegation_tag.clear();
    node->meta.no_copy = false;
    if (node->is_get_attr()) attributes[node->target()] = owning_program.find_attribute(node->target());
  }
  TreeSpec args{TreeSpec::Kind::Tuple, {}, {}};
  for (size_t i = 0; i < signature.signature.user_inputs().size(); ++i) args.children.push_back(TreeSpec::leaf());
  TreeSpec outs{TreeSpec::Kind::List, {}, {}};
  for (size_t i = 0; i < signature.signature.user_outputs().size(); ++i) outs.children.push_back(TreeSpec::leaf());
  ModuleCallSignature call{{}, {}, TreeSpec{TreeSpec::Kind::Tuple, {}, {args, TreeSpec{TreeSpec::Kind::Dict, {}, {}}}},
                           outs, {}};
  ExportedProgram program(std::move(submodule), std::move(signature.signature), std::move(signature.state_dict),
                          owning_program.range_constraints(), {ModuleCallEntry{"", std::move(call)}},
                          std::move(signature.constants), owning_program.dialect(), std::move(attributes));
  return {std::move(program), std::move(signature.input_specs_to_delete), std::move(signature.output_specs_to_delete)};
}

Node* detail::replace_with_delegate_call(ExportedProgram& owning_program, Node& call_submodule_node,
                                         std::shared_ptr<LoweredBackendModule> lowered, const std::string& name,
                                         int64_t debug_handle) {
  Graph& graph = owning_program.graph();
  // The call passes the delegate's user inputs, in its placeholder order.
  const ExportedProgram& delegated = lowered->original_module();
  ArgumentList inputs;
  const auto placeholders = delegated.graph().placeholders();
  const auto& specs = delegated.graph_signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != InputKind::UserInput) continue;
    Node* input = graph.find_node(placeholders[i]->name());
    if (input == nullptr) throw AotError("delegate input '" + placeholders[i]->name() + "' is not in the program");
    inputs.push_back(input);
  }
  Node* saved = graph.insert_point();
  graph.set_insert_point(&call_submodule_node);
  Node* call = insert_delegate_call_named(owning_program, std::move(lowered), inputs, name);
  graph.set_insert_point(saved == &call_submodule_node ? nullptr : saved);
  call->meta.debug_handle = debug_handle;
  call_submodule_node.replace_all_uses_with(call);
  graph.erase_node(&call_submodule_node);
  return call;
}

Node* insert_lowered_submodule(ExportedProgram& owning_program, Node& call_submodule_node,
                               std::shared_ptr<LoweredBackendModule> lowered,
                               const std::map<std::string, InputSpec>& input_specs_to_delete,
                               const std::map<std::string, OutputSpec>& output_specs_to_delete) {
  int64_t largest_handle = 0;
  for (const Node* node : owning_program.graph()) {
    largest_handle = std::max(largest_handle, node->meta.debug_handle.value_or(0));
  }
  if (lowered == nullptr) throw AotError("insert_delegate_call: null module");
  Node* call = detail::replace_with_delegate_call(owning_program, call_submodule_node, std::move(lowered),
                                                  get_lowered_module_name(owning_program), largest_handle + 1);
  unsafe_adjust_original_program(owning_program, *call, input_specs_to_delete, output_specs_to_delete);
  return call;
}

void detail::drop_consumed_inputs(ExportedProgram& program, const std::map<std::string, InputSpec>& input_specs_to_delete) {
  if (input_specs_to_delete.empty()) return;
  Graph& graph = program.graph();
  GraphSignature& signature = program.graph_signature();
  std::vector<InputSpec> kept_inputs;
  std::set<std::string> used_targets;
  for (const InputSpec& spec : signature.input_specs) {
    if (spec.arg.names_node() && input_specs_to_delete.count(spec.arg.name)) continue;
    if (!spec.target.empty()) used_targets.insert(spec.target);
    kept_inputs.push_back(spec);
  }
  signature.input_specs = std::move(kept_inputs);
  for (Node* placeholder : graph.placeholders()) {
    if (input_specs_to_delete.count(placeholder->name())) graph.erase_node(placeholder);
  }
  for (const auto& [name, spec] : input_specs_to_delete) {
    if (used_targets.count(spec.target)) continue;
    if (spec.in_state_dict()) {
      program.state_dict().erase(spec.target);
    } else {
      program.constants().erase(spec.target);
    }
  }
}

void detail::drop_consumed_outputs(ExportedProgram& program, Node& call_delegate_node,
                                   const std::map<std::string, OutputSpec>& output_specs_to_delete) {
  Graph& graph = program.graph();
  GraphSignature& signature = program.graph_signature();
  Node* output = graph.output_node();
  const ArgumentList& values = output->args().at(0).list();
  ArgumentList kept_values;
  std::vector<OutputSpec> kept_outputs;
  for (size_t i = 0; i < signature.output_specs.size(); ++i) {
    const OutputSpec& spec = signature.output_specs[i];
    if (spec.kind == OutputKind::BufferMutation && spec.arg.names_node() &&
        output_specs_to_delete.count(spec.arg.name)) {
      continue;
    }
    kept_values.push_back(values.at(i));
    kept_outputs.push_back(spec);
  }
  output->set_args({Argument(std::move(kept_values))});
  signature.output_specs = std::move(kept_outputs);

  std::vector<int64_t> deleted;
  const std::vector<Node*> users = call_delegate_node.users();
  for (Node* user : users) {
    if (!output_specs_to_delete.count(user->name())) continue;
    deleted.push_back(user->args().at(1).to_int());
    graph.erase_node(user);
  }
  std::sort(deleted.begin(), deleted.end());
  const std::vector<Node*> remaining = call_delegate_node.users();
  for (Node* user : remaining) {
    const int64_t index = user->args().at(1).to_int();
    const auto below = std::lower_bound(deleted.begin(), deleted.end(), index) - deleted.begin();
    if (below > 0) user->set_arg(1, index - below);
  }
}

void unsafe_adjust_original_program(ExportedProgram& original_program, Node& call_delegate_node,
                                    const std::map<std::string, InputSpec>& input_specs_to_delete,
                                    const std::map<std::string, OutputSpec>& output_specs_to_delete) {
  detail::drop_consumed_inputs(original_program, input_specs_to_delete);
  detail::drop_consumed_outputs(original_program, call_delegate_node, output_specs_to_delete);
}

}  // namespace kiln::aot
