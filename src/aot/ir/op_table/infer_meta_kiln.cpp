// Meta rules of Kiln's own ops (kiln_ops.def): the fused attention, RMS norm
// and rotary embedding that the lowering's fusion passes write.
#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {
namespace {

void expect_float(const Call& call, size_t i) {
  const TensorMeta& t = call.tensor(i);
  if (t.dtype != ScalarType::Float) call.fail(call.arg_name(i) + " must be float32, got " + t.to_string());
}

// query [..., H, L, E], key [..., Hkv, S, E], value [..., Hkv, S, Ev] -> [..., H, L, Ev].
ValueMeta sdpa(const Call& call) {
  const TensorMeta& q = call.tensor(0);
  const TensorMeta& k = call.tensor(1);
  const TensorMeta& v = call.tensor(2);
  for (size_t i = 0; i < 3; ++i) expect_float(call, i);
  const size_t n = q.rank();
  if (n < 3 || k.rank() != n || v.rank() != n) {
    call.fail("expects query, key and value of one rank >= 3, got " + q.to_string() + ", " + k.to_string() + ", " +
              v.to_string());
  }
  for (size_t d = 0; d + 3 < n; ++d) {
    if (!(q.sizes[d] == k.sizes[d]) || !(q.sizes[d] == v.sizes[d])) {
      call.fail("query, key and value differ in batch dim " + std::to_string(d));
    }
  }
  if (!(k.sizes[n - 3] == v.sizes[n - 3]) || !(k.sizes[n - 2] == v.sizes[n - 2]) || !(q.sizes[n - 1] == k.sizes[n - 1])) {
    call.fail("key " + k.to_string() + " and value " + v.to_string() + " do not fit query " + q.to_string());
  }
  const auto heads = q.sizes[n - 3].constant_value(), kv_heads = k.sizes[n - 3].constant_value();
  if (!heads || !kv_heads || *kv_heads <= 0 || *heads % *kv_heads != 0) {
    call.fail("query's heads must be a static multiple of key's, got " + q.to_string() + " and " + k.to_string());
  }
  if (const TensorMeta* mask = call.optional_tensor(3)) {
    if (mask->dtype != ScalarType::Bool && mask->dtype != ScalarType::Float) {
      call.fail("attn_mask must be bool or float32, got " + mask->to_string());
    }
    if (mask->rank() > n) call.fail("attn_mask " + mask->to_string() + " has more dims than the scores");
  }
  std::vector<SymExpr> sizes = q.sizes;
  sizes[n - 1] = v.sizes[n - 1];
  return TensorMeta(ScalarType::Float, sizes);
}

ValueMeta rms_norm(const Call& call) {
  expect_float(call, 0);
  const TensorMeta& input = call.tensor(0);
  if (input.rank() == 0) call.fail("expects an input with at least one dim, got " + input.to_string());
  if (const TensorMeta* weight = call.optional_tensor(1)) {
    if (weight->dtype != ScalarType::Float || weight->rank() != 1 || !(weight->sizes[0] == input.sizes.back())) {
      call.fail("weight " + weight->to_string() + " does not fit the last dim of " + input.to_string());
    }
  }
  return TensorMeta(ScalarType::Float, input.sizes);
}

ValueMeta rotary_embedding(const Call& call) {
  for (size_t i = 0; i < 3; ++i) expect_float(call, i);
  const TensorMeta& input = call.tensor(0);
  const auto embed = input.rank() > 0 ? input.sizes.back().constant_value() : std::nullopt;
  if (!embed || *embed % 2 != 0) call.fail("expects a static, even last dim, got " + input.to_string());
  const std::vector<SymExpr> sizes = broadcast_shapes(call, {input.sizes, call.tensor(1).sizes, call.tensor(2).sizes});
  if (sizes != input.sizes) call.fail("cos and sin must broadcast to the input " + input.to_string());
  return TensorMeta(ScalarType::Float, input.sizes);
}

// input [..., K] float32, weight the packed bytes (uint8, one dim) -> [..., out_features].
ValueMeta linear(const Call& call) {
  expect_float(call, 0);
  const TensorMeta& input = call.tensor(0);
  const TensorMeta& weight = call.tensor(1);
  if (input.rank() == 0) call.fail("expects an input with at least one dim, got " + input.to_string());
  const int64_t n = call.integer(3);
  const std::optional<std::string> format = call.optional_string(4);
  if (format == std::string("f32_rows")) {
    if (weight.dtype != ScalarType::Float || weight.rank() != 2 || !(weight.sizes[0] == SymExpr::constant(n)) ||
        !(weight.sizes[1] == input.sizes.back())) {
      call.fail("an 'f32_rows' weight must be float32 [out_features, in_features], got " + weight.to_string());
    }
  } else if (weight.dtype != ScalarType::Byte || weight.rank() != 1) {
    call.fail("weight must be the packed bytes (uint8, one dim), got " + weight.to_string());
  }
  if (n <= 0) call.fail("out_features must be positive, got " + std::to_string(n));
  if (const TensorMeta* bias = call.optional_tensor(2)) {
    if (bias->dtype != ScalarType::Float || bias->rank() != 1 || !(bias->sizes[0] == SymExpr::constant(n))) {
      call.fail("bias " + bias->to_string() + " is not one float32 per output feature");
    }
  }
  std::vector<SymExpr> sizes = input.sizes;
  sizes.back() = SymExpr::constant(n);
  return TensorMeta(ScalarType::Float, sizes);
}

ValueMeta gated_activation(const Call& call) {
  expect_float(call, 0);
  expect_float(call, 1);
  if (!(call.tensor(0).sizes == call.tensor(1).sizes)) {
    call.fail("gate " + call.tensor(0).to_string() + " and up " + call.tensor(1).to_string() + " differ in shape");
  }
  const std::optional<std::string> activation = call.optional_string(2);
  if (activation != std::string("silu") && activation != std::string("gelu") && activation != std::string("gelu_tanh")) {
    call.fail("activation must be 'silu', 'gelu' or 'gelu_tanh'");
  }
  return TensorMeta(ScalarType::Float, call.tensor(0).sizes);
}

}  // namespace

void add_kiln_rules(RuleTable& t) {
  t["kiln::gated_activation.default"] = gated_activation;
  t["kiln::linear.default"] = linear;
  t["kiln::sdpa.default"] = sdpa;
  t["kiln::rms_norm.default"] = rms_norm;
  t["kiln::rotary_embedding.default"] = rotary_embedding;
}

}  // namespace kiln::aot::meta
