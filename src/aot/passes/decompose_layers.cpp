// Decompositions of network layers the training IR keeps as called, beside
// decompose_nn.cpp's: RMS norm and instance norm as their formulas, prelu,
// the attention internals of torch's math and CPU-flash paths as
// scaled_dot_product_attention, softmax that leaves fully masked rows 0,
// cosine similarity and pairwise distance, bilinear as one mm, embedding_bag
// as _embedding_bag, 1-D and 3-D pools through the 2-D and 3-D kernels,
// 1-D upsampling through the 2-D kernels on a height of 1, and LSTM and GRU
// layers unrolled over their time steps.
#include <cmath>
#include <limits>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// `v` ([C]) viewed to broadcast along dim 1 of a rank-`rank` tensor.
Node* per_channel(Rewriter& r, const Argument& v, size_t rank) {
  std::vector<int64_t> shape(rank, 1);
  shape[1] = -1;
  return r.op("aten::view", {v, ints(shape)});
}

// rms_norm(x, normalized_shape, weight, eps): x * rsqrt(mean(x², last dims) + eps)
// (* weight); eps defaults to the dtype's epsilon. Returns (y, rsqrt).
std::pair<Node*, Node*> rms_norm(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const size_t rank = rank_of(x);
  const size_t k = r.arg(1).is_list() ? r.arg(1).list().size() : 0;
  if (k == 0 || k > rank) r.fail("normalized_shape " + to_string(r.arg(1)) + " does not fit " + x->meta.tensor().to_string());
  ArgumentList dims;
  for (size_t d = rank - k; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
  const ScalarType dtype = x->meta.tensor().dtype;
  // torch.finfo(dtype).eps by default.
  double eps = static_cast<double>(std::numeric_limits<float>::epsilon());
  if (dtype == ScalarType::Double) eps = std::numeric_limits<double>::epsilon();
  if (dtype == ScalarType::Half) eps = 0.0009765625;
  if (dtype == ScalarType::BFloat16) eps = 0.0078125;
  if (!r.arg(3).is_none()) eps = r.float_arg(3);
  Node* mean_square = r.op("aten::mean.dim", {r.op("aten::mul.Tensor", {x, x}), dims, true});
  Node* rstd = r.op("aten::rsqrt", {r.op("aten::add.Scalar", {mean_square, eps})});
  Node* y = r.op("aten::mul.Tensor", {x, rstd});
  if (!r.arg(2).is_none()) y = r.op("aten::mul.Tensor", {y, r.arg(2)});
  return {y, rstd};
}

// instance_norm: each (sample, channel) normalized over its own spatial dims
// (or by the running statistics when use_input_stats is false).
void decompose_instance_norm(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const size_t rank = rank_of(x);
  if (rank < 3) r.fail("expects a batched input with spatial dims, got " + x->meta.tensor().to_string());
  const double eps = r.float_arg(7);
  Node* mean = nullptr;
  Node* var = nullptr;
  if (r.bool_arg(5)) {
    ArgumentList dims;
    for (size_t d = 2; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
    mean = r.op("aten::mean.dim", {x, dims, true});
    var = r.op("aten::var.correction", {x, dims}, {{"correction", int64_t{0}}, {"keepdim", true}});
  } else {
    if (r.arg(3).is_none() || r.arg(4).is_none()) r.fail("use_input_stats=False needs running_mean and running_var");
    mean = per_channel(r, r.arg(3), rank);
    var = per_channel(r, r.arg(4), rank);
  }
  Node* y = r.op("aten::mul.Tensor", {r.op("aten::sub.Tensor", {x, mean}), r.op("aten::rsqrt", {r.op("aten::add.Scalar", {var, eps})})});
  if (!r.arg(1).is_none()) y = r.op("aten::mul.Tensor", {y, per_channel(r, r.arg(1), rank)});
  if (!r.arg(2).is_none()) y = r.op("aten::add.Tensor", {y, per_channel(r, r.arg(2), rank)});
  r.replace_with(y);
}

Node* prelu(Rewriter& r, Node* x, Node* weight) {
  Node* negative = r.op("aten::mul.Tensor", {weight, x});
  return r.op("aten::where.self", {r.op("aten::gt.Scalar", {x, int64_t{0}}), x, negative});
}

// ---- recurrent layers: aten::lstm.input and aten::gru.input, unrolled ----

// Rows of `x` ([N, K]) times `w` ([M, K]) transposed, plus `bias` ([M]) if any.
Node* rows_times(Rewriter& r, Node* x, const Argument& w, const Argument& bias) {
  Node* transposed = r.op("aten::permute", {w, ints({1, 0})});
  return bias.is_none() ? r.op("aten::mm", {x, transposed}) : r.op("aten::addmm", {bias, x, transposed});
}

// Columns [from, to) of `x` ([B, G*H]).
Node* columns(Rewriter& r, Node* x, int64_t from, int64_t to) { return r.op("aten::slice.Tensor", {x, 1, from, to}); }

enum class Cell { kLstm, kGru };

// One layer in one direction over `x` ([T, B, I]) from its initial state
// `h` (and `c`, an LSTM's), as torch's RNN kernels compute it: the input's
// part of every step's gates in one product, then per step the hidden
// state's. Returns the [T, B, H] outputs in time order; `h` and `c` end as
// the last step's state.
Node* recurrent_direction(Rewriter& r, Cell cell, Node* x, const ArgumentList& weights, bool reverse, Node*& h,
                          Node*& c) {
  const std::vector<int64_t> sizes = sizes_of(r, x);
  const int64_t steps = sizes[0], batch = sizes[1], inputs = sizes[2];
  const int64_t hidden = sizes_of(r, weights.at(1).node())[1];
  const int64_t gates = (cell == Cell::kLstm ? 4 : 3) * hidden;
  const Argument none;
  const Argument& b_ih = weights.size() > 2 ? weights[2] : none;
  const Argument& b_hh = weights.size() > 2 ? weights[3] : none;
  Node* flat = r.op("aten::view", {x, ints({steps * batch, inputs})});
  Node* from_inputs = r.op("aten::view", {rows_times(r, flat, weights[0], b_ih), ints({steps, batch, gates})});
  std::vector<Node*> outputs(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i;
    Node* gi = r.op("aten::select.int", {from_inputs, 0, t});
    Node* gh = rows_times(r, h, weights[1], b_hh);
    if (cell == Cell::kLstm) {
      Node* sum = r.op("aten::add.Tensor", {gi, gh});
      Node* in = r.op("aten::sigmoid", {columns(r, sum, 0, hidden)});
      Node* forget = r.op("aten::sigmoid", {columns(r, sum, hidden, 2 * hidden)});
      Node* candidate = r.op("aten::tanh", {columns(r, sum, 2 * hidden, 3 * hidden)});
      Node* out = r.op("aten::sigmoid", {columns(r, sum, 3 * hidden, 4 * hidden)});
      c = r.op("aten::add.Tensor", {r.op("aten::mul.Tensor", {forget, c}), r.op("aten::mul.Tensor", {in, candidate})});
      h = r.op("aten::mul.Tensor", {out, r.op("aten::tanh", {c})});
    } else {
      const auto gate = [&](int64_t k) {
        return r.op("aten::add.Tensor", {columns(r, gi, k * hidden, (k + 1) * hidden), columns(r, gh, k * hidden, (k + 1) * hidden)});
      };
      Node* reset = r.op("aten::sigmoid", {gate(0)});
      Node* update = r.op("aten::sigmoid", {gate(1)});
      Node* candidate = r.op("aten::tanh", {r.op("aten::add.Tensor", {columns(r, gi, 2 * hidden, 3 * hidden),
                                                                       r.op("aten::mul.Tensor", {reset, columns(r, gh, 2 * hidden, 3 * hidden)})})});
      // (1 - z) * n + z * h = n + z * (h - n)
      h = r.op("aten::add.Tensor", {candidate, r.op("aten::mul.Tensor", {update, r.op("aten::sub.Tensor", {h, candidate})})});
    }
    outputs[static_cast<size_t>(t)] = r.op("aten::unsqueeze", {h, 0});
  }
  ArgumentList in_order(outputs.begin(), outputs.end());
  return r.op("aten::cat", {in_order, 0});
}

// (input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
// batch_first); an LSTM's hx is [h0, c0], a GRU's h0. Each layer's
// directions read the one before's outputs, joined along the features.
void decompose_recurrent(Rewriter& r, Cell cell) {
  Node* x = r.tensor_arg(0);
  if (rank_of(x) != 3) r.fail("expects a batched sequence [T, B, I] or [B, T, I], got " + x->meta.tensor().to_string());
  const bool has_biases = r.bool_arg(3), bidirectional = r.bool_arg(7), batch_first = r.bool_arg(8);
  const int64_t layers = r.int_arg(4), directions = bidirectional ? 2 : 1;
  if (r.bool_arg(6) && r.float_arg(5) > 0 && layers > 1) r.fail("applies dropout between layers (train=True)");
  const ArgumentList& params = r.arg(2).list();
  const size_t per_direction = has_biases ? 4 : 2;
  if (params.size() != static_cast<size_t>(layers * directions) * per_direction) {
    r.fail("has " + std::to_string(params.size()) + " weights for " + std::to_string(layers * directions) +
           " layer directions; an LSTM with projections (proj_size) is not supported");
  }
  if (!x->meta.tensor().is_static()) r.fail("needs a static sequence length and batch, got " + x->meta.tensor().to_string());
  Node* h0 = nullptr;
  Node* c0 = nullptr;
  if (cell == Cell::kLstm) {
    const ArgumentList& hx = r.arg(1).list();
    if (hx.size() != 2 || !hx[0].is_node() || !hx[1].is_node()) r.fail("expects hx = [h0, c0]");
    h0 = hx[0].node();
    c0 = hx[1].node();
  } else {
    h0 = r.tensor_arg(1);
  }
  Node* sequence = batch_first ? r.op("aten::permute", {x, ints({1, 0, 2})}) : x;
  ArgumentList last_h, last_c;
  for (int64_t layer = 0; layer < layers; ++layer) {
    ArgumentList outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t index = layer * directions + d;
      const auto first = params.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(index) * per_direction);
      const ArgumentList weights(first, first + static_cast<std::ptrdiff_t>(per_direction));
      Node* h = r.op("aten::select.int", {h0, 0, index});
      Node* c = cell == Cell::kLstm ? r.op("aten::select.int", {c0, 0, index}) : nullptr;
      outputs.emplace_back(recurrent_direction(r, cell, sequence, weights, d == 1, h, c));
      last_h.emplace_back(r.op("aten::unsqueeze", {h, 0}));
      if (c != nullptr) last_c.emplace_back(r.op("aten::unsqueeze", {c, 0}));
    }
    sequence = outputs.size() == 1 ? outputs[0].node() : r.op("aten::cat", {outputs, 2});
  }
  Node* output = batch_first ? r.op("aten::permute", {sequence, ints({1, 0, 2})}) : sequence;
  std::vector<Node*> items = {output, r.op("aten::cat", {last_h, 0})};
  if (cell == Cell::kLstm) items.push_back(r.op("aten::cat", {last_c, 0}));
  r.replace_with_items(items);
}

// The attention internals (math: (out, attn weights); flash for CPU: (out,
// logsumexp)) as scaled_dot_product_attention; the second result is for the
// backward pass, and a program reading it is refused by replace_with_items.
void decompose_attention(Rewriter& r, const Argument& mask, const Argument& dropout, const Argument& causal,
                         const Argument& scale, const Argument& gqa) {
  const auto* metas = std::get_if<std::vector<TensorMeta>>(&r.node().meta.val);
  if (metas == nullptr || metas->empty()) r.fail("has no list of tensor metas");
  Node* out = r.call("aten::scaled_dot_product_attention", {r.arg(0), r.arg(1), r.arg(2), mask, dropout, causal},
                     (*metas)[0], {{"scale", scale}, {"enable_gqa", gqa}});
  r.replace_with_items({out});
}

// _safe_softmax(x, dim, dtype): softmax, 0 on rows that are all -inf.
void decompose_safe_softmax(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!r.arg(2).is_none()) x = r.op("aten::_to_copy", {x}, {{"dtype", r.arg(2)}});
  Node* out = r.op("aten::_softmax", {x, r.arg(1), false});
  Node* masked = r.op("aten::eq.Scalar", {x, -std::numeric_limits<double>::infinity()});
  Node* rows = r.op("aten::all.dim", {masked, r.arg(1), true});
  r.replace_with(r.op("aten::where.self", {rows, r.op("aten::full_like", {out, 0.0}), out}));
}

Node* sum_keep(Rewriter& r, Node* x, int64_t dim, bool keepdim) {
  return r.op("aten::sum.dim_IntList", {x, ArgumentList{dim}, keepdim});
}

// cosine_similarity(x1, x2, dim, eps): each divided by its norm (at least
// eps), then the sum of the products, as PyTorch computes it.
void decompose_cosine_similarity(Rewriter& r) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  const size_t rank = std::max(rank_of(a), rank_of(b));
  const int64_t dim = normalize_dim(r.int_arg(2), rank, "cosine_similarity");
  const auto normalized = [&](Node* x) {
    Node* norm = r.op("aten::sqrt", {sum_keep(r, r.op("aten::mul.Tensor", {x, x}), dim - static_cast<int64_t>(rank - rank_of(x)), true)});
    return r.op("aten::div.Tensor", {x, r.op("aten::clamp", {norm, r.arg(3)})});
  };
  r.replace_with(sum_keep(r, r.op("aten::mul.Tensor", {normalized(a), normalized(b)}), dim, false));
}

// pairwise_distance(x1, x2, p, eps, keepdim): the p-norm of x1 - x2 + eps over the last dim.
void decompose_pairwise_distance(Rewriter& r) {
  Node* d = r.op("aten::add.Scalar", {r.op("aten::sub.Tensor", {r.arg(0), r.arg(1)}), r.arg(3)});
  const size_t rank = rank_of(d);
  if (rank == 0) r.fail("needs at least one dim");
  r.replace_with(r.call("aten::linalg_vector_norm", {d, r.arg(2), ArgumentList{static_cast<int64_t>(rank) - 1}, r.arg(4)}, r.out()));
}

// bilinear(x1, x2, W [O, I, J], b): x1 W_o x2 per output o, as one mm of x1
// with W laid out [I, O * J], a product with x2 and a sum over J.
void decompose_bilinear(Rewriter& r) {
  Node* x1 = r.tensor_arg(0);
  Node* x2 = r.tensor_arg(1);
  const TensorMeta& w = r.tensor_arg(2)->meta.tensor();
  if (!w.is_static() || w.rank() != 3) r.fail("expects a static 3-D weight, got " + w.to_string());
  const std::vector<int64_t> ws = w.static_sizes();
  const int64_t o = ws[0], i = ws[1], j = ws[2];
  Node* x1_2d = r.op("aten::view", {x1, ints({-1, i})});
  Node* x2_3d = r.op("aten::view", {x2, ints({-1, 1, j})});
  Node* wt = r.op("aten::view", {r.op("aten::clone", {r.op("aten::permute", {r.arg(2), ints({1, 0, 2})})}), ints({i, o * j})});
  Node* t = r.op("aten::view", {r.op("aten::mm", {x1_2d, wt}), ints({-1, o, j})});
  Node* y = sum_keep(r, r.op("aten::mul.Tensor", {t, x2_3d}), 2, false);
  if (!r.arg(3).is_none()) y = r.op("aten::add.Tensor", {y, r.arg(3)});
  r.replace_with(r.op("aten::view", {y, r.size_list(r.out().sizes, x1)}));
}

// embedding_bag(..., include_last_offset[, padding_idx]) is _embedding_bag.
void decompose_embedding_bag(Rewriter& r, const Argument& padding_idx) {
  Node* bag = r.op("aten::_embedding_bag", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5), r.arg(6), r.arg(7),
                                            padding_idx.is_none() ? Argument(int64_t{-1}) : padding_idx});
  r.replace_with_items({r.getitem(bag, 0), r.getitem(bag, 1), r.getitem(bag, 2), r.getitem(bag, 3)});
}

// The single value of a one-entry int list argument.
int64_t one_int(Rewriter& r, size_t index, int64_t fallback) {
  const Argument& a = r.arg(index);
  if (a.is_int()) return a.to_int();
  if (!a.is_list() || a.list().empty()) return fallback;
  return a.list()[0].to_int();
}

// max_pool1d_with_indices(x, k, s, p, d, ceil): the 2-D pool over a height
// of 1, whose flat indices are the 1-D ones.
std::vector<Node*> max_pool1d(Rewriter& r, Node* x, int64_t k, int64_t s, int64_t p, int64_t d, const Argument& ceil) {
  Node* x2 = r.op("aten::unsqueeze", {x, int64_t{-2}});
  Node* pool = r.op("aten::max_pool2d_with_indices", {x2, ints({1, k}), ints({1, s}), ints({0, p}), ints({1, d}), ceil});
  return {r.op("aten::squeeze.dims", {r.getitem(pool, 0), ArgumentList{int64_t{-2}}}),
          r.op("aten::squeeze.dims", {r.getitem(pool, 1), ArgumentList{int64_t{-2}}})};
}

void decompose_max_pool1d_with_indices(Rewriter& r) {
  const int64_t k = one_int(r, 1, 1);
  r.replace_with_items(max_pool1d(r, r.tensor_arg(0), k, one_int(r, 2, k), one_int(r, 3, 0), one_int(r, 4, 1), r.arg(5)));
}

// adaptive_max_pool1d(x, output_size): a plain pool when the length divides evenly.
void decompose_adaptive_max_pool1d(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const std::optional<int64_t> length = x->meta.tensor().sizes.back().constant_value();
  const int64_t out = one_int(r, 1, 1);
  if (!length || out <= 0 || *length % out != 0) {
    r.fail("needs a static length that the output size divides, got " + x->meta.tensor().to_string() + " to " + std::to_string(out));
  }
  r.replace_with_items(max_pool1d(r, x, *length / out, *length / out, 0, 1, false));
}

// upsample_{nearest,linear}1d on the 2-D kernels: x as [N, C, 1, L].
void upsample_1d(Rewriter& r, bool linear, const Argument& output_size, const Argument& scale, const Argument& align) {
  Node* x = r.op("aten::unsqueeze", {r.arg(0), int64_t{-2}});
  Argument sizes = None{};
  Argument scales = None{};
  if (!scale.is_none()) {
    const Argument& first = scale.is_list() ? scale.list().at(0) : scale;
    const double s = first.is_int() ? static_cast<double>(first.to_int()) : first.to_double();
    scales = ArgumentList{1.0, s};
  } else {
    sizes = ArgumentList{int64_t{1}, output_size.is_list() ? output_size.list().at(0) : output_size};
  }
  Node* y = linear ? r.op("aten::upsample_bilinear2d.vec", {x, sizes, align, scales})
                   : r.op("aten::upsample_nearest2d.vec", {x, sizes, scales});
  r.replace_with(r.op("aten::squeeze.dims", {y, ArgumentList{int64_t{-2}}}));
}

void add_norms_and_attention(DecompositionTable& t) {
  t["aten::rms_norm.default"] = [](Rewriter& r) { r.replace_with(rms_norm(r).first); };
  t["aten::_fused_rms_norm.default"] = [](Rewriter& r) {
    const auto [y, rstd] = rms_norm(r);
    r.replace_with_items({y, rstd});
  };
  t["aten::instance_norm.default"] = decompose_instance_norm;
  t["aten::lstm.input"] = [](Rewriter& r) { decompose_recurrent(r, Cell::kLstm); };
  t["aten::gru.input"] = [](Rewriter& r) { decompose_recurrent(r, Cell::kGru); };
  t["aten::prelu.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    Node* w = r.tensor_arg(1);
    const auto channels = product(w->meta.tensor().sizes).constant_value();
    if (channels != 1 && rank_of(x) >= 2) w = per_channel(r, w, rank_of(x));
    r.replace_with(prelu(r, x, w));
  };
  t["aten::_prelu_kernel.default"] = [](Rewriter& r) { r.replace_with(prelu(r, r.tensor_arg(0), r.tensor_arg(1))); };
  // (query, key, value, attn_mask, dropout_p, is_causal, dropout_mask, *, scale, enable_gqa)
  t["aten::_scaled_dot_product_attention_math.default"] = [](Rewriter& r) {
    if (!r.arg(6).is_none()) r.fail("a dropout_mask is for training");
    decompose_attention(r, r.arg(3), r.arg(4), r.arg(5), r.arg(7), r.arg(8));
  };
  // (query, key, value, dropout_p, is_causal, *, attn_mask, scale)
  t["aten::_scaled_dot_product_flash_attention_for_cpu.default"] = [](Rewriter& r) {
    decompose_attention(r, r.arg(5), r.arg(3), r.arg(4), r.arg(6), false);
  };
  t["aten::_safe_softmax.default"] = decompose_safe_softmax;
}

void add_distances_and_pools(DecompositionTable& t) {
  t["aten::cosine_similarity.default"] = decompose_cosine_similarity;
  t["aten::pairwise_distance.default"] = decompose_pairwise_distance;
  t["aten::bilinear.default"] = decompose_bilinear;
  t["aten::embedding_bag.default"] = [](Rewriter& r) { decompose_embedding_bag(r, None{}); };
  t["aten::embedding_bag.padding_idx"] = [](Rewriter& r) { decompose_embedding_bag(r, r.arg(8)); };
  t["aten::max_pool1d_with_indices.default"] = decompose_max_pool1d_with_indices;
  t["aten::adaptive_max_pool1d.default"] = decompose_adaptive_max_pool1d;
  t["aten::max_pool3d.default"] = [](Rewriter& r) {
    Node* pool = r.op("aten::max_pool3d_with_indices", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5)});
    r.replace_with(r.getitem(pool, 0));
  };
  // (self, output_size, scales) and .vec(input, output_size, scale_factors)
  t["aten::upsample_nearest1d.default"] = [](Rewriter& r) { upsample_1d(r, false, r.arg(1), r.arg(2), None{}); };
  t["aten::upsample_nearest1d.vec"] = [](Rewriter& r) { upsample_1d(r, false, r.arg(1), r.arg(2), None{}); };
  // (self, output_size, align_corners, scales) and .vec(input, output_size, align_corners, scale_factors)
  t["aten::upsample_linear1d.default"] = [](Rewriter& r) { upsample_1d(r, true, r.arg(1), r.arg(3), r.arg(2)); };
  t["aten::upsample_linear1d.vec"] = [](Rewriter& r) { upsample_1d(r, true, r.arg(1), r.arg(3), r.arg(2)); };
}

}  // namespace

void add_layer_decompositions(DecompositionTable& t) {
  add_norms_and_attention(t);
  add_distances_and_pools(t);
}

}  // namespace kiln::aot::passes
