#include "aot/ir/pytree.h"

#include "aot/ir/error.h"

namespace kiln::aot {

std::string describe(const Value& value) {
  struct Describer {
    std::string operator()(None) const { return "None"; }
    std::string operator()(const HostTensor& t) const { return t.describe(); }
    std::string operator()(int64_t v) const { return to_string(Argument(v)); }
    std::string operator()(double v) const { return to_string(Argument(v)); }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::string& v) const { return "'" + v + "'"; }
  };
  return std::visit(Describer{}, value);
}

PyTree PyTree::make_leaf(Value value) {
  PyTree tree;
  tree.kind = Kind::Leaf;
  tree.leaf = std::move(value);
  return tree;
}

PyTree PyTree::none() { return PyTree{}; }

PyTree PyTree::tuple(std::vector<PyTree> items) {
  PyTree tree;
  tree.kind = Kind::Tuple;
  tree.children = std::move(items);
  return tree;
}

PyTree PyTree::list(std::vector<PyTree> items) {
  PyTree tree = tuple(std::move(items));
  tree.kind = Kind::List;
  return tree;
}

PyTree PyTree::dict(std::vector<std::pair<std::string, PyTree>> items) {
  PyTree tree;
  tree.kind = Kind::Dict;
  for (auto& [key, value] : items) {
    tree.keys.push_back(key);
    tree.children.push_back(std::move(value));
  }
  return tree;
}

const PyTree& PyTree::at(const std::string& key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return children[i];
  }
  throw AotError("pytree dict has no key '" + key + "'");
}

size_t TreeSpec::num_leaves() const {
  if (kind == Kind::Leaf) return 1;
  size_t count = 0;
  for (const TreeSpec& child : children) count += child.num_leaves();
  return count;
}

namespace {

const char* kind_name(PyTree::Kind kind) {
  switch (kind) {
    case PyTree::Kind::Leaf: return "leaf";
    case PyTree::Kind::None: return "NoneType";
    case PyTree::Kind::Tuple: return "tuple";
    case PyTree::Kind::List: return "list";
    case PyTree::Kind::Dict: return "dict";
  }
  return "unknown";
}

std::string quoted_keys(const std::vector<std::string>& keys) {
  std::string text = "[";
  for (size_t i = 0; i < keys.size(); ++i) text += (i ? ", '" : "'") + keys[i] + "'";
  return text + "]";
}

std::string describe_shape(const PyTree& tree) {
  switch (tree.kind) {
    case PyTree::Kind::Leaf: return "a leaf (" + describe(tree.leaf) + ")";
    case PyTree::Kind::None: return "None";
    case PyTree::Kind::Dict: return "a dict with keys " + quoted_keys(tree.keys);
    default: return std::string("a ") + kind_name(tree.kind) + " of " + std::to_string(tree.children.size());
  }
}

std::string describe_shape(const TreeSpec& spec) {
  switch (spec.kind) {
    case PyTree::Kind::Leaf: return "a leaf";
    case PyTree::Kind::None: return "None";
    case PyTree::Kind::Dict: return "a dict with keys " + quoted_keys(spec.context);
    default: return std::string("a ") + kind_name(spec.kind) + " of " + std::to_string(spec.children.size());
  }
}

void flatten_into(const PyTree& tree, std::vector<Value>& leaves, TreeSpec& spec) {
  spec.kind = tree.kind;
  if (tree.kind == PyTree::Kind::Leaf) {
    leaves.push_back(tree.leaf);
    return;
  }
  spec.context = tree.keys;
  spec.children.resize(tree.children.size());
  for (size_t i = 0; i < tree.children.size(); ++i) flatten_into(tree.children[i], leaves, spec.children[i]);
}

void flatten_checked(const PyTree& tree, const TreeSpec& spec, const std::string& path,
                     std::vector<FlatLeaf>& leaves) {
  const std::string where = path.empty() ? "at the top level" : "at " + path;
  if (spec.kind == PyTree::Kind::Leaf) {
    if (tree.kind != PyTree::Kind::Leaf) {
      throw AotError(where + ": expected a leaf, got " + describe_shape(tree));
    }
    leaves.push_back({path, tree.leaf});
    return;
  }
  if (tree.kind != spec.kind) {
    throw AotError(where + ": expected " + describe_shape(spec) + ", got " + describe_shape(tree));
  }
  if (spec.kind == PyTree::Kind::Dict) {
    if (tree.keys.size() != spec.context.size()) {
      throw AotError(where + ": expected " + describe_shape(spec) + ", got " + describe_shape(tree));
    }
    for (size_t i = 0; i < spec.context.size(); ++i) {
      const std::string& key = spec.context[i];
      const PyTree* child = nullptr;
      for (size_t j = 0; j < tree.keys.size(); ++j) {
        if (tree.keys[j] == key) child = &tree.children[j];
      }
      if (child == nullptr) {
        throw AotError(where + ": expected " + describe_shape(spec) + ", got " + describe_shape(tree));
      }
      flatten_checked(*child, spec.children[i], path + "['" + key + "']", leaves);
    }
    return;
  }
  if (tree.children.size() != spec.children.size()) {
    throw AotError(where + ": expected " + describe_shape(spec) + ", got " + describe_shape(tree));
  }
  for (size_t i = 0; i < spec.children.size(); ++i) {
    flatten_checked(tree.children[i], spec.children[i], path + "[" + std::to_string(i) + "]", leaves);
  }
}

PyTree unflatten_from(const std::vector<Value>& leaves, size_t& next, const TreeSpec& spec) {
  if (spec.kind == PyTree::Kind::Leaf) return PyTree::make_leaf(leaves[next++]);
  PyTree tree;
  tree.kind = spec.kind;
  tree.keys = spec.context;
  for (const TreeSpec& child : spec.children) tree.children.push_back(unflatten_from(leaves, next, child));
  return tree;
}

}  // namespace

std::string TreeSpec::to_string() const {
  if (kind == Kind::Leaf) return "*";
  std::string text = std::string("TreeSpec(") + kind_name(kind) + ", ";
  text += kind == Kind::Dict ? quoted_keys(context) : "None";
  text += ", [";
  for (size_t i = 0; i < children.size(); ++i) text += (i ? ", " : "") + children[i].to_string();
  return text + "])";
}

std::pair<std::vector<Value>, TreeSpec> tree_flatten(const PyTree& tree) {
  std::vector<Value> leaves;
  TreeSpec spec;
  flatten_into(tree, leaves, spec);
  return {std::move(leaves), std::move(spec)};
}

std::vector<FlatLeaf> flatten_by_spec(const PyTree& tree, const TreeSpec& spec) {
  std::vector<FlatLeaf> leaves;
  flatten_checked(tree, spec, "", leaves);
  return leaves;
}

PyTree tree_unflatten(const std::vector<Value>& leaves, const TreeSpec& spec) {
  if (leaves.size() != spec.num_leaves()) {
    throw AotError("cannot unflatten " + std::to_string(leaves.size()) + " values into " + spec.to_string() +
                   ", which has " + std::to_string(spec.num_leaves()) + " leaves");
  }
  size_t next = 0;
  return unflatten_from(leaves, next, spec);
}

}  // namespace kiln::aot
