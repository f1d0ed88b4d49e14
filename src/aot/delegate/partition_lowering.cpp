// The partitions of one program lowered one tag after another, as to_backend
// does, at a cost that follows the partitions' sizes rather than the number
// of partitions times the program's size. What would be rescanned per
// partition is kept instead:
//  - the tagged nodes' names, gathered once (a node may have gone since: the
//    names are looked up again);
//  - an index of the input specs; the consumed inputs are dropped once at the
//    end (nothing between partitions reads them, and the end state is the
//    same as dropping them one partition at a time);
//  - the debug handles in a max-heap (entries checked against the graph when
//    read), the lowest lowered_module_N index that may be free, and how many
//    get_attr nodes fetch each attribute (for pruning around each partition).
#include <algorithm>
#include <queue>
#include <set>
#include <unordered_map>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/lowering_steps.h"
#include "aot/ir/pass_manager.h"
#include "aot/ir/error.h"

namespace kiln::aot::detail {

namespace {

constexpr const char* kModulePrefix = "lowered_module_";

bool may_be_module_name(const std::string& name) { return name.rfind(kModulePrefix, 0) == 0; }


class PartitionLowering {
 public:
  explicit PartitionLowering(ExportedProgram& owning) : owning_(owning), specs_(owning) {
    for (Node* node : owning_.graph()) {
      if (!node->meta.delegation_tag.empty()) names_by_tag_[node->meta.delegation_tag].push_back(node->name());
      if (node->meta.debug_handle) handles_.emplace(*node->meta.debug_handle, node->name());
    }
  }

  // Lowers each tag's nodes; returns the lowered modules' attribute names.
  std::vector<std::string> run(const std::vector<std::pair<std::string, DelegationSpec>>& partition_tags) {
    std::vector<std::string> lowered;
    for (const auto& [tag, spec] : partition_tags) {
      const std::vector<Node*> nodes = tagged_nodes(tag);
      if (nodes.empty()) continue;
      lowered.push_back(lower(tag, spec, nodes));
    }
    drop_consumed_inputs(owning_, consumed_inputs_);
    return lowered;
  }

 private:
  // get_node_list_with_same_tag, over the nodes gathered for `tag`.
  std::vector<Node*> tagged_nodes(const std::string& tag) {
    std::vector<Node*> nodes;
    for (const std::string& name : names_by_tag_[tag]) {
      Node* node = owning_.graph().find_node(name);
      if (node != nullptr && node->meta.delegation_tag == tag) nodes.push_back(node);
    }
    std::sort(nodes.begin(), nodes.end(), [](Node* a, Node* b) { return a->is_before(*b); });
    for (Node* node : nodes) check_tagged_node(*node, tag, specs_);
    return nodes;
  }

  std::string lower(const std::string& tag, const DelegationSpec& spec, const std::vector<Node*>& nodes) {
    // The get_attr nodes the cut removes or leaves with fewer users.
    std::vector<std::string> removed_fetches;
    std::set<Node*> fetches_used;
    for (Node* node : nodes) {
      if (may_be_module_name(node->name())) module_cursor_ = 0;
      if (node->is_get_attr()) removed_fetches.push_back(node->target());
      for (Node* input : node->input_nodes()) {
        if (input->is_get_attr() && input->meta.delegation_tag != tag) fetches_used.insert(input);
      }
    }
    SubmoduleCall fused = cut_partition(owning_.graph(), nodes, tag, true);
    update_output_specs_from_graph(owning_);  // a cut leaves the placeholders as they were
    SubmoduleProgram submodule =
        make_submodule_program(std::move(fused.submodule), owning_, tag, *fused.call_module_node, specs_);
    auto lowered = std::make_shared<LoweredBackendModule>(
        to_backend(spec.backend_id, std::move(submodule.program), spec.compile_specs));
    const std::string name = next_module_name();
    const int64_t handle = next_debug_handle();
    Node* call = replace_with_delegate_call(owning_, *fused.call_module_node, lowered, name, handle);
    handles_.emplace(handle, call->name());
    ++fetch_count_[name];
    drop_consumed_outputs(owning_, *call, submodule.output_specs_to_delete);
    for (const auto& [input, input_spec] : submodule.input_specs_to_delete) {
      consumed_inputs_.emplace(input, input_spec);
      if (may_be_module_name(input)) module_cursor_ = 0;
    }
    prune_module_attributes(removed_fetches, fetches_used);
    return name;
  }

  // Drops get_attr nodes nothing uses any more and the attributes no get_attr
  // fetches: over the whole program after the first partition, then around
  // each partition (only its get_attr nodes can have changed).
  void prune_module_attributes(const std::vector<std::string>& removed_fetches, const std::set<Node*>& fetches_used) {
    Graph& graph = owning_.graph();
    if (!pruned_once_) {
      pruned_once_ = true;
      fetch_count_.clear();
      for (Node* node : graph.node_list()) {
        if (!node->is_get_attr()) continue;
        if (node->users().empty()) {
          if (may_be_module_name(node->name())) module_cursor_ = 0;
          graph.erase_node(node);
        } else {
          ++fetch_count_[node->target()];
        }
      }
      std::vector<std::string> unused;
      for (const auto& [attribute, value] : owning_.attributes()) {
        if (!fetch_count_.count(attribute)) unused.push_back(attribute);
      }
      for (const std::string& attribute : unused) erase_attribute(attribute);
      return;
    }
    for (const std::string& target : removed_fetches) unfetch(target);
    for (Node* node : fetches_used) {
      if (!node->users().empty()) continue;
      const std::string target = node->target();
      if (may_be_module_name(node->name())) module_cursor_ = 0;
      graph.erase_node(node);
      unfetch(target);
    }
  }

  void unfetch(const std::string& target) {
    auto it = fetch_count_.find(target);
    if (it == fetch_count_.end() || --it->second > 0) return;
    fetch_count_.erase(it);
    erase_attribute(target);
  }

  void erase_attribute(const std::string& attribute) {
    if (may_be_module_name(attribute)) module_cursor_ = 0;
    owning_.erase_attribute(attribute);
  }

  bool consumed(const std::string& name) const { return consumed_inputs_.count(name) > 0; }

  // get_lowered_module_name: no index below the cursor has come free since it moved.
  std::string next_module_name() {
    for (size_t i = module_cursor_;; ++i) {
      const std::string name = kModulePrefix + std::to_string(i);
      const Node* node = owning_.graph().find_node(name);
      if (owning_.find_attribute(name) == nullptr && (node == nullptr || consumed(name))) {
        module_cursor_ = i + 1;
        return name;
      }
    }
  }

  // One past the largest debug handle in the graph (at least 1).
  int64_t next_debug_handle() {
    while (!handles_.empty()) {
      const auto& [handle, name] = handles_.top();
      const Node* node = owning_.graph().find_node(name);
      if (node != nullptr && !consumed(name) && node->meta.debug_handle == handle) return std::max<int64_t>(handle, 0) + 1;
      handles_.pop();
    }
    return 1;
  }

  ExportedProgram& owning_;
  const InputSpecIndex specs_;
  std::unordered_map<std::string, std::vector<std::string>> names_by_tag_;
  std::priority_queue<std::pair<int64_t, std::string>> handles_;
  std::map<std::string, InputSpec> consumed_inputs_;  // dropped at the end
  std::unordered_map<std::string, size_t> fetch_count_;  // attribute -> get_attr nodes fetching it
  bool pruned_once_ = false;
  size_t module_cursor_ = 0;
};

}  // namespace

bool duplicate_shared_constants(ExportedProgram& program,
                                const std::vector<std::pair<std::string, DelegationSpec>>& partition_tags) {
  // A constant's first user of another tag, found once for all tags: handling
  // one tag only changes the placeholders of that tag and their copies, which
  // end up used by one tag each.
  struct Shared {
    Node* node;
    const Node* user;
    bool mutated;
  };
  std::unordered_map<std::string, std::vector<Shared>> shared;
  {
    const InputSpecIndex specs(program);
    for (Node* node : program.graph().placeholders()) {
      const std::string& tag = node->meta.delegation_tag;
      if (tag.empty() || node->users().empty() || !specs.is_lifted_tensor(*node)) continue;
      for (const Node* user : node->users()) {
        if (user->meta.delegation_tag == tag) continue;
        shared[tag].push_back({node, user, specs.is_mutated_buffer(*node)});
        break;
      }
    }
  }
  bool copied = false;
  for (const auto& [tag, spec] : partition_tags) {
    auto found = shared.find(tag);
    if (found == shared.end()) continue;
    std::vector<std::string> candidates;
    for (const Shared& constant : found->second) {
      const std::string where = mixed_tag_message(*constant.node, tag, *constant.user);
      if (constant.node->meta.no_copy) throw AotError(where + ", and it is marked no_copy");
      if (constant.mutated) throw AotError(where + "; it is a mutated buffer, which cannot be copied");
      candidates.push_back(constant.node->name());
    }
    std::set<std::string> touched(candidates.begin(), candidates.end());
    for (const std::string& candidate : candidates) {
      const std::set<std::string> copies = duplicate_constant_node(program, candidate);
      touched.insert(copies.begin(), copies.end());
      copied = copied || !copies.empty();
    }
    for (const std::string& name : touched) {
      Node* node = program.graph().node(name);
      std::set<std::string> user_tags;
      for (const Node* user : node->users()) user_tags.insert(user->meta.delegation_tag);
      node->meta.delegation_tag = user_tags.size() == 1 ? *user_tags.begin() : "";
    }
  }
  return copied;
}

std::vector<std::string> lower_tagged_partitions(
    ExportedProgram& owning, const std::vector<std::pair<std::string, DelegationSpec>>& partition_tags) {
  return PartitionLowering(owning).run(partition_tags);
}

}  // namespace kiln::aot::detail
