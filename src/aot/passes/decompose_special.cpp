// Decompositions of the special functions that are compositions of the erf,
// erfc and lgamma kernels: gammaln as lgamma, the normal distribution's CDF
// (ndtr) and its log (log_ndtr), and the multivariate log-gamma (mvlgamma).
// Each keeps its tails: ndtr and log_ndtr read erfc, not 1 - erf, which
// cancels to 0 where the CDF is small.
#include <cmath>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kPi = 3.14159265358979323846;

Node* in_dtype(Rewriter& r, Node* x, ScalarType dtype) {
  return x->meta.tensor().dtype == dtype ? x : r.op("aten::_to_copy", {x}, {{"dtype", dtype}});
}

Node* times(Rewriter& r, Node* x, double c) { return r.op("aten::mul.Scalar", {x, c}); }
Node* plus(Rewriter& r, Node* x, double c) { return r.op("aten::add.Scalar", {x, c}); }

// ndtr(x) = erfc(-x / sqrt 2) / 2: exact in the lower tail, where torch's
// (1 + erf(x / sqrt 2)) / 2 gives 0 below x = -5.9 in float.
void decompose_ndtr(Rewriter& r) {
  Node* x = in_dtype(r, r.tensor_arg(0), r.out().dtype);
  r.replace_with(times(r, r.op("aten::erfc", {times(r, x, -kSqrtHalf)}), 0.5));
}

// log_ndtr(x), in float64 whatever the dtype (the float erfc underflows at
// x = -13): log1p(-erfc(x / sqrt 2) / 2) from x = -1 up, log(erfc(-x / sqrt 2)
// / 2) below, and below x = -30, where erfc nears float64's smallest numbers,
// the asymptotic series -x^2 / 2 - log(-x) - log(2 pi) / 2 + log(1 - 1/x^2 +
// 3/x^4 - 15/x^6 + 105/x^8 - 945/x^10), whose next term is under 2e-14 there.
void decompose_log_ndtr(Rewriter& r) {
  Node* x = in_dtype(r, r.tensor_arg(0), ScalarType::Double);
  Node* t = times(r, x, kSqrtHalf);
  Node* upper = r.op("aten::log1p", {times(r, r.op("aten::erfc", {t}), -0.5)});
  Node* lower = r.op("aten::log", {times(r, r.op("aten::erfc", {r.op("aten::neg", {t})}), 0.5)});
  Node* square = r.op("aten::mul.Tensor", {x, x});
  Node* z = r.op("aten::reciprocal", {square});
  Node* series = times(r, z, -945.0);  // 1 + series is the bracket, Horner's way
  for (const double coefficient : {105.0, -15.0, 3.0, -1.0}) series = r.op("aten::mul.Tensor", {z, plus(r, series, coefficient)});
  Node* head = plus(r, times(r, square, -0.5), -0.5 * std::log(2.0 * kPi));
  Node* tail = r.op("aten::sub.Tensor", {r.op("aten::log1p", {series}), r.op("aten::log", {r.op("aten::neg", {x})})});
  Node* y = r.op("aten::where.self", {r.op("aten::lt.Scalar", {x, -1.0}), lower, upper});
  y = r.op("aten::where.self", {r.op("aten::lt.Scalar", {x, -30.0}), r.op("aten::add.Tensor", {head, tail}), y});
  r.replace_with(in_dtype(r, y, r.out().dtype));
}

// mvlgamma(x, p) = p (p - 1) / 4 log(pi) + sum over j < p of lgamma(x - j / 2).
// torch refuses x <= (p - 1) / 2, a check of values: here those give lgamma's values.
void decompose_mvlgamma(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const ScalarType dtype = x->meta.tensor().dtype;
  if (dtype != ScalarType::Float && dtype != ScalarType::Double && dtype != ScalarType::Half && dtype != ScalarType::BFloat16) {
    r.fail("takes a floating-point tensor, got " + x->meta.tensor().to_string());
  }
  const int64_t p = r.int_arg(1);
  if (p < 1) r.fail("p must be at least 1, got " + std::to_string(p));
  Node* sum = r.op("aten::lgamma", {x});
  for (int64_t j = 1; j < p; ++j) {
    sum = r.op("aten::add.Tensor", {sum, r.op("aten::lgamma", {plus(r, x, -0.5 * static_cast<double>(j))})});
  }
  const double constant = static_cast<double>(p * (p - 1)) / 4.0 * std::log(kPi);
  r.replace_with(p == 1 ? sum : plus(r, sum, constant));
}

}  // namespace

void add_special_decompositions(DecompositionTable& t) {
  t["aten::special_gammaln.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::lgamma", {r.arg(0)})); };
  t["aten::special_ndtr.default"] = decompose_ndtr;
  t["aten::special_log_ndtr.default"] = decompose_log_ndtr;
  t["aten::mvlgamma.default"] = decompose_mvlgamma;
}

}  // namespace kiln::aot::passes
