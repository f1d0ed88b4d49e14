// fuse_attention: the training IR's aten::scaled_dot_product_attention (no
// dropout, float32) becomes kiln::sdpa, whose kernel attends over the keys a
// query row may see only and reads grouped-query heads in place. A key or
// value repeated for grouped-query attention as transformers' repeat_kv
// writes it,
//   reshape(expand(unsqueeze(x, -3), [..., Hkv, n, S, E]), [..., Hkv * n, S, E]),
// is read as x itself (each of its heads serves n query heads), so the cache
// is never copied per step; with enable_gqa=True the key has fewer heads to
// begin with. The scale defaults to 1 / sqrt(E), as torch's. Runs before
// decomposition, which would otherwise spell the attention out in matmuls.
#include <cmath>
#include <optional>

#include "aot/passes/fuse_ops.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {
namespace {

using passes::call_args;
using passes::is_float;
using passes::node_of;

// `node` as repeat_kv(x) with its nodes, or `node` itself with none.
Node* unrepeated(Node* node, std::vector<Node*>& pattern) {
  const auto reshape = call_args(node, "aten::reshape.default");
  if (!reshape) return node;
  Node* expand = node_of(reshape->at(0));
  const auto expanded = call_args(expand, "aten::expand.default");
  if (!expanded || !passes::only_read_by(expand, node)) return node;
  Node* unsqueeze = node_of(expanded->at(0));
  const auto unsqueezed = call_args(unsqueeze, "aten::unsqueeze.default");
  if (!unsqueezed || !passes::only_read_by(unsqueeze, expand) || !unsqueezed->at(1).is_int()) return node;
  Node* x = node_of(unsqueezed->at(0));
  if (x == nullptr) return node;
  const TensorMeta& xm = x->meta.tensor();
  const TensorMeta& out = node->meta.tensor();
  const size_t n = xm.rank();
  if (n < 3 || out.rank() != n || passes::normalize_dim(unsqueezed->at(1).to_int(), n + 1, "unsqueeze") !=
                                       static_cast<int64_t>(n - 2)) {
    return node;
  }
  // [..., Hkv, 1, S, E] expanded to [..., Hkv, rep, S, E], then merged back to rank n.
  const TensorMeta& em = expand->meta.tensor();
  for (size_t d = 0; d < n; ++d) {
    const size_t e = d < n - 2 ? d : d + 1;
    if (!(em.sizes[e] == xm.sizes[d])) return node;
  }
  for (size_t d = 0; d + 3 < n; ++d) {
    if (!(out.sizes[d] == xm.sizes[d])) return node;
  }
  if (!(out.sizes[n - 2] == xm.sizes[n - 2]) || !(out.sizes[n - 1] == xm.sizes[n - 1])) return node;
  const auto heads = out.sizes[n - 3].constant_value(), kv_heads = xm.sizes[n - 3].constant_value();
  const auto repeats = em.sizes[n - 2].constant_value();
  if (!heads || !kv_heads || !repeats || *heads != *kv_heads * *repeats) return node;
  pattern.insert(pattern.end(), {node, expand, unsqueeze});
  return x;
}

struct Attention {
  Node* sdpa = nullptr;
  Node* key = nullptr;
  Node* value = nullptr;
  std::vector<Node*> pattern;
};

std::optional<Attention> match_attention(Node* node) {
  const auto args = call_args(node, "aten::scaled_dot_product_attention.default");
  if (!args || !is_float(node)) return std::nullopt;
  Node* q = node_of(args->at(0));
  Node* k = node_of(args->at(1));
  Node* v = node_of(args->at(2));
  if (!is_float(q) || !is_float(k) || !is_float(v) || !passes::is_number(args->at(4), 0.0)) return std::nullopt;
  const size_t n = q->meta.tensor().rank();
  if (n < 3 || k->meta.tensor().rank() != n || v->meta.tensor().rank() != n) return std::nullopt;
  if (!args->at(6).is_none() && !args->at(6).is_double()) return std::nullopt;
  if (!args->at(6).is_none() || q->meta.tensor().sizes.back().constant_value()) {
    Attention attention{node, k, v, {}};
    attention.key = unrepeated(k, attention.pattern);
    attention.value = unrepeated(v, attention.pattern);
    return attention;
  }
  return std::nullopt;  // the default scale needs a static embedding size
}

}  // namespace

bool fuse_attention(ExportedProgram& program, const KilnOpsOptions& options) {
  const auto match = [&](Node* node) {
    std::optional<Attention> attention = match_attention(node);
    return attention && fuses(options, *attention->sdpa) ? attention : std::nullopt;
  };
  return passes::rewrite_each_match<Attention>(program, match, [&](Attention& attention) {
    passes::Rewriter r(*attention.sdpa);
    const Node* q = r.tensor_arg(0);
    const double scale = r.arg(6).is_none()
                             ? 1.0 / std::sqrt(static_cast<double>(*q->meta.tensor().sizes.back().constant_value()))
                             : r.float_arg(6);
    Node* fused = r.call("kiln::sdpa", {r.arg(0), attention.key, attention.value, r.arg(3), r.arg(5), scale}, r.out());
    r.replace_with(fused);
    passes::erase_unused(program.graph(), attention.pattern);
    return fused;
  });
}

bool fuses(const KilnOpsOptions& options, const Node& anchor) {
  if (options.static_shapes) return true;
  const auto* meta = std::get_if<TensorMeta>(&anchor.meta.val);
  return meta != nullptr && !meta->is_static();
}

bool fuse_kiln_ops(ExportedProgram& program, const KilnOpsOptions& options) {
  if (program.dialect() == kTrainingDialect) {
    const bool attention = fuse_attention(program, options);
    const bool linears = fuse_linear(program, options);
    const bool lookups = fuse_embedding(program);
    return attention || linears || lookups;
  }
  const bool norms = fuse_rms_norm(program);
  const bool rotations = fuse_rotary_embedding(program);
  const bool gates = fuse_gated_activation(program, options);
  return norms || rotations || gates;
}

}  // namespace kiln::aot
