// group_acyclic_partitions against the plain algorithm (kept here as the
// reference): on random graphs and random supported sets, the fast grouping
// must give the same partitions, in the same order, and the graph with every
// partition contracted to one node must stay acyclic.
#include <map>
#include <random>
#include <set>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "tests/support/sweep.h"

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
  // Can groups a and b run as one call? Walks the whole graph forward from
  // the union's outside users, a member of another group reaching all of
  // that group's members (it runs as one call too); reaching the union again
  // closes a cycle.
  bool convex(int a, int b) const {
    const auto in_union = [&](size_t k) { return group_[k] == a || group_[k] == b; };
    std::vector<char> seen(order_.size(), 0), group_seen(members_.size(), 0);
    std::vector<size_t> stack;
    const auto visit = [&](size_t k) {
      if (!seen[k]) {
        seen[k] = 1;
        stack.push_back(k);
      }
    };
    for (size_t k = 0; k < order_.size(); ++k) {
      if (!in_union(k)) continue;
      for (const Node* user : order_[k]->users()) {
        if (!in_union(position_.at(user))) visit(position_.at(user));
      }
    }
    while (!stack.empty()) {
      const size_t k = stack.back();
      stack.pop_back();
      if (group_[k] >= 0 && !group_seen[group_[k]]) {
        group_seen[group_[k]] = 1;
        for (size_t member : members_[group_[k]]) visit(member);
      }
      for (const Node* user : order_[k]->users()) {
        if (in_union(position_.at(user))) return false;
        visit(position_.at(user));
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


// True if the graph with each partition contracted to one node has no cycle.
bool contracted_graph_is_acyclic(const Graph& graph, const std::vector<std::vector<Node*>>& partitions) {
  std::map<const Node*, size_t> unit;  // a partition's index, or a node's own after them
  for (size_t p = 0; p < partitions.size(); ++p) {
    for (const Node* node : partitions[p]) unit[node] = p;
  }
  for (const Node* node : graph) unit.emplace(node, unit.size() + partitions.size());
  std::map<size_t, std::set<size_t>> edges;
  std::map<size_t, size_t> in_degree;
  for (const Node* node : graph) {
    in_degree.emplace(unit.at(node), 0);
    for (const Node* user : node->users()) {
      const size_t from = unit.at(node), to = unit.at(user);
      if (from != to && edges[from].insert(to).second) ++in_degree[to];
    }
  }
  std::vector<size_t> ready;
  for (const auto& [u, degree] : in_degree) {
    if (degree == 0) ready.push_back(u);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const size_t u = ready.back();
    ready.pop_back();
    ++done;
    for (size_t v : edges[u]) {
      if (--in_degree[v] == 0) ready.push_back(v);
    }
  }
  return done == in_degree.size();
}

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
  const int rounds = static_cast<int>(kiln::testing::sweep_count(1000));
  for (int round = 0; round < rounds; ++round) {
    const int size = std::uniform_int_distribution<int>(3, 120)(random);
    std::unique_ptr<Graph> graph = random_graph(random, size);
    const double density = std::uniform_real_distribution<double>(0.2, 0.95)(random);
    std::bernoulli_distribution pick(density);
    std::set<const Node*> supported;
    for (Node* node : *graph) {
      if (node->is_call_function() && pick(random)) supported.insert(node);
    }
    const auto expected = names_of(ReferenceGrouping(*graph, supported).partitions());
    const auto partitions = group_acyclic_partitions(*graph, supported);
    ASSERT_EQ(names_of(partitions), expected) << "round " << round;
    ASSERT_TRUE(contracted_graph_is_acyclic(*graph, partitions)) << "round " << round;
    ++compared;
    with_several += expected.size() > 1;
  }
  EXPECT_EQ(compared, rounds);
  EXPECT_GT(with_several, rounds * 3 / 10);  // the rounds do exercise the merging
}

// b2 joins b1 and a2 joins a1 (each a direct use), but the groups would feed
// each other through unsupported nodes: a1 -> u -> b2 and b1 -> v -> a2. As
// {a1, a2} and {b1, b2} each call would wait for the other, though each group
// alone is convex; so a2 stays apart.
TEST(GroupPartitionsTest, GroupsThatWouldFeedEachOtherAreNotBothMerged) {
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* a1 = graph->call_function("aten::sin.default", {x});
  Node* b1 = graph->call_function("aten::cos.default", {x});
  Node* u = graph->call_function("aten::sqrt.default", {a1});
  Node* v = graph->call_function("aten::sqrt.default", {b1});
  Node* b2 = graph->call_function("aten::mul.Tensor", {b1, u});
  Node* a2 = graph->call_function("aten::mul.Tensor", {a1, v});
  graph->output({a2, b2});
  const std::set<const Node*> supported = {a1, b1, a2, b2};
  const auto partitions = group_acyclic_partitions(*graph, supported);
  EXPECT_TRUE(contracted_graph_is_acyclic(*graph, partitions)) << ::testing::PrintToString(names_of(partitions));
  EXPECT_EQ(names_of(partitions), names_of(ReferenceGrouping(*graph, supported).partitions()));
  const std::vector<std::vector<std::string>> expected = {{"sin"}, {"cos", "mul"}, {"mul_1"}};
  EXPECT_EQ(names_of(partitions), expected);
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
