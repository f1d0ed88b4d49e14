// Graph: an ordered list of Nodes in torch.fx's shape — placeholders first,
// then get_attr and call_function nodes, then one output node.
#pragma once

#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aot/ir/node.h"

namespace kiln::aot {

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Iterates the nodes in order as Node*. Erasing the current node while
  /// iterating is not allowed; iterate over `node_list()` for that.
  class Iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = Node*;
    using difference_type = std::ptrdiff_t;
    using pointer = Node**;
    using reference = Node*;
    explicit Iterator(std::list<std::unique_ptr<Node>>::const_iterator it) : it_(it) {}
    Node* operator*() const { return it_->get(); }
    Iterator& operator++() { ++it_; return *this; }
    Iterator& operator--() { --it_; return *this; }
    bool operator==(const Iterator& other) const { return it_ == other.it_; }

   private:
    std::list<std::unique_ptr<Node>>::const_iterator it_;
  };
  Iterator begin() const { return Iterator(nodes_.begin()); }
  Iterator end() const { return Iterator(nodes_.end()); }
  size_t size() const { return nodes_.size(); }

  /// A snapshot of the nodes, safe to iterate while erasing.
  std::vector<Node*> node_list() const;
  std::vector<Node*> placeholders() const;
  std::vector<Node*> find_nodes(OpKind op) const;
  /// The output node, or null if there is none yet.
  Node* output_node() const;
  /// The node named `name`, or null.
  Node* find_node(const std::string& name) const;
  /// The node named `name`; throws AotError if there is none.
  Node* node(const std::string& name) const;

  // Creation. New nodes go at the insertion point (see below). Names are made
  // unique the way fx does: "add", "add_1", "add_2", ...
  Node* placeholder(const std::string& name, ValueMeta val = {});
  Node* get_attr(const std::string& target);
  Node* call_function(const std::string& target, ArgumentList args, KwargList kwargs = {},
                      const std::string& name = "");
  /// The output node; `values` is a list argument of the graph's outputs.
  Node* output(ArgumentList values);

  /// Where created nodes go: placeholders always go after the last
  /// placeholder; other nodes before `point` (null: before the output node,
  /// or at the end if there is none).
  void set_insert_point(Node* point) { insert_point_ = point; }
  Node* insert_point() const { return insert_point_; }

  /// Moves `node` to just before `anchor`.
  void move_before(Node* node, Node* anchor);
  /// Removes `node`; throws AotError if it still has users.
  void erase_node(Node* node);

  /// A name not yet used in this graph, derived from `base`.
  std::string unique_name(const std::string& base) const;
  /// Renames `node` (the new name must be unused).
  void rename(Node* node, const std::string& name);

  /// Checks the invariants every pass relies on and throws AotError naming the
  /// first node that breaks one: inputs belong to this graph and come before
  /// their user; users lists match the references; names are unique;
  /// placeholders come first; exactly one output node, last.
  void lint() const;
  /// True if every node comes after all of its inputs.
  bool is_topologically_sorted() const;
  /// Reorders the nodes so each comes after its inputs, and after the first
  /// of each `also_after` pair (a, b): b after a; keeping the original order
  /// where it is free. Throws AotError naming the nodes of a cycle, leaving
  /// the order as it was.
  void stable_topological_sort(const std::vector<std::pair<const Node*, const Node*>>& also_after = {});

  /// A deep copy. `node_map`, if given, receives old node -> new node.
  std::unique_ptr<Graph> clone(std::map<const Node*, Node*>* node_map = nullptr) const;

 private:
  friend class Node;
  /// `count_name`: whether later names derived from `name` count this one
  /// (clone copies the counters instead).
  Node* create_node(OpKind op, const std::string& name, const std::string& target, Node* before,
                    bool count_name = true);
  std::list<std::unique_ptr<Node>>::iterator position_of(Node* node);
  /// Gives `node`, just placed in the list, an order key between its
  /// neighbours', spreading the keys around it out first if there is no room.
  void assign_order(Node* node);
  void spread_orders(std::list<std::unique_ptr<Node>>::iterator around);
  Node* first_non_placeholder() const;
  /// The nodes in order, rebuilt after the list changed (list_changed): on a
  /// large graph, walking a vector lets the cache misses of many nodes
  /// overlap, where each step of a list walk waits for the one before.
  const std::vector<Node*>& ordered() const;
  void list_changed() { ordered_valid_ = false; }
  /// lint as a yes/no, cheaper on large graphs; false sends lint to
  /// lint_reporting, which finds and names the first node at fault.
  bool lint_quick() const;
  void lint_reporting() const;

  std::list<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> by_name_;
  std::unordered_map<std::string, int> name_counters_;
  Node* insert_point_ = nullptr;
  Node* output_ = nullptr;       // the output node, or null
  size_t placeholder_count_ = 0;
  // The first node that is not a placeholder (null: none); valid while
  // first_non_placeholder_valid_, which moves clear.
  mutable Node* first_non_placeholder_ = nullptr;
  mutable bool first_non_placeholder_valid_ = true;
  mutable std::vector<Node*> ordered_;  // valid while ordered_valid_
  mutable bool ordered_valid_ = false;
};

}  // namespace kiln::aot
