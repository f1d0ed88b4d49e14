// The canonical partitioners and the grouping of supported nodes into
// partitions. A set of nodes can run as one call when it is convex: no path
// between two of its nodes passes through a node outside it. Grouping checks
// that by walking the graph between the set's first and last node.
#include "aot/delegate/canonical_partitioners.h"

#include <algorithm>
#include <map>

#include "aot/ir/error.h"

namespace kiln::aot {

PartitionResult AllNodePartitioner::partition(const ExportedProgram& exported_program) const {
  PartitionResult result{copy_for_partitioning(exported_program), {}, {}};
  ExportedProgram& program = result.tagged_exported_program;
  const std::string& tag = delegation_spec_.backend_id;
  for (Node* node : program.graph()) {
    if (node->is_output() || (node->is_placeholder() && !is_lifted_tensor(program, *node))) continue;
    node->meta.delegation_tag = tag;
    if (result.partition_tags.empty()) result.partition_tags.emplace_back(tag, delegation_spec_);
  }
  return result;
}

namespace {

class Grouping {
 public:
  Grouping(const Graph& graph, const std::set<const Node*>& supported) : order_(graph.node_list()) {
    for (size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = i;
    group_.assign(order_.size(), -1);
    for (size_t k = 0; k < order_.size(); ++k) {
      if (!supported.count(order_[k])) continue;
      group_[k] = static_cast<int>(members_.size());
      members_.push_back({k});
      for (const Node* input : order_[k]->input_nodes()) {
        const int other = group_[position_.at(input)];
        if (other >= 0 && other != group_[k] && convex(other, group_[k])) merge(other, group_[k]);
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t a = 0; a < members_.size(); ++a) {
        for (size_t b = a + 1; b < members_.size() && !members_[a].empty(); ++b) {
          if (members_[b].empty() || !convex(static_cast<int>(a), static_cast<int>(b))) continue;
          merge(static_cast<int>(a), static_cast<int>(b));
          changed = true;
        }
      }
    }
  }

  std::vector<std::vector<Node*>> partitions() const {
    std::vector<const std::vector<size_t>*> groups;
    for (const auto& members : members_) {
      if (!members.empty()) groups.push_back(&members);
    }
    std::sort(groups.begin(), groups.end(), [](auto* x, auto* y) { return x->front() < y->front(); });
    std::vector<std::vector<Node*>> result;
    for (const auto* members : groups) {
      std::vector<Node*>& nodes = result.emplace_back();
      for (size_t k : *members) nodes.push_back(order_[k]);
    }
    return result;
  }

 private:
  // Is the union of groups a and b convex? Outside nodes between the union's
  // first and last node that depend on it are "tainted"; a member that uses a
  // tainted node closes a cycle.
  bool convex(int a, int b) const {
    const size_t lo = std::min(members_[a].front(), members_[b].front());
    const size_t hi = std::max(members_[a].back(), members_[b].back());
    std::vector<char> tainted(hi - lo + 1, 0);
    for (size_t k = lo; k <= hi; ++k) {
      const bool member = group_[k] == a || group_[k] == b;
      for (const Node* input : order_[k]->input_nodes()) {
        const size_t at = position_.at(input);
        if (at < lo) continue;
        if (member && tainted[at - lo]) return false;
        if (!member && (tainted[at - lo] || group_[at] == a || group_[at] == b)) {
          tainted[k - lo] = 1;
          break;
        }
      }
    }
    return true;
  }

  // Keeps the older group's id.
  void merge(int a, int b) {
    if (a > b) std::swap(a, b);
    for (size_t k : members_[b]) group_[k] = a;
    std::vector<size_t> merged;
    std::merge(members_[a].begin(), members_[a].end(), members_[b].begin(), members_[b].end(),
               std::back_inserter(merged));
    members_[a] = std::move(merged);
    members_[b].clear();
  }

  std::vector<Node*> order_;
  std::map<const Node*, size_t> position_;
  std::vector<int> group_;                   // by position; -1: not supported
  std::vector<std::vector<size_t>> members_;  // by group id, positions sorted; empty once merged away
};

}  // namespace

std::vector<std::vector<Node*>> group_acyclic_partitions(const Graph& graph, const std::set<const Node*>& supported) {
  return Grouping(graph, supported).partitions();
}

PartitionResult CapabilityPartitioner::partition(const ExportedProgram& exported_program) const {
  PartitionResult result{copy_for_partitioning(exported_program), {}, {}};
  ExportedProgram& program = result.tagged_exported_program;
  const BackendDetails& backend = get_backend(delegation_spec_.backend_id);
  std::set<const Node*> supported;
  for (Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    if (node->target() == "getitem") {
      const Node* source = node->args().empty() || !node->args()[0].is_node() ? nullptr : node->args()[0].node();
      if (supported.count(source)) supported.insert(node);
      continue;
    }
    NodeSupport support = node->target() == kCallDelegate ? NodeSupport::no("already delegated")
                          : std::holds_alternative<SymExpr>(node->meta.val)
                              ? NodeSupport::no("it computes a size, and delegates return tensors only")
                              : backend.supports(*node, program);
    if (support.supported) {
      supported.insert(node);
    } else {
      result.unsupported.push_back({node->name(), node->target(), std::move(support.reason)});
    }
  }
  const auto partitions = group_acyclic_partitions(program.graph(), supported);
  for (size_t i = 0; i < partitions.size(); ++i) {
    const std::string tag = "tag" + std::to_string(i);
    for (Node* node : partitions[i]) node->meta.delegation_tag = tag;
    result.partition_tags.emplace_back(tag, delegation_spec_);
  }
  if (options_.tag_constant_data) tag_constant_data(program);
  if (options_.tag_mutated_buffers) tag_mutated_buffer(program);
  return result;
}

std::vector<std::string> CapabilityPartitioner::ops_to_not_decompose(const ExportedProgram& /*program*/) const {
  return options_.ops_to_not_decompose;
}

}  // namespace kiln::aot
