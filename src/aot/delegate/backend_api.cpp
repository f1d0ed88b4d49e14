#include "aot/delegate/backend_api.h"

#include <optional>

#include "aot/delegate/lowering_steps.h"
#include "aot/ir/error.h"
#include "aot/ir/pass_manager.h"

namespace kiln::aot {

LoweredBackendModule to_backend(const std::string& backend_id, ExportedProgram&& edge_program,
                                const std::vector<CompileSpec>& compile_specs) {
  const BackendDetails& backend = get_backend(backend_id);
  PreprocessResult result;
  try {
    result = backend.preprocess(edge_program, compile_specs);
  } catch (const AotError& error) {
    throw AotError("backend '" + backend_id + "' cannot lower the program: " + error.what());
  }
  LoweredBackendModule lowered(std::move(edge_program), backend_id, std::move(result.processed_bytes), compile_specs,
                               std::move(result.data_store_output));
  lowered.meta.debug_handle_map = std::move(result.debug_handle_map);
  return lowered;
}

LoweredBackendModule to_backend(const std::string& backend_id, const ExportedProgram& edge_program,
                                const std::vector<CompileSpec>& compile_specs) {
  return to_backend(backend_id, copy_for_partitioning(edge_program), compile_specs);
}

namespace {

std::string tag_text(const std::string& tag) { return tag.empty() ? "None" : tag; }

}  // namespace

namespace detail {

std::string mixed_tag_message(const Node& constant, const std::string& tag, const Node& user) {
  return "constant data node (" + constant.name() + ") is tagged with (" + tag + ") but has user (" + user.name() +
         ") which has tag (" + tag_text(user.meta.delegation_tag) + ")";
}

void check_tagged_node(const Node& node, const std::string& tag, const InputSpecIndex& specs) {
  if (node.is_output()) throw AotError("output node " + node.name() + " should not be tagged");
  if (!node.is_placeholder()) return;
  if (!specs.is_lifted_tensor(node)) {
    throw AotError("placeholder node for non-params, non-buffer, and non-tensor constants should not be tagged: " +
                   node.name());
  }
  for (const Node* user : node.users()) {
    if (user->meta.delegation_tag != tag) throw AotError(mixed_tag_message(node, tag, *user));
  }
}

}  // namespace detail

std::vector<Node*> get_node_list_with_same_tag(const ExportedProgram& program, const std::string& tag) {
  const InputSpecIndex specs(program);
  std::vector<Node*> nodes;
  for (Node* node : program.graph()) {
    if (node->meta.delegation_tag != tag) continue;
    detail::check_tagged_node(*node, tag, specs);
    nodes.push_back(node);
  }
  return nodes;
}

std::set<std::string> duplicate_constant_node(ExportedProgram& program, const std::string& candidate_node) {
  Graph& graph = program.graph();
  Node* node = graph.find_node(candidate_node);
  if (node == nullptr || !node->is_placeholder()) return {};
  if (!is_lifted_tensor(program, *node)) {
    throw AotError("placeholder node for non-params, non-buffer, and non-tensor constants should not be tagged: " +
                   candidate_node);
  }
  const std::vector<Node*> users = node->users();
  std::vector<InputSpec> specs;
  std::set<std::string> copies;
  const auto placeholders = graph.placeholders();
  for (size_t p = 0; p < placeholders.size(); ++p) {
    const InputSpec& spec = program.graph_signature().input_specs.at(p);
    if (placeholders[p] == node) {
      for (size_t i = 1; i < users.size(); ++i) {
        Node* copy = graph.placeholder(candidate_node + "_copy_" + std::to_string(i - 1), node->meta.val);
        graph.move_before(copy, node);
        copy->meta = node->meta;
        users[i]->replace_input_with(node, copy);
        InputSpec copied = spec;
        copied.arg = ArgumentSpec::tensor(copy->name());
        specs.push_back(copied);
        copies.insert(copy->name());
      }
    }
    specs.push_back(spec);
  }
  program.graph_signature().input_specs = std::move(specs);
  return copies;
}

std::set<std::string> maybe_duplicate_constant_nodes(ExportedProgram& program, const std::string& tag) {
  std::vector<std::string> candidates;
  const InputSpecIndex specs(program);
  for (Node* node : program.graph().placeholders()) {
    if (node->meta.delegation_tag != tag || !specs.is_lifted_tensor(*node)) continue;
    for (const Node* user : node->users()) {
      if (user->meta.delegation_tag == tag) continue;
      const std::string where = detail::mixed_tag_message(*node, tag, *user);
      if (node->meta.no_copy) throw AotError(where + ", and it is marked no_copy");
      if (specs.is_mutated_buffer(*node)) {
        throw AotError(where + "; it is a mutated buffer, which cannot be copied");
      }
      candidates.push_back(node->name());
      break;
    }
  }
  std::set<std::string> touched(candidates.begin(), candidates.end());
  for (const std::string& candidate : candidates) {
    const std::set<std::string> copies = duplicate_constant_node(program, candidate);
    touched.insert(copies.begin(), copies.end());
  }
  for (const std::string& name : touched) {
    Node* node = program.graph().node(name);
    std::set<std::string> user_tags;
    for (const Node* user : node->users()) user_tags.insert(user->meta.delegation_tag);
    node->meta.delegation_tag = user_tags.size() == 1 ? *user_tags.begin() : "";
  }
  return touched;
}

ExportedProgram to_backend(const ExportedProgram& edge_program, const Partitioner& partitioner,
                           ToBackendReport* report) {
  // Verified once: its copy, and the partitioner's copy of that, are valid
  // too (tags are not verified).
  edge_program.verify();
  ExportedProgram owning = edge_program.copy_of_verified();
  // Tags left by an earlier lowering must not leak into this one.
  for (Node* node : owning.graph()) {
    node->meta.delegation_tag.clear();
    node->meta.no_copy = false;
  }
  PartitionResult result = [&] {
    const detail::VerifiedForPartitioning verified(owning);
    return partitioner.partition(owning);
  }();
  const std::string who = "partitioner " + partitioner.name();
  if (const std::string difference = graph_difference(owning, result.tagged_exported_program); !difference.empty()) {
    throw AotError(who + " must only tag nodes, but it changed the program: " + difference);
  }
  std::set<std::string> declared;
  for (const auto& [tag, spec] : result.partition_tags) {
    if (tag.empty()) throw AotError(who + " declares an empty tag");
    if (!declared.insert(tag).second) throw AotError(who + " declares tag '" + tag + "' twice");
    get_backend(spec.backend_id);
  }
  // The graphs are the same node for node (graph_difference), so they are
  // walked side by side.
  auto owned = owning.graph().begin();
  for (const Node* tagged : result.tagged_exported_program.graph()) {
    const std::string& tag = tagged->meta.delegation_tag;
    if (!tag.empty() && !declared.count(tag)) {
      throw AotError(who + " tagged node '" + tagged->name() + "' with '" + tag +
                     "', which its partition tags do not declare");
    }
    Node* node = *owned;
    ++owned;
    node->meta.delegation_tag = tag;
    node->meta.no_copy = tagged->meta.no_copy;
  }
  // Tags are not checked: unless constants were copied, the program is the
  // one copy_for_partitioning verified.
  if (detail::duplicate_shared_constants(owning, result.partition_tags)) owning.verify();

  ToBackendReport local;
  local.partitioner = partitioner.name();
  local.lowered_modules = detail::lower_tagged_partitions(owning, result.partition_tags);
  for (Node* node : owning.graph()) {
    node->meta.delegation_tag.clear();
    node->meta.no_copy = false;
  }
  owning.verify();
  local.unsupported = std::move(result.unsupported);
  if (report != nullptr) *report = std::move(local);
  return owning;
}

ExportedProgram to_backend(const ExportedProgram& edge_program, const std::vector<const Partitioner*>& partitioners,
                           std::vector<ToBackendReport>* reports) {
  // The first lowering copies the program anyway, so it starts from
  // `edge_program` itself (the result is the same) unless there is no
  // lowering to do, or copying would fail (an input used before it is
  // defined): then the copy comes first, as the failure it reports.
  size_t lowered = 0;
  std::optional<ExportedProgram> current;
  if (!partitioners.empty() && partitioners.front() != nullptr && edge_program.graph().is_topologically_sorted()) {
    ToBackendReport report;
    current.emplace(to_backend(edge_program, *partitioners.front(), &report));
    if (reports != nullptr) reports->push_back(std::move(report));
    lowered = 1;
  } else {
    current.emplace(copy_for_partitioning(edge_program));
  }
  for (size_t i = lowered; i < partitioners.size(); ++i) {
    if (partitioners[i] == nullptr) throw AotError("to_backend: null partitioner");
    ToBackendReport report;
    current = to_backend(*current, *partitioners[i], &report);
    if (reports != nullptr) reports->push_back(std::move(report));
  }
  return std::move(*current);
}

}  // namespace kiln::aot
