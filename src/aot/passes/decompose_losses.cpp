// Decompositions of the losses' forward into core ops, with PyTorch's
// formulas: the elementwise losses (mse, l1, smooth_l1, huber, the binary
// cross entropies, kl_div) reduced as `reduction` says (0 none, 1 mean,
// 2 sum), and the negative log likelihood (class indices gathered along dim
// 1, ignore_index masked out, the mean weighted) with cross entropy as
// nll of log_softmax.
#include <limits>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

ArgumentList all_dims(Node* x) {
  ArgumentList dims;
  for (size_t d = 0; d < x->meta.tensor().rank(); ++d) dims.emplace_back(static_cast<int64_t>(d));
  return dims;
}

Node* reduce(Rewriter& r, Node* loss, int64_t reduction) {
  if (reduction == kNone) return loss;
  if (reduction != kMean && reduction != kSum) r.fail("reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(reduction));
  return r.op(reduction == kMean ? "aten::mean.dim" : "aten::sum.dim_IntList", {loss, all_dims(loss), false});
}

Node* difference(Rewriter& r) { return r.op("aten::sub.Tensor", {r.arg(0), r.arg(1)}); }

Node* scalar_like(Rewriter& r, Node* like, double value) { return r.op("aten::full_like", {like, value}); }

// smooth_l1 (beta) and huber (delta): quadratic near 0, linear beyond.
void decompose_smooth(Rewriter& r, bool huber) {
  const double edge = r.float_arg(3);
  Node* d = r.op("aten::abs", {difference(r)});
  Node* loss = nullptr;
  if (!huber && edge == 0.0) {
    loss = d;
  } else {
    Node* square = r.op("aten::mul.Scalar", {r.op("aten::mul.Tensor", {d, d}), huber ? 0.5 : 0.5 / edge});
    Node* linear = r.op("aten::sub.Scalar", {d, 0.5 * edge});
    if (huber) linear = r.op("aten::mul.Scalar", {linear, edge});
    loss = r.op("aten::where.self", {r.op("aten::lt.Scalar", {d, edge}), square, linear});
  }
  r.replace_with(reduce(r, loss, r.int_arg(2)));
}

Node* times_weight(Rewriter& r, Node* loss, const Argument& weight) {
  return weight.is_none() ? loss : r.op("aten::mul.Tensor", {loss, weight});
}

// binary_cross_entropy(p, t, weight): -(t log p + (1 - t) log(1 - p)), each
// log clamped at -100 as PyTorch does.
void decompose_bce(Rewriter& r) {
  Node* p = r.tensor_arg(0);
  Node* t = r.tensor_arg(1);
  Node* log_p = r.op("aten::clamp", {r.op("aten::log", {p}), -100.0});
  Node* log_q = r.op("aten::clamp", {r.op("aten::log1p", {r.op("aten::neg", {p})}), -100.0});
  Node* one_minus_t = r.op("aten::sub.Tensor", {scalar_like(r, t, 1.0), t});
  Node* sum = r.op("aten::add.Tensor", {r.op("aten::mul.Tensor", {t, log_p}), r.op("aten::mul.Tensor", {one_minus_t, log_q})});
  r.replace_with(reduce(r, times_weight(r, r.op("aten::neg", {sum}), r.arg(2)), r.int_arg(3)));
}

// binary_cross_entropy_with_logits(x, t, weight, pos_weight):
// (1 - t) x + (1 + (pos_weight - 1) t) (log1p(exp(-|x|)) + max(-x, 0)).
void decompose_bce_with_logits(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* t = r.tensor_arg(1);
  Node* one_minus_t = r.op("aten::sub.Tensor", {scalar_like(r, t, 1.0), t});
  Node* softplus = r.op("aten::add.Tensor", {r.op("aten::log1p", {r.op("aten::exp", {r.op("aten::neg", {r.op("aten::abs", {x})})})}),
                                             r.op("aten::clamp", {r.op("aten::neg", {x}), 0.0})});
  if (!r.arg(3).is_none()) {
    Node* pw = r.op("aten::add.Scalar", {r.op("aten::mul.Tensor", {r.op("aten::sub.Scalar", {r.arg(3), 1.0}), t}), 1.0});
    softplus = r.op("aten::mul.Tensor", {pw, softplus});
  }
  Node* loss = r.op("aten::add.Tensor", {r.op("aten::mul.Tensor", {one_minus_t, x}), softplus});
  r.replace_with(reduce(r, times_weight(r, loss, r.arg(2)), r.int_arg(4)));
}

// kl_div(input, target, reduction, log_target): target (log target) against log input.
void decompose_kl_div(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* t = r.tensor_arg(1);
  Node* loss = nullptr;
  if (r.bool_arg(3)) {
    loss = r.op("aten::mul.Tensor", {r.op("aten::exp", {t}), r.op("aten::sub.Tensor", {t, x})});
  } else {
    // xlogy has a decomposition rather than a meta rule: t's meta is its own.
    Node* entropy = r.call("aten::xlogy.Tensor", {t, t}, t->meta.tensor());
    loss = r.op("aten::sub.Tensor", {entropy, r.op("aten::mul.Tensor", {t, x})});
  }
  r.replace_with(reduce(r, loss, r.int_arg(2)));
}

// nll_loss(x, target, weight, reduction, ignore_index) -> (loss, total weight):
// -x[target] along dim 1 (dim 0 for an unbatched x), weighted by
// weight[target] and 0 where target == ignore_index; the mean divides by the
// total weight.
std::pair<Node*, Node*> nll(Rewriter& r, Node* x, Node* target, const Argument& weight, int64_t reduction, int64_t ignore) {
  const int64_t class_dim = x->meta.tensor().rank() == 1 ? 0 : 1;
  Node* ignored = r.op("aten::eq.Scalar", {target, ignore});
  Node* safe = r.op("aten::where.self", {ignored, r.op("aten::full_like", {target, int64_t{0}}), target});
  Node* picked = r.op("aten::squeeze.dims", {r.op("aten::gather", {x, class_dim, r.op("aten::unsqueeze", {safe, class_dim})}),
                                             ArgumentList{class_dim}});
  Node* w = weight.is_none() ? r.op("aten::full_like", {picked, 1.0})
                             : r.op("aten::index.Tensor", {weight, ArgumentList{safe}});
  w = r.op("aten::where.self", {ignored, r.op("aten::full_like", {w, 0.0}), w});
  Node* loss = r.op("aten::neg", {r.op("aten::mul.Tensor", {picked, w})});
  Node* total = r.op("aten::sum.dim_IntList", {w, all_dims(w), false});
  if (reduction == kNone) return {loss, total};
  Node* sum = r.op("aten::sum.dim_IntList", {loss, all_dims(loss), false});
  if (reduction == kSum) return {sum, total};
  if (reduction != kMean) r.fail("reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(reduction));
  return {r.op("aten::div.Tensor", {sum, total}), total};
}

void decompose_nll(Rewriter& r, bool with_total) {
  const auto [loss, total] = nll(r, r.tensor_arg(0), r.tensor_arg(1), r.arg(2), r.int_arg(3), r.int_arg(4));
  if (with_total) {
    r.replace_with_items({loss, total});
  } else {
    r.replace_with(loss);
  }
}

// cross_entropy_loss(x, target, weight, reduction, ignore_index,
// label_smoothing): nll of log_softmax over the class dim for class
// indices; -sum(target * log_softmax * weight) for class probabilities.
void decompose_cross_entropy(Rewriter& r) {
  if (r.float_arg(5) != 0.0) r.fail("label_smoothing is not supported (got " + std::to_string(r.float_arg(5)) + ")");
  Node* x = r.tensor_arg(0);
  Node* target = r.tensor_arg(1);
  const int64_t class_dim = x->meta.tensor().rank() == 1 ? 0 : 1;
  Node* log_p = r.op("aten::_log_softmax", {x, class_dim, false});
  if (target->meta.tensor().dtype == ScalarType::Long || target->meta.tensor().dtype == ScalarType::Int) {
    r.replace_with(nll(r, log_p, target, r.arg(2), r.int_arg(3), r.int_arg(4)).first);
    return;
  }
  Node* weighted = r.op("aten::mul.Tensor", {target, log_p});
  if (!r.arg(2).is_none()) {
    std::vector<int64_t> shape(x->meta.tensor().rank(), 1);
    shape[static_cast<size_t>(class_dim)] = -1;
    ArgumentList sizes;
    for (int64_t s : shape) sizes.emplace_back(s);
    weighted = r.op("aten::mul.Tensor", {weighted, r.op("aten::view", {r.arg(2), sizes})});
  }
  // The mean is over every element but the class dim's, as PyTorch's.
  Node* loss = r.op("aten::neg", {r.op("aten::sum.dim_IntList", {weighted, ArgumentList{class_dim}, false})});
  r.replace_with(reduce(r, loss, r.int_arg(3)));
}

}  // namespace

void add_loss_decompositions(DecompositionTable& t) {
  t["aten::mse_loss.default"] = [](Rewriter& r) {
    Node* d = difference(r);
    r.replace_with(reduce(r, r.op("aten::mul.Tensor", {d, d}), r.int_arg(2)));
  };
  t["aten::l1_loss.default"] = [](Rewriter& r) { r.replace_with(reduce(r, r.op("aten::abs", {difference(r)}), r.int_arg(2))); };
  t["aten::smooth_l1_loss.default"] = [](Rewriter& r) { decompose_smooth(r, false); };
  t["aten::huber_loss.default"] = [](Rewriter& r) { decompose_smooth(r, true); };
  t["aten::binary_cross_entropy.default"] = decompose_bce;
  t["aten::binary_cross_entropy_with_logits.default"] = decompose_bce_with_logits;
  t["aten::kl_div.default"] = decompose_kl_div;
  t["aten::nll_loss.default"] = [](Rewriter& r) { decompose_nll(r, false); };
  t["aten::nll_loss_nd.default"] = [](Rewriter& r) { decompose_nll(r, false); };
  t["aten::nll_loss2d.default"] = [](Rewriter& r) { decompose_nll(r, false); };
  t["aten::nll_loss_forward.default"] = [](Rewriter& r) { decompose_nll(r, true); };
  t["aten::nll_loss2d_forward.default"] = [](Rewriter& r) { decompose_nll(r, true); };
  t["aten::cross_entropy_loss.default"] = decompose_cross_entropy;
}

}  // namespace kiln::aot::passes
