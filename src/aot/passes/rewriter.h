// Rewriter: what a decomposition needs to replace one node by a few others —
// its bound arguments, new nodes inserted just before it with metas and the
// old node's provenance, and errors that name the node. Internal to passes/.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aot/ir/graph.h"

namespace kiln::aot::passes {

class Rewriter {
 public:
  /// Binds `node`'s arguments to its schema and inserts new nodes before it.
  explicit Rewriter(Node& node);
  ~Rewriter();
  Rewriter(const Rewriter&) = delete;
  Rewriter& operator=(const Rewriter&) = delete;

  Node& node() const { return node_; }
  /// The value of schema argument `index`, defaults filled in.
  const Argument& arg(size_t index) const { return bound_.at(index); }
  Node* tensor_arg(size_t index) const;
  int64_t int_arg(size_t index) const;
  double float_arg(size_t index) const;
  bool bool_arg(size_t index) const;
  /// A list of plain ints (no symbolic entries).
  std::vector<int64_t> ints_arg(size_t index) const;
  /// The old node's tensor meta.
  const TensorMeta& out() const;

  /// A new node before the old one, with `meta` and the old node's provenance.
  Node* call(const std::string& target, ArgumentList args, ValueMeta meta, KwargList kwargs = {});
  /// As call, with the meta inferred from the inputs (infer_meta.h) and
  /// trailing arguments equal to their defaults left out, as torch prints
  /// calls. A call the inputs do not fit fails naming the old node.
  Node* op(const std::string& target, ArgumentList args, KwargList kwargs = {});
  Node* getitem(Node* value, int64_t index);
  /// A SymInt[] argument for `sizes`: constants as ints, a size equal to a
  /// dim of `source` as sym_size(source, dim), and at most one other as -1.
  Argument size_list(const std::vector<SymExpr>& sizes, Node* source);
  /// As above, a size found in any of `sources`; -1 only if `allow_inferred`.
  Argument size_list(const std::vector<SymExpr>& sizes, const std::vector<Node*>& sources, bool allow_inferred);
  /// A SymInt argument for `value`: an int, or sym_size of a dim of a source.
  Argument sym_int(const SymExpr& value, const std::vector<Node*>& sources);

  /// Points every use of the old node at `value` and erases the old node. A
  /// value built by this rewriter must agree with the old node's meta (dtype,
  /// rank, static sizes) and takes it over, keeping torch's symbolic sizes.
  void replace_with(Node* value);
  /// Points every use of the old node (a SymInt or SymBool) at a literal or
  /// another node, and erases the old node.
  void replace_with_literal(const Argument& value);
  /// For a node returning several tensors, read item by item: points each
  /// getitem(node, i) user at values[i], then erases them and the old node.
  void replace_with_items(const std::vector<Node*>& values);
  [[noreturn]] void fail(const std::string& reason) const;

 private:
  Node& node_;
  Graph& graph_;  // kept apart: node_ is gone after replace_with
  std::vector<Argument> bound_;
  Node* saved_insert_point_;
  std::set<const Node*> created_;
};

/// An int[] argument holding `values`.
ArgumentList ints(const std::vector<int64_t>& values);
/// The static sizes of tensor `node`; fails the rewrite for symbolic ones.
std::vector<int64_t> sizes_of(Rewriter& r, Node* node);
/// The rank of tensor `node`.
size_t rank_of(Node* node);
/// Replaces every reference to `node` in its users' arguments (lists too) by `value`.
void replace_uses_with_literal(Node* node, const Argument& value);
/// Normalizes `dim` against `rank` (Python's negative dims); throws naming `where`.
int64_t normalize_dim(int64_t dim, size_t rank, const std::string& where);
/// The product of `sizes` (1 for none).
SymExpr product(const std::vector<SymExpr>& sizes);
/// "aten::relu.default" for "aten::relu", etc.; the target itself if it is no op.
std::string canonical_target(const std::string& target);
/// `value` as an int[] of `n` entries: an int or a one-entry list repeated.
ArgumentList expand_int_list(const Argument& value, size_t n);

}  // namespace kiln::aot::passes
