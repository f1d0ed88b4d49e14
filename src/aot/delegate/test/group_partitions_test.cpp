// group_acyclic_partitions against the plain algorithm it replaced (kept
// here as the reference): on random graphs and random supported sets, the
// fast grouping must give the same partitions, in the same order.
#include <map>
#include <random>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"

namespace kiln::aot {
namespace {

using testing::names_of;

// The grouping as it was: each candidate merge checked by walking the graph
// between the union's first and last node.
class ReferenceGrouping {
 public:
  ReferenceGrouping(const Graph& graph, const std::set<const Node*>& supported) : order_(graph.node_list()) {
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


// `size` call nodes, each using one to three earlier nodes (sometimes the same
// one twice); every node without users is returned.
std::unique_ptr<Graph> random_graph(std::mt19937& random, int size) {
  auto graph = std::make_unique<Graph>();
  std::vector<Node*> nodes = {graph->placeholder("x"), graph->placeholder("y")};
  for (int i = 0; i < size; ++i) {
    const int fan_in = std::uniform_int_distribution<int>(1, 3)(random);
    // Mostly recent inputs, so that chains and diamonds are common.
    std::geometric_distribution<size_t> back(0.3);
    ArgumentList args;
    for (int k = 0; k < fan_in; ++k) {
      const size_t distance = std::min(back(random), nodes.size() - 1);
      args.push_back(nodes[nodes.size() - 1 - distance]);
    }
    nodes.push_back(graph->call_function("aten::add.Tensor", args));
  }
  ArgumentList outputs;
  for (Node* node : nodes) {
    if (node->users().empty() && !node->is_placeholder()) outputs.push_back(node);
  }
  graph->output(std::move(outputs));
  return graph;
}

TEST(GroupPartitionsTest, GivesTheSamePartitionsAsTheReferenceOnRandomGraphs) {
  std::mt19937 random(20261124);
  int compared = 0;
  int with_several = 0;
  for (int round = 0; round < 1000; ++round) {
    const int size = std::uniform_int_distribution<int>(3, 120)(random);
    std::unique_ptr<Graph> graph = random_graph(random, size);
    const double density = std::uniform_real_distribution<double>(0.2, 0.95)(random);
    std::bernoulli_distribution pick(density);
    std::set<const Node*> supported;
    for (Node* node : *graph) {
      if (node->is_call_function() && pick(random)) supported.insert(node);
    }
    const auto expected = names_of(ReferenceGrouping(*graph, supported).partitions());
    ASSERT_EQ(names_of(group_acyclic_partitions(*graph, supported)), expected) << "round " << round;
    ++compared;
    with_several += expected.size() > 1;
  }
  EXPECT_EQ(compared, 1000);
  EXPECT_GT(with_several, 300);  // the rounds do exercise the merging
}

TEST(GroupPartitionsTest, ALongChainCutByUnsupportedNodesIsOnePartitionPerLink) {
  // sin -> sqrt -> sin -> sqrt ...: every sin is its own partition, and no two
  // can merge (a sqrt lies between each pair).
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  std::set<const Node*> supported;
  for (int i = 0; i < 2000; ++i) {
    Node* s = graph->call_function("aten::sin.default", {x});
    supported.insert(s);
    x = graph->call_function("aten::sqrt.default", {s});
  }
  graph->output({x});
  const auto partitions = group_acyclic_partitions(*graph, supported);
  ASSERT_EQ(partitions.size(), 2000u);
  EXPECT_EQ(partitions.front().front()->name(), "sin");
  EXPECT_EQ(partitions.back().front()->name(), "sin_1999");
}

}  // namespace
}  // namespace kiln::aot
