// group_acyclic_partitions: supported nodes in the largest groups that can
// each run as one call. The groups can when the graph with every group
// contracted to one node stays acyclic: no path leaves a group and comes back
// into it, counting a path that enters another group at one node and leaves
// it at any other (that group runs as one call too). Convexity of each group
// alone is not enough: two groups, each convex, can feed each other.
//
// The grouping is greedy (see canonical_partitioners.h); what keeps it near
// linear is how a candidate merge is checked:
//  - a certificate computed once over the topological order rejects most
//    impossible merges in O(1): with the supported nodes ranked in graph
//    order, an unsupported node u whose ancestors include every supported node
//    of rank < Q(u) separates any group holding one of those from every group
//    holding a descendant of u. R(t), the largest Q(u) over the unsupported
//    ancestors u of t, thus says: a group whose first node ranks below R(t)
//    cannot merge with the group of t, now or later;
//  - the pairwise pass finds the next group that the certificate does not
//    rule out with a segment tree over the groups' largest R, instead of
//    trying every pair;
//  - the exact check walks forward only through outside nodes reached from
//    the two groups, starting from the outside users each group keeps in an
//    ordered set; reaching a member of another group reaches all its members.
//    Edges only go forward in graph order and only those jumps go back, so a
//    path can return into the union (whose last node is hi) only through
//    nodes up to B, the least bound at or above hi that every group starting
//    at or before B ends within; the walk stops there. A tree of each group's
//    last position, at its first, finds B in a few prefix-max queries.
#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

#include "aot/delegate/canonical_partitioners.h"

namespace kiln::aot {

namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// The smallest index at or after `from` whose value is at most `limit`, over
// values that change one at a time.
class MinTree {
 public:
  explicit MinTree(size_t size) : size_(1) {
    while (size_ < size) size_ *= 2;
    tree_.assign(2 * size_, kNone);
  }
  void set(size_t index, size_t value) {
    size_t at = index + size_;
    tree_[at] = value;
    for (at /= 2; at >= 1; at /= 2) tree_[at] = std::min(tree_[2 * at], tree_[2 * at + 1]);
  }
  size_t first_at_most(size_t from, size_t limit) const { return search(1, 0, size_, from, limit); }

 private:
  size_t search(size_t at, size_t begin, size_t end, size_t from, size_t limit) const {
    if (end <= from || tree_[at] > limit) return kNone;
    if (end - begin == 1) return begin;
    const size_t middle = (begin + end) / 2;
    const size_t left = search(2 * at, begin, middle, from, limit);
    return left != kNone ? left : search(2 * at + 1, middle, end, from, limit);
  }
  size_t size_;
  std::vector<size_t> tree_;
};

// The largest value at an index up to a limit, over values that change one at
// a time (0 where none is set).
class PrefixMaxTree {
 public:
  explicit PrefixMaxTree(size_t size) : size_(1) {
    while (size_ < size) size_ *= 2;
    tree_.assign(2 * size_, 0);
  }
  void set(size_t index, size_t value) {
    size_t at = index + size_;
    tree_[at] = value;
    for (at /= 2; at >= 1; at /= 2) tree_[at] = std::max(tree_[2 * at], tree_[2 * at + 1]);
  }
  // The largest value at indices 0..last.
  size_t max_up_to(size_t last) const {
    size_t result = 0;
    size_t lo = size_, hi = std::min(last, size_ - 1) + size_ + 1;  // [lo, hi)
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) result = std::max(result, tree_[lo++]);
      if (hi & 1) result = std::max(result, tree_[--hi]);
    }
    return result;
  }

 private:
  size_t size_;
  std::vector<size_t> tree_;
};

class Grouping {
 public:
  Grouping(const Graph& graph, const std::set<const Node*>& supported)
      : order_(graph.node_list()), last_by_first_(order_.size()) {
    index_graph(supported);
    compute_separation();
    group_along_inputs();
    merge_pairwise();
  }

  std::vector<std::vector<Node*>> partitions() {
    std::vector<size_t> roots;
    for (size_t g = 0; g < parent_.size(); ++g) {
      if (find(g) == g) roots.push_back(g);
    }
    std::sort(roots.begin(), roots.end(), [this](size_t x, size_t y) { return lo_[x] < lo_[y]; });
    std::vector<std::vector<Node*>> result;
    for (size_t g : roots) {
      std::vector<size_t>& members = members_[g];
      std::sort(members.begin(), members.end());
      std::vector<Node*>& nodes = result.emplace_back();
      for (size_t k : members) nodes.push_back(order_[k]);
    }
    return result;
  }

 private:
  void index_graph(const std::set<const Node*>& supported) {
    std::unordered_map<const Node*, size_t> position;
    position.reserve(order_.size());
    for (size_t k = 0; k < order_.size(); ++k) position.emplace(order_[k], k);
    inputs_.resize(order_.size());
    users_.resize(order_.size());
    supported_.assign(order_.size(), 0);
    for (size_t k = 0; k < order_.size(); ++k) {
      supported_[k] = supported.count(order_[k]) ? 1 : 0;
      for (const Node* input : order_[k]->input_nodes()) inputs_[k].push_back(position.at(input));
      for (const Node* user : order_[k]->users()) users_[k].push_back(position.at(user));
    }
  }

  // rank_ (supported nodes only), Q and R of the header comment.
  void compute_separation() {
    rank_.assign(order_.size(), 0);
    separated_below_.assign(order_.size(), 0);
    std::vector<size_t> complete_prefix(order_.size(), 0);
    size_t next_rank = 0;
    for (size_t k = 0; k < order_.size(); ++k) {
      size_t prefix = 0;
      size_t separated = 0;
      for (size_t input : inputs_[k]) {
        prefix = std::max(prefix, complete_prefix[input]);
        separated = std::max(separated, separated_below_[input]);
      }
      if (supported_[k]) {
        rank_[k] = next_rank++;
        if (prefix == rank_[k]) prefix = rank_[k] + 1;
      } else {
        separated = std::max(separated, prefix);
      }
      complete_prefix[k] = prefix;
      separated_below_[k] = separated;
    }
  }

  size_t find(size_t g) {
    while (parent_[g] != g) {
      parent_[g] = parent_[parent_[g]];
      g = parent_[g];
    }
    return g;
  }
  size_t group_of(size_t k) { return group_[k] == kNone ? kNone : find(group_[k]); }

  void add_group(size_t k) {
    const size_t g = parent_.size();
    group_[k] = g;
    parent_.push_back(g);
    members_.push_back({k});
    lo_.push_back(k);
    hi_.push_back(k);
    separated_.push_back(separated_below_[k]);
    outside_users_.emplace_back(users_[k].begin(), users_[k].end());
    group_mark_.push_back(0);
    last_by_first_.set(k, k);
  }

  void group_along_inputs() {
    group_.assign(order_.size(), kNone);
    for (size_t k = 0; k < order_.size(); ++k) {
      if (!supported_[k]) continue;
      add_group(k);
      for (size_t input : inputs_[k]) {
        const size_t other = group_of(input);
        const size_t mine = group_of(k);
        if (other != kNone && other != mine && convex(other, mine)) merge(other, mine);
      }
    }
  }

  // Each group in turn takes every later group it can, in order, until
  // nothing changes; groups the certificate rules out are never tried.
  void merge_pairwise() {
    MinTree candidates(parent_.size());
    for (size_t g = 0; g < parent_.size(); ++g) {
      if (find(g) == g) candidates.set(g, separated_[g]);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t a = 0; a < parent_.size(); ++a) {
        if (find(a) != a) continue;
        for (size_t b = candidates.first_at_most(a + 1, rank_[lo_[a]]); b != kNone;
             b = candidates.first_at_most(b + 1, rank_[lo_[a]])) {
          if (!convex(a, b)) continue;
          merge(a, b);
          candidates.set(b, kNone);
          candidates.set(a, separated_[a]);
          changed = true;
        }
      }
    }
  }

  // The certificate: a path from one group through an unsupported node into
  // the other.
  bool separated(size_t a, size_t b) const {
    return separated_[b] > rank_[lo_[a]] || separated_[a] > rank_[lo_[b]];
  }

  // B of the header comment for a union ending at `hi`.
  size_t reach_bound(size_t hi) const {
    size_t bound = hi;
    for (size_t next = last_by_first_.max_up_to(bound); next > bound; next = last_by_first_.max_up_to(bound)) {
      bound = next;
    }
    return bound;
  }

  // Can groups a and b run as one call? Walks forward from their outside
  // users through outside nodes up to the reach bound, a member of another
  // group reaching all its members; reaching a member of a or b closes a cycle.
  bool convex(size_t a, size_t b) {
    if (separated(a, b)) return false;
    const size_t bound = reach_bound(std::max(hi_[a], hi_[b]));
    if (mark_.size() != order_.size()) mark_.assign(order_.size(), 0);
    ++epoch_;
    std::vector<size_t> stack;
    const auto visit = [&](size_t x) {
      if (mark_[x] == epoch_) return;
      mark_[x] = epoch_;
      stack.push_back(x);
    };
    for (size_t g : {a, b}) {
      std::set<size_t>& outside = outside_users_[g];
      for (auto it = outside.begin(); it != outside.end() && *it <= bound;) {
        const size_t x = *it;
        const size_t owner = group_of(x);
        if (owner == g) {  // joined the group since it was recorded
          it = outside.erase(it);
          continue;
        }
        ++it;
        if (owner != a && owner != b) visit(x);
      }
    }
    while (!stack.empty()) {
      const size_t x = stack.back();
      stack.pop_back();
      const size_t group = group_of(x);
      if (group != kNone && group_mark_[group] != epoch_) {  // never a or b: their members are not visited
        group_mark_[group] = epoch_;
        for (size_t member : members_[group]) visit(member);
      }
      for (size_t user : users_[x]) {
        const size_t owner = group_of(user);
        if (owner == a || owner == b) return false;
        if (user <= bound) visit(user);
      }
    }
    return true;
  }

  // Keeps the older group's id (the smaller one); the larger member and user
  // sets absorb the smaller ones.
  void merge(size_t a, size_t b) {
    if (a > b) std::swap(a, b);
    last_by_first_.set(lo_[a], 0);
    last_by_first_.set(lo_[b], 0);
    parent_[b] = a;
    if (members_[a].size() < members_[b].size()) std::swap(members_[a], members_[b]);
    members_[a].insert(members_[a].end(), members_[b].begin(), members_[b].end());
    members_[b] = {};
    if (outside_users_[a].size() < outside_users_[b].size()) std::swap(outside_users_[a], outside_users_[b]);
    for (size_t user : outside_users_[b]) {
      if (group_of(user) != a) outside_users_[a].insert(user);
    }
    outside_users_[b] = {};
    lo_[a] = std::min(lo_[a], lo_[b]);
    hi_[a] = std::max(hi_[a], hi_[b]);
    separated_[a] = std::max(separated_[a], separated_[b]);
    last_by_first_.set(lo_[a], hi_[a]);
  }

  std::vector<Node*> order_;
  std::vector<std::vector<size_t>> inputs_;  // by position: positions of the node's inputs
  std::vector<std::vector<size_t>> users_;
  std::vector<char> supported_;
  std::vector<size_t> rank_;              // supported nodes: their rank among them
  std::vector<size_t> separated_below_;   // R by position
  std::vector<size_t> group_;             // by position: the group it started, or kNone
  // By group id (union-find; the root holds the group's data).
  std::vector<size_t> parent_;
  std::vector<std::vector<size_t>> members_;
  std::vector<size_t> lo_, hi_;           // first and last member's position
  std::vector<size_t> separated_;         // largest R of a member
  std::vector<std::set<size_t>> outside_users_;  // may hold members that joined since (removed when met)
  std::vector<unsigned> mark_;
  std::vector<unsigned> group_mark_;      // by group id: the epoch its members were last visited in
  PrefixMaxTree last_by_first_;           // each group's last position, at its first
  unsigned epoch_ = 0;
};

}  // namespace

std::vector<std::vector<Node*>> group_acyclic_partitions(const Graph& graph, const std::set<const Node*>& supported) {
  return Grouping(graph, supported).partitions();
}

}  // namespace kiln::aot
