// fuse_rotary_embedding: the half-rotated rotary embedding of the Llama
// family as core ATen spells it out,
//   add(mul(x, cos), mul(cat([neg(slice(x, -1, E/2, end)), slice(x, -1, 0, E/2)], -1), sin)),
// each product and the sum in either order, becomes one
// kiln::rotary_embedding(x, cos, sin). The slices, the negation, the cat and
// the products must have no reader outside the pattern; cos and sin may be
// shared (every layer reads the same ones). Partial rotations (a slice of x
// rotated, the rest passed through) are not this pattern and stay as they are.
#include <optional>

#include "aot/passes/fuse_ops.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {
namespace {

using passes::call_args;
using passes::node_of;
using passes::only_read_by;

struct Rotary {
  Node* input = nullptr;
  Node* cos = nullptr;
  Node* sin = nullptr;
  Node* anchor = nullptr;
  std::vector<Node*> pattern;
};

std::optional<int64_t> static_last_dim(const Node* node) {
  const auto* meta = std::get_if<TensorMeta>(&node->meta.val);
  if (meta == nullptr || meta->rank() == 0 || meta->dtype != ScalarType::Float) return std::nullopt;
  return meta->sizes.back().constant_value();
}

// slice(x, last dim, start, end, 1) covering [from, to) of a last dim of size `size`: x.
Node* sliced(Node* node, int64_t from, int64_t to, int64_t size) {
  const auto args = call_args(node, "aten::slice.Tensor");
  if (!args || !args->at(1).is_int() || !args->at(4).is_int() || args->at(4).to_int() != 1) return nullptr;
  Node* x = node_of(args->at(0));
  if (x == nullptr) return nullptr;
  const size_t rank = x->meta.tensor().rank();
  if (passes::normalize_dim(args->at(1).to_int(), rank, "slice") != static_cast<int64_t>(rank - 1)) return nullptr;
  const int64_t start = args->at(2).is_none() ? 0 : (args->at(2).is_int() ? args->at(2).to_int() : -1);
  const int64_t end = args->at(3).is_none() ? size : (args->at(3).is_int() ? std::min(args->at(3).to_int(), size) : -1);
  return start == from && end == to ? x : nullptr;
}

// cat([neg(slice(x, E/2, E)), slice(x, 0, E/2)], -1): x and the nodes it took.
Node* rotated_half(Node* cat, std::vector<Node*>& pattern) {
  const auto args = call_args(cat, "aten::cat.default");
  if (!args || !args->at(0).is_list() || args->at(0).list().size() != 2 || !args->at(1).is_int()) return nullptr;
  const std::optional<int64_t> size = static_last_dim(cat);
  if (!size || *size % 2 != 0) return nullptr;
  const size_t rank = cat->meta.tensor().rank();
  if (passes::normalize_dim(args->at(1).to_int(), rank, "cat") != static_cast<int64_t>(rank - 1)) return nullptr;
  Node* neg = node_of(args->at(0).list()[0]);
  Node* low = node_of(args->at(0).list()[1]);
  const auto negated = call_args(neg, "aten::neg.default");
  if (!negated || low == nullptr || !only_read_by(neg, cat) || !only_read_by(low, cat)) return nullptr;
  Node* high = node_of(negated->at(0));
  if (high == nullptr || !only_read_by(high, neg)) return nullptr;
  const int64_t half = *size / 2;
  Node* x = sliced(high, half, *size, *size);
  if (x == nullptr || sliced(low, 0, half, *size) != x) return nullptr;
  pattern.insert(pattern.end(), {high, low, neg, cat});
  return x;
}

// mul(a, b) read only by `user`: its two operands.
std::optional<std::pair<Node*, Node*>> product(Node* node, const Node* user) {
  const auto args = call_args(node, "aten::mul.Tensor");
  if (!args || !only_read_by(node, user) || node_of(args->at(0)) == nullptr || node_of(args->at(1)) == nullptr) {
    return std::nullopt;
  }
  return std::pair{node_of(args->at(0)), node_of(args->at(1))};
}

std::optional<Rotary> match_rotary(Node* add) {
  const auto sum = call_args(add, "aten::add.Tensor");
  if (!sum || !passes::is_number(sum->at(2), 1.0) || !static_last_dim(add)) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const auto straight = product(node_of(sum->at(side)), add);
    const auto turned = product(node_of(sum->at(1 - side)), add);
    if (!straight || !turned) continue;
    for (int t = 0; t < 2; ++t) {
      Rotary rotary;
      Node* cat = t == 0 ? turned->first : turned->second;
      Node* x = rotated_half(cat, rotary.pattern);
      if (x == nullptr) continue;
      rotary.sin = t == 0 ? turned->second : turned->first;
      if (straight->first == x) rotary.cos = straight->second;
      else if (straight->second == x) rotary.cos = straight->first;
      else continue;
      const TensorMeta& xm = x->meta.tensor();
      if (!(add->meta.tensor().sizes == xm.sizes) || !static_last_dim(rotary.cos) || !static_last_dim(rotary.sin) ||
          rotary.cos->meta.tensor().sizes.back() != xm.sizes.back() ||
          rotary.sin->meta.tensor().sizes.back() != xm.sizes.back()) {
        continue;
      }
      rotary.input = x;
      rotary.anchor = add;
      rotary.pattern.push_back(node_of(sum->at(side)));
      rotary.pattern.push_back(node_of(sum->at(1 - side)));
      return rotary;
    }
  }
  return std::nullopt;
}

}  // namespace

bool fuse_rotary_embedding(ExportedProgram& program) {
  return passes::rewrite_each_match<Rotary>(program, match_rotary, [&](Rotary& rotary) {
    passes::Rewriter r(*rotary.anchor);
    Node* fused = r.call("kiln::rotary_embedding", {rotary.input, rotary.cos, rotary.sin}, r.out());
    r.replace_with(fused);
    passes::erase_unused(program.graph(), rotary.pattern);
    return fused;
  });
}

}  // namespace kiln::aot
