// Meta rules of the ops that make tensors (full, zeros, arange, ...) and of
// dtype conversions: the dtype argument wins; without one, PyTorch's defaults
// (float32, or the dtype a fill value or the arange bounds imply).
#include <cmath>

#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {
namespace {

std::vector<SymExpr> checked_sizes(const Call& c, size_t i) {
  auto sizes = c.sym_list(i);
  for (const SymExpr& size : sizes) {
    if (const auto v = size.constant_value(); v && *v < 0) c.fail("sizes must not be negative, got " + to_string(c.arg(i)));
  }
  return sizes;
}

// The dtype a Python number implies: bool, int64 or float32.
ScalarType number_dtype(const Argument& value) {
  if (value.is_double()) return ScalarType::Float;
  if (value.is_bool()) return ScalarType::Bool;
  return ScalarType::Long;
}

ValueMeta full(const Call& c) {
  if (!is_number(c.arg(1))) c.fail(c.arg_name(1) + " must be a number, got " + to_string(c.arg(1)));
  return TensorMeta(c.dtype(2).value_or(number_dtype(c.arg(1))), checked_sizes(c, 0));
}

ValueMeta like(const Call& c, size_t dtype_arg) {
  const TensorMeta& self = c.tensor(0);
  return TensorMeta(c.dtype(dtype_arg).value_or(self.dtype), self.sizes);
}

// arange(start, end, step): ceil((end - start) / step) values.
ValueMeta arange(const Call& c, std::optional<size_t> start_arg, size_t end_arg, std::optional<size_t> step_arg,
                 size_t dtype_arg) {
  std::vector<Argument> bounds;
  bounds.push_back(start_arg ? c.arg(*start_arg) : Argument(int64_t{0}));
  bounds.push_back(c.arg(end_arg));
  bounds.push_back(step_arg ? c.arg(*step_arg) : Argument(int64_t{1}));
  bool floating = false;
  for (const Argument& bound : bounds) {
    if (!is_number(bound) || bound.is_bool()) c.fail("arange bounds must be numbers, got " + to_string(bound));
    floating = floating || bound.is_double();
  }
  const ScalarType dtype = c.dtype(dtype_arg).value_or(floating ? ScalarType::Float : ScalarType::Long);
  auto as_double = [](const Argument& a) { return a.is_double() ? a.to_double() : static_cast<double>(a.to_int()); };
  const bool symbolic = bounds[0].is_node() || bounds[1].is_node() || bounds[2].is_node();
  if (!symbolic) {
    const double step = as_double(bounds[2]);
    if (step == 0.0) c.fail("step must not be 0");
    const double count = std::ceil((as_double(bounds[1]) - as_double(bounds[0])) / step);
    if (!(count >= 0.0)) c.fail("the bounds " + to_string(bounds[0]) + ", " + to_string(bounds[1]) + " and step " + to_string(bounds[2]) + " are inconsistent");
    return TensorMeta(dtype, {SymExpr::constant(static_cast<int64_t>(count))});
  }
  if (floating) c.fail("symbolic arange bounds must be ints");
  const SymExpr start = c.sym(bounds[0]), end = c.sym(bounds[1]), step = c.sym(bounds[2]);
  const auto s = step.constant_value();
  if (!s || *s <= 0) c.fail("a symbolic arange needs a positive static step, got " + to_string(bounds[2]));
  return TensorMeta(dtype, {SymExpr::floordiv(end - start + step - SymExpr::constant(1), step)});
}

}  // namespace

void add_factory_rules(RuleTable& t) {
  t["aten::full.default"] = full;
  t["aten::zeros.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.dtype(1).value_or(ScalarType::Float), checked_sizes(c, 0))); };
  t["aten::ones.default"] = t["aten::zeros.default"];
  t["aten::empty.memory_format"] = t["aten::zeros.default"];
  t["aten::empty_strided.default"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(2).value_or(ScalarType::Float), checked_sizes(c, 0)));
  };
  t["aten::resize.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(0).dtype, checked_sizes(c, 1))); };
  t["aten::full_like.default"] = [](const Call& c) {
    if (!is_number(c.arg(1))) c.fail(c.arg_name(1) + " must be a number, got " + to_string(c.arg(1)));
    return like(c, 2);
  };
  t["aten::zeros_like.default"] = [](const Call& c) { return like(c, 1); };
  t["aten::ones_like.default"] = [](const Call& c) { return like(c, 1); };
  t["aten::_to_copy.default"] = [](const Call& c) { return like(c, 1); };
  t["aten::to.dtype"] = [](const Call& c) { return like(c, 1); };
  t["aten::type_as.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(1).dtype, c.tensor(0).sizes)); };
  t["aten::scalar_tensor.default"] = [](const Call& c) {
    if (!is_number(c.arg(0))) c.fail(c.arg_name(0) + " must be a number, got " + to_string(c.arg(0)));
    return ValueMeta(TensorMeta(c.dtype(1).value_or(ScalarType::Float), std::vector<SymExpr>{}));
  };
  t["aten::arange.start_step"] = [](const Call& c) { return arange(c, 0, 1, 2, 3); };
  t["aten::arange.start"] = [](const Call& c) { return arange(c, 0, 1, std::nullopt, 2); };
  t["aten::arange.default"] = [](const Call& c) { return arange(c, std::nullopt, 0, std::nullopt, 1); };
  // Sampling: float32 unless a dtype is given (randint: int64).
  t["aten::rand.default"] = t["aten::zeros.default"];
  t["aten::randn.default"] = t["aten::zeros.default"];
  t["aten::rand_like.default"] = [](const Call& c) { return like(c, 1); };
  t["aten::randn_like.default"] = [](const Call& c) { return like(c, 1); };
  t["aten::uniform.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(0).dtype, c.tensor(0).sizes)); };
  t["aten::randint.default"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(2).value_or(ScalarType::Long), checked_sizes(c, 1)));
  };
  t["aten::normal.float_float"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(4).value_or(ScalarType::Float), checked_sizes(c, 2)));
  };
  t["aten::normal_functional.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(0).dtype, c.tensor(0).sizes)); };
  t["aten::bernoulli.default"] = t["aten::normal_functional.default"];
  t["aten::bernoulli.p"] = t["aten::normal_functional.default"];
  t["aten::randperm.default"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(1).value_or(ScalarType::Long), std::vector<SymExpr>{c.sym(c.arg(0))}));
  };
  t["aten::randint.low"] = [](const Call& c) {
    return ValueMeta(TensorMeta(c.dtype(3).value_or(ScalarType::Long), checked_sizes(c, 2)));
  };
}

}  // namespace kiln::aot::meta
