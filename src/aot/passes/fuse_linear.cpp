// fuse_linear: a linear layer whose weights are constants becomes
// kiln::linear on the weights packed for Kiln's tuned kernels
// (kernels/tuned/linear.h), the packed bytes a new lifted constant, the
// weights it replaced dropped. On the training IR, the forms torchao writes
// (quantize_ + unwrap_tensor_subclass) and a float linear of run-time rows:
//   float     linear(x, W, b), x with a dynamic dim (a language model's
//             sequence: oneDNN cannot pack weights for run-time rows), W
//             packed; or W read by other nodes too (a tied embedding table,
//             which packing would store twice), read in place ('f32_rows');
//             a float linear of static rows on a weight of its own (an
//             untied projection of the last position to the vocabulary),
//             or on a shared one of at most `max_shared_weight_copy_bytes`,
//             packed only with `static_shapes`, else left for the
//             backends;
//   int8 weight-only (Int8WeightOnlyConfig)
//             mul(mm(x2, to(t(Wq), f32)), flatten(to(s, f32))): q8, one scale per row;
//   int4 / int8 weight-only (IntxWeightOnlyConfig)
//             linear(x, dequantize_affine(Wq, [1, G], s, z, int8, lo, hi), b):
//             q4 for [-8, 7], q8 for [-128, 127], a zero point per group kept
//             only if one is not 0;
//   8da4w / 8da8w (Int8DynamicActivationIntxWeightConfig)
//             the same weights, x read through choose_qparams_affine (per
//             token, ASYMMETRIC, int8), quantize_affine and dequantize_affine:
//             activations 'int8_per_token', torchao's numerics.
// Weight-only forms keep float activations (PyTorch's numerics) unless
// `quantize_activations` asks for llama.cpp's: int8 per block of 32.
#include <cmath>
#include <optional>
#include <string>

#include "aot/ir/error.h"
#include "aot/passes/constant_weights.h"
#include "aot/passes/fuse_ops.h"
#include "aot/passes/lowering.h"
#include "aot/passes/pattern.h"
#include "aot/passes/provenance.h"
#include "kernels/tuned/linear.h"

namespace kiln::aot {
namespace {

using passes::AffineWeights;
using passes::call_args;
using passes::is_float;
using passes::drop_weight;
using passes::is_int_list;
using passes::node_of;
using passes::weight_of;
namespace tuned = kernels::tuned;

// Weights as the tuned kernels take them: [n, k] values, scales [n, groups].
struct Weights {
  tuned::LinearDesc desc;
  HostTensor values;  ///< float32 (f32) or int8
  std::vector<float> scales;
  std::vector<int8_t> zero_points;  ///< empty: none
  std::vector<Node*> sources;       ///< the nodes they came from
  /// Float weights other nodes read too: read in place, not packed.
  bool in_place = false;
};

std::optional<Weights> quantized_weights(const ExportedProgram& program, Node* node) {
  std::optional<AffineWeights> affine = passes::affine_weights(program, node);
  if (!affine) return std::nullopt;
  Weights w;
  w.desc.n = affine->n;
  w.desc.k = affine->k;
  w.desc.format = affine->bits == 4 ? tuned::WeightFormat::kQ4 : tuned::WeightFormat::kQ8;
  w.desc.group_size = affine->group;
  w.desc.zero_points = !affine->zero_points.empty();
  w.values = std::move(affine->values);
  w.scales = std::move(affine->scales);
  w.zero_points = std::move(affine->zero_points);
  w.sources = std::move(affine->nodes);
  return w;
}

// A float weight [n, k]: packed when `user` alone reads it, else read in
// place ('f32_rows': a tied embedding table stays one tensor).
std::optional<Weights> float_weights(const ExportedProgram& program, Node* node, const Node* user) {
  const HostTensor* t = weight_of(program, node);
  if (t == nullptr || t->dtype() != ScalarType::Float || t->rank() != 2 || !t->is_contiguous()) return std::nullopt;
  Weights w;
  w.desc.n = t->sizes()[0];
  w.desc.k = t->sizes()[1];
  w.desc.format = tuned::WeightFormat::kF32;
  w.in_place = !passes::only_read_by(node, user);
  if (!w.in_place) w.values = *t;
  w.sources = {node};
  return w;
}

bool has_dynamic_dim(const Node* node) {
  const auto* meta = std::get_if<TensorMeta>(&node->meta.val);
  return meta != nullptr && !meta->is_static();
}


// x read through torchao's per-token dynamic quantization:
// dequantize_affine(quantize_affine(x, B, s, z, int8, -128, 127), B, s, z, ...)
// with (s, z) = choose_qparams_affine(x, ASYMMETRIC, B, int8, -128, 127, eps, ...),
// B = [1, ..., 1, K]: x, the eps, and the nodes.
struct DynamicActivations {
  Node* input = nullptr;
  std::optional<double> eps;
  std::vector<Node*> nodes;
};

std::optional<DynamicActivations> per_token_activations(Node* dq) {
  const auto d = call_args(dq, "torchao::dequantize_affine.default");
  if (!d) return std::nullopt;
  Node* q = node_of(d->at(0));
  const auto qa = call_args(q, "torchao::quantize_affine.default");
  if (!qa || !passes::only_read_by(q, dq)) return std::nullopt;
  Node* x = node_of(qa->at(0));
  Node* scale = node_of(qa->at(2));
  Node* zero = node_of(qa->at(3));
  if (!is_float(x) || node_of(d->at(2)) != scale || node_of(d->at(3)) != zero) return std::nullopt;
  const TensorMeta& xm = x->meta.tensor();
  const auto k = xm.rank() > 0 ? xm.sizes.back().constant_value() : std::nullopt;
  if (!k) return std::nullopt;
  std::vector<int64_t> block(xm.rank(), 1);
  block.back() = *k;
  for (const auto* args : {&*d, &*qa}) {
    if (!is_int_list(args->at(1), block) || !args->at(5).is_int() || args->at(5).to_int() != -128 ||
        !args->at(6).is_int() || args->at(6).to_int() != 127) {
      return std::nullopt;
    }
  }
  // scale = getitem(cq, 0), zero point = getitem(cq, 1), cq read by them alone.
  if (scale == nullptr || zero == nullptr || scale->args().size() != 2 || zero->args().size() != 2) return std::nullopt;
  Node* cq = node_of(scale->args()[0]);
  const auto c = call_args(cq, "torchao::choose_qparams_affine.default");
  if (!c || node_of(zero->args()[0]) != cq || !scale->args()[1].is_int() || scale->args()[1].to_int() != 0 ||
      !zero->args()[1].is_int() || zero->args()[1].to_int() != 1 || node_of(c->at(0)) != x) {
    return std::nullopt;
  }
  if (!c->at(1).is_string() || c->at(1).to_string() != "ASYMMETRIC" || !is_int_list(c->at(2), block) ||
      !c->at(4).is_int() || c->at(4).to_int() != -128 || !c->at(5).is_int() || c->at(5).to_int() != 127) {
    return std::nullopt;
  }
  for (Node* item : {scale, zero}) {
    for (const Node* reader : passes::readers(item)) {
      if (reader != q && reader != dq) return std::nullopt;
    }
  }
  DynamicActivations a;
  a.input = x;
  if (c->at(6).is_double()) a.eps = c->at(6).to_double();
  else if (!c->at(6).is_none()) return std::nullopt;
  a.nodes = {dq, q, scale, zero, cq};
  return a;
}

struct Linear {
  Node* anchor = nullptr;  ///< replaced by the fused call
  Node* input = nullptr;
  Argument bias = None{};
  Weights weights;
  std::string activations = "float";
  double eps = tuned::kTorchaoActivationEps;
  std::vector<Node*> pattern;
};

// linear(x, W, b) with W a float weight or dequantize_affine of one.
std::optional<Linear> match_linear_op(const ExportedProgram& program, Node* node, const KilnOpsOptions& options) {
  const auto args = call_args(node, "aten::linear.default");
  if (!args || !is_float(node)) return std::nullopt;
  Node* x = node_of(args->at(0));
  Node* w = node_of(args->at(1));
  if (x == nullptr || w == nullptr || !is_float(x)) return std::nullopt;
  if (!args->at(2).is_none() && !weight_of(program, node_of(args->at(2)))) return std::nullopt;
  Linear linear;
  linear.anchor = node;
  linear.input = x;
  linear.bias = args->at(2);
  std::optional<Weights> weights = quantized_weights(program, w);
  if (weights) {
    if (!passes::only_read_by(w, node)) return std::nullopt;
    if (std::optional<DynamicActivations> act = per_token_activations(x)) {
      if (!passes::only_read_by(x, node)) return std::nullopt;
      linear.input = act->input;
      linear.activations = "int8_per_token";
      if (act->eps) linear.eps = *act->eps;
      linear.pattern = act->nodes;
    }
  } else {
    // Static rows stay for the backends, if any, on a weight of their own
    // or on a shared one the partitioner copies into the delegate.
    if (!options.static_shapes && !has_dynamic_dim(x)) {
      const HostTensor* weight = weight_of(program, w);
      if (passes::only_read_by(w, node) ||
          (weight != nullptr && weight->nbytes() <= options.max_shared_weight_copy_bytes)) {
        return std::nullopt;
      }
    }
    weights = float_weights(program, w, node);
    if (!weights) return std::nullopt;
  }
  linear.weights = std::move(*weights);
  for (Node* source : linear.weights.sources) linear.pattern.push_back(source);
  return linear;
}

// reshape(x, [-1, K]) before a 2-D product and the reshape of its result
// back to x's leading dims: kiln::linear takes x as it is and gives the
// result its shape, so both go.
void absorb_flattening(Linear& linear, int64_t n) {
  const auto flat = call_args(linear.input, "aten::reshape.default");
  if (!flat || !passes::only_read_by(linear.input, linear.pattern.front())) return;
  Node* x = node_of(flat->at(0));
  const std::vector<Node*> readers = passes::readers(linear.anchor);
  if (x == nullptr || !is_float(x) || readers.size() != 1) return;
  Node* restore = readers.front();
  if (!call_args(restore, "aten::reshape.default")) return;
  std::vector<SymExpr> sizes = x->meta.tensor().sizes;
  sizes.back() = SymExpr::constant(n);
  if (!(restore->meta.tensor().sizes == sizes)) return;
  linear.pattern.push_back(linear.input);
  linear.pattern.push_back(linear.anchor);
  linear.input = x;
  linear.anchor = restore;
}

// mul(mm(x2, to(t(Wq), f32)), flatten(to(s, f32))): Int8WeightOnlyConfig's form.
std::optional<Linear> match_int8_weight_only(const ExportedProgram& program, Node* node) {
  const auto mul = call_args(node, "aten::mul.Tensor");
  if (!mul || !is_float(node)) return std::nullopt;
  Node* mm = node_of(mul->at(0));
  Node* flatten = node_of(mul->at(1));
  const auto product = call_args(mm, "aten::mm.default");
  const auto flat = call_args(flatten, "aten::flatten.using_ints");
  if (!product || !flat || !passes::only_read_by(mm, node) || !passes::only_read_by(flatten, node)) return std::nullopt;
  Node* x = node_of(product->at(0));
  Node* to_w = node_of(product->at(1));
  const auto cast_w = call_args(to_w, "aten::to.dtype");
  if (x == nullptr || !is_float(x) || !cast_w || !passes::only_read_by(to_w, mm)) return std::nullopt;
  Node* t = node_of(cast_w->at(0));
  const auto transposed = call_args(t, "aten::t.default");
  if (!transposed || !passes::only_read_by(t, to_w)) return std::nullopt;
  Node* qn = node_of(transposed->at(0));
  Node* to_s = node_of(flat->at(0));
  const auto cast_s = call_args(to_s, "aten::to.dtype");
  if (!cast_s || !passes::only_read_by(to_s, flatten)) return std::nullopt;
  Node* sn = node_of(cast_s->at(0));
  const HostTensor* q = weight_of(program, qn);
  const HostTensor* s = weight_of(program, sn);
  if (q == nullptr || s == nullptr || q->dtype() != ScalarType::Char || q->rank() != 2 || s->numel() != q->sizes()[0] ||
      !passes::only_read_by(qn, t) || !passes::only_read_by(sn, to_s)) {
    return std::nullopt;
  }
  Linear linear;
  linear.anchor = node;
  linear.input = x;
  linear.pattern = {mm, flatten, to_w, t, to_s, qn, sn};
  absorb_flattening(linear, q->sizes()[0]);
  linear.weights.desc.n = q->sizes()[0];
  linear.weights.desc.k = q->sizes()[1];
  linear.weights.desc.format = tuned::WeightFormat::kQ8;
  linear.weights.desc.group_size = q->sizes()[1];
  linear.weights.values = q->is_contiguous() ? *q : q->clone();
  for (double v : s->to_doubles()) linear.weights.scales.push_back(static_cast<float>(v));
  return linear;
}

const char* format_name(tuned::WeightFormat format) {
  return format == tuned::WeightFormat::kF32 ? "f32" : format == tuned::WeightFormat::kQ8 ? "q8" : "q4";
}

Node* rewrite(ExportedProgram& program, Linear& linear, bool quantize_activations) {
  Weights& w = linear.weights;
  if (linear.activations == "float" && quantize_activations && w.desc.format != tuned::WeightFormat::kF32) {
    linear.activations = "int8_block32";
  }
  if (w.in_place) {
    passes::Rewriter r(*linear.anchor);
    Node* fused = r.call("kiln::linear", {linear.input, w.sources.front(), linear.bias, w.desc.n, std::string("f32_rows"),
                                          int64_t{0}, false, std::string("float"), 0.0},
                         r.out());
    r.replace_with(fused);
    return fused;
  }
  const std::string where = passes::describe_node(*linear.anchor);
  if (tuned::check_linear(w.desc) != runtime::Error::Ok) {
    throw AotError(where + ": its weights do not fit Kiln's packed linear (the log says why)");
  }
  HostTensor packed = HostTensor::zeros(ScalarType::Byte, {static_cast<int64_t>(tuned::packed_linear_bytes(w.desc))});
  const runtime::Error packing = tuned::pack_linear(
      w.desc, w.values.data(), w.scales.empty() ? nullptr : w.scales.data(),
      w.zero_points.empty() ? nullptr : w.zero_points.data(),
      runtime::Span<uint8_t>(packed.data<uint8_t>(), static_cast<size_t>(packed.numel())));
  if (packing != runtime::Error::Ok) throw AotError(where + ": packing its weights failed (the log says why)");
  const std::string base = linear.anchor->name() + "_packed";
  TensorMeta meta(ScalarType::Byte, {SymExpr::constant(packed.numel())});
  Node* weight = lift_constant(program, base, base, meta, std::move(packed), *linear.anchor);
  passes::Rewriter r(*linear.anchor);
  Node* fused = r.call("kiln::linear",
                       {linear.input, weight, linear.bias, w.desc.n, std::string(format_name(w.desc.format)),
                        w.desc.group_size, w.desc.zero_points, linear.activations, linear.eps},
                       r.out());
  r.replace_with(fused);
  std::vector<Node*> placeholders;
  std::vector<Node*> calls;
  for (Node* node : linear.pattern) (node->is_placeholder() ? placeholders : calls).push_back(node);
  passes::erase_unused(program.graph(), calls);
  for (Node* node : placeholders) drop_weight(program, node);
  return fused;
}

}  // namespace

bool fuse_linear(ExportedProgram& program, const KilnOpsOptions& options) {
  const auto match = [&](Node* node) -> std::optional<Linear> {
    if (std::optional<Linear> linear = match_linear_op(program, node, options)) return linear;
    return match_int8_weight_only(program, node);
  };
  const bool changed = passes::rewrite_each_match<Linear>(
      program, match, [&](Linear& linear) { return rewrite(program, linear, options.quantize_activations); });
  if (changed) update_signature_from_graph(program);
  return changed;
}

}  // namespace kiln::aot
