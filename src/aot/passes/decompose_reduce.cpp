// Decompositions of reductions and tensor products into the core reductions
// (sum, mean, var.correction, amin/amax, linalg_vector_norm's rule) and
// mm/bmm: variance and deviation in all their overloads, the NaN-skipping
// sums, logsumexp shifted by the maximum as PyTorch computes it, norms, and
// the products of vectors and matrices on 2-D views.
#include <algorithm>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

Argument all_dims(size_t rank) {
  ArgumentList dims;
  for (size_t d = 0; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
  return dims;
}

Node* variance(Rewriter& r, const Argument& dim, const Argument& correction, const Argument& keepdim) {
  return r.op("aten::var.correction", {r.arg(0), dim}, {{"correction", correction}, {"keepdim", keepdim}});
}

Node* mean_of(Rewriter& r, const Argument& dim, const Argument& keepdim) {
  const Argument dims = dim.is_none() ? all_dims(rank_of(r.tensor_arg(0))) : dim;
  return r.op("aten::mean.dim", {r.arg(0), dims, keepdim});
}

// var/std (self, unbiased), .dim (self, dim, unbiased, keepdim) and
// .correction (self, dim, *, correction, keepdim); the _mean forms return
// (var or std, mean).
struct VarianceCall {
  Argument dim, correction, keepdim;
};

VarianceCall variance_call(Rewriter& r, const std::string& overload) {
  if (overload == "default") return {None{}, int64_t{r.bool_arg(1) ? 1 : 0}, false};
  if (overload == "dim") return {r.arg(1), int64_t{r.bool_arg(2) ? 1 : 0}, r.arg(3)};
  return {r.arg(1), r.arg(2), r.arg(3)};
}

void decompose_variance(Rewriter& r, const std::string& overload, bool deviation, bool with_mean) {
  const VarianceCall call = variance_call(r, overload);
  Node* value = variance(r, call.dim, call.correction, call.keepdim);
  if (deviation) value = r.op("aten::sqrt", {value});
  if (!with_mean) {
    r.replace_with(value);
    return;
  }
  r.replace_with_items({value, mean_of(r, call.dim, call.keepdim)});
}

// nansum / nanmean(self, dim, keepdim, dtype): NaNs count as zeros; the
// mean divides by the number of the others.
void decompose_nansum(Rewriter& r, bool mean) {
  Node* x = r.tensor_arg(0);
  Node* nan = r.op("aten::isnan", {x});
  Node* zeroed = r.op("aten::where.self", {nan, r.op("aten::full_like", {x, int64_t{0}}), x});
  KwargList kwargs;
  if (!r.arg(3).is_none()) kwargs.emplace_back("dtype", r.arg(3));
  const Argument dims = r.arg(1).is_none() ? all_dims(rank_of(x)) : r.arg(1);
  Node* sum = r.op("aten::sum.dim_IntList", {zeroed, dims, r.arg(2)}, kwargs);
  if (!mean) {
    r.replace_with(sum);
    return;
  }
  Node* count = r.op("aten::sum.dim_IntList", {r.op("aten::logical_not", {nan}), dims, r.arg(2)});
  r.replace_with(r.op("aten::div.Tensor", {sum, count}));
}

// logsumexp(self, dim, keepdim): m + log(sum(exp(x - m))), m the maximum
// along dim (0 where it is infinite, so that -inf rows give -inf).
void decompose_logsumexp(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (rank_of(x) == 0) {
    r.replace_with(r.op("aten::clone", {x}));
    return;
  }
  const ScalarType dtype = r.out().dtype;
  if (x->meta.tensor().dtype != dtype) x = r.op("aten::_to_copy", {x}, {{"dtype", dtype}});
  Node* high = r.op("aten::amax", {x, r.arg(1), true});
  Node* shift = r.op("aten::where.self", {r.op("aten::isinf", {high}), r.op("aten::full_like", {high, int64_t{0}}), high});
  Node* sum = r.op("aten::sum.dim_IntList", {r.op("aten::exp", {r.op("aten::sub.Tensor", {x, shift})}), r.arg(1), r.arg(2)});
  Node* back = r.bool_arg(2) ? shift : r.op("aten::squeeze.dims", {shift, r.arg(1)});
  r.replace_with(r.op("aten::add.Tensor", {r.op("aten::log", {sum}), back}));
}

// count_nonzero(self, dim): the sum of self != 0, as int64.
void decompose_count_nonzero(Rewriter& r, const Argument& dims) {
  Node* nonzero = r.op("aten::ne.Scalar", {r.arg(0), int64_t{0}});
  r.replace_with(r.op("aten::sum.dim_IntList", {nonzero, dims, false}, {{"dtype", ScalarType::Long}}));
}

// aminmax(self, *, dim, keepdim): (amin, amax) over dim, or over everything.
void decompose_aminmax(Rewriter& r) {
  const Argument dims = r.arg(1).is_none() ? Argument(ArgumentList{}) : Argument(ArgumentList{r.arg(1)});
  const Argument keepdim = r.arg(1).is_none() ? Argument(false) : r.arg(2);
  r.replace_with_items({r.op("aten::amin", {r.arg(0), dims, keepdim}), r.op("aten::amax", {r.arg(0), dims, keepdim})});
}

// norm(self, p, dim, keepdim, dtype) is linalg_vector_norm (p None: 2).
void decompose_norm(Rewriter& r, const Argument& p, const Argument& dim, const Argument& keepdim, const Argument& dtype) {
  KwargList kwargs;
  if (!dtype.is_none()) kwargs.emplace_back("dtype", dtype);
  // linalg_vector_norm has a decomposition, not a meta rule: the call takes the norm's meta.
  r.replace_with(r.call("aten::linalg_vector_norm", {r.arg(0), p.is_none() ? Argument(2.0) : p, dim, keepdim}, r.out(), kwargs));
}

Node* unsqueeze(Rewriter& r, Node* x, int64_t dim) { return r.op("aten::unsqueeze", {x, dim}); }

// mv(A, x) = mm(A, x as a column), flattened.
void decompose_mv(Rewriter& r) {
  Node* column = unsqueeze(r, r.tensor_arg(1), 1);
  r.replace_with(r.op("aten::squeeze.dims", {r.op("aten::mm", {r.arg(0), column}), ArgumentList{int64_t{1}}}));
}

Node* outer(Rewriter& r, Node* a, Node* b) { return r.op("aten::mul.Tensor", {unsqueeze(r, a, 1), b}); }

// dot(a, b) = sum(a * b) in the inputs' dtype.
void decompose_dot(Rewriter& r) {
  Node* product = r.op("aten::mul.Tensor", {r.arg(0), r.arg(1)});
  r.replace_with(r.op("aten::sum", {product}, {{"dtype", r.out().dtype}}));
}

// beta * self + alpha * product; self is ignored (NaNs too) when beta is 0.
Node* scaled_sum(Rewriter& r, Node* product, const Argument& beta, const Argument& alpha) {
  if (alpha != Argument(int64_t{1})) product = r.op("aten::mul.Scalar", {product, alpha});
  if (beta == Argument(int64_t{0}) || beta == Argument(0.0)) {
    return r.op("aten::add.Tensor", {r.op("aten::full_like", {product, int64_t{0}}), product});
  }
  Node* self = r.tensor_arg(0);
  if (beta != Argument(int64_t{1})) self = r.op("aten::mul.Scalar", {self, beta});
  return r.op("aten::add.Tensor", {self, product});
}

// The static sizes of `node`, or a failure naming the rule's node.
std::vector<int64_t> static_sizes(Rewriter& r, Node* node) {
  const TensorMeta& meta = node->meta.tensor();
  if (!meta.is_static()) r.fail("needs static sizes, got " + meta.to_string());
  return meta.static_sizes();
}

int64_t product_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[static_cast<size_t>(d)];
  return n;
}

// tensordot(a, b, dims_a, dims_b): a permuted to (free, contracted) and b to
// (contracted, free), both viewed as matrices, multiplied, and unfolded.
Node* tensordot(Rewriter& r, Node* a, Node* b, std::vector<int64_t> dims_a, std::vector<int64_t> dims_b) {
  const std::vector<int64_t> sa = static_sizes(r, a), sb = static_sizes(r, b);
  const std::string where = "node '" + r.node().name() + "'";
  for (int64_t& d : dims_a) d = normalize_dim(d, sa.size(), where);
  for (int64_t& d : dims_b) d = normalize_dim(d, sb.size(), where);
  std::vector<int64_t> free_a, free_b;
  for (int64_t d = 0; d < static_cast<int64_t>(sa.size()); ++d) {
    if (std::find(dims_a.begin(), dims_a.end(), d) == dims_a.end()) free_a.push_back(d);
  }
  for (int64_t d = 0; d < static_cast<int64_t>(sb.size()); ++d) {
    if (std::find(dims_b.begin(), dims_b.end(), d) == dims_b.end()) free_b.push_back(d);
  }
  std::vector<int64_t> order_a = free_a, order_b = dims_b;
  order_a.insert(order_a.end(), dims_a.begin(), dims_a.end());
  order_b.insert(order_b.end(), free_b.begin(), free_b.end());
  const int64_t m = product_of(sa, free_a), k = product_of(sa, dims_a), n = product_of(sb, free_b);
  Node* a2 = r.op("aten::view", {r.op("aten::clone", {r.op("aten::permute", {a, ints(order_a)})}), ArgumentList{m, k}});
  Node* b2 = r.op("aten::view", {r.op("aten::clone", {r.op("aten::permute", {b, ints(order_b)})}), ArgumentList{k, n}});
  std::vector<int64_t> out;
  for (int64_t d : free_a) out.push_back(sa[static_cast<size_t>(d)]);
  for (int64_t d : free_b) out.push_back(sb[static_cast<size_t>(d)]);
  return r.op("aten::view", {r.op("aten::mm", {a2, b2}), ints(out)});
}

// inner(a, b): the sum over the last dims of both; a product when either is 0-D.
void decompose_inner(Rewriter& r) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  if (rank_of(a) == 0 || rank_of(b) == 0) {
    r.replace_with(r.op("aten::mul.Tensor", {a, b}));
    return;
  }
  r.replace_with(tensordot(r, a, b, {-1}, {-1}));
}

// kron(a, b): a's dims interleaved with b's (both padded to one rank), the
// product broadcast, and each pair of dims merged.
void decompose_kron(Rewriter& r) {
  std::vector<int64_t> sa = static_sizes(r, r.tensor_arg(0)), sb = static_sizes(r, r.tensor_arg(1));
  const size_t rank = std::max(sa.size(), sb.size());
  sa.insert(sa.begin(), rank - sa.size(), 1);
  sb.insert(sb.begin(), rank - sb.size(), 1);
  ArgumentList va, vb, out;
  for (size_t d = 0; d < rank; ++d) {
    va.emplace_back(sa[d]);
    va.emplace_back(int64_t{1});
    vb.emplace_back(int64_t{1});
    vb.emplace_back(sb[d]);
    out.emplace_back(sa[d] * sb[d]);
  }
  Node* product = r.op("aten::mul.Tensor", {r.op("aten::view", {r.arg(0), va}), r.op("aten::view", {r.arg(1), vb})});
  r.replace_with(r.op("aten::view", {r.op("aten::clone", {product}), out}));
}

void add_statistics(DecompositionTable& t) {
  t["aten::var.default"] = [](Rewriter& r) { decompose_variance(r, "default", false, false); };
  for (const std::string overload : {"default", "dim", "correction"}) {
    t["aten::std." + overload] = [overload](Rewriter& r) { decompose_variance(r, overload, true, false); };
    t["aten::var_mean." + overload] = [overload](Rewriter& r) { decompose_variance(r, overload, false, true); };
    t["aten::std_mean." + overload] = [overload](Rewriter& r) { decompose_variance(r, overload, true, true); };
  }
  t["aten::nansum.default"] = [](Rewriter& r) { decompose_nansum(r, false); };
  t["aten::nanmean.default"] = [](Rewriter& r) { decompose_nansum(r, true); };
  t["aten::logsumexp.default"] = decompose_logsumexp;
  t["aten::count_nonzero.dim_IntList"] = [](Rewriter& r) { decompose_count_nonzero(r, r.arg(1)); };
  t["aten::count_nonzero.default"] = [](Rewriter& r) {
    decompose_count_nonzero(r, r.arg(1).is_none() ? all_dims(rank_of(r.tensor_arg(0))) : Argument(ArgumentList{r.arg(1)}));
  };
  t["aten::aminmax.default"] = decompose_aminmax;
  t["aten::norm.Scalar"] = [](Rewriter& r) { decompose_norm(r, r.arg(1), None{}, false, None{}); };
  t["aten::norm.ScalarOpt_dim"] = [](Rewriter& r) { decompose_norm(r, r.arg(1), r.arg(2), r.arg(3), None{}); };
  t["aten::norm.ScalarOpt_dim_dtype"] = [](Rewriter& r) { decompose_norm(r, r.arg(1), r.arg(2), r.arg(3), r.arg(4)); };
  t["aten::norm.ScalarOpt_dtype"] = [](Rewriter& r) { decompose_norm(r, r.arg(1), None{}, false, r.arg(2)); };
  t["aten::frobenius_norm.dim"] = [](Rewriter& r) { decompose_norm(r, 2.0, r.arg(1), r.arg(2), None{}); };
  t["aten::trace.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::sum", {r.op("aten::diagonal", {r.arg(0)})}, {{"dtype", r.out().dtype}}));
  };
}

void add_products(DecompositionTable& t) {
  t["aten::dot.default"] = decompose_dot;
  t["aten::vdot.default"] = decompose_dot;  // real tensors: no conjugate
  t["aten::mv.default"] = decompose_mv;
  t["aten::outer.default"] = [](Rewriter& r) { r.replace_with(outer(r, r.tensor_arg(0), r.tensor_arg(1))); };
  t["aten::inner.default"] = decompose_inner;
  t["aten::addr.default"] = [](Rewriter& r) {
    r.replace_with(scaled_sum(r, outer(r, r.tensor_arg(1), r.tensor_arg(2)), r.arg(3), r.arg(4)));
  };
  t["aten::baddbmm.default"] = [](Rewriter& r) {
    r.replace_with(scaled_sum(r, r.op("aten::bmm", {r.arg(1), r.arg(2)}), r.arg(3), r.arg(4)));
  };
  t["aten::tensordot.default"] = [](Rewriter& r) {
    r.replace_with(tensordot(r, r.tensor_arg(0), r.tensor_arg(1), r.ints_arg(2), r.ints_arg(3)));
  };
  t["aten::kron.default"] = decompose_kron;
}

}  // namespace

void add_reduce_decompositions(DecompositionTable& t) {
  add_statistics(t);
  add_products(t);
}

}  // namespace kiln::aot::passes
