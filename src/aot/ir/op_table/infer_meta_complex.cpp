// Meta rules of the ops that make and take apart complex tensors: the FFT pair
// (_fft_r2c, _fft_c2r) and the training IR's real FFTs (fft_rfft, fft_irfft,
// their 2-D and n-D forms, stft, and hann_window beside them), view_as_real and
// view_as_complex (and their _copy twins), and abs, whose result for a complex
// tensor is real.
#include <string>
#include <vector>

#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {

namespace {

using runtime::complex_type_of;
using runtime::is_complex_type;
using runtime::real_type_of;

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
  return TensorMeta(complex_type_of(self.dtype), sizes);
}

// Complex in, its real type out; the last transformed dim, which holds
// last_dim_size / 2 + 1 bins, becomes last_dim_size.
ValueMeta fft_c2r(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!is_complex_type(self.dtype)) c.fail("takes a complex tensor, got " + self.to_string());
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
  return TensorMeta(real_type_of(self.dtype), sizes);
}

ValueMeta view_as_real(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!is_complex_type(self.dtype)) c.fail("takes a complex tensor, got " + self.to_string());
  std::vector<SymExpr> sizes = self.sizes;
  sizes.push_back(SymExpr::constant(2));
  return TensorMeta(real_type_of(self.dtype), sizes);
}

ValueMeta view_as_complex(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (self.dtype != ScalarType::Float && self.dtype != ScalarType::Double) {
    c.fail("takes a float or double tensor, got " + self.to_string());
  }
  if (self.rank() == 0 || !(self.sizes.back() == SymExpr::constant(2))) {
    c.fail("takes a tensor whose last dim is 2 (real, imaginary), got " + self.to_string());
  }
  return TensorMeta(complex_type_of(self.dtype), std::vector<SymExpr>(self.sizes.begin(), self.sizes.end() - 1));
}

// The real FFTs' input: float or double as itself, an integer or bool tensor
// as float (torch promotes them).
ScalarType signal_type(const Call& c, const TensorMeta& self, bool inverse) {
  if (inverse) {
    if (!is_complex_type(self.dtype)) c.fail("takes a complex tensor, got " + self.to_string());
    return real_type_of(self.dtype);
  }
  if (is_complex_type(self.dtype)) c.fail("takes a real tensor, got " + self.to_string());
  return self.dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

// fft_rfftn / fft_irfftn(self, s, dim, norm) and the 1-D and 2-D forms: the
// transformed dims (dim, else the last len(s), else all) take the lengths
// s gives (else their own; 2 * (bins - 1) for an inverse's last); a forward
// transform keeps n / 2 + 1 bins of its last.
ValueMeta real_fft(const Call& c, const Argument& s_arg, const Argument& dim_arg, bool inverse) {
  const TensorMeta& self = c.tensor(0);
  const ScalarType real = signal_type(c, self, inverse);
  std::vector<size_t> dims;
  std::vector<SymExpr> lengths;
  if (!s_arg.is_none()) {
    for (const Argument& length : s_arg.is_list() ? s_arg.list() : ArgumentList{s_arg}) lengths.push_back(c.sym(length));
  }
  if (!dim_arg.is_none()) {
    std::vector<int64_t> listed;
    for (const Argument& d : dim_arg.is_list() ? dim_arg.list() : ArgumentList{dim_arg}) {
      if (!d.is_int()) c.fail("dim must hold ints, got " + to_string(dim_arg));
      listed.push_back(d.to_int());
    }
    dims = c.dims(listed, self.rank());
  } else {
    const size_t count = s_arg.is_none() ? self.rank() : lengths.size();
    if (count > self.rank()) c.fail("s names more dims than " + self.to_string() + " has");
    for (size_t d = self.rank() - count; d < self.rank(); ++d) dims.push_back(d);
  }
  if (dims.empty()) c.fail("transforms no dims");
  if (!lengths.empty() && lengths.size() != dims.size()) c.fail("s and dim have different lengths");
  std::vector<SymExpr> sizes = self.sizes;
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool last = i + 1 == dims.size();
    SymExpr length = !lengths.empty() ? lengths[i]
                     : inverse && last ? (sizes[dims[i]] - 1) * 2
                                       : sizes[dims[i]];
    sizes[dims[i]] = !inverse && last ? SymExpr::floordiv(length, SymExpr::constant(2)) + 1 : length;
  }
  return TensorMeta(inverse ? real : complex_type_of(real), sizes);
}

// hann_window(window_length, [periodic,] dtype): [window_length], dtype or float.
ValueMeta hann_window(const Call& c, size_t dtype_arg) {
  return TensorMeta(c.dtype(dtype_arg).value_or(ScalarType::Float), {c.sym_arg(0)});
}

// stft(self, n_fft, hop_length, win_length, window, normalized, onesided,
// return_complex): [B,] bins, frames (and 2 parts when not return_complex).
ValueMeta stft(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (self.rank() != 1 && self.rank() != 2) c.fail("takes a [L] or [B, L] signal, got " + self.to_string());
  const ScalarType real = signal_type(c, self, false);
  const int64_t n_fft = c.integer(1);
  const int64_t hop = c.is_none(2) ? n_fft / 4 : c.integer(2);
  if (n_fft <= 0 || hop <= 0) c.fail("n_fft and hop_length must be positive");
  const bool onesided = c.is_none(6) || c.boolean(6);
  std::vector<SymExpr> sizes(self.sizes.begin(), self.sizes.end() - 1);
  sizes.push_back(SymExpr::constant(onesided ? n_fft / 2 + 1 : n_fft));
  sizes.push_back(SymExpr::floordiv(self.sizes.back() - n_fft, SymExpr::constant(hop)) + 1);
  const bool return_complex = !c.is_none(7) && c.boolean(7);
  if (!return_complex) sizes.push_back(SymExpr::constant(2));
  return TensorMeta(return_complex ? complex_type_of(real) : real, sizes);
}

}  // namespace

void add_complex_rules(RuleTable& t) {
  t["aten::fft_rfft.default"] = [](const Call& c) { return real_fft(c, c.arg(1), c.arg(2), false); };
  t["aten::fft_irfft.default"] = [](const Call& c) { return real_fft(c, c.arg(1), c.arg(2), true); };
  for (const char* op : {"aten::fft_rfft2.default", "aten::fft_rfftn.default"}) {
    t[op] = [](const Call& c) { return real_fft(c, c.arg(1), c.arg(2), false); };
  }
  for (const char* op : {"aten::fft_irfft2.default", "aten::fft_irfftn.default"}) {
    t[op] = [](const Call& c) { return real_fft(c, c.arg(1), c.arg(2), true); };
  }
  t["aten::hann_window.default"] = [](const Call& c) { return hann_window(c, 1); };
  t["aten::hann_window.periodic"] = [](const Call& c) { return hann_window(c, 2); };
  t["aten::stft.default"] = stft;
  t["aten::_fft_r2c.default"] = fft_r2c;
  t["aten::_fft_c2r.default"] = fft_c2r;
  for (const char* op : {"aten::view_as_real.default", "aten::view_as_real_copy.default"}) t[op] = view_as_real;
  for (const char* op : {"aten::view_as_complex.default", "aten::view_as_complex_copy.default"}) t[op] = view_as_complex;
  // abs keeps a real tensor's dtype (the elementwise family's rule) and gives
  // a complex one's magnitude in its real type.
  const Rule real_abs = t.at("aten::abs.default");
  t["aten::abs.default"] = [real_abs](const Call& c) -> ValueMeta {
    const TensorMeta& self = c.tensor(0);
    return is_complex_type(self.dtype) ? ValueMeta(TensorMeta(real_type_of(self.dtype), self.sizes)) : real_abs(c);
  };
}

}  // namespace kiln::aot::meta
