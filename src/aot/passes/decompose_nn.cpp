// Decompositions of the network layers: every convolution becomes
// aten::convolution (torch's weight layout, transposed flag), linear and
// matmul become mm/addmm/bmm on 2-D or 3-D views, norms become their native_*
// op and getitem, softmax its _softmax form, and attention and mish their
// formulas in core ops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

TensorMeta meta_like(const TensorMeta& like, std::vector<SymExpr> sizes) { return TensorMeta(like.dtype, std::move(sizes)); }

void decompose_conv2d(Rewriter& r) {
  r.replace_with(r.call("aten::convolution",
                        {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5), false, ArgumentList{0, 0}, r.arg(6)},
                        r.out()));
}

// Convolutions of the training IR also take unbatched inputs, which Kiln does not.
void require_batched(Rewriter& r, size_t spatial) {
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  if (input.rank() != spatial + 2) {
    r.fail("expects a batched " + std::to_string(spatial + 2) + "-D input, got " + input.to_string());
  }
}

// conv1d and conv3d(input, weight, bias, stride, padding, dilation, groups).
void decompose_conv(Rewriter& r, size_t n) {
  require_batched(r, n);
  r.replace_with(r.op("aten::convolution", {r.arg(0), r.arg(1), r.arg(2), expand_int_list(r.arg(3), n),
                                            expand_int_list(r.arg(4), n), expand_int_list(r.arg(5), n), false,
                                            ArgumentList(n, int64_t{0}), r.arg(6)}));
}

// conv_transpose{1,2}d(input, weight, bias, stride, padding, output_padding, groups, dilation);
// the weight stays [in, out / groups, k...], the layout convolution(transposed=True) reads.
void decompose_conv_transpose(Rewriter& r, size_t n) {
  require_batched(r, n);
  r.replace_with(r.op("aten::convolution", {r.arg(0), r.arg(1), r.arg(2), expand_int_list(r.arg(3), n),
                                            expand_int_list(r.arg(4), n), expand_int_list(r.arg(7), n), true,
                                            expand_int_list(r.arg(5), n), r.arg(6)}));
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
  const SymExpr rows = product({in.sizes.begin(), in.sizes.end() - 1});
  const TensorMeta flat = meta_like(in, {rows, in.sizes.back()});
  Node* x2 = r.call("aten::view", {input, r.size_list(flat.sizes, input)}, flat);
  Node* y2 = matmul_with_bias(r, x2, wt, r.arg(2), meta_like(r.out(), {rows, r.out().sizes.back()}));
  r.replace_with(r.call("aten::view", {y2, r.size_list(r.out().sizes, input)}, r.out()));
}

// sum(a * b) over `dim`, in the result's dtype (sum alone widens integers).
Node* multiply_and_sum(Rewriter& r, Node* a, Node* b, int64_t dim) {
  Node* product = r.op("aten::mul.Tensor", {a, b});
  KwargList kwargs;
  const ScalarType dtype = product->meta.tensor().dtype;
  if (runtime::is_integral_type(dtype, true)) kwargs.emplace_back("dtype", dtype);
  return r.op("aten::sum.dim_IntList", {product, ArgumentList{dim}}, std::move(kwargs));
}

Node* view_as(Rewriter& r, Node* x, const std::vector<SymExpr>& sizes, const std::vector<Node*>& sources) {
  if (x->meta.tensor().sizes == sizes) return x;
  return r.op("aten::view", {x, r.size_list(sizes, sources, true)});
}

// The broadcast of the batch dims (all but the last two) of `a` and `b`.
std::vector<SymExpr> broadcast_batch(Rewriter& r, const TensorMeta& a, const TensorMeta& b) {
  const size_t na = a.rank() - 2, nb = b.rank() - 2, rank = std::max(na, nb);
  std::vector<SymExpr> batch;
  for (size_t i = 0; i < rank; ++i) {
    const SymExpr da = i + na >= rank ? a.sizes[i + na - rank] : SymExpr::constant(1);
    const SymExpr db = i + nb >= rank ? b.sizes[i + nb - rank] : SymExpr::constant(1);
    if (da == db || db.constant_value() == 1) {
      batch.push_back(da);
    } else if (da.constant_value() == 1) {
      batch.push_back(db);
    } else if (da.is_constant() && db.is_constant()) {
      r.fail("the batch dims of " + a.to_string() + " and " + b.to_string() + " do not broadcast");
    } else {
      batch.push_back(db.is_constant() ? db : da);  // a symbol meeting a constant is that constant
    }
  }
  return batch;
}

// Batched matmul: both operands (at least 2-D) expanded to the broadcast batch
// dims, viewed as [B, m, n] and [B, n, p], multiplied by bmm and viewed back.
Node* batched_matmul(Rewriter& r, Node* a, Node* b, const std::vector<Node*>& sources) {
  const TensorMeta& am = a->meta.tensor();
  const TensorMeta& bm = b->meta.tensor();
  const std::vector<SymExpr> batch = broadcast_batch(r, am, bm);
  auto expanded = [&](Node* x, const TensorMeta& m) {
    std::vector<SymExpr> sizes = batch;
    sizes.insert(sizes.end(), m.sizes.end() - 2, m.sizes.end());
    if (sizes == m.sizes) return x;
    return r.op("aten::expand", {x, r.size_list(sizes, sources, false)});
  };
  Node* ea = expanded(a, am);
  Node* eb = expanded(b, bm);
  const SymExpr folded = product(batch);
  const SymExpr& m = am.sizes[am.rank() - 2];
  const SymExpr& n = am.sizes.back();
  const SymExpr& p = bm.sizes.back();
  Node* a3 = view_as(r, ea, {folded, m, n}, sources);
  Node* b3 = view_as(r, eb, {folded, n, p}, sources);
  Node* out = r.op("aten::bmm", {a3, b3});
  std::vector<SymExpr> sizes = batch;
  sizes.push_back(m);
  sizes.push_back(p);
  return view_as(r, out, sizes, sources);
}

// torch.matmul's cases: dot and matrix-vector products as mul + sum (as
// torch decomposes them), matrix products as mm, everything batched as bmm.
void decompose_matmul(Rewriter& r) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  const TensorMeta& am = a->meta.tensor();
  const TensorMeta& bm = b->meta.tensor();
  const std::vector<Node*> sources = {a, b};
  if (am.rank() == 0 || bm.rank() == 0) r.fail("both operands need at least one dim, got " + am.to_string() + " and " + bm.to_string());
  if (bm.rank() == 1) {
    if (am.rank() <= 2) {
      r.replace_with(multiply_and_sum(r, a, b, static_cast<int64_t>(am.rank()) - 1));
      return;
    }
    const SymExpr rows = product({am.sizes.begin(), am.sizes.end() - 1});
    Node* flat = r.op("aten::view", {a, r.size_list({rows, am.sizes.back()}, sources, true)});
    Node* summed = multiply_and_sum(r, flat, b, 1);
    r.replace_with(view_as(r, summed, {am.sizes.begin(), am.sizes.end() - 1}, sources));
    return;
  }
  if (bm.rank() == 2) {
    if (am.rank() == 1) {
      Node* row = r.op("aten::unsqueeze", {a, 0});
      r.replace_with(r.op("aten::squeeze.dims", {r.op("aten::mm", {row, b}), ArgumentList{0}}));
    } else if (am.rank() == 2) {
      r.replace_with(r.op("aten::mm", {a, b}));
    } else {
      // Fold the batch dims of `a` into its rows: one mm.
      const SymExpr rows = product({am.sizes.begin(), am.sizes.end() - 1});
      Node* flat = r.op("aten::view", {a, r.size_list({rows, am.sizes.back()}, sources, true)});
      std::vector<SymExpr> sizes(am.sizes.begin(), am.sizes.end() - 1);
      sizes.push_back(bm.sizes.back());
      r.replace_with(view_as(r, r.op("aten::mm", {flat, b}), sizes, sources));
    }
    return;
  }
  if (am.rank() == 1) {
    Node* row = r.op("aten::unsqueeze", {a, 0});
    r.replace_with(r.op("aten::squeeze.dims", {batched_matmul(r, row, b, {row, b}), ArgumentList{-2}}));
    return;
  }
  r.replace_with(batched_matmul(r, a, b, sources));
}

void decompose_dropout(Rewriter& r) {
  if (r.bool_arg(2) && r.float_arg(1) != 0.0) r.fail("training-mode dropout is random and does not decompose");
  r.replace_with(r.tensor_arg(0));
}

void decompose_batch_norm(Rewriter& r) {
  if (r.bool_arg(5)) r.fail("training-mode batch_norm is not supported (export the model in eval mode)");
  if (r.arg(3).is_none() || r.arg(4).is_none()) r.fail("batch_norm without running statistics is not supported");
  Node* norm = r.op("aten::_native_batch_norm_legit_no_training",
                    {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.float_arg(6), r.float_arg(7)});
  r.replace_with(r.getitem(norm, 0));
}

// _native_batch_norm_legit(input, weight, bias, running_mean, running_var,
// training, momentum, eps): in eval mode the running statistics normalize; in
// training mode it would update them, which inference has no place for.
void decompose_batch_norm_legit(Rewriter& r) {
  if (r.bool_arg(5)) r.fail("training-mode batch norm updates its running statistics (export the model in eval mode)");
  r.replace_with(r.op("aten::_native_batch_norm_legit_no_training",
                      {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.float_arg(6), r.float_arg(7)}));
}

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum,
// eps), InstanceNorm's core form: normalized by the batch's own statistics
// over every dim but the channels (dim 1). Returns (out, mean, rstd), the
// statistics per channel.
void decompose_batch_norm_batch_stats(Rewriter& r) {
  Node* input = r.tensor_arg(0);
  const TensorMeta& in = input->meta.tensor();
  if (in.rank() < 2) r.fail("expects an input of rank >= 2 (N, C, ...), got " + in.to_string());
  ArgumentList reduced;
  std::vector<SymExpr> channel_shape(in.rank(), SymExpr(1));
  for (size_t d = 0; d < in.rank(); ++d) {
    if (d != 1) reduced.emplace_back(static_cast<int64_t>(d));
  }
  channel_shape[1] = in.sizes[1];
  Node* mean = r.op("aten::mean.dim", {input, reduced, true});
  Node* var = r.op("aten::var.correction", {input, reduced}, {{"correction", int64_t{0}}, {"keepdim", true}});
  Node* rstd = r.op("aten::rsqrt", {r.op("aten::add.Tensor", {var, r.float_arg(5)})});
  Node* out = r.op("aten::mul.Tensor", {r.op("aten::sub.Tensor", {input, mean}), rstd});
  if (!r.arg(1).is_none()) {
    out = r.op("aten::mul.Tensor", {out, r.op("aten::view", {r.arg(1), r.size_list(channel_shape, input)})});
  }
  if (!r.arg(2).is_none()) {
    out = r.op("aten::add.Tensor", {out, r.op("aten::view", {r.arg(2), r.size_list(channel_shape, input)})});
  }
  r.replace_with_items({out, r.op("aten::squeeze.dims", {mean, reduced}), r.op("aten::squeeze.dims", {rstd, reduced})});
}

// einsum(equation, tensors): one or two operands, each subscript at most
// once per operand, no ellipsis (MaxViT's relative attention). Subscripts an
// operand alone has and the output lacks are summed first; then the two
// operands are permuted to [batch, left, contracted] and [batch, contracted,
// right], folded to matrices and multiplied (batched_matmul), and the result
// is unfolded and permuted to the output's order.
class Einsum {
 public:
  explicit Einsum(Rewriter& r) : r_(r) {
    std::string equation = r.arg(0).to_string();
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    if (equation.find('.') != std::string::npos) r.fail("einsum with an ellipsis (...) is not supported yet");
    const size_t arrow = equation.find("->");
    std::string inputs = equation.substr(0, arrow);
    for (size_t start = 0;;) {
      const size_t comma = inputs.find(',', start);
      subscripts_.push_back(inputs.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    output_ = arrow == std::string::npos ? implicit_output() : equation.substr(arrow + 2);
    const ArgumentList& tensors = r.arg(1).list();
    if (tensors.size() != subscripts_.size() || tensors.size() > 2) {
      r.fail("'" + equation + "' on " + std::to_string(tensors.size()) + " tensors: one or two operands, one subscript string each, are supported");
    }
    for (size_t i = 0; i < tensors.size(); ++i) operands_.push_back(operand(tensors[i].node(), subscripts_[i]));
  }

  Node* result() {
    for (size_t i = 0; i < operands_.size(); ++i) {
      const std::string& other = operands_.size() == 2 ? operands_[1 - i].subscripts : std::string();
      sum_alone(operands_[i], other);
    }
    if (operands_.size() == 1) return arrange(operands_[0], output_);
    Operand& a = operands_[0];
    Operand& b = operands_[1];
    std::string batch, left, contracted, right;
    for (char c : output_) {
      const bool in_a = has(a.subscripts, c), in_b = has(b.subscripts, c);
      if (in_a && in_b) batch += c;
      else if (in_a) left += c;
      else if (in_b) right += c;
      else r_.fail("output subscript '" + std::string(1, c) + "' is in no operand");
    }
    for (char c : a.subscripts) {
      if (has(b.subscripts, c) && !has(output_, c)) contracted += c;
    }
    Node* lhs = fold(arrange(a, batch + left + contracted), batch, {left, contracted}, a);
    Node* rhs = fold(arrange(b, batch + contracted + right), batch, {contracted, right}, b);
    Node* product_node = batched_matmul(r_, lhs, rhs, {a.node, b.node});
    std::vector<SymExpr> unfolded;
    for (char c : batch + left + right) unfolded.push_back(size_of(c));
    Operand out{view_as(r_, product_node, unfolded, {a.node, b.node}), batch + left + right};
    return arrange(out, output_);
  }

 private:
  struct Operand {
    Node* node;
    std::string subscripts;
  };

  static bool has(const std::string& text, char c) { return text.find(c) != std::string::npos; }

  // Without "->": the subscripts that appear once, in alphabetical order.
  std::string implicit_output() const {
    std::string all, once;
    for (const std::string& s : subscripts_) all += s;
    for (char c : all) {
      if (std::count(all.begin(), all.end(), c) == 1) once += c;
    }
    std::sort(once.begin(), once.end());
    return once;
  }

  Operand operand(Node* node, const std::string& subscripts) {
    const TensorMeta& meta = node->meta.tensor();
    if (subscripts.size() != meta.rank()) {
      r_.fail("'" + subscripts + "' names " + std::to_string(subscripts.size()) + " dims of " + meta.to_string());
    }
    for (size_t d = 0; d < subscripts.size(); ++d) {
      const char c = subscripts[d];
      if (std::count(subscripts.begin(), subscripts.end(), c) > 1) {
        r_.fail("subscript '" + std::string(1, c) + "' repeats in '" + subscripts + "' (a diagonal): not supported yet");
      }
      auto [it, fresh] = sizes_.emplace(c, meta.sizes[d]);
      if (!fresh && !(it->second == meta.sizes[d])) {
        r_.fail("subscript '" + std::string(1, c) + "' has sizes " + it->second.to_string() + " and " +
                meta.sizes[d].to_string() + " (broadcasting is not supported yet)");
      }
    }
    return {node, subscripts};
  }

  const SymExpr& size_of(char c) const { return sizes_.at(c); }

  // Sums the subscripts of `x` that neither `other` nor the output has.
  void sum_alone(Operand& x, const std::string& other) {
    ArgumentList dims;
    std::string kept;
    for (size_t d = 0; d < x.subscripts.size(); ++d) {
      const char c = x.subscripts[d];
      if (has(other, c) || has(output_, c)) kept += c;
      else dims.emplace_back(static_cast<int64_t>(d));
    }
    if (dims.empty()) return;
    x = {r_.op("aten::sum.dim_IntList", {x.node, std::move(dims), false}), kept};
  }

  // x permuted so that its subscripts read `order` (a permutation of them).
  Node* arrange(const Operand& x, const std::string& order) {
    if (x.subscripts == order) return x.node;
    ArgumentList dims;
    for (char c : order) dims.emplace_back(static_cast<int64_t>(x.subscripts.find(c)));
    return r_.op("aten::permute", {x.node, std::move(dims)});
  }

  // x, whose dims read batch then each group of `groups`, with each group folded into one dim.
  Node* fold(Node* x, const std::string& batch, const std::vector<std::string>& groups, const Operand& source) {
    std::vector<SymExpr> sizes;
    for (char c : batch) sizes.push_back(size_of(c));
    for (const std::string& group : groups) {
      SymExpr folded(1);
      for (char c : group) folded = folded * size_of(c);
      sizes.push_back(folded);
    }
    return view_as(r_, x, sizes, {source.node});
  }

  Rewriter& r_;
  std::vector<std::string> subscripts_;
  std::string output_;
  std::vector<Operand> operands_;
  std::map<char, SymExpr> sizes_;
};

void decompose_einsum(Rewriter& r) { r.replace_with(Einsum(r).result()); }

// linalg_vector_norm(self, ord, dim, keepdim, dtype): the p-norm over dim
// (every dim when None) by sums, square roots and powers (Swin-V2's cosine
// attention); ord inf and -inf are the largest and smallest |x|, 0 counts
// the non-zeros.
void decompose_vector_norm(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!r.arg(4).is_none()) x = r.op("aten::_to_copy", {x}, {{"dtype", r.arg(4)}});
  ArgumentList dims;
  if (r.arg(2).is_none()) {
    for (size_t d = 0; d < x->meta.tensor().rank(); ++d) dims.emplace_back(static_cast<int64_t>(d));
  } else {
    dims = r.arg(2).list();
  }
  const Argument keepdim = r.arg(3);
  const double ord = r.float_arg(1);
  const auto sum = [&](Node* value) { return r.op("aten::sum.dim_IntList", {value, dims, keepdim}); };
  if (ord == 2) {
    r.replace_with(r.op("aten::sqrt", {sum(r.op("aten::mul.Tensor", {x, x}))}));
    return;
  }
  if (ord == 0) {
    Node* count = sum(r.op("aten::ne.Scalar", {x, 0}));
    r.replace_with(r.op("aten::_to_copy", {count}, {{"dtype", r.out().dtype}}));
    return;
  }
  Node* magnitude = r.op("aten::abs", {x});
  if (std::isinf(ord)) {
    r.replace_with(r.op(ord > 0 ? "aten::amax" : "aten::amin", {magnitude, dims, keepdim}));
  } else if (ord == 1) {
    r.replace_with(sum(magnitude));
  } else {
    Node* powered = sum(r.op("aten::pow.Tensor_Scalar", {magnitude, ord}));
    r.replace_with(r.op("aten::pow.Tensor_Scalar", {powered, 1.0 / ord}));
  }
}

// grid_sampler(input, grid, interpolation, padding, align_corners) on a 4-D
// input: grid_sampler_2d.
void decompose_grid_sampler(Rewriter& r) {
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  if (input.rank() != 4) r.fail("only 2-D sampling (a 4-D input) is supported, got " + input.to_string());
  r.replace_with(r.op("aten::grid_sampler_2d", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4)}));
}

void decompose_layer_norm(Rewriter& r) {
  const TensorMeta& in = r.tensor_arg(0)->meta.tensor();
  const size_t normalized = r.arg(1).is_list() ? r.arg(1).list().size() : 0;
  if (normalized == 0 || normalized > in.rank()) r.fail("normalized_shape " + to_string(r.arg(1)) + " does not fit " + in.to_string());
  Node* norm = r.op("aten::native_layer_norm", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.float_arg(4)});
  r.replace_with(r.getitem(norm, 0));
}

// group_norm(input, num_groups, weight, bias, eps): native_group_norm takes
// N, C and the spatial size HxW as SymInts.
void decompose_group_norm(Rewriter& r) {
  Node* input = r.tensor_arg(0);
  const TensorMeta& in = input->meta.tensor();
  if (in.rank() < 2) r.fail("expects an input of rank >= 2, got " + in.to_string());
  const SymExpr spatial = product({in.sizes.begin() + 2, in.sizes.end()});
  if (!spatial.is_constant() && in.rank() > 3) r.fail("the spatial size of " + in.to_string() + " must be static");
  Node* norm = r.op("aten::native_group_norm",
                    {input, r.arg(2), r.arg(3), r.sym_int(in.sizes[0], {input}), r.sym_int(in.sizes[1], {input}),
                     r.sym_int(spatial, {input}), r.int_arg(1), r.float_arg(4)});
  r.replace_with(r.getitem(norm, 0));
}

// softmax.int(self, dim, dtype): a dtype casts first, as torch does.
void decompose_softmax(Rewriter& r, const char* core_op) {
  Node* input = r.tensor_arg(0);
  if (!r.arg(2).is_none()) {
    const auto dtype = std::get<ScalarType>(r.arg(2).value);
    if (dtype != input->meta.tensor().dtype) input = r.op("aten::_to_copy", {input}, {{"dtype", dtype}});
  }
  r.replace_with(r.op(core_op, {input, r.int_arg(1), false}));
}

// mish(x) = x * tanh(softplus(x)), softplus(x) = log1p(exp(x)), or x above 20.
void decompose_mish(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* softplus = r.op("aten::log1p", {r.op("aten::exp", {x})});
  Node* large = r.op("aten::gt.Scalar", {x, int64_t{20}});
  Node* tanh = r.op("aten::tanh", {r.op("aten::where.self", {large, x, softplus})});
  r.replace_with(r.op("aten::mul.Tensor", {x, tanh}));
}

// relu6(x + 3): the shared part of hardsigmoid and hardswish, spelled as
// torch's decompositions spell it (add, then a clamp for each bound).
Node* shifted_relu6(Rewriter& r, Node* x) {
  Node* shifted = r.op("aten::add.Tensor", {x, int64_t{3}});
  return r.op("aten::clamp", {r.op("aten::clamp", {shifted, int64_t{0}, None{}}), None{}, int64_t{6}});
}

// hardsigmoid(x) = relu6(x + 3) / 6, hardswish(x) = x * relu6(x + 3) / 6 and
// silu(x) = x * sigmoid(x): not core ATen, and ExecuTorch's runtime has no
// kernels for them, so a .pte carries their formulas.
void decompose_hardsigmoid(Rewriter& r) {
  r.replace_with(r.op("aten::div.Tensor", {shifted_relu6(r, r.tensor_arg(0)), int64_t{6}}));
}

void decompose_hardswish(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  r.replace_with(r.op("aten::div.Tensor", {r.op("aten::mul.Tensor", {x, shifted_relu6(r, x)}), int64_t{6}}));
}

void decompose_silu(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  r.replace_with(r.op("aten::mul.Tensor", {x, r.op("aten::sigmoid", {x})}));
}

// `x` viewed as 3-D, its leading dims folded into one.
Node* as_batched_3d(Rewriter& r, Node* x) {
  const TensorMeta& m = x->meta.tensor();
  if (m.rank() == 3) return x;
  const size_t n = m.rank();
  const TensorMeta flat = meta_like(m, {product({m.sizes.begin(), m.sizes.end() - 2}), m.sizes[n - 2], m.sizes[n - 1]});
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
    // A bool mask as PyTorch's math attention reads it: 0 where it holds,
    // -inf where not, added to the scores. The bias depends on the mask
    // alone (one per mask, however many layers read it), and the add is a
    // step a backend fuses into the product before it.
    if (mask->meta.tensor().dtype == ScalarType::Bool) {
      Node* zeros = r.op("aten::full_like", {mask, 0.0}, {{"dtype", q.dtype}});
      mask = r.op("aten::where.self", {mask, zeros, -std::numeric_limits<double>::infinity()});
    }
    scores = r.call("aten::add.Tensor", {scores, mask}, full_meta);
  }
  Node* probs = r.call("aten::_softmax", {scores, -1, false}, scores->meta.tensor());
  probs = as_batched_3d(r, probs);
  Node* v3 = as_batched_3d(r, value);
  const TensorMeta& pm = probs->meta.tensor();
  Node* out3 = r.call("aten::bmm", {probs, v3}, meta_like(r.out(), {pm.sizes[0], pm.sizes[1], v3->meta.tensor().sizes[2]}));
  r.replace_with(n == 3 ? out3 : r.call("aten::view", {out3, r.size_list(r.out().sizes, query)}, r.out()));
}

}  // namespace

void add_nn_decompositions(DecompositionTable& t) {
  t["aten::conv2d.default"] = decompose_conv2d;
  t["aten::conv1d.default"] = [](Rewriter& r) { decompose_conv(r, 1); };
  t["aten::conv3d.default"] = [](Rewriter& r) { decompose_conv(r, 3); };
  t["aten::conv_transpose1d.default"] = [](Rewriter& r) { decompose_conv_transpose(r, 1); };
  t["aten::conv_transpose2d.input"] = [](Rewriter& r) { decompose_conv_transpose(r, 2); };
  t["aten::linear.default"] = decompose_linear;
  t["aten::matmul.default"] = decompose_matmul;
  t["aten::dropout.default"] = decompose_dropout;
  t["aten::batch_norm.default"] = decompose_batch_norm;
  t["aten::_native_batch_norm_legit.default"] = decompose_batch_norm_legit;
  t["aten::_native_batch_norm_legit.no_stats"] = decompose_batch_norm_batch_stats;
  t["aten::layer_norm.default"] = decompose_layer_norm;
  t["aten::grid_sampler.default"] = decompose_grid_sampler;
  t["aten::linalg_vector_norm.default"] = decompose_vector_norm;
  t["aten::einsum.default"] = decompose_einsum;
  t["aten::cdist.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::_cdist_forward", {r.arg(0), r.arg(1), r.arg(2), r.arg(3)})); };
  t["aten::pdist.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::_pdist_forward", {r.arg(0), r.arg(1)})); };
  t["aten::group_norm.default"] = decompose_group_norm;
  t["aten::softmax.int"] = [](Rewriter& r) { decompose_softmax(r, "aten::_softmax"); };
  t["aten::log_softmax.int"] = [](Rewriter& r) { decompose_softmax(r, "aten::_log_softmax"); };
  t["aten::mish.default"] = decompose_mish;
  t["aten::hardsigmoid.default"] = decompose_hardsigmoid;
  t["aten::hardswish.default"] = decompose_hardswish;
  t["aten::silu.default"] = decompose_silu;
  t["aten::scaled_dot_product_attention.default"] = decompose_sdpa;
}

}  // namespace kiln::aot::passes
