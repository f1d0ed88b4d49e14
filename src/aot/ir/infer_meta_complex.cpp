// Meta rules of the ops that make and take apart complex tensors: the FFT pair
// (_fft_r2c, _fft_c2r), view_as_real and view_as_complex (and their _copy
// twins), and abs, whose result for a complex tensor is real.
#include <string>
#include <vector>

#include "aot/ir/infer_meta_rules.h"

namespace kiln::aot::meta {

namespace {

bool is_complex(ScalarType type) { return type == ScalarType::ComplexFloat || type == ScalarType::ComplexDouble; }

// The type of a complex element's parts, and the complex type of a real one.
ScalarType real_part(ScalarType complex) {
  return complex == ScalarType::ComplexDouble ? ScalarType::Double : ScalarType::Float;
}
ScalarType complex_of(ScalarType real) {
  return real == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

// The dims an FFT transforms (argument 1), wrapped and distinct, at least one;
// and its normalization (argument 2) in [0, 2].
std::vector<size_t> transformed_dims(const Call& c, size_t rank) {
  const std::vector<size_t> dims = c.dims(c.int_list(1), rank);
  if (dims.empty()) c.fail("dim must name at least one dim");
  const int64_t normalization = c.integer(2);
  if (normalization < 0 || normalization > 2) {
    c.fail("normalization must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got " + std::to_string(normalization));
  }
  return dims;
}

// Float or double in, the matching complex type out; onesided keeps n / 2 + 1
// bins of the last transformed dim.
ValueMeta fft_r2c(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (self.dtype != ScalarType::Float && self.dtype != ScalarType::Double) {
    c.fail("takes a float or double tensor, got " + self.to_string());
  }
  const std::vector<size_t> dims = transformed_dims(c, self.rank());
  std::vector<SymExpr> sizes = self.sizes;
  if (c.boolean(3)) {
    SymExpr& last = sizes[dims.back()];
    last = SymExpr::floordiv(last, SymExpr::constant(2)) + 1;
  }
  return TensorMeta(complex_of(self.dtype), sizes);
}

// Complex in, its real type out; the last transformed dim, which holds
// last_dim_size / 2 + 1 bins, becomes last_dim_size.
ValueMeta fft_c2r(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!is_complex(self.dtype)) c.fail("takes a complex tensor, got " + self.to_string());
  const std::vector<size_t> dims = transformed_dims(c, self.rank());
  std::vector<SymExpr> sizes = self.sizes;
  const SymExpr n = c.sym_arg(3);
  const SymExpr bins = SymExpr::floordiv(n, SymExpr::constant(2)) + 1;
  const SymExpr& have = sizes[dims.back()];
  if (have.is_constant() && bins.is_constant() && !(have == bins)) {
    c.fail("dim " + std::to_string(dims.back()) + " of " + self.to_string() + " holds " + have.to_string() +
           " bins; a last_dim_size of " + n.to_string() + " takes " + bins.to_string());
  }
  sizes[dims.back()] = n;
  return TensorMeta(real_part(self.dtype), sizes);
}

ValueMeta view_as_real(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!is_complex(self.dtype)) c.fail("takes a complex tensor, got " + self.to_string());
  std::vector<SymExpr> sizes = self.sizes;
  sizes.push_back(SymExpr::constant(2));
  return TensorMeta(real_part(self.dtype), sizes);
}

ValueMeta view_as_complex(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (self.dtype != ScalarType::Float && self.dtype != ScalarType::Double) {
    c.fail("takes a float or double tensor, got " + self.to_string());
  }
  if (self.rank() == 0 || !(self.sizes.back() == SymExpr::constant(2))) {
    c.fail("takes a tensor whose last dim is 2 (real, imaginary), got " + self.to_string());
  }
  return TensorMeta(complex_of(self.dtype), std::vector<SymExpr>(self.sizes.begin(), self.sizes.end() - 1));
}

}  // namespace

void add_complex_rules(RuleTable& t) {
  t["aten::_fft_r2c.default"] = fft_r2c;
  t["aten::_fft_c2r.default"] = fft_c2r;
  for (const char* op : {"aten::view_as_real.default", "aten::view_as_real_copy.default"}) t[op] = view_as_real;
  for (const char* op : {"aten::view_as_complex.default", "aten::view_as_complex_copy.default"}) t[op] = view_as_complex;
  // abs keeps a real tensor's dtype (the elementwise family's rule) and gives
  // a complex one's magnitude in its real type.
  const Rule real_abs = t.at("aten::abs.default");
  t["aten::abs.default"] = [real_abs](const Call& c) -> ValueMeta {
    const TensorMeta& self = c.tensor(0);
    return is_complex(self.dtype) ? ValueMeta(TensorMeta(real_part(self.dtype), self.sizes)) : real_abs(c);
  };
}

}  // namespace kiln::aot::meta
