// Decompositions of the linear algebra that needs no factorization: cross
// products as rolls, vecdot, the vector and Frobenius norms and the matrix
// 1- and inf-norms, chains of matrix products, integer matrix powers,
// block_diag, renorm and weight norm, the Euclidean distance, trapezoid
// integration, Vandermonde matrices, covariance and correlation, baddbmm
// in another dtype, and the affine grid of spatial transformers.
#include <algorithm>
#include <cmath>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// The p-norm over `dims` through linalg_vector_norm (which decomposes), its
// meta computed here: linalg_vector_norm has a rule, not a meta rule.
Node* vector_norm(Rewriter& r, Node* x, const Argument& p, const std::vector<int64_t>& dims, bool keepdim, const Argument& dtype) {
  const TensorMeta& in = x->meta.tensor();
  std::vector<SymExpr> sizes;
  for (size_t d = 0; d < in.rank(); ++d) {
    const bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced) sizes.push_back(in.sizes[d]);
    else if (keepdim) sizes.push_back(SymExpr::constant(1));
  }
  const ScalarType out = dtype.is_none() ? in.dtype : std::get<ScalarType>(dtype.value);
  KwargList kwargs;
  if (!dtype.is_none()) kwargs.emplace_back("dtype", dtype);
  const Argument dim_arg = dims.empty() ? Argument(None{}) : Argument(ints(dims));
  return r.call("aten::linalg_vector_norm", {x, p, dim_arg, keepdim}, TensorMeta(out, sizes), kwargs);
}

std::vector<int64_t> normalized(const std::vector<int64_t>& dims, size_t rank, const char* where) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(normalize_dim(d, rank, where));
  return out;
}

// cross(a, b, dim) over a dim of size 3: a[i+1] b[i+2] - a[i+2] b[i+1], the
// shifted components as rolls.
Node* cross(Rewriter& r, Node* a, Node* b, int64_t dim) {
  // roll has a decomposition rather than a meta rule: it keeps x's meta.
  const auto roll = [&](Node* x, int64_t shift) { return r.call("aten::roll", {x, ints({shift}), ints({dim})}, x->meta.tensor()); };
  Node* first = r.op("aten::mul.Tensor", {roll(a, -1), roll(b, -2)});
  Node* second = r.op("aten::mul.Tensor", {roll(a, -2), roll(b, -1)});
  return r.op("aten::sub.Tensor", {first, second});
}

void decompose_cross(Rewriter& r, const Argument& dim_arg) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  const std::vector<SymExpr>& out = r.out().sizes;
  if (a->meta.tensor().sizes != out) a = r.op("aten::expand", {a, r.size_list(out, {a, b}, false)});
  if (b->meta.tensor().sizes != out) b = r.op("aten::expand", {b, r.size_list(out, {a, b}, false)});
  int64_t dim = -1;
  if (dim_arg.is_none()) {
    const std::vector<int64_t> s = sizes_of(r, a);
    const auto three = std::find(s.begin(), s.end(), 3);
    if (three == s.end()) r.fail("no dim of size 3");
    dim = three - s.begin();
  } else {
    dim = normalize_dim(dim_arg.to_int(), out.size(), "cross");
  }
  r.replace_with(cross(r, a, b, dim));
}

// linalg_norm(self, ord, dim, keepdim, dtype): a vector norm for one dim or
// none (flattened), the Frobenius norm for two; ord "fro" likewise.
void decompose_linalg_norm(Rewriter& r, bool string_ord) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> dims = r.arg(2).is_none() ? std::vector<int64_t>{} : normalized(r.ints_arg(2), rank_of(x), "linalg_norm");
  Argument p = 2.0;
  if (string_ord) {
    if (r.arg(1).to_string() != "fro") r.fail("ord '" + r.arg(1).to_string() + "' needs a singular value decomposition");
  } else if (!r.arg(1).is_none()) {
    if (dims.size() == 2 || (dims.empty() && rank_of(x) == 2)) r.fail("a matrix ord other than 'fro' is not supported");
    p = r.arg(1);
  }
  r.replace_with(vector_norm(r, x, p, dims, r.bool_arg(3), r.arg(4)));
}

// linalg_matrix_norm(self, ord, dim, keepdim, dtype): ord +-1 the largest or
// smallest column sum of |x|, +-inf the row sum; "fro" the Frobenius norm.
void decompose_matrix_norm(Rewriter& r, bool string_ord) {
  Node* x = r.tensor_arg(0);
  std::vector<int64_t> dims = normalized(r.ints_arg(2), rank_of(x), "linalg_matrix_norm");
  if (dims.size() != 2) r.fail("takes two dims");
  const bool keepdim = r.bool_arg(3);
  if (!r.arg(4).is_none()) x = r.op("aten::_to_copy", {x}, {{"dtype", r.arg(4)}});
  if (string_ord) {
    if (r.arg(1).to_string() != "fro") r.fail("ord '" + r.arg(1).to_string() + "' needs a singular value decomposition");
    r.replace_with(vector_norm(r, x, 2.0, dims, keepdim, None{}));
    return;
  }
  const double ord = r.arg(1).is_int() ? static_cast<double>(r.arg(1).to_int()) : r.arg(1).to_double();
  if (std::abs(ord) != 1.0 && !std::isinf(ord)) r.fail("ord " + std::to_string(ord) + " needs a singular value decomposition");
  // ord 1: sum over rows (dims[0]) then the extreme over columns; inf the other way round.
  const int64_t summed = std::isinf(ord) ? dims[1] : dims[0];
  const int64_t extreme = std::isinf(ord) ? dims[0] : dims[1];
  Node* sums = r.op("aten::sum.dim_IntList", {r.op("aten::abs", {x}), ArgumentList{summed}, true});
  Node* y = r.op(ord > 0 ? "aten::amax" : "aten::amin", {sums, ArgumentList{extreme}, true});
  if (!keepdim) y = r.op("aten::squeeze.dims", {y, ints({std::min(dims[0], dims[1]), std::max(dims[0], dims[1])})});
  r.replace_with(y);
}

// multi_dot / chain_matmul: left to right; a 1-D first or last operand is a
// row or column vector, squeezed away after.
void decompose_multi_dot(Rewriter& r) {
  const ArgumentList& list = r.arg(0).list();
  if (list.empty()) r.fail("needs at least one tensor");
  std::vector<Node*> m;
  for (const Argument& a : list) m.push_back(a.node());
  const bool row = rank_of(m.front()) == 1 && m.size() > 1, column = rank_of(m.back()) == 1 && m.size() > 1;
  if (row) m.front() = r.op("aten::unsqueeze", {m.front(), int64_t{0}});
  if (column) m.back() = r.op("aten::unsqueeze", {m.back(), int64_t{1}});
  Node* y = m.size() == 1 ? r.op("aten::clone", {m[0]}) : m[0];
  for (size_t i = 1; i < m.size(); ++i) y = r.op("aten::mm", {y, m[i]});
  std::vector<int64_t> squeeze;
  if (row) squeeze.push_back(0);
  if (column) squeeze.push_back(1);
  if (!squeeze.empty()) y = r.op("aten::squeeze.dims", {y, ints(squeeze)});
  r.replace_with(y);
}

// matrix_power(x, n), n >= 0: repeated squaring by matmul; n = 0 the identity.
void decompose_matrix_power(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  int64_t n = r.int_arg(1);
  if (n < 0) r.fail("a negative power needs the matrix inverse");
  const std::vector<int64_t> s = sizes_of(r, x);
  if (n == 0) {
    const int64_t k = s.back();
    Node* eye = r.op("aten::eq.Tensor", {r.op("aten::unsqueeze", {r.op("aten::arange.start_step", {int64_t{0}, k}), int64_t{1}}),
                                         r.op("aten::arange.start_step", {int64_t{0}, k})});
    r.replace_with(r.op("aten::clone", {r.op("aten::expand", {r.op("aten::_to_copy", {eye}, {{"dtype", x->meta.tensor().dtype}}), ints(s)})}));
    return;
  }
  Node* result = nullptr;
  Node* power = x;
  while (true) {
    if (n & 1) result = result == nullptr ? power : r.call("aten::matmul", {result, power}, r.out());
    n >>= 1;
    if (n == 0) break;
    power = r.call("aten::matmul", {power, power}, r.out());
  }
  r.replace_with(result == x ? r.op("aten::clone", {x}) : result);
}

// block_diag(tensors): each as a 2-D block, padded to the full width, stacked.
void decompose_block_diag(Rewriter& r) {
  std::vector<Node*> blocks;
  int64_t width = 0;
  for (const Argument& a : r.arg(0).list()) {
    Node* t = a.node();
    if (rank_of(t) < 2) t = r.op("aten::view", {t, ints({1, -1})});
    blocks.push_back(t);
    width += sizes_of(r, t)[1];
  }
  ArgumentList rows;
  int64_t left = 0;
  for (Node* t : blocks) {
    const int64_t w = sizes_of(r, t)[1];
    rows.emplace_back(r.op("aten::constant_pad_nd", {r.op("aten::_to_copy", {t}, {{"dtype", r.out().dtype}}), ints({left, width - left - w}), 0.0}));
    left += w;
  }
  r.replace_with(r.op("aten::cat", {std::move(rows), int64_t{0}}));
}

std::vector<int64_t> all_but(size_t rank, int64_t dim) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < rank; ++d) {
    if (static_cast<int64_t>(d) != dim) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

// renorm(self, p, dim, maxnorm): each slice along dim scaled down to maxnorm
// when its p-norm exceeds it (by maxnorm / (norm + 1e-7), as PyTorch).
void decompose_renorm(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const int64_t dim = normalize_dim(r.int_arg(2), rank_of(x), "renorm");
  Node* norm = vector_norm(r, x, r.arg(1), all_but(rank_of(x), dim), true, None{});
  Node* factor = r.op("aten::div.Tensor", {r.op("aten::full_like", {norm, r.arg(3)}), r.op("aten::add.Scalar", {norm, 1e-7})});
  factor = r.op("aten::where.self", {r.op("aten::gt.Scalar", {norm, r.arg(3)}), factor, r.op("aten::full_like", {norm, 1.0})});
  r.replace_with(r.op("aten::mul.Tensor", {x, factor}));
}

// norm_except_dim(v, pow, dim): the norm over every dim but dim (kept), or
// over all for dim -1.
Node* norm_except_dim(Rewriter& r, Node* v, const Argument& p, int64_t dim) {
  if (dim == -1) return vector_norm(r, v, p, {}, false, None{});
  return vector_norm(r, v, p, all_but(rank_of(v), normalize_dim(dim, rank_of(v), "norm_except_dim")), true, None{});
}

// _weight_norm(v, g, dim) = v * g / ||v|| (norm except dim).
std::pair<Node*, Node*> weight_norm(Rewriter& r) {
  Node* norm = norm_except_dim(r, r.tensor_arg(0), int64_t{2}, r.int_arg(2));
  Node* w = r.op("aten::mul.Tensor", {r.arg(0), r.op("aten::div.Tensor", {r.arg(1), norm})});
  return {w, norm};
}

// _euclidean_dist(x1, x2): sqrt(max(|x1|² + |x2|² - 2 x1 x2ᵀ, 0)).
void decompose_euclidean_dist(Rewriter& r) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  if (rank_of(a) != 2 || rank_of(b) != 2) r.fail("expects 2-D inputs");
  Node* aa = r.op("aten::sum.dim_IntList", {r.op("aten::mul.Tensor", {a, a}), ArgumentList{int64_t{-1}}, true});
  Node* bb = r.op("aten::sum.dim_IntList", {r.op("aten::mul.Tensor", {b, b}), ArgumentList{int64_t{-1}}, false});
  Node* ab = r.op("aten::mm", {a, r.op("aten::permute", {b, ints({1, 0})})});
  Node* d2 = r.op("aten::sub.Tensor", {r.op("aten::add.Tensor", {aa, bb}), r.op("aten::mul.Scalar", {ab, 2.0})});
  r.replace_with(r.op("aten::sqrt", {r.op("aten::clamp", {d2, 0.0})}));
}

// trapezoid(y, dx or x, dim): sum of (y[i] + y[i+1]) / 2 * dx_i along dim.
void decompose_trapezoid(Rewriter& r, bool with_x) {
  Node* y = r.tensor_arg(0);
  const size_t rank = rank_of(y);
  const int64_t dim = normalize_dim(r.int_arg(2), rank, "trapezoid");
  const int64_t n = sizes_of(r, y)[static_cast<size_t>(dim)];
  if (n == 0) r.fail("needs a non-empty dim");
  Node* sums = r.op("aten::add.Tensor", {r.op("aten::slice.Tensor", {y, dim, 1, n}), r.op("aten::slice.Tensor", {y, dim, 0, n - 1})});
  Node* areas = nullptr;
  if (with_x) {
    Node* x = r.tensor_arg(1);
    const int64_t xdim = rank_of(x) == 1 ? 0 : dim;
    const int64_t m = sizes_of(r, x)[static_cast<size_t>(xdim)];
    Node* dx = r.op("aten::sub.Tensor", {r.op("aten::slice.Tensor", {x, xdim, 1, m}), r.op("aten::slice.Tensor", {x, xdim, 0, m - 1})});
    if (rank_of(x) == 1 && rank > 1) {
      std::vector<int64_t> shape(rank, 1);
      shape[static_cast<size_t>(dim)] = m - 1;
      dx = r.op("aten::view", {dx, ints(shape)});
    }
    areas = r.op("aten::mul.Tensor", {sums, dx});
  } else {
    areas = r.op("aten::mul.Scalar", {sums, r.arg(1)});
  }
  r.replace_with(r.op("aten::div.Scalar", {r.op("aten::sum.dim_IntList", {areas, ArgumentList{dim}, false}), 2.0}));
}

// cumulative_trapezoid(y, dx or x, dim): the running sum of the trapezoids.
void decompose_cumulative_trapezoid(Rewriter& r, bool with_x) {
  Node* y = r.tensor_arg(0);
  const size_t rank = rank_of(y);
  const int64_t dim = normalize_dim(r.int_arg(2), rank, "cumulative_trapezoid");
  const int64_t n = sizes_of(r, y)[static_cast<size_t>(dim)];
  if (n == 0) r.fail("needs a non-empty dim");
  Node* sums = r.op("aten::add.Tensor", {r.op("aten::slice.Tensor", {y, dim, 1, n}), r.op("aten::slice.Tensor", {y, dim, 0, n - 1})});
  Node* areas = nullptr;
  if (with_x) {
    Node* x = r.tensor_arg(1);
    const int64_t xdim = rank_of(x) == 1 ? 0 : dim;
    const int64_t m = sizes_of(r, x)[static_cast<size_t>(xdim)];
    Node* dx = r.op("aten::sub.Tensor", {r.op("aten::slice.Tensor", {x, xdim, 1, m}), r.op("aten::slice.Tensor", {x, xdim, 0, m - 1})});
    if (rank_of(x) == 1 && rank > 1) {
      std::vector<int64_t> shape(rank, 1);
      shape[static_cast<size_t>(dim)] = m - 1;
      dx = r.op("aten::view", {dx, ints(shape)});
    }
    areas = r.op("aten::div.Scalar", {r.op("aten::mul.Tensor", {dx, sums}), 2.0});
  } else {
    areas = r.op("aten::mul.Tensor", {r.op("aten::full_like", {sums, r.arg(1)}), r.op("aten::div.Scalar", {sums, 2.0})});
  }
  r.replace_with(r.op("aten::cumsum", {areas, dim}));
}

// vander(x, N, increasing) and linalg_vander(x, N): powers of x along a new last dim.
Node* vander(Rewriter& r, Node* x, int64_t n, bool increasing) {
  Node* powers = r.op("aten::arange.start_step", {int64_t{0}, n});
  if (!increasing) powers = r.op("aten::flip", {powers, ints({0})});
  return r.op("aten::pow.Tensor_Tensor", {r.op("aten::unsqueeze", {x, int64_t{-1}}), powers});
}

// cov(self [vars, obs], correction): the centred product / (N - correction).
Node* covariance(Rewriter& r, Node* x, int64_t correction) {
  if (rank_of(x) == 1) x = r.op("aten::unsqueeze", {x, int64_t{0}});
  const int64_t n = sizes_of(r, x)[1];
  if (x->meta.tensor().dtype != ScalarType::Float && x->meta.tensor().dtype != ScalarType::Double) {
    x = r.op("aten::_to_copy", {x}, {{"dtype", ScalarType::Float}});
  }
  Node* centred = r.op("aten::sub.Tensor", {x, r.op("aten::mean.dim", {x, ArgumentList{int64_t{1}}, true})});
  Node* product = r.op("aten::mm", {centred, r.op("aten::permute", {centred, ints({1, 0})})});
  return r.op("aten::div.Scalar", {product, static_cast<double>(std::max<int64_t>(n - correction, 0))});
}

// affine_grid_generator(theta [N, 2, 3], size [N, C, H, W], align_corners):
// the base grid of (x, y, 1) per pixel times thetaᵀ.
void decompose_affine_grid(Rewriter& r) {
  const std::vector<int64_t> size = r.ints_arg(1);
  if (size.size() != 4) r.fail("only the 2-D grid (a 4-D size) is supported");
  const int64_t n = size[0], h = size[2], w = size[3];
  const bool align = r.bool_arg(2);
  const ScalarType dtype = r.tensor_arg(0)->meta.tensor().dtype;
  const auto line = [&](int64_t steps) {
    // linspace(-1, 1, steps), scaled by (steps - 1) / steps without align_corners.
    Node* i = r.op("aten::arange.start_step", {int64_t{0}, steps}, {{"dtype", dtype}});
    const double step = steps > 1 ? 2.0 / static_cast<double>(steps - 1) : 0.0;
    Node* v = r.op("aten::add.Scalar", {r.op("aten::mul.Scalar", {i, step}), -1.0});
    if (!align && steps > 1) v = r.op("aten::mul.Scalar", {v, static_cast<double>(steps - 1) / static_cast<double>(steps)});
    return v;
  };
  Node* xs = r.op("aten::expand", {r.op("aten::view", {line(w), ints({1, w, 1})}), ints({h, w, 1})});
  Node* ys = r.op("aten::expand", {r.op("aten::view", {line(h), ints({h, 1, 1})}), ints({h, w, 1})});
  Node* ones = r.op("aten::full", {ints({h, w, 1}), 1.0}, {{"dtype", dtype}});
  Node* base = r.op("aten::view", {r.op("aten::cat", {ArgumentList{xs, ys, ones}, int64_t{2}}), ints({1, h * w, 3})});
  Node* theta_t = r.op("aten::permute", {r.arg(0), ints({0, 2, 1})});
  Node* grid = r.op("aten::bmm", {r.op("aten::clone", {r.op("aten::expand", {base, ints({n, h * w, 3})})}), r.op("aten::clone", {theta_t})});
  r.replace_with(r.op("aten::view", {grid, ints({n, h, w, 2})}));
}

void add_products_and_norms(DecompositionTable& t) {
  t["aten::cross.default"] = [](Rewriter& r) { decompose_cross(r, r.arg(2)); };
  t["aten::linalg_cross.default"] = [](Rewriter& r) { decompose_cross(r, r.arg(2)); };
  t["aten::linalg_vecdot.default"] = [](Rewriter& r) {
    Node* product = r.op("aten::mul.Tensor", {r.arg(0), r.arg(1)});
    r.replace_with(r.op("aten::sum.dim_IntList", {product, ArgumentList{r.arg(2)}, false}));
  };
  t["aten::linalg_norm.default"] = [](Rewriter& r) { decompose_linalg_norm(r, false); };
  t["aten::linalg_norm.ord_str"] = [](Rewriter& r) { decompose_linalg_norm(r, true); };
  t["aten::linalg_matrix_norm.default"] = [](Rewriter& r) { decompose_matrix_norm(r, false); };
  t["aten::linalg_matrix_norm.str_ord"] = [](Rewriter& r) { decompose_matrix_norm(r, true); };
  t["aten::linalg_multi_dot.default"] = decompose_multi_dot;
  t["aten::chain_matmul.default"] = decompose_multi_dot;
  t["aten::matrix_power.default"] = decompose_matrix_power;
  t["aten::block_diag.default"] = decompose_block_diag;
  t["aten::renorm.default"] = decompose_renorm;
  t["aten::norm_except_dim.default"] = [](Rewriter& r) { r.replace_with(norm_except_dim(r, r.tensor_arg(0), r.arg(1), r.int_arg(2))); };
  t["aten::_weight_norm.default"] = [](Rewriter& r) { r.replace_with(weight_norm(r).first); };
  t["aten::_weight_norm_interface.default"] = [](Rewriter& r) {
    const auto [w, norm] = weight_norm(r);
    r.replace_with_items({w, norm});
  };
  t["aten::_euclidean_dist.default"] = decompose_euclidean_dist;
  // (self, batch1, batch2, out_dtype, *, beta, alpha): the product in out_dtype.
  t["aten::baddbmm.dtype"] = [](Rewriter& r) {
    const KwargList dtype = {{"dtype", r.arg(3)}};
    Node* self = r.op("aten::_to_copy", {r.arg(0)}, dtype);
    Node* product = r.op("aten::bmm", {r.op("aten::_to_copy", {r.arg(1)}, dtype), r.op("aten::_to_copy", {r.arg(2)}, dtype)});
    if (r.arg(5) != Argument(int64_t{1})) product = r.op("aten::mul.Scalar", {product, r.arg(5)});
    if (r.arg(4) != Argument(int64_t{1})) self = r.op("aten::mul.Scalar", {self, r.arg(4)});
    r.replace_with(r.op("aten::add.Tensor", {self, product}));
  };
}

void add_calculus_and_statistics(DecompositionTable& t) {
  t["aten::trapezoid.dx"] = [](Rewriter& r) { decompose_trapezoid(r, false); };
  t["aten::trapezoid.x"] = [](Rewriter& r) { decompose_trapezoid(r, true); };
  t["aten::trapz.dx"] = [](Rewriter& r) {
    // trapz.dx(y, *, float dx, int dim): trapezoid.dx's arguments under other names.
    r.replace_with(r.call("aten::trapezoid.dx", {r.arg(0)}, r.out(), {{"dx", r.arg(1)}, {"dim", r.arg(2)}}));
  };
  t["aten::cumulative_trapezoid.dx"] = [](Rewriter& r) { decompose_cumulative_trapezoid(r, false); };
  t["aten::cumulative_trapezoid.x"] = [](Rewriter& r) { decompose_cumulative_trapezoid(r, true); };
  t["aten::vander.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    const int64_t n = r.arg(1).is_none() ? sizes_of(r, x).at(0) : r.int_arg(1);
    r.replace_with(vander(r, x, n, r.bool_arg(2)));
  };
  t["aten::linalg_vander.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    const int64_t n = r.arg(1).is_none() ? sizes_of(r, x).back() : r.int_arg(1);
    r.replace_with(vander(r, x, n, true));
  };
  t["aten::cov.default"] = [](Rewriter& r) {
    if (!r.arg(2).is_none() || !r.arg(3).is_none()) r.fail("frequency and observation weights are not supported");
    Node* c = covariance(r, r.tensor_arg(0), r.int_arg(1));
    r.replace_with(rank_of(r.tensor_arg(0)) == 1 ? r.op("aten::view", {c, ArgumentList{}}) : c);
  };
  t["aten::corrcoef.default"] = [](Rewriter& r) {
    Node* c = covariance(r, r.tensor_arg(0), 1);
    if (rank_of(r.tensor_arg(0)) == 1) {
      r.replace_with(r.op("aten::view", {r.op("aten::div.Tensor", {c, c}), ArgumentList{}}));
      return;
    }
    Node* d = r.op("aten::sqrt", {r.op("aten::clone", {r.op("aten::diagonal", {c})})});
    Node* scaled = r.op("aten::div.Tensor", {r.op("aten::div.Tensor", {c, r.op("aten::unsqueeze", {d, int64_t{1}})}), d});
    r.replace_with(r.op("aten::clamp", {scaled, -1.0, 1.0}));
  };
  t["aten::affine_grid_generator.default"] = decompose_affine_grid;
}

}  // namespace

void add_linalg_decompositions(DecompositionTable& t) {
  add_products_and_norms(t);
  add_calculus_and_statistics(t);
}

}  // namespace kiln::aot::passes
