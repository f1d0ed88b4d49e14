// fuse_embedding: an embedding of a table torchao quantized,
//   embedding(dequantize_affine(Wq, [1, G], s, z, int8, lo, hi), ids, ...),
// would dequantize the whole table at every call to read a few of its rows.
// It becomes ExecuTorch's quantized embedding lookup, which dequantizes the
// rows it reads: quantized_decomposed::embedding_byte for 8-bit values,
// embedding_4bit for 4-bit ones (packed two per byte, the high nibble first,
// each value plus 8, as ExecuTorch packs them), the scales per row (G the
// whole row) or per group, the zero points as the scales' dtype or none when
// all are 0. The table's placeholders are dropped when nothing else reads
// them. Runs on the training IR.
#include "aot/passes/constant_weights.h"
#include "aot/passes/fuse_ops.h"
#include "aot/passes/lowering.h"
#include "aot/passes/pattern.h"

namespace kiln::aot {
namespace {

using passes::AffineWeights;
using passes::call_args;
using passes::node_of;

struct Lookup {
  Node* embedding = nullptr;
  Node* indices = nullptr;
  AffineWeights table;
};

std::optional<Lookup> match_lookup(const ExportedProgram& program, Node* node) {
  const auto args = call_args(node, "aten::embedding.default");
  if (!args) return std::nullopt;
  Node* dq = node_of(args->at(0));
  Node* indices = node_of(args->at(1));
  if (dq == nullptr || indices == nullptr || !passes::only_read_by(dq, node)) return std::nullopt;
  std::optional<AffineWeights> table = passes::affine_weights(program, dq);
  if (!table || (table->bits == 4 && table->k % 2 != 0)) return std::nullopt;
  return Lookup{node, indices, std::move(*table)};
}

// ExecuTorch's 4-bit table: byte j of a row holds values 2j (high nibble)
// and 2j + 1 (low nibble), each plus 8.
HostTensor packed_4bit(const AffineWeights& t) {
  HostTensor packed = HostTensor::zeros(ScalarType::Byte, {t.n, t.k / 2});
  const int8_t* q = t.values.data<int8_t>();
  uint8_t* out = packed.data<uint8_t>();
  for (int64_t i = 0; i < t.n * t.k / 2; ++i) {
    out[i] = static_cast<uint8_t>(((q[2 * i] + 8) << 4) | (q[2 * i + 1] + 8));
  }
  return packed;
}

Node* lift(ExportedProgram& program, const Node& source, const std::string& suffix, HostTensor value) {
  const std::string name = source.name() + "_" + suffix;
  std::vector<SymExpr> sizes;
  for (int64_t size : value.sizes()) sizes.push_back(SymExpr::constant(size));
  TensorMeta meta(value.dtype(), sizes);
  return lift_constant(program, name, name, meta, std::move(value), source);
}

Node* rewrite(ExportedProgram& program, Lookup& lookup) {
  AffineWeights& t = lookup.table;
  const int64_t groups = t.k / t.group;
  HostTensor scales = groups == 1 ? HostTensor::zeros(ScalarType::Float, {t.n})
                                  : HostTensor::zeros(ScalarType::Float, {t.n, groups});
  std::copy(t.scales.begin(), t.scales.end(), scales.data<float>());
  Argument zero_points = None{};
  if (!t.zero_points.empty()) {
    HostTensor z = HostTensor::zeros(ScalarType::Float, scales.sizes());
    std::copy(t.zero_points.begin(), t.zero_points.end(), z.data<float>());
    zero_points = lift(program, *lookup.embedding, "zero_points", std::move(z));
  }
  Node* weight = lift(program, *lookup.embedding, "table", t.bits == 4 ? packed_4bit(t) : t.values);
  Node* scale_node = lift(program, *lookup.embedding, "scales", std::move(scales));
  const int64_t lo = t.bits == 4 ? -8 : -128, hi = t.bits == 4 ? 7 : 127;
  passes::Rewriter r(*lookup.embedding);
  Node* fused = r.call(t.bits == 4 ? "quantized_decomposed::embedding_4bit" : "quantized_decomposed::embedding_byte",
                       {weight, scale_node, zero_points, lo, hi, lookup.indices}, r.out());
  r.replace_with(fused);
  passes::erase_unused(program.graph(), {t.nodes.front()});
  for (size_t i = 1; i < t.nodes.size(); ++i) passes::drop_weight(program, t.nodes[i]);
  return fused;
}

}  // namespace

bool fuse_embedding(ExportedProgram& program) {
  const bool changed = passes::rewrite_each_match<Lookup>(
      program, [&](Node* node) { return match_lookup(program, node); },
      [&](Lookup& lookup) { return rewrite(program, lookup); });
  if (changed) update_signature_from_graph(program);
  return changed;
}

}  // namespace kiln::aot
