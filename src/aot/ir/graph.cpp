#include "aot/ir/graph.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "aot/ir/error.h"

namespace kiln::aot {

std::vector<Node*> Graph::node_list() const { return ordered(); }

const std::vector<Node*>& Graph::ordered() const {
  if (!ordered_valid_) {
    ordered_.assign(begin(), end());
    ordered_valid_ = true;
  }
  return ordered_;
}

std::vector<Node*> Graph::placeholders() const { return find_nodes(OpKind::Placeholder); }

std::vector<Node*> Graph::find_nodes(OpKind op) const {
  std::vector<Node*> found;
  // Placeholders lead the graph: stop once all of them are found.
  if (op == OpKind::Placeholder) found.reserve(placeholder_count_);
  auto collect = [&](auto first, auto last) {
    for (auto it = first; it != last; ++it) {
      if (op == OpKind::Placeholder && found.size() == placeholder_count_) break;
      if ((*it)->op() == op) found.push_back(*it);
    }
  };
  // The list is walked only if the vector is stale: rebuilding it here would
  // make a loop that adds placeholders and looks them up quadratic.
  if (ordered_valid_) {
    collect(ordered_.begin(), ordered_.end());
  } else {
    collect(begin(), end());
  }
  return found;
}

Node* Graph::output_node() const { return output_; }

Node* Graph::first_non_placeholder() const {
  if (!first_non_placeholder_valid_) {
    first_non_placeholder_ = nullptr;
    for (Node* node : *this) {
      if (!node->is_placeholder()) {
        first_non_placeholder_ = node;
        break;
      }
    }
    first_non_placeholder_valid_ = true;
  }
  return first_non_placeholder_;
}

namespace {

// Appended nodes' order keys are spaced this far apart.
constexpr uint64_t kOrderStep = uint64_t{1} << 20;
constexpr int kOrderBits = 62;

}  // namespace

void Graph::assign_order(Node* node) {
  auto it = node->position_;
  const uint64_t lo = it == nodes_.begin() ? 0 : (*std::prev(it))->order_;
  auto after = std::next(it);
  if (after == nodes_.end()) {
    if (lo + kOrderStep < (uint64_t{1} << kOrderBits)) {
      node->order_ = lo + kOrderStep;
      return;
    }
  } else if ((*after)->order_ > lo + 1) {
    node->order_ = lo + ((*after)->order_ - lo) / 2;
    return;
  }
  spread_orders(it);
}

void Graph::spread_orders(std::list<std::unique_ptr<Node>>::iterator around) {
  // Order maintenance as Bender et al. ("Two simplified algorithms for
  // maintaining order in a list"): take the aligned key range of size 2^i
  // around the crowded spot for i = 1, 2, ... until it holds fewer than
  // (2 / 1.4)^i nodes (sparser the larger it is), and space those nodes
  // evenly in it. Amortized O(log n) per insertion.
  const uint64_t anchor = around == nodes_.begin() ? 0 : (*std::prev(around))->order_;
  auto first = around;  // the window [first, last], the new node included
  auto last = around;
  size_t count = 1;
  double allowed = 1.0;
  for (int bits = 1; bits <= kOrderBits; ++bits) {
    allowed *= 2.0 / 1.4;
    const uint64_t start = anchor & ~((uint64_t{1} << bits) - 1);
    const uint64_t end = start + (uint64_t{1} << bits);  // exclusive
    while (first != nodes_.begin() && (*std::prev(first))->order_ >= start) {
      --first;
      ++count;
    }
    while (std::next(last) != nodes_.end() && (*std::next(last))->order_ < end &&
           (*std::next(last))->order_ >= start) {
      ++last;
      ++count;
    }
    if (static_cast<double>(count) >= allowed || count + 1 >= (uint64_t{1} << bits)) continue;
    const uint64_t step = (uint64_t{1} << bits) / (count + 1);
    uint64_t key = start;
    for (auto it = first;; ++it) {
      key += step;
      (*it)->order_ = key;
      if (it == last) return;
    }
  }
  uint64_t key = 0;  // the whole list is crowded: space it all out again
  for (Node* node : *this) node->order_ = key += kOrderStep;
}

Node* Graph::find_node(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Node* Graph::node(const std::string& name) const {
  Node* found = find_node(name);
  if (found == nullptr) throw AotError("graph has no node named '" + name + "'");
  return found;
}

std::string Graph::unique_name(const std::string& base) const {
  std::string candidate = base.empty() ? "node" : base;
  for (char& c : candidate) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (std::isdigit(static_cast<unsigned char>(candidate[0]))) candidate = "_" + candidate;
  if (!by_name_.count(candidate)) return candidate;
  auto counter = name_counters_.find(candidate);
  int n = counter == name_counters_.end() ? 1 : counter->second;
  while (by_name_.count(candidate + "_" + std::to_string(n))) ++n;
  return candidate + "_" + std::to_string(n);
}

void Graph::rename(Node* node, const std::string& name) {
  if (name == node->name_) return;
  const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                          });
  if (!identifier) throw AotError("cannot rename '" + node->name_ + "': '" + name + "' is not an identifier");
  if (by_name_.count(name)) throw AotError("cannot rename '" + node->name_ + "': name '" + name + "' is taken");
  by_name_.erase(node->name_);
  node->name_ = name;
  node->name_entry_ = &*by_name_.emplace(name, node).first;
}

std::list<std::unique_ptr<Node>>::iterator Graph::position_of(Node* node) {
  if (node == nullptr || &node->graph() != this) throw AotError("node does not belong to this graph");
  return node->position_;
}

Node* Graph::create_node(OpKind op, const std::string& name, const std::string& target, Node* before,
                         bool count_name) {
  auto where = before != nullptr ? position_of(before) : nodes_.end();
  // A free identifier is taken as it is, with one lookup (what unique_name
  // would return); anything else goes through unique_name.
  const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                          });
  auto slot = by_name_.end();
  if (identifier) {
    auto [entry, added] = by_name_.try_emplace(name, nullptr);
    if (added) slot = entry;
  }
  if (slot == by_name_.end()) slot = by_name_.emplace(unique_name(name), nullptr).first;
  auto it = nodes_.insert(where, std::unique_ptr<Node>(new Node(this, op, slot->first, target)));
  list_changed();
  Node* node = it->get();
  slot->second = node;
  node->name_entry_ = &*slot;
  node->position_ = it;
  assign_order(node);
  if (count_name) ++name_counters_[name];
  if (op == OpKind::Output) output_ = node;
  if (op == OpKind::Placeholder) {
    ++placeholder_count_;
  } else if (first_non_placeholder_valid_ &&
             (first_non_placeholder_ == nullptr || node->is_before(*first_non_placeholder_))) {
    // Every node before it is a placeholder, as all before the old first one were.
    first_non_placeholder_ = node;
  }
  return node;
}

Node* Graph::placeholder(const std::string& name, ValueMeta val) {
  Node* before = first_non_placeholder();
  Node* node = create_node(OpKind::Placeholder, name, "", before);
  node->target_ = node->name_;
  node->meta.val = std::move(val);
  return node;
}

Node* Graph::get_attr(const std::string& target) {
  Node* before = insert_point_ != nullptr ? insert_point_ : output_node();
  std::string base = target;
  std::replace(base.begin(), base.end(), '.', '_');
  return create_node(OpKind::GetAttr, base, target, before);
}

Node* Graph::call_function(const std::string& target, ArgumentList args, KwargList kwargs,
                           const std::string& name) {
  Node* before = insert_point_ != nullptr ? insert_point_ : output_node();
  std::string base = name;
  if (base.empty()) {
    // "aten::add.Tensor" -> "add", as fx names call nodes after the op.
    base = target;
    if (auto colons = base.rfind("::"); colons != std::string::npos) base = base.substr(colons + 2);
    if (auto dot = base.find('.'); dot != std::string::npos) base = base.substr(0, dot);
  }
  Node* node = create_node(OpKind::CallFunction, base, target, before);
  try {
    node->args_ = std::move(args);
    node->kwargs_ = std::move(kwargs);
    node->link_inputs();
  } catch (...) {
    node->args_.clear();
    node->kwargs_.clear();
    erase_node(node);
    throw;
  }
  return node;
}

Node* Graph::output(ArgumentList values) {
  if (output_node() != nullptr) throw AotError("graph already has an output node");
  Node* node = create_node(OpKind::Output, "output", "output", nullptr);
  node->args_ = {Argument(std::move(values))};
  try {
    node->link_inputs();
  } catch (...) {
    node->args_.clear();
    erase_node(node);
    throw;
  }
  return node;
}

void Graph::move_before(Node* node, Node* anchor) {
  auto from = position_of(node);
  auto to = position_of(anchor);
  if (from == to) return;
  nodes_.splice(to, nodes_, from);
  list_changed();
  assign_order(node);
  first_non_placeholder_valid_ = false;
}

void Graph::erase_node(Node* node) {
  auto it = position_of(node);
  if (!node->users_.empty()) {
    std::string users;
    for (Node* user : node->users_) users += (users.empty() ? "" : ", ") + user->name();
    throw AotError("cannot erase node '" + node->name_ + "': it is still used by " + users);
  }
  node->unlink_inputs();
  if (insert_point_ == node) insert_point_ = nullptr;
  if (output_ == node) output_ = nullptr;
  if (node->is_placeholder()) --placeholder_count_;
  if (first_non_placeholder_ == node) {
    // Everything before it is a placeholder; so is everything up to the next non-placeholder.
    Node* after = node->next();
    first_non_placeholder_ = after;
    if (after != nullptr && after->is_placeholder()) first_non_placeholder_valid_ = false;
  }
  by_name_.erase(node->name_);
  nodes_.erase(it);
  list_changed();
}

namespace {

// Nodes with more users or inputs than this get a sorted copy of the list for
// lint's lookups; shorter lists are scanned.
constexpr size_t kScanLimit = 32;

bool lists_once(const std::vector<Node*>& list, const Node* node,
                std::unordered_map<const void*, std::vector<Node*>>& sorted_lists, const void* key) {
  if (list.size() <= kScanLimit) return std::count(list.begin(), list.end(), node) == 1;
  auto [it, added] = sorted_lists.try_emplace(key);
  if (added) {
    it->second = list;
    std::sort(it->second.begin(), it->second.end());
  }
  const auto [from, to] = std::equal_range(it->second.begin(), it->second.end(), node);
  return to - from == 1;
}

}  // namespace

void Graph::lint() const {
  if (!lint_quick()) lint_reporting();
}

bool Graph::lint_quick() const {
  // lint_reporting's checks, but the users lists are checked by counting:
  // each use of an input is listed once in its users (checked per use), so
  // the users lists hold nothing more iff their lengths add up to the number
  // of distinct (input, user) pairs. This spares reading every user's
  // arguments again.
  std::unordered_map<const void*, std::vector<Node*>> sorted_users;
  std::vector<Node*> inputs;  // the current node's inputs
  size_t pairs = 0;
  size_t listed = 0;
  bool past_placeholders = false;
  const Node* output = nullptr;
  for (Node* node : ordered()) {
    if (&node->graph() != this || output != nullptr) return false;
    // The graph sets a node's name and its table entry together (create_node,
    // rename): an entry that points back at the node, with a name as long,
    // is the table's entry for the node's name.
    const auto* entry = node->name_entry_;
    if (entry == nullptr || entry->second != node || entry->first.size() != node->name().size()) return false;
    if (node->is_placeholder() && past_placeholders) return false;
    past_placeholders = past_placeholders || !node->is_placeholder();
    if (node->is_output()) output = node;
    bool ok = true;
    inputs.clear();
    auto check_input = [&](Node* input) {
      ok = ok && &input->graph() == this && input->is_before(*node) &&
           lists_once(input->users(), node, sorted_users, input);
      inputs.push_back(input);
    };
    for (const Argument& arg : node->args()) for_each_node(arg, check_input);
    for (const auto& [key, value] : node->kwargs()) for_each_node(value, check_input);
    if (!ok) return false;
    std::sort(inputs.begin(), inputs.end());
    pairs += static_cast<size_t>(std::unique(inputs.begin(), inputs.end()) - inputs.begin());
    listed += node->users().size();
  }
  return output != nullptr && pairs == listed;
}

void Graph::lint_reporting() const {
  // Order keys say whether an input comes earlier; long users lists and
  // long input lists are sorted once for lookups.
  std::unordered_map<const void*, std::vector<Node*>> sorted_users;
  std::unordered_map<const void*, std::vector<Node*>> sorted_inputs;
  bool past_placeholders = false;
  const Node* output = nullptr;
  for (Node* node : ordered()) {
    // Built only for a message: lint runs over every node of large graphs.
    const auto where = [node] { return "graph lint: node '" + node->name() + "'"; };
    if (&node->graph() != this) throw AotError(where() + " belongs to another graph");
    // The node's own entry, if it still points at it, is the one the table
    // holds for its name: the graph sets a node's name and its entry together
    // (create_node, rename), so the lengths are compared, not the text,
    // which would cost two more cache misses per node on a large graph.
    const auto* entry = node->name_entry_;
    const bool listed = entry != nullptr && entry->second == node && entry->first.size() == node->name().size();
    if (auto named = listed ? by_name_.end() : by_name_.find(node->name());
        !listed && (named == by_name_.end() || named->second != node)) {
      // An earlier node by this name would hold the table's entry (any other
      // earlier node by this name failed this check already).
      if (named != by_name_.end() && &named->second->graph() == this && named->second->is_before(*node)) {
        throw AotError(where() + ": duplicate name");
      }
      throw AotError(where() + ": missing from the name table");
    }
    if (output != nullptr) throw AotError(where() + " comes after the output node");
    if (node->is_placeholder()) {
      if (past_placeholders) throw AotError(where() + ": placeholder after a non-placeholder node");
    } else {
      past_placeholders = true;
    }
    if (node->is_output()) output = node;
    // Each reference is checked (a repeated input again: the checks give the
    // same answer), without building the input list.
    auto check_input = [&](Node* input) {
      // An input of this graph that comes earlier passed the name check itself.
      const bool earlier = &input->graph() == this && input->is_before(*node);
      auto named = earlier ? by_name_.end() : by_name_.find(input->name());
      if (!earlier && (&input->graph() != this || named == by_name_.end() || named->second != input)) {
        throw AotError(where() + " uses '" + input->name() + "', which is not in this graph");
      }
      if (!earlier) throw AotError(where() + " uses '" + input->name() + "' before it is defined");
      if (!lists_once(input->users(), node, sorted_users, input)) {
        throw AotError(where() + " is missing from the users of '" + input->name() + "'");
      }
    };
    for (const Argument& arg : node->args()) for_each_node(arg, check_input);
    for (const auto& [key, value] : node->kwargs()) for_each_node(value, check_input);
    for (Node* user : node->users()) {
      bool uses = false;
      const bool short_list = user->args().size() + user->kwargs().size() <= kScanLimit &&
                              std::none_of(user->args().begin(), user->args().end(),
                                           [](const Argument& arg) { return arg.is_list(); });
      if (short_list) {
        for (const Argument& arg : user->args()) uses = uses || (arg.is_node() && arg.node() == node);
        for (const auto& [key, value] : user->kwargs()) {
          for_each_node(value, [&](Node* input) { uses = uses || input == node; });
        }
      } else {
        auto [it, added] = sorted_inputs.try_emplace(user);
        if (added) {
          it->second = user->input_nodes();
          std::sort(it->second.begin(), it->second.end());
        }
        uses = std::binary_search(it->second.begin(), it->second.end(), node);
      }
      if (!uses) throw AotError(where() + " lists '" + user->name() + "' as a user, but it does not use it");
    }
  }
  if (output == nullptr) throw AotError("graph lint: the graph has no output node");
}

bool Graph::is_topologically_sorted() const {
  for (Node* node : ordered()) {
    bool sorted = true;
    auto check = [&](Node* input) { sorted = sorted && &input->graph() == this && input->is_before(*node); };
    for (const Argument& arg : node->args()) for_each_node(arg, check);
    for (const auto& [key, value] : node->kwargs()) for_each_node(value, check);
    if (!sorted) return false;
  }
  return true;
}

void Graph::stable_topological_sort(const std::vector<std::pair<const Node*, const Node*>>& also_after) {
  // Kahn's algorithm that always takes the ready node that came first, so a
  // node moves only as far as its inputs force it to.
  std::map<const Node*, size_t> position;
  std::vector<Node*> original;
  for (Node* node : *this) {
    if (node->is_output()) continue;
    position[node] = original.size();
    original.push_back(node);
  }
  std::map<const Node*, std::vector<Node*>> followers;  // a -> the b of each pair (a, b)
  std::map<const Node*, size_t> waiting;
  for (const auto& [first, then] : also_after) {
    if (!position.count(first) || !position.count(then) || first == then) continue;
    followers[first].push_back(original[position[then]]);
    ++waiting[then];
  }
  std::set<size_t> ready;
  for (Node* node : original) {
    size_t count = waiting[node];
    for (Node* input : node->input_nodes()) count += position.count(input);
    waiting[node] = count;
    if (count == 0) ready.insert(position[node]);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* node = original[*ready.begin()];
    ready.erase(ready.begin());
    order.push_back(node);
    for (Node* user : node->users()) {
      auto it = waiting.find(user);
      if (it == waiting.end()) continue;
      // A user that takes this node in several arguments counts it once.
      if (--it->second == 0) ready.insert(position[user]);
    }
    if (auto it = followers.find(node); it != followers.end()) {
      for (Node* then : it->second) {
        if (--waiting[then] == 0) ready.insert(position[then]);
      }
    }
  }
  if (order.size() != original.size()) {
    std::string names;
    for (Node* node : original) {
      if (waiting[node] > 0) names += (names.empty() ? "" : ", ") + node->name();
    }
    throw AotError("graph has a cycle among nodes: " + names);
  }
  if (Node* output = output_node()) order.push_back(output);
  for (Node* node : order) nodes_.splice(nodes_.end(), nodes_, node->position_);
  list_changed();
  uint64_t key = 0;
  for (Node* node : *this) node->order_ = key += kOrderStep;
  first_non_placeholder_valid_ = false;
}

namespace {

// Each node of a graph being cloned -> its twin: open addressing in one
// array, as a hash map with a heap node per entry costs clone an allocation
// and a cache miss more per node on large graphs.
class TwinTable {
 public:
  explicit TwinTable(size_t count) {
    while ((size_t{1} << bits_) < 2 * count) ++bits_;
    slots_.resize(size_t{1} << bits_);
  }
  void add(const Node* node, Node* twin) {
    size_t i = slot(node);
    while (slots_[i].first != nullptr) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = {node, twin};
  }
  /// The twin of `node`, or null if it has none yet.
  Node* find(const Node* node) const {
    for (size_t i = slot(node);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].first == node) return slots_[i].second;
      if (slots_[i].first == nullptr) return nullptr;
    }
  }

 private:
  size_t slot(const Node* node) const {
    // Fibonacci hashing of the address.
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(node) * uint64_t{0x9E3779B97F4A7C15}) >> (64 - bits_));
  }
  int bits_ = 4;
  std::vector<std::pair<const Node*, Node*>> slots_;
};

Argument remapped(const Argument& arg, const TwinTable& map) {
  if (arg.is_node()) {
    Node* twin = map.find(arg.node());
    if (twin == nullptr) throw AotError("graph clone: '" + arg.node()->name() + "' is used before it is defined");
    return Argument(twin);
  }
  if (arg.is_list()) {
    ArgumentList list;
    list.reserve(arg.list().size());
    for (const Argument& item : arg.list()) list.push_back(remapped(item, map));
    return list;
  }
  return arg;
}

}  // namespace

std::unique_ptr<Graph> Graph::clone(std::map<const Node*, Node*>* node_map) const {
  auto copy = std::make_unique<Graph>();
  TwinTable map(size());
  copy->by_name_.reserve(size());
  copy->ordered_.reserve(size());
  for (Node* node : ordered()) {
    Node* twin = copy->create_node(node->op(), node->name(), node->target(), nullptr, false);
    if (twin->name() != node->name()) throw AotError("graph clone: name clash on '" + node->name() + "'");
    twin->meta = node->meta;
    twin->args_.reserve(node->args().size());
    for (const Argument& arg : node->args()) twin->args_.push_back(remapped(arg, map));
    for (const auto& [key, value] : node->kwargs()) twin->kwargs_.emplace_back(key, remapped(value, map));
    twin->link_inputs();
    map.add(node, twin);
    if (node_map != nullptr) (*node_map)[node] = twin;
    copy->ordered_.push_back(twin);
  }
  // Every twin went to the end of the list, in this order.
  copy->ordered_valid_ = true;
  copy->name_counters_ = name_counters_;
  return copy;
}

}  // namespace kiln::aot
