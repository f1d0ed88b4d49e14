// Decompositions of quantile and nanquantile as torch computes them: the
// reduced dim moved last and sorted (NaN sorts above every value), the
// rank q * (n - 1) of each quantile in every line (nanquantile counts the
// line's values that are not NaN; quantile takes the last, a NaN, in a line
// holding one), rounded by the interpolation mode, then the values at the
// ranks below and above gathered and blended by the rank's fraction.
#include <string>
#include <vector>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// The input with the reduced dim last: [lines..., n]. dim None flattens it.
Node* lines_of(Rewriter& r, Node* x, const Argument& dim) {
  const size_t rank = x->meta.tensor().rank();
  if (dim.is_none()) return r.op("aten::view", {x, ints({-1})});
  const int64_t d = normalize_dim(dim.to_int(), rank, "node '" + r.node().name() + "'");
  std::vector<int64_t> order;
  for (size_t i = 0; i < rank; ++i) {
    if (static_cast<int64_t>(i) != d) order.push_back(static_cast<int64_t>(i));
  }
  order.push_back(d);
  return rank == 0 ? r.op("aten::view", {x, ints({1})}) : r.op("aten::permute", {x, ints(order)});
}

// The ranks, [lines..., 1] for a scalar q, [Q, lines..., 1] for a 1-D q.
Node* ranks_of(Rewriter& r, Node* sorted, const Argument& q, bool skip_nan) {
  const TensorMeta& meta = sorted->meta.tensor();
  Node* nan = r.op("aten::isnan", {sorted});
  Node* last = nullptr;
  if (skip_nan) {
    Node* count = r.op("aten::sum.dim_IntList", {r.op("aten::logical_not", {nan}), ints({-1}), true}, {{"dtype", meta.dtype}});
    last = r.op("aten::add.Scalar", {count, -1.0});
  } else {
    const int64_t n = *meta.sizes.back().constant_value();
    last = r.op("aten::full_like", {r.op("aten::slice.Tensor", {sorted, int64_t{-1}, int64_t{0}, int64_t{1}}), static_cast<double>(n - 1)});
  }
  Node* ranks = nullptr;
  if (q.is_node()) {
    Node* qs = q.node();
    if (qs->meta.tensor().rank() == 1) {
      std::vector<int64_t> shape(meta.rank() + 1, 1);
      shape[0] = -1;
      qs = r.op("aten::view", {qs, ints(shape)});
    }
    ranks = r.op("aten::mul.Tensor", {qs, last});
  } else {
    ranks = r.op("aten::mul.Scalar", {last, q});
  }
  // An all-NaN line counts no values: rank 0, a NaN.
  if (skip_nan) return r.op("aten::clamp", {ranks, 0.0});
  // A line holding a NaN has the NaN as its quantiles: the last rank.
  return r.op("aten::where.self", {r.op("aten::any.dim", {nan, int64_t{-1}, true}), last, ranks});
}

// lower, higher and nearest take one value: the rank rounded down, up or
// half to even; linear and midpoint blend the two around it.
Node* rounded(Rewriter& r, Node* ranks, const std::string& mode) {
  if (mode == "lower") return r.op("aten::floor", {ranks});
  if (mode == "higher") return r.op("aten::ceil", {ranks});
  if (mode == "nearest") return r.op("aten::round", {ranks});
  if (mode != "linear" && mode != "midpoint") r.fail("interpolation must be linear, lower, higher, midpoint or nearest, got '" + mode + "'");
  return ranks;
}

void decompose_quantile(Rewriter& r, bool skip_nan) {
  Node* x = r.tensor_arg(0);
  const TensorMeta& input = x->meta.tensor();
  if (input.dtype != ScalarType::Float && input.dtype != ScalarType::Double) r.fail("takes a float or double input, got " + input.to_string());
  if (!input.is_static() || product(input.sizes).constant_value() == 0) r.fail("takes a non-empty input of static sizes, got " + input.to_string());
  const Argument& q = r.arg(1);
  if (q.is_node() && q.node()->meta.tensor().rank() > 1) r.fail("takes a scalar or 1-D q, got " + q.node()->meta.tensor().to_string());
  if (!q.is_node() && (r.float_arg(1) < 0 || r.float_arg(1) > 1)) r.fail("q must be in [0, 1], got " + to_string(q));
  const std::string mode = r.arg(4).to_string();
  Node* sorted = r.getitem(r.op("aten::sort", {lines_of(r, x, r.arg(2)), int64_t{-1}}), 0);
  Node* ranks = rounded(r, ranks_of(r, sorted, q, skip_nan), mode);
  // The sorted lines, one copy per quantile: gather reads them at the ranks.
  std::vector<int64_t> sizes = ranks->meta.tensor().static_sizes();
  sizes.back() = sorted->meta.tensor().static_sizes().back();
  Node* source = r.op("aten::expand", {sorted, ints(sizes)});
  const auto at = [&](Node* rank) {
    return r.op("aten::gather", {source, int64_t{-1}, r.op("aten::_to_copy", {rank}, {{"dtype", ScalarType::Long}})});
  };
  Node* value = at(ranks);
  if (mode == "linear" || mode == "midpoint") {
    Node* below = value;
    Node* weight = mode == "midpoint" ? r.op("aten::full_like", {ranks, 0.5})
                                      : r.op("aten::sub.Tensor", {ranks, r.op("aten::floor", {ranks})});
    Node* step = r.op("aten::sub.Tensor", {at(r.op("aten::ceil", {ranks})), below});
    value = r.op("aten::add.Tensor", {below, r.op("aten::mul.Tensor", {weight, step})});
  }
  // [Q?, lines..., 1] is the output's order: the reduced dim dropped, or kept as 1 where it was.
  r.replace_with(r.op("aten::view", {value, r.size_list(r.out().sizes, value)}));
}

}  // namespace

void add_quantile_decompositions(DecompositionTable& t) {
  for (const char* overload : {"default", "scalar"}) {
    t[std::string("aten::quantile.") + overload] = [](Rewriter& r) { decompose_quantile(r, false); };
    t[std::string("aten::nanquantile.") + overload] = [](Rewriter& r) { decompose_quantile(r, true); };
  }
}

}  // namespace kiln::aot::passes
