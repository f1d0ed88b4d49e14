// Decomposition to core ATen: after functionalizing in-place ops, visits each
// call in graph order and, if its op has a rule here, builds the core-ATen
// nodes for it just before it (metas from the old node's), then erases it.
#include "aot/passes/decompose.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "aot/ir/error.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {
namespace {

using passes::Rewriter;

TensorMeta meta_like(const TensorMeta& like, std::vector<SymExpr> sizes) { return TensorMeta(like.dtype, std::move(sizes)); }

void decompose_conv2d(Rewriter& r) {
  r.replace_with(r.call("aten::convolution",
                        {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5), false, ArgumentList{0, 0}, r.arg(6)},
                        r.out()));
}

// x @ w (+ bias) for a 2-D x.
Node* matmul_with_bias(Rewriter& r, Node* x, Node* w, const Argument& bias, TensorMeta meta) {
  if (bias.is_none()) return r.call("aten::mm", {x, w}, std::move(meta));
  return r.call("aten::addmm", {bias, x, w}, std::move(meta));
}

void decompose_linear(Rewriter& r) {
  Node* input = r.tensor_arg(0);
  Node* weight = r.tensor_arg(1);
  const TensorMeta& in = input->meta.tensor();
  const TensorMeta& w = weight->meta.tensor();
  if (w.rank() != 2 || in.rank() < 2) r.fail("expects a 2-D weight and an input of rank >= 2, got " + w.to_string() + " and " + in.to_string());
  Node* wt = r.call("aten::permute", {weight, ArgumentList{1, 0}}, meta_like(w, {w.sizes[1], w.sizes[0]}));
  if (in.rank() == 2) {
    r.replace_with(matmul_with_bias(r, input, wt, r.arg(2), r.out()));
    return;
  }
  // N-D input: fold the leading dims into one, multiply, unfold.
  const SymExpr rows = passes::product({in.sizes.begin(), in.sizes.end() - 1});
  const TensorMeta flat = meta_like(in, {rows, in.sizes.back()});
  Node* x2 = r.call("aten::view", {input, r.size_list(flat.sizes, input)}, flat);
  Node* y2 = matmul_with_bias(r, x2, wt, r.arg(2), meta_like(r.out(), {rows, r.out().sizes.back()}));
  r.replace_with(r.call("aten::view", {y2, r.size_list(r.out().sizes, input)}, r.out()));
}

void decompose_dropout(Rewriter& r) {
  if (r.bool_arg(2) && r.float_arg(1) != 0.0) r.fail("training-mode dropout is random and does not decompose");
  r.replace_with(r.tensor_arg(0));
}

void decompose_contiguous(Rewriter& r) { r.replace_with(r.call("aten::clone", {r.arg(0)}, r.out())); }

void decompose_batch_norm(Rewriter& r) {
  if (r.bool_arg(5)) r.fail("training-mode batch_norm is not supported (export the model in eval mode)");
  if (r.arg(3).is_none() || r.arg(4).is_none()) r.fail("batch_norm without running statistics is not supported");
  const TensorMeta stats = meta_like(r.out(), {0});
  Node* norm = r.call("aten::_native_batch_norm_legit_no_training",
                      {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.float_arg(6), r.float_arg(7)},
                      std::vector<TensorMeta>{r.out(), stats, stats});
  r.replace_with(r.getitem(norm, 0));
}

void decompose_max_pool2d(Rewriter& r) {
  TensorMeta indices = r.out();
  indices.dtype = ScalarType::Long;
  Node* pool = r.call("aten::max_pool2d_with_indices", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5)},
                      std::vector<TensorMeta>{r.out(), indices});
  r.replace_with(r.getitem(pool, 0));
}

void decompose_adaptive_avg_pool2d(Rewriter& r) {
  if (!(r.arg(1) == Argument(ArgumentList{1, 1}))) {
    r.fail("output size " + to_string(r.arg(1)) + " does not decompose (only [1, 1] becomes mean.dim)");
  }
  r.replace_with(r.call("aten::mean.dim", {r.arg(0), ArgumentList{-1, -2}, true}, r.out()));
}

// flatten, reshape, unflatten, _unsafe_view: a view to the output's sizes.
void decompose_to_view(Rewriter& r) {
  Node* input = r.tensor_arg(0);
  r.replace_with(r.call("aten::view", {input, r.size_list(r.out().sizes, input)}, r.out()));
}

void permute_swapping(Rewriter& r, int64_t dim0, int64_t dim1) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  if (rank < 2) {
    r.replace_with(r.tensor_arg(0));
    return;
  }
  const std::string where = "node '" + r.node().name() + "'";
  ArgumentList dims;
  for (size_t d = 0; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
  std::swap(dims[static_cast<size_t>(passes::normalize_dim(dim0, rank, where))],
            dims[static_cast<size_t>(passes::normalize_dim(dim1, rank, where))]);
  r.replace_with(r.call("aten::permute", {r.arg(0), std::move(dims)}, r.out()));
}

void decompose_t(Rewriter& r) { permute_swapping(r, 0, 1); }
void decompose_transpose(Rewriter& r) { permute_swapping(r, r.int_arg(1), r.int_arg(2)); }

void decompose_squeeze_dim(Rewriter& r) {
  r.replace_with(r.call("aten::squeeze.dims", {r.arg(0), ArgumentList{r.arg(1)}}, r.out()));
}

void decompose_layer_norm(Rewriter& r) {
  const TensorMeta& in = r.tensor_arg(0)->meta.tensor();
  const size_t normalized = r.arg(1).is_list() ? r.arg(1).list().size() : 0;
  if (normalized == 0 || normalized > in.rank()) r.fail("normalized_shape " + to_string(r.arg(1)) + " does not fit " + in.to_string());
  TensorMeta stats = in;
  for (size_t d = in.rank() - normalized; d < in.rank(); ++d) stats.sizes[d] = 1;
  Node* norm = r.call("aten::native_layer_norm", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.float_arg(4)},
                      std::vector<TensorMeta>{r.out(), stats, stats});
  r.replace_with(r.getitem(norm, 0));
}

// `x` viewed as 3-D, its leading dims folded into one.
Node* as_batched_3d(Rewriter& r, Node* x) {
  const TensorMeta& m = x->meta.tensor();
  if (m.rank() == 3) return x;
  const size_t n = m.rank();
  const TensorMeta flat = meta_like(m, {passes::product({m.sizes.begin(), m.sizes.end() - 2}), m.sizes[n - 2], m.sizes[n - 1]});
  return r.call("aten::view", {x, r.size_list(flat.sizes, x)}, flat);
}

// softmax(q k^T * scale + mask) v, with bmm on 3-D views (torch's math path).
void decompose_sdpa(Rewriter& r) {
  Node* query = r.tensor_arg(0);
  Node* key = r.tensor_arg(1);
  Node* value = r.tensor_arg(2);
  const TensorMeta& q = query->meta.tensor();
  const TensorMeta& k = key->meta.tensor();
  const TensorMeta& v = value->meta.tensor();
  if (r.float_arg(4) != 0.0) r.fail("dropout_p must be 0");
  if (r.bool_arg(5)) r.fail("is_causal=True is not supported");
  if (r.bool_arg(7)) r.fail("enable_gqa=True is not supported");
  if (q.rank() < 3 || k.rank() != q.rank() || v.rank() != q.rank()) {
    r.fail("expects query, key and value of one rank >= 3, got " + q.to_string() + ", " + k.to_string() + ", " + v.to_string());
  }
  double scale = 0.0;
  if (r.arg(6).is_none()) {
    const auto embed = q.sizes.back().constant_value();
    if (!embed || *embed <= 0) r.fail("the default scale needs a static embedding size, got " + q.to_string());
    scale = 1.0 / std::sqrt(static_cast<double>(*embed));
  } else {
    scale = r.float_arg(6);
  }
  const size_t n = q.rank();
  Node* scaled = r.call("aten::mul.Tensor", {query, scale}, q);
  ArgumentList dims;
  for (size_t d = 0; d < n; ++d) dims.emplace_back(static_cast<int64_t>(d));
  std::swap(dims[n - 1], dims[n - 2]);
  std::vector<SymExpr> kt_sizes = k.sizes;
  std::swap(kt_sizes[n - 1], kt_sizes[n - 2]);
  Node* key_t = r.call("aten::permute", {key, std::move(dims)}, meta_like(k, kt_sizes));

  Node* q3 = as_batched_3d(r, scaled);
  Node* k3 = as_batched_3d(r, key_t);
  const TensorMeta& q3m = q3->meta.tensor();
  Node* scores = r.call("aten::bmm", {q3, k3}, meta_like(q, {q3m.sizes[0], q3m.sizes[1], k3->meta.tensor().sizes[2]}));
  if (!r.arg(3).is_none()) {
    // The mask broadcasts against the scores at the inputs' rank.
    std::vector<SymExpr> full(q.sizes.begin(), q.sizes.end() - 1);
    full.push_back(k.sizes[n - 2]);
    const TensorMeta full_meta = meta_like(q, full);
    if (n != 3) scores = r.call("aten::view", {scores, r.size_list(full, query)}, full_meta);
    Node* mask = r.tensor_arg(3);
    if (mask->meta.tensor().dtype == ScalarType::Bool) {
      scores = r.call("aten::where.self", {mask, scores, -std::numeric_limits<double>::infinity()}, full_meta);
    } else {
      scores = r.call("aten::add.Tensor", {scores, mask}, full_meta);
    }
  }
  Node* probs = r.call("aten::_softmax", {scores, -1, false}, scores->meta.tensor());
  probs = as_batched_3d(r, probs);
  Node* v3 = as_batched_3d(r, value);
  const TensorMeta& pm = probs->meta.tensor();
  Node* out3 = r.call("aten::bmm", {probs, v3}, meta_like(r.out(), {pm.sizes[0], pm.sizes[1], v3->meta.tensor().sizes[2]}));
  r.replace_with(n == 3 ? out3 : r.call("aten::view", {out3, r.size_list(r.out().sizes, query)}, r.out()));
}

using Rule = std::function<void(Rewriter&)>;

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = {
      {"aten::conv2d.default", decompose_conv2d},
      {"aten::linear.default", decompose_linear},
      {"aten::dropout.default", decompose_dropout},
      {"aten::contiguous.default", decompose_contiguous},
      {"aten::batch_norm.default", decompose_batch_norm},
      {"aten::max_pool2d.default", decompose_max_pool2d},
      {"aten::adaptive_avg_pool2d.default", decompose_adaptive_avg_pool2d},
      {"aten::flatten.using_ints", decompose_to_view},
      {"aten::reshape.default", decompose_to_view},
      {"aten::unflatten.int", decompose_to_view},
      {"aten::_unsafe_view.default", decompose_to_view},
      {"aten::t.default", decompose_t},
      {"aten::transpose.int", decompose_transpose},
      {"aten::squeeze.dim", decompose_squeeze_dim},
      {"aten::layer_norm.default", decompose_layer_norm},
      {"aten::scaled_dot_product_attention.default", decompose_sdpa},
  };
  return table;
}

}  // namespace

bool decompose_to_core_aten(ExportedProgram& program) {
  bool changed = functionalize_inplace_ops(program);
  for (Node* node : program.graph().node_list()) {
    if (!node->is_call_function()) continue;
    auto rule = rules().find(passes::canonical_target(node->target()));
    if (rule == rules().end()) continue;
    Rewriter rewriter(*node);
    rule->second(rewriter);
    changed = true;
  }
  if (changed) update_signature_from_graph(program);
  program.set_dialect(kAtenDialect);
  return changed;
}

Pass decompose_to_core_aten() {
  return Pass{"decompose_to_core_aten", [](ExportedProgram& program) { return decompose_to_core_aten(program); }};
}

}  // namespace kiln::aot
