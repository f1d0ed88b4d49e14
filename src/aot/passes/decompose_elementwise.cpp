// Decompositions of elementwise ops into the core ops that have kernels, with
// PyTorch's formulas (its decompositions and CPU kernels): the fused
// arithmetic (addcmul, lerp, logaddexp, xlogy, ...), the activations that are
// compositions (celu, selu, softplus, glu, log_sigmoid, the shrinks), the
// floating-point predicates (isfinite, isclose, ...), the dtype casts of the
// training IR and the copy export makes of a tensor literal (lift_fresh_copy).
#include <cmath>
#include <limits>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

constexpr double kPi = 3.14159265358979323846;

ScalarType dtype_of(Node* node) { return node->meta.tensor().dtype; }

bool is_floating(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16;
}

Node* scalar_like(Rewriter& r, Node* like, const Argument& value) { return r.op("aten::full_like", {like, value}); }

// c - x, where rsub (no meta rule of its own) would be.
Node* minus_from(Rewriter& r, double c, Node* x) { return r.op("aten::sub.Tensor", {r.op("aten::full_like", {x, c}), x}); }

Node* where_zero(Rewriter& r, Node* condition, Node* other) {
  return r.op("aten::where.self", {condition, scalar_like(r, other, int64_t{0}), other});
}

// addcmul / addcdiv(self, tensor1, tensor2, value): self + value * (t1 op t2).
void decompose_addc(Rewriter& r, const char* op) {
  Node* product = r.op(op, {r.arg(1), r.arg(2)});
  if (r.arg(3) != Argument(int64_t{1})) product = r.op("aten::mul.Scalar", {product, r.arg(3)});
  r.replace_with(r.op("aten::add.Tensor", {r.arg(0), product}));
}

// lerp(self, end, weight): self + w * (end - self) for |w| < 0.5, else
// end - (end - self) * (1 - w), as PyTorch's kernel keeps both ends exact.
void decompose_lerp(Rewriter& r, bool tensor_weight) {
  Node* self = r.tensor_arg(0);
  Node* diff = r.op("aten::sub.Tensor", {r.arg(1), self});
  if (!tensor_weight) {
    const double w = r.float_arg(2);
    if (std::abs(w) < 0.5) {
      r.replace_with(r.op("aten::add.Tensor", {self, r.op("aten::mul.Scalar", {diff, w})}));
    } else {
      r.replace_with(r.op("aten::sub.Tensor", {r.arg(1), r.op("aten::mul.Scalar", {diff, 1.0 - w})}));
    }
    return;
  }
  Node* w = r.tensor_arg(2);
  Node* low = r.op("aten::add.Tensor", {self, r.op("aten::mul.Tensor", {w, diff})});
  Node* one_minus = minus_from(r, 1.0, w);
  Node* high = r.op("aten::sub.Tensor", {r.arg(1), r.op("aten::mul.Tensor", {diff, one_minus})});
  Node* small = r.op("aten::lt.Scalar", {r.op("aten::abs", {w}), 0.5});
  r.replace_with(r.op("aten::where.self", {small, low, high}));
}

// logaddexp(a, b) = max + log1p(exp(-|a - b|)); equal infinities give
// themselves (their difference is NaN). logaddexp2 the same in base 2.
void decompose_logaddexp(Rewriter& r, bool base2) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  Node* high = r.op("aten::maximum", {a, b});
  Node* gap = r.op("aten::neg", {r.op("aten::abs", {r.op("aten::sub.Tensor", {a, b})})});
  Node* tail = base2 ? r.op("aten::div.Scalar", {r.op("aten::log1p", {r.op("aten::pow.Scalar", {2.0, gap})}), std::log(2.0)})
                     : r.op("aten::log1p", {r.op("aten::exp", {gap})});
  Node* sum = r.op("aten::add.Tensor", {high, tail});
  Node* same_inf = r.op("aten::logical_and", {r.op("aten::isinf", {a}), r.op("aten::eq.Tensor", {a, b})});
  r.replace_with(r.op("aten::where.self", {same_inf, a, sum}));
}

// logit(self, eps): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
void decompose_logit(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!r.arg(1).is_none()) x = r.op("aten::clamp", {x, r.float_arg(1), 1.0 - r.float_arg(1)});
  r.replace_with(r.op("aten::log", {r.op("aten::div.Tensor", {x, minus_from(r, 1.0, x)})}));
}

// xlogy(x, y): 0 where x == 0 (unless y is NaN), else x * log(y).
Node* xlogy(Rewriter& r, Node* x, Node* y) {
  Node* product = r.op("aten::mul.Tensor", {x, r.op("aten::log", {y})});
  Node* zero = where_zero(r, r.op("aten::eq.Scalar", {x, int64_t{0}}), product);
  Node* nan = r.op("aten::full_like", {zero, std::numeric_limits<double>::quiet_NaN()});
  return r.op("aten::where.self", {r.op("aten::isnan", {y}), nan, zero});
}

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
void decompose_sinc(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!is_floating(dtype_of(x))) x = r.op("aten::_to_copy", {x}, {{"dtype", r.out().dtype}});
  Node* pix = r.op("aten::mul.Scalar", {x, kPi});
  Node* ratio = r.op("aten::div.Tensor", {r.op("aten::sin", {pix}), pix});
  r.replace_with(r.op("aten::where.self", {r.op("aten::eq.Scalar", {x, int64_t{0}}), scalar_like(r, ratio, 1.0), ratio}));
}

// heaviside(self, values): values where self == 0, else self > 0 as a number.
void decompose_heaviside(Rewriter& r) {
  Node* self = r.tensor_arg(0);
  Node* step = r.op("aten::_to_copy", {r.op("aten::gt.Scalar", {self, int64_t{0}})}, {{"dtype", r.out().dtype}});
  r.replace_with(r.op("aten::where.self", {r.op("aten::eq.Scalar", {self, int64_t{0}}), r.arg(1), step}));
}

// softplus(x, beta, threshold): x where beta * x > threshold, else log1p(exp(beta x)) / beta.
void decompose_softplus(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* scaled = r.op("aten::mul.Scalar", {x, r.arg(1)});
  Node* soft = r.op("aten::div.Scalar", {r.op("aten::log1p", {r.op("aten::exp", {scaled})}), r.arg(1)});
  r.replace_with(r.op("aten::where.self", {r.op("aten::gt.Scalar", {scaled, r.arg(2)}), x, soft}));
}

// log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)).
Node* log_sigmoid(Rewriter& r, Node* x) {
  Node* low = r.op("aten::clamp", {x, None{}, int64_t{0}});
  return r.op("aten::sub.Tensor", {low, r.op("aten::log1p", {r.op("aten::exp", {r.op("aten::neg", {r.op("aten::abs", {x})})})})});
}

// nan_to_num(self, nan, posinf, neginf): NaN to `nan` (0), infinities to
// the given values or the dtype's largest and lowest finite numbers.
void decompose_nan_to_num(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!is_floating(dtype_of(x))) {
    r.replace_with(r.op("aten::clone", {x}));
    return;
  }
  double largest = std::numeric_limits<float>::max();
  if (dtype_of(x) == ScalarType::Double) largest = std::numeric_limits<double>::max();
  if (dtype_of(x) == ScalarType::Half) largest = 65504.0;
  if (dtype_of(x) == ScalarType::BFloat16) largest = 3.3895313892515355e38;
  const double nan = r.arg(1).is_none() ? 0.0 : r.float_arg(1);
  const double posinf = r.arg(2).is_none() ? largest : r.float_arg(2);
  const double neginf = r.arg(3).is_none() ? -largest : r.float_arg(3);
  Node* y = r.op("aten::where.self", {r.op("aten::isnan", {x}), scalar_like(r, x, nan), x});
  y = r.op("aten::where.self", {r.op("aten::eq.Scalar", {x, std::numeric_limits<double>::infinity()}), scalar_like(r, x, posinf), y});
  y = r.op("aten::where.self", {r.op("aten::eq.Scalar", {x, -std::numeric_limits<double>::infinity()}), scalar_like(r, x, neginf), y});
  r.replace_with(y);
}

Node* all_true(Rewriter& r, Node* like) { return r.op("aten::full_like", {like, true}, {{"dtype", ScalarType::Bool}}); }

// isfinite: |x| < inf (false for NaN too); integers are all finite.
void decompose_isfinite(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  if (!is_floating(dtype_of(x))) {
    r.replace_with(all_true(r, x));
    return;
  }
  r.replace_with(r.op("aten::lt.Scalar", {r.op("aten::abs", {x}), std::numeric_limits<double>::infinity()}));
}

// isclose(a, b, rtol, atol, equal_nan): a == b, or |a - b| finite and
// <= atol + rtol |b|; NaN equals NaN with equal_nan.
void decompose_isclose(Rewriter& r) {
  Node* a = r.tensor_arg(0);
  Node* b = r.tensor_arg(1);
  Node* close = r.op("aten::eq.Tensor", {a, b});
  if (r.bool_arg(4)) {
    close = r.op("aten::logical_or", {close, r.op("aten::logical_and", {r.op("aten::isnan", {a}), r.op("aten::isnan", {b})})});
  }
  if (!is_floating(dtype_of(a)) && !is_floating(dtype_of(b)) && r.float_arg(2) == 0 && r.float_arg(3) == 0) {
    r.replace_with(close);
    return;
  }
  Node* actual = r.op("aten::abs", {r.op("aten::sub.Tensor", {a, b})});
  Node* allowed = r.op("aten::add.Scalar", {r.op("aten::mul.Scalar", {r.op("aten::abs", {b}), r.arg(2)}), r.arg(3)});
  Node* within = r.op("aten::logical_and", {r.op("aten::lt.Scalar", {actual, std::numeric_limits<double>::infinity()}),
                                            r.op("aten::le.Tensor", {actual, allowed})});
  r.replace_with(r.op("aten::logical_or", {close, within}));
}

// float_power: pow in float64.
Node* as_double(Rewriter& r, const Argument& value) {
  if (!value.is_node()) return nullptr;
  return r.op("aten::_to_copy", {value}, {{"dtype", ScalarType::Double}});
}

// A tensor literal's copy (lift_fresh_copy) and the literal itself (lift_fresh).
void decompose_lift_fresh_copy(Rewriter& r) { r.replace_with(r.op("aten::clone", {r.arg(0)})); }

void decompose_cast(Rewriter& r, ScalarType dtype) { r.replace_with(r.op("aten::_to_copy", {r.arg(0)}, {{"dtype", dtype}})); }

void add_arithmetic(DecompositionTable& t) {
  t["aten::addcmul.default"] = [](Rewriter& r) { decompose_addc(r, "aten::mul.Tensor"); };
  t["aten::addcdiv.default"] = [](Rewriter& r) { decompose_addc(r, "aten::div.Tensor"); };
  t["aten::lerp.Scalar"] = [](Rewriter& r) { decompose_lerp(r, false); };
  t["aten::lerp.Tensor"] = [](Rewriter& r) { decompose_lerp(r, true); };
  t["aten::logaddexp.default"] = [](Rewriter& r) { decompose_logaddexp(r, false); };
  t["aten::logaddexp2.default"] = [](Rewriter& r) { decompose_logaddexp(r, true); };
  t["aten::logit.default"] = decompose_logit;
  t["aten::xlogy.Tensor"] = [](Rewriter& r) { r.replace_with(xlogy(r, r.tensor_arg(0), r.tensor_arg(1))); };
  t["aten::xlogy.Scalar_Other"] = [](Rewriter& r) {
    r.replace_with(xlogy(r, r.tensor_arg(0), r.op("aten::full_like", {r.arg(0), r.arg(1)}, {{"dtype", r.out().dtype}})));
  };
  t["aten::sinc.default"] = decompose_sinc;
  t["aten::deg2rad.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::mul.Scalar", {r.arg(0), kPi / 180.0})); };
  t["aten::rad2deg.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::mul.Scalar", {r.arg(0), 180.0 / kPi})); };
  t["aten::frac.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::sub.Tensor", {r.arg(0), r.op("aten::trunc", {r.arg(0)})}));
  };
  t["aten::heaviside.default"] = decompose_heaviside;
  t["aten::square.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::mul.Tensor", {r.arg(0), r.arg(0)})); };
  t["aten::rsub.Tensor"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::sub.Tensor", {r.arg(1), r.arg(0)}, {{"alpha", r.arg(2)}}));
  };
  t["aten::rsub.Scalar"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::sub.Tensor", {r.op("aten::full_like", {r.arg(0), r.arg(1)}, {{"dtype", r.out().dtype}}), r.arg(0)},
                        {{"alpha", r.arg(2)}}));
  };
  t["aten::sgn.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::sign", {r.arg(0)})); };
  t["aten::floor_divide.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::div.Tensor_mode", {r.arg(0), r.arg(1)}, {{"rounding_mode", std::string("floor")}}));
  };
  t["aten::floor_divide.Scalar"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::div.Scalar_mode", {r.arg(0), r.arg(1)}, {{"rounding_mode", std::string("floor")}}));
  };
  t["aten::float_power.Tensor_Tensor"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::pow.Tensor_Tensor", {as_double(r, r.arg(0)), as_double(r, r.arg(1))}));
  };
  t["aten::float_power.Tensor_Scalar"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::pow.Tensor_Scalar", {as_double(r, r.arg(0)), r.float_arg(1)}));
  };
  t["aten::float_power.Scalar"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::pow.Scalar", {r.float_arg(0), as_double(r, r.arg(1))}));
  };
  t["aten::clamp_min.Tensor"] = [](Rewriter& r) { r.replace_with(r.op("aten::clamp.Tensor", {r.arg(0), r.arg(1)})); };
  t["aten::clamp_max.Tensor"] = [](Rewriter& r) { r.replace_with(r.op("aten::clamp.Tensor", {r.arg(0), None{}, r.arg(1)})); };
}

void add_activations(DecompositionTable& t) {
  t["aten::hardshrink.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    r.replace_with(where_zero(r, r.op("aten::le.Scalar", {r.op("aten::abs", {x}), r.arg(1)}), x));
  };
  t["aten::softshrink.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    const double lambd = r.float_arg(1);
    Node* shrunk = r.op("aten::sub.Tensor", {x, r.op("aten::mul.Scalar", {r.op("aten::sign", {x}), lambd})});
    r.replace_with(where_zero(r, r.op("aten::le.Scalar", {r.op("aten::abs", {x}), lambd}), shrunk));
  };
  t["aten::celu.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::elu", {r.arg(0), r.arg(1), 1.0, 1.0 / r.float_arg(1)}));
  };
  t["aten::selu.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::elu", {r.arg(0), 1.6732632423543772848170429916717, 1.0507009873554804934193349852946}));
  };
  t["aten::relu6.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::hardtanh", {r.arg(0), 0.0, 6.0})); };
  t["aten::softplus.default"] = decompose_softplus;
  t["aten::threshold.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    r.replace_with(r.op("aten::where.self", {r.op("aten::le.Scalar", {x, r.arg(1)}), scalar_like(r, x, r.arg(2)), x}));
  };
  t["aten::glu.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    const TensorMeta& meta = x->meta.tensor();
    const int64_t dim = normalize_dim(r.int_arg(1), meta.rank(), "glu");
    const std::optional<int64_t> size = meta.sizes.at(static_cast<size_t>(dim)).constant_value();
    if (!size || *size % 2 != 0) r.fail("glu halves dim " + std::to_string(dim) + " of " + meta.to_string() + ": it needs an even static size");
    Node* a = r.op("aten::slice.Tensor", {x, dim, 0, *size / 2});
    Node* b = r.op("aten::slice.Tensor", {x, dim, *size / 2, *size});
    r.replace_with(r.op("aten::mul.Tensor", {a, r.op("aten::sigmoid", {b})}));
  };
  t["aten::log_sigmoid.default"] = [](Rewriter& r) { r.replace_with(log_sigmoid(r, r.tensor_arg(0))); };
  // The buffer is for the backward pass: an empty tensor, as on CPU.
  t["aten::log_sigmoid_forward.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    r.replace_with_items({log_sigmoid(r, x), r.op("aten::full", {ArgumentList{int64_t{0}}, 0.0}, {{"dtype", dtype_of(x)}})});
  };
}

void add_predicates(DecompositionTable& t) {
  t["aten::nan_to_num.default"] = decompose_nan_to_num;
  t["aten::isfinite.default"] = decompose_isfinite;
  t["aten::isposinf.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::eq.Scalar", {r.arg(0), std::numeric_limits<double>::infinity()}));
  };
  t["aten::isneginf.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::eq.Scalar", {r.arg(0), -std::numeric_limits<double>::infinity()}));
  };
  t["aten::isreal.default"] = [](Rewriter& r) { r.replace_with(all_true(r, r.tensor_arg(0))); };
  t["aten::isclose.default"] = decompose_isclose;
  t["aten::where.Scalar"] = [](Rewriter& r) {
    Node* condition = r.tensor_arg(0);
    const KwargList dtype = {{"dtype", r.out().dtype}};
    r.replace_with(r.op("aten::where.self", {condition, r.op("aten::full_like", {condition, r.arg(1)}, dtype),
                                             r.op("aten::full_like", {condition, r.arg(2)}, dtype)}));
  };
  t["aten::masked_fill.Tensor"] = [](Rewriter& r) {
    Node* self = r.tensor_arg(0);
    Node* value = r.op("aten::_to_copy", {r.arg(2)}, {{"dtype", dtype_of(self)}});
    r.replace_with(r.op("aten::where.self", {r.arg(1), value, self}));
  };
}

}  // namespace

void add_elementwise_decompositions(DecompositionTable& t) {
  add_arithmetic(t);
  add_activations(t);
  add_predicates(t);
  t["aten::lift_fresh_copy.default"] = decompose_lift_fresh_copy;
  t["aten::lift_fresh.default"] = [](Rewriter& r) { r.replace_with(r.tensor_arg(0)); };
  const std::pair<const char*, ScalarType> casts[] = {
      {"Byte", ScalarType::Byte}, {"Char", ScalarType::Char}, {"Double", ScalarType::Double}, {"Float", ScalarType::Float},
      {"Half", ScalarType::Half}, {"Int", ScalarType::Int},   {"Long", ScalarType::Long},     {"Short", ScalarType::Short},
  };
  for (const auto& [name, dtype] : casts) {
    t[std::string("aten::_cast_") + name + ".default"] = [dtype](Rewriter& r) { decompose_cast(r, dtype); };
  }
}

}  // namespace kiln::aot::passes
