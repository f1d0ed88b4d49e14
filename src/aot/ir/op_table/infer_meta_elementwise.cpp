// Meta rules of the elementwise ops: unary ops keep the input's sizes (and
// dtype, or move integers to float32), binary and ternary ops broadcast their
// operands and take PyTorch's result_type, comparisons and logical ops give
// bool, and in-place ops of the training IR keep `self`'s meta.
#include <algorithm>

#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {
namespace {

TensorMeta with_sizes(ScalarType dtype, std::vector<SymExpr> sizes) { return TensorMeta(dtype, std::move(sizes)); }

ValueMeta same_as_self(const Call& c) { return with_sizes(c.tensor(0).dtype, c.tensor(0).sizes); }

// sin, exp, sigmoid, ...: integers and bool compute in float32.
ValueMeta to_floating(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  return with_sizes(runtime::is_floating_type(self.dtype) ? self.dtype : ScalarType::Float, self.sizes);
}

ValueMeta not_bool(const Call& c, const std::string& what) {
  if (c.tensor(0).dtype == ScalarType::Bool) c.fail(what + " does not take a bool tensor");
  return same_as_self(c);
}

ValueMeta floating_only(const Call& c) {
  if (!runtime::is_floating_type(c.tensor(0).dtype)) {
    c.fail(std::string("expects a floating-point tensor, got ") + runtime::to_string(c.tensor(0).dtype));
  }
  return same_as_self(c);
}

ValueMeta leaky_relu(const Call& c) {
  const ScalarType dtype = c.tensor(0).dtype;
  if (dtype == ScalarType::Bool) c.fail("leaky_relu does not take a bool tensor");
  if (is_integral(dtype) && c.arg(1).is_double()) {
    c.fail(std::string("a float negative_slope cannot apply to a ") + runtime::to_string(dtype) + " tensor");
  }
  return same_as_self(c);
}

// clamp(self, Scalar? min, Scalar? max): the bounds take part in result_type.
ValueMeta clamp_scalar(const Call& c) {
  if (c.is_none(1) && c.is_none(2)) c.fail("at least one of min and max must be given");
  ResultType type(c);
  type.add_tensor(c.tensor(0));
  for (size_t i : {1u, 2u}) {
    if (!c.is_none(i)) type.add(c.arg(i));
  }
  return with_sizes(type.result(), c.tensor(0).sizes);
}

// clamp(self, Tensor? min, Tensor? max): all three broadcast.
ValueMeta clamp_tensor(const Call& c) {
  if (c.is_none(1) && c.is_none(2)) c.fail("at least one of min and max must be given");
  ResultType type(c);
  std::vector<std::vector<SymExpr>> shapes;
  for (size_t i : {0u, 1u, 2u}) {
    if (c.is_none(i)) continue;
    type.add(c.arg(i));
    shapes.push_back(shape_of(c, c.arg(i)));
  }
  return with_sizes(type.result(), broadcast_shapes(c, shapes));
}

enum class Result { Promoted, TrueDivide, Bool, Power, Bitwise };

// Two operands, either of which may be a number (self is one for pow.Scalar).
ValueMeta binary(const Call& c, Result kind) {
  ResultType type(c);
  type.add(c.arg(0));
  type.add(c.arg(1));
  ScalarType dtype = type.result();
  switch (kind) {
    case Result::TrueDivide:
      if (!runtime::is_floating_type(dtype)) dtype = ScalarType::Float;
      break;
    case Result::Bool:
      dtype = ScalarType::Bool;
      break;
    case Result::Power:
      if (dtype == ScalarType::Bool) dtype = ScalarType::Long;
      break;
    case Result::Bitwise:
      if (!is_integral(dtype)) c.fail(std::string("bitwise ops take integer or bool tensors, got ") + runtime::to_string(dtype));
      break;
    case Result::Promoted:
      break;
  }
  return with_sizes(dtype, broadcast_shapes(c, {shape_of(c, c.arg(0)), shape_of(c, c.arg(1))}));
}

// add and sub: alpha scales `other`; a float alpha needs a floating result.
ValueMeta add_or_sub(const Call& c, bool is_sub) {
  TensorMeta out = std::get<TensorMeta>(binary(c, Result::Promoted));
  if (is_sub && out.dtype == ScalarType::Bool) {
    c.fail("subtraction of bool tensors is not supported (use logical_xor)");
  }
  if (c.arg(2).is_double() && is_integral(out.dtype)) {
    c.fail("alpha " + to_string(c.arg(2)) + " is a float, but the result is " + runtime::to_string(out.dtype));
  }
  return out;
}

// div with rounding_mode: none is true division, trunc and floor keep result_type.
ValueMeta div_mode(const Call& c) {
  const auto mode = c.optional_string(2);
  if (mode && *mode != "trunc" && *mode != "floor") {
    c.fail("rounding_mode must be None, 'trunc' or 'floor', got '" + *mode + "'");
  }
  return binary(c, mode ? Result::Promoted : Result::TrueDivide);
}

ValueMeta where(const Call& c) {
  const TensorMeta& condition = c.tensor(0);
  if (condition.dtype != ScalarType::Bool) {
    c.fail(std::string("condition must be a bool tensor, got ") + runtime::to_string(condition.dtype));
  }
  ResultType type(c);
  type.add(c.arg(1));
  type.add(c.arg(2));
  return with_sizes(type.result(), broadcast_shapes(c, {condition.sizes, shape_of(c, c.arg(1)), shape_of(c, c.arg(2))}));
}

ValueMeta masked_fill(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& mask = c.tensor(1);
  if (mask.dtype != ScalarType::Bool) c.fail(std::string("mask must be a bool tensor, got ") + runtime::to_string(mask.dtype));
  return with_sizes(self.dtype, broadcast_shapes(c, {self.sizes, mask.sizes}));
}

// copy(self, src): self's meta; src must broadcast to self.
ValueMeta copy_into_self(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& src = c.tensor(1);
  if (!(broadcast_shapes(c, {self.sizes, src.sizes}) == self.sizes)) {
    c.fail("src " + src.to_string() + " does not broadcast to self " + self.to_string());
  }
  return same_as_self(c);
}

}  // namespace

void add_elementwise_rules(RuleTable& t) {
  for (const char* op : {"relu", "clone", "abs", "floor", "ceil", "round", "sign", "gelu", "silu", "hardswish",
                         "hardsigmoid", "alias_copy", "alias", "detach", "dropout", "trunc"}) {
    t[std::string("aten::") + op + ".default"] = same_as_self;
  }
  for (const char* op : {"sin", "cos", "tan", "tanh", "sigmoid", "exp", "log", "log1p", "sqrt", "rsqrt",
                         "reciprocal", "erf", "erfc", "lgamma", "mish", "asin", "acos", "atan", "sinh", "cosh",
                         "asinh", "acosh", "atanh", "expm1", "log2", "log10"}) {
    t[std::string("aten::") + op + ".default"] = to_floating;
  }
  t["aten::neg.default"] = [](const Call& c) { return not_bool(c, "negation"); };
  t["aten::hardtanh.default"] = [](const Call& c) { return not_bool(c, "hardtanh"); };
  t["aten::bitwise_not.default"] = [](const Call& c) {
    if (!is_integral(c.tensor(0).dtype)) c.fail("bitwise_not takes an integer or bool tensor");
    return same_as_self(c);
  };
  for (const char* op : {"aten::logical_not.default", "aten::isnan.default", "aten::isinf.default"}) {
    t[op] = [](const Call& c) { return ValueMeta(with_sizes(ScalarType::Bool, c.tensor(0).sizes)); };
  }
  t["aten::leaky_relu.default"] = leaky_relu;
  t["aten::elu.default"] = floating_only;
  t["aten::clamp.default"] = clamp_scalar;
  // clamp_min(self, min) and clamp_max(self, max): clamp with one bound.
  t["aten::clamp_min.default"] = [](const Call& c) {
    ResultType type(c);
    type.add_tensor(c.tensor(0));
    type.add(c.arg(1));
    return with_sizes(type.result(), c.tensor(0).sizes);
  };
  t["aten::clamp_max.default"] = t["aten::clamp_min.default"];
  t["aten::clamp.Tensor"] = clamp_tensor;

  t["aten::add.Tensor"] = [](const Call& c) { return add_or_sub(c, false); };
  t["aten::add.Scalar"] = [](const Call& c) { return add_or_sub(c, false); };
  t["aten::sub.Tensor"] = [](const Call& c) { return add_or_sub(c, true); };
  t["aten::sub.Scalar"] = [](const Call& c) { return add_or_sub(c, true); };
  for (const char* op : {"aten::mul.Tensor", "aten::mul.Scalar", "aten::minimum.default", "aten::maximum.default"}) {
    t[op] = [](const Call& c) { return binary(c, Result::Promoted); };
  }
  for (const char* op : {"aten::fmod.Tensor", "aten::fmod.Scalar", "aten::remainder.Tensor", "aten::remainder.Scalar"}) {
    t[op] = [](const Call& c) { return binary(c, Result::Promoted); };
  }
  t["aten::atan2.default"] = [](const Call& c) { return binary(c, Result::TrueDivide); };
  t["aten::div.Tensor"] = [](const Call& c) { return binary(c, Result::TrueDivide); };
  t["aten::div.Scalar"] = [](const Call& c) { return binary(c, Result::TrueDivide); };
  t["aten::div.Tensor_mode"] = div_mode;
  t["aten::div.Scalar_mode"] = div_mode;
  for (const char* op : {"aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar", "aten::pow.Scalar"}) {
    t[op] = [](const Call& c) { return binary(c, Result::Power); };
  }
  for (const char* op : {"aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Tensor",
                         "aten::bitwise_and.Scalar", "aten::bitwise_or.Scalar", "aten::bitwise_xor.Scalar"}) {
    t[op] = [](const Call& c) { return binary(c, Result::Bitwise); };
  }
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    for (const char* overload : {".Tensor", ".Scalar"}) {
      t[std::string("aten::") + op + overload] = [](const Call& c) { return binary(c, Result::Bool); };
    }
  }
  for (const char* op : {"aten::logical_and.default", "aten::logical_or.default", "aten::logical_xor.default"}) {
    t[op] = [](const Call& c) { return binary(c, Result::Bool); };
  }
  t["aten::fill.Scalar"] = same_as_self;
  t["aten::zero.default"] = same_as_self;
  t["aten::slice_scatter.default"] = same_as_self;
  t["aten::select_scatter.default"] = same_as_self;
  t["aten::where.self"] = where;
  t["aten::masked_fill.Scalar"] = masked_fill;

  t["aten::copy.default"] = copy_into_self;
  // In-place ops (relu_, add_.Tensor, ...) need no rules of their own:
  // infer_meta checks them with their functional op's (functional_of_inplace).
}

}  // namespace kiln::aot::meta
