// fuse_rms_norm: RMS normalization as transformers' RMSNorm modules write it
// and core ATen spells it out -- pow(x, 2) (or x * x), mean over the last dim
// with keepdim, + eps, rsqrt, x * that, then times a weight of the last dim's
// size (either side) or not -- becomes one kiln::rms_norm(x, weight, eps).
// The match starts at the rsqrt's product with x; the intermediate values
// must have no reader outside the pattern. A weight of (1 + w) (Gemma) is a
// constant by the time this runs (fold_constants), so it is just a weight.
#include <optional>

#include "aot/passes/fuse_ops.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {
namespace {

using passes::call_args;
using passes::is_float;
using passes::node_of;
using passes::only_read_by;

// x ** 2, as pow(x, 2) or x * x: x, or null.
Node* squared(Node* node) {
  if (auto args = call_args(node, "aten::pow.Tensor_Scalar"); args && passes::is_number(args->at(1), 2.0)) {
    return node_of(args->at(0));
  }
  if (auto args = call_args(node, "aten::mul.Tensor"); args && node_of(args->at(0)) != nullptr &&
                                                        node_of(args->at(0)) == node_of(args->at(1))) {
    return node_of(args->at(0));
  }
  return nullptr;
}

struct RmsNorm {
  Node* input = nullptr;
  Node* weight = nullptr;  ///< null: none
  double eps = 0;
  Node* anchor = nullptr;  ///< the node the fused call replaces
  std::vector<Node*> pattern;  ///< every other node of the match
};

// `normalized` = mul(x, rsqrt(add(mean(x ** 2, [-1], True), eps))), in either order.
std::optional<RmsNorm> match_normalized(Node* normalized) {
  const auto mul = call_args(normalized, "aten::mul.Tensor");
  if (!mul || !is_float(normalized)) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Node* x = node_of(mul->at(side));
    Node* rsqrt = node_of(mul->at(1 - side));
    const auto rs = call_args(rsqrt, "aten::rsqrt.default");
    if (x == nullptr || !rs || !only_read_by(rsqrt, normalized)) continue;
    Node* add = node_of(rs->at(0));
    const auto plus = call_args(add, "aten::add.Tensor");
    if (!plus || !only_read_by(add, rsqrt) || !plus->at(1).is_double() || !passes::is_number(plus->at(2), 1.0)) continue;
    Node* mean = node_of(plus->at(0));
    const auto mn = call_args(mean, "aten::mean.dim");
    if (!mn || !only_read_by(mean, add) || !mn->at(2).is_bool() || !mn->at(2).to_bool() || !mn->at(3).is_none()) continue;
    const size_t rank = x->meta.tensor().rank();
    const ArgumentList* dims = mn->at(1).is_list() ? &mn->at(1).list() : nullptr;
    if (rank == 0 || dims == nullptr || dims->size() != 1 || !dims->at(0).is_int() ||
        passes::normalize_dim(dims->at(0).to_int(), rank, "mean") != static_cast<int64_t>(rank - 1)) {
      continue;
    }
    Node* square = node_of(mn->at(0));
    if (square == nullptr || !only_read_by(square, mean) || squared(square) != x || !is_float(x)) continue;
    return RmsNorm{x, nullptr, plus->at(1).to_double(), normalized, {square, mean, add, rsqrt}};
  }
  return std::nullopt;
}

// The weight the normalized value is multiplied by, if the product is its
// only reader: a float32 tensor of the last dim's size.
void absorb_weight(RmsNorm& norm) {
  Node* normalized = norm.anchor;
  const std::vector<Node*> readers = passes::readers(normalized);
  if (readers.size() != 1) return;
  Node* product = readers.front();
  const auto mul = call_args(product, "aten::mul.Tensor");
  if (!mul) return;
  Node* weight = node_of(mul->at(0)) == normalized ? node_of(mul->at(1)) : node_of(mul->at(0));
  if (weight == nullptr || weight == normalized || !is_float(weight)) return;
  const TensorMeta& w = weight->meta.tensor();
  const TensorMeta& x = norm.input->meta.tensor();
  if (w.rank() != 1 || !(w.sizes[0] == x.sizes.back()) || !(product->meta.tensor().sizes == x.sizes)) return;
  norm.pattern.push_back(normalized);
  norm.weight = weight;
  norm.anchor = product;
}

}  // namespace

bool fuse_rms_norm(ExportedProgram& program) {
  return passes::rewrite_each_match<RmsNorm>(program, [](Node* node) {
    std::optional<RmsNorm> norm = match_normalized(node);
    if (norm) absorb_weight(*norm);
    return norm;
  }, [&](RmsNorm& norm) {
    passes::Rewriter r(*norm.anchor);
    ArgumentList args{norm.input, norm.weight != nullptr ? Argument(norm.weight) : Argument(None{}), norm.eps};
    Node* fused = r.call("kiln::rms_norm", std::move(args), r.out());
    r.replace_with(fused);
    passes::erase_unused(program.graph(), norm.pattern);
    return fused;
  });
}

}  // namespace kiln::aot
