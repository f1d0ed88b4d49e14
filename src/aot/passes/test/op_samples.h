// Sample calls of ops with decomposition rules, for op_support_table_test:
// each builds its inputs and the call and returns what the program outputs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot::testing {

inline constexpr ScalarType kF32 = ScalarType::Float, kI32 = ScalarType::Int, kI64 = ScalarType::Long,
                            kBool = ScalarType::Bool, kC64 = ScalarType::ComplexFloat, kF64 = ScalarType::Double;

// A sample call of an op with a decomposition rule: builds its inputs and the
// call, returns the values the program outputs.
struct Sample {
  GraphBuilder b;
  int inputs = 0;

  Node* tensor(ScalarType dtype, std::vector<int64_t> sizes) {
    std::vector<SymExpr> symbolic;
    for (int64_t size : sizes) symbolic.push_back(SymExpr::constant(size));
    return b.input("in" + std::to_string(inputs++), TensorMeta(dtype, symbolic));
  }
  Node* f32(std::vector<int64_t> sizes) { return tensor(kF32, std::move(sizes)); }
  // The call, its meta inferred when the op has a rule, else `meta` as torch
  // records it (in a .pt2 the meta always comes with the node).
  Node* call(const std::string& op, ArgumentList args, ValueMeta meta, KwargList kwargs = {}) {
    if (has_meta_rule(op)) {
      Node* node = b.call(op, std::move(args), std::move(kwargs));
      EXPECT_EQ(to_string(node->meta.val), to_string(meta)) << op << ": its meta rule disagrees with torch";
      return node;
    }
    return testing::call_with_meta(b, op, std::move(args), std::move(meta), std::move(kwargs));
  }
  static TensorMeta meta(ScalarType dtype, std::vector<int64_t> sizes) { return TensorMeta(dtype, sizes); }
  static TensorMeta meta(std::vector<int64_t> sizes) { return TensorMeta(kF32, sizes); }
};

using SampleBuilder = std::function<std::vector<Node*>(Sample&)>;

inline std::vector<Node*> one(Node* node) { return {node}; }

using Sizes = std::vector<int64_t>;

// op(x) of a float tensor of `sizes`, returning `out`.
inline SampleBuilder unary(const std::string& op, Sizes sizes, TensorMeta out, ArgumentList extra = {}) {
  return [=](Sample& s) {
    ArgumentList args = {s.f32(sizes)};
    args.insert(args.end(), extra.begin(), extra.end());
    return one(s.call(op, args, out));
  };
}

// op(x, y) of two float tensors.
inline SampleBuilder binary(const std::string& op, Sizes a, Sizes b, TensorMeta out, ArgumentList extra = {}) {
  return [=](Sample& s) {
    ArgumentList args = {s.f32(a), s.f32(b)};
    args.insert(args.end(), extra.begin(), extra.end());
    return one(s.call(op, args, out));
  };
}

// The items of a call returning `metas`.
inline std::vector<Node*> items(Sample& s, Node* call, size_t n) {
  std::vector<Node*> values;
  for (size_t i = 0; i < n; ++i) values.push_back(s.b.getitem(call, static_cast<int64_t>(i)));
  return values;
}

/// The samples of decompose_conv, decompose_index and decompose_linalg.
void add_conv_index_linalg_samples(std::map<std::string, SampleBuilder>& samples);
/// The samples of decompose_resample, decompose_special and
/// decompose_quantile, and of _chunk_cat, the centred stft and istft.
void add_resample_special_samples(std::map<std::string, SampleBuilder>& samples);

/// Adds the samples of the training-IR ops decomposed by
/// decompose_{elementwise,reduce,shape}.cpp and the nn additions.
void add_training_ir_samples(std::map<std::string, SampleBuilder>& samples);

}  // namespace kiln::aot::testing
