// Pytrees: nested tuples, lists and dicts of Values, and the TreeSpec that
// records their structure — how a program's user inputs and outputs are
// flattened to the graph's placeholders and outputs and back.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/ir/value.h"

namespace kiln::aot {

/// A nested structure of Values. None is a container with no children, as in
/// torch's pytree.
struct PyTree {
  enum class Kind { Leaf, None, Tuple, List, Dict };
  Kind kind = Kind::None;
  Value leaf;                     ///< Leaf only
  std::vector<PyTree> children;   ///< Tuple, List, Dict (values, in key order)
  std::vector<std::string> keys;  ///< Dict only

  static PyTree make_leaf(Value value);
  static PyTree none();
  static PyTree tuple(std::vector<PyTree> items);
  static PyTree list(std::vector<PyTree> items);
  static PyTree dict(std::vector<std::pair<std::string, PyTree>> items);

  /// The Dict child under `key`; throws AotError if absent.
  const PyTree& at(const std::string& key) const;
};

/// The structure of a PyTree without its leaves.
struct TreeSpec {
  using Kind = PyTree::Kind;
  Kind kind = Kind::Leaf;
  std::vector<std::string> context;  ///< Dict keys
  std::vector<TreeSpec> children;

  static TreeSpec leaf() { return {}; }
  size_t num_leaves() const;
  /// torch's spelling: `TreeSpec(tuple, None, [*, TreeSpec(dict, ['a'], [*])])`.
  std::string to_string() const;
  bool operator==(const TreeSpec&) const = default;
};

/// A leaf with the path that reached it, e.g. "[0][1]['x']" (torch's keystr).
struct FlatLeaf {
  std::string path;
  Value value;
};

/// The leaves of `tree` in order, and its spec.
std::pair<std::vector<Value>, TreeSpec> tree_flatten(const PyTree& tree);

/// The leaves of `tree`, which must have the structure `spec` describes. Dict
/// keys are matched by name, in any order (the spec's order wins, as torch
/// reorders kwargs). Throws AotError naming the path where the structure
/// differs: "at [1]: expected a dict with keys ['a', 'b'], got a list".
std::vector<FlatLeaf> flatten_by_spec(const PyTree& tree, const TreeSpec& spec);

/// Rebuilds a tree of `spec` from `leaves`; throws AotError if the count differs.
PyTree tree_unflatten(const std::vector<Value>& leaves, const TreeSpec& spec);

}  // namespace kiln::aot
