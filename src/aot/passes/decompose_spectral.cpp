// Decompositions of the FFT functions the training IR keeps (fft_rfft,
// fft_irfft and their 2-D and n-D forms) into the core pair _fft_r2c and
// _fft_c2r, as torch's own decompositions do: each transformed dim is first
// cut (slice) or zero-padded (constant_pad_nd) to the signal length asked for,
// and `norm` becomes c10's fft_norm_mode (0 none, 1 by sqrt(n), 2 by n).
// Also stft (frames by unfold, windowed, one _fft_r2c; centred, the signal
// padded first), istft (one _fft_c2r, windowed frames overlap-added by
// col2im) and hann_window (0.5 - 0.5 cos(2 pi k / N), as ATen computes it).
// And the real or imaginary part of a complex FFT (fft_fft, fft_fft2,
// fft_fftn) of a real tensor over one or two dims -- FNet's token mixing,
// fftn(x).real -- as products with cos and sin matrices: no complex values.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aot/ir/op_table/schema_binding.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// fft_norm_mode of `norm` ("backward", "ortho", "forward" or None, which is
// "backward") for a forward or an inverse transform.
int64_t norm_mode(Rewriter& r, const Argument& norm, bool inverse) {
  const std::string text = norm.is_none() ? "backward" : norm.is_string() ? norm.to_string() : "";
  if (text == "ortho") return 1;
  if (text == "backward") return inverse ? 2 : 0;
  if (text == "forward") return inverse ? 0 : 2;
  r.fail("norm must be \"backward\", \"ortho\", \"forward\" or None, got " + to_string(norm));
}

int64_t static_size(Rewriter& r, Node* x, size_t dim) {
  const TensorMeta& meta = x->meta.tensor();
  const auto size = meta.sizes.at(dim).constant_value();
  if (!size) r.fail("cannot transform dim " + std::to_string(dim) + " of " + meta.to_string() + ": its size is symbolic");
  return *size;
}

// `x` with dim `dim` cut or zero-padded at its end to `length`.
Node* resize_dim(Rewriter& r, Node* x, size_t dim, int64_t length) {
  if (length < 1) r.fail("the signal length must be at least 1, got " + std::to_string(length));
  const int64_t have = static_size(r, x, dim);
  if (length == have) return x;
  if (length < have) return r.op("aten::slice.Tensor", {x, static_cast<int64_t>(dim), int64_t{0}, length});
  const TensorMeta& meta = x->meta.tensor();
  if (meta.dtype == ScalarType::ComplexFloat || meta.dtype == ScalarType::ComplexDouble) {
    r.fail("zero-padding the complex " + meta.to_string() + " to " + std::to_string(length) + " bins along dim " +
           std::to_string(dim) + " is not supported");
  }
  // constant_pad_nd's pad list runs from the last dim backwards, (before, after) each.
  ArgumentList pad(2 * (meta.rank() - dim), Argument(int64_t{0}));
  pad.back() = Argument(length - have);
  return r.op("aten::constant_pad_nd", {x, std::move(pad), 0.0});
}

// The dims and signal lengths of an n-D transform: `dim_arg` (None: the last
// len(s) dims, or all dims) and `s_arg` (None: the input's lengths). An
// inverse (c2r) transform's default last length is 2 * (bins - 1).
struct Signal {
  std::vector<size_t> dims;
  std::vector<int64_t> lengths;
};

Signal signal_of(Rewriter& r, Node* x, const Argument& s_arg, const Argument& dim_arg, bool inverse) {
  const size_t rank = x->meta.tensor().rank();
  const std::string where = "node '" + r.node().name() + "'";
  std::vector<int64_t> s;
  if (!s_arg.is_none()) {
    for (const Argument& entry : s_arg.list()) {
      if (!entry.is_int()) r.fail("s must be a list of ints, got " + to_string(s_arg));
      s.push_back(entry.to_int());
    }
  }
  Signal signal;
  if (!dim_arg.is_none()) {
    for (const Argument& entry : dim_arg.list()) {
      if (!entry.is_int()) r.fail("dim must be a list of ints, got " + to_string(dim_arg));
      signal.dims.push_back(static_cast<size_t>(normalize_dim(entry.to_int(), rank, where)));
    }
  } else {
    const size_t count = s_arg.is_none() ? rank : s.size();
    if (count > rank) r.fail("s names " + std::to_string(count) + " dims of a " + std::to_string(rank) + "-D input");
    for (size_t d = rank - count; d < rank; ++d) signal.dims.push_back(d);
  }
  if (signal.dims.empty()) r.fail("transforms no dims");
  if (!s.empty() && s.size() != signal.dims.size()) {
    r.fail("s has " + std::to_string(s.size()) + " lengths for " + std::to_string(signal.dims.size()) + " dims");
  }
  for (size_t i = 0; i < signal.dims.size(); ++i) {
    const bool last = i + 1 == signal.dims.size();
    const int64_t have = static_size(r, x, signal.dims[i]);
    signal.lengths.push_back(!s.empty() ? s[i] : inverse && last ? 2 * (have - 1) : have);
  }
  return signal;
}

ArgumentList dim_list(const std::vector<size_t>& dims) {
  ArgumentList list;
  for (size_t d : dims) list.emplace_back(static_cast<int64_t>(d));
  return list;
}

// rfftn(self, s, dim, norm): each dim resized, one onesided _fft_r2c.
void real_to_complex(Rewriter& r, const Signal& signal, const Argument& norm) {
  Node* x = r.tensor_arg(0);
  for (size_t i = 0; i < signal.dims.size(); ++i) x = resize_dim(r, x, signal.dims[i], signal.lengths[i]);
  r.replace_with(r.op("aten::_fft_r2c", {x, dim_list(signal.dims), norm_mode(r, norm, false), true}));
}

// irfftn(self, s, dim, norm): the last dim cut to the n / 2 + 1 bins its
// length needs, the others to their lengths, one _fft_c2r.
void complex_to_real(Rewriter& r, const Signal& signal, const Argument& norm) {
  Node* x = r.tensor_arg(0);
  for (size_t i = 0; i < signal.dims.size(); ++i) {
    const bool last = i + 1 == signal.dims.size();
    x = resize_dim(r, x, signal.dims[i], last ? signal.lengths[i] / 2 + 1 : signal.lengths[i]);
  }
  r.replace_with(r.op("aten::_fft_c2r", {x, dim_list(signal.dims), norm_mode(r, norm, true), signal.lengths.back()}));
}

// fft_rfft / fft_irfft(self, n, dim, norm): the n-D forms over one dim.
Signal one_dim(Rewriter& r, bool inverse) {
  const Argument s = r.arg(1).is_none() ? Argument(None{}) : Argument(ArgumentList{r.arg(1)});
  return signal_of(r, r.tensor_arg(0), s, Argument(ArgumentList{r.arg(2)}), inverse);
}

// hann_window(window_length, periodic, dtype): arange(L) * (2 pi / N), cos,
// times -0.5, plus 0.5, with N = L for a periodic window and L - 1 otherwise.
void decompose_hann_window(Rewriter& r, bool periodic, const Argument& dtype) {
  const int64_t length = r.int_arg(0);
  if (length < 0) r.fail("window_length must be non-negative, got " + std::to_string(length));
  KwargList kwargs = {{"dtype", dtype.is_none() ? Argument(ScalarType::Float) : dtype}};
  if (length <= 1) {
    r.replace_with(r.op("aten::full", {ArgumentList{Argument(length)}, 1.0}, std::move(kwargs)));
    return;
  }
  const double n = static_cast<double>(periodic ? length : length - 1);
  Node* k = r.op("aten::arange.start_step", {int64_t{0}, length}, std::move(kwargs));
  Node* angle = r.op("aten::mul.Tensor", {k, 2.0 * M_PI / n});
  Node* scaled = r.op("aten::mul.Tensor", {r.op("aten::cos", {angle}), -0.5});
  r.replace_with(r.op("aten::add.Tensor", {scaled, 0.5}));
}

// The window of a frame of n_fft samples: `window` (None: ones of
// win_length) centred and zero-padded to n_fft, as stft and istft place it.
Node* frame_window(Rewriter& r, const Argument& window, int64_t n_fft, int64_t win_length, ScalarType dtype) {
  Node* w = window.is_none() ? r.op("aten::full", {ArgumentList{Argument(win_length)}, 1.0}, {{"dtype", dtype}}) : window.node();
  if (win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return r.op("aten::constant_pad_nd", {w, ArgumentList{Argument(left), Argument(n_fft - win_length - left)}, 0.0});
}

// stft(self, n_fft, hop_length, win_length, window, normalized, onesided,
// return_complex, align_to_window) of a [L] or [B, L] signal: frames of n_fft
// samples hop_length apart (unfold), times the window (centred and
// zero-padded to n_fft when shorter), one _fft_r2c over each frame
// (normalized: by 1 / sqrt(n_fft)), then [B, bins, frames].
void decompose_stft(Rewriter& r) {
  Node* signal = r.tensor_arg(0);
  const TensorMeta& input = signal->meta.tensor();
  if (input.rank() != 1 && input.rank() != 2) r.fail("takes a [L] or [B, L] signal, got " + input.to_string());
  if (input.dtype != ScalarType::Float && input.dtype != ScalarType::Double) {
    r.fail("takes a float or double signal, got " + input.to_string());
  }
  const int64_t n_fft = r.int_arg(1);
  const int64_t hop = r.arg(2).is_none() ? n_fft / 4 : r.int_arg(2);
  const int64_t win_length = r.arg(3).is_none() ? n_fft : r.int_arg(3);
  if (n_fft <= 0 || hop <= 0 || win_length <= 0 || win_length > n_fft) {
    r.fail("needs n_fft > 0, hop_length > 0 and 0 < win_length <= n_fft, got " + std::to_string(n_fft) + ", " +
           std::to_string(hop) + " and " + std::to_string(win_length));
  }
  if (!r.arg(8).is_none() && r.bool_arg(8)) r.fail("align_to_window=True is not supported");
  if (input.rank() == 1) signal = r.op("aten::unsqueeze", {signal, int64_t{0}});
  Node* frames = r.op("aten::unfold", {signal, int64_t{-1}, n_fft, hop});
  if (!r.arg(4).is_none()) {
    frames = r.op("aten::mul.Tensor", {frames, frame_window(r, r.arg(4), n_fft, win_length, input.dtype)});
  }
  const bool onesided = r.arg(6).is_none() ? true : r.bool_arg(6);
  const int64_t norm = r.bool_arg(5) ? 1 : 0;
  Node* spectrum = r.op("aten::_fft_r2c", {frames, ArgumentList{Argument(int64_t{2})}, norm, onesided});
  spectrum = r.op("aten::permute", {spectrum, ArgumentList{Argument(int64_t{0}), Argument(int64_t{2}), Argument(int64_t{1})}});
  if (input.rank() == 1) spectrum = r.op("aten::squeeze.dims", {spectrum, ArgumentList{Argument(int64_t{0})}});
  const bool return_complex = !r.arg(7).is_none() && r.bool_arg(7);
  r.replace_with(return_complex ? spectrum : r.op("aten::view_as_real", {spectrum}));
}

// stft.center(self, n_fft, hop_length, win_length, window, center, pad_mode,
// normalized, onesided, return_complex, align_to_window): with center, the
// signal padded by n_fft / 2 at both ends in pad_mode, then stft.
void decompose_stft_center(Rewriter& r) {
  Node* signal = r.tensor_arg(0);
  if (r.bool_arg(5)) {
    const TensorMeta& input = signal->meta.tensor();
    if (input.rank() != 1 && input.rank() != 2) r.fail("takes a [L] or [B, L] signal, got " + input.to_string());
    const int64_t half = r.int_arg(1) / 2;
    const std::string mode = r.arg(6).to_string();
    Node* rows = input.rank() == 1 ? r.op("aten::unsqueeze", {signal, int64_t{0}}) : signal;
    const ArgumentList pad = {half, half};
    if (mode == "reflect") rows = r.op("aten::reflection_pad1d", {rows, pad});
    else if (mode == "replicate") rows = r.op("aten::replication_pad1d", {rows, pad});
    else if (mode == "constant") rows = r.op("aten::constant_pad_nd", {rows, pad, 0.0});
    else r.fail("pad_mode must be \"reflect\", \"replicate\" or \"constant\", got " + to_string(r.arg(6)));
    signal = input.rank() == 1 ? r.op("aten::squeeze.dims", {rows, ArgumentList{int64_t{0}}}) : rows;
  }
  r.replace_with(r.op("aten::stft", {signal, r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(7), r.arg(8), r.arg(9), r.arg(10)}));
}

// Frames [B, n_fft, frames] added up hop samples apart: [B, n_fft + hop * (frames - 1)].
Node* overlap_add(Rewriter& r, Node* frames, int64_t n_fft, int64_t hop) {
  const std::vector<SymExpr>& sizes = frames->meta.tensor().sizes;
  const int64_t count = *sizes[2].constant_value(), length = n_fft + hop * (count - 1);
  Node* folded = r.op("aten::col2im", {frames, ArgumentList{int64_t{1}, length}, ArgumentList{int64_t{1}, n_fft},
                                       ArgumentList{int64_t{1}, int64_t{1}}, ArgumentList{int64_t{0}, int64_t{0}},
                                       ArgumentList{int64_t{1}, hop}});
  return r.op("aten::view", {folded, ArgumentList{r.sym_int(sizes[0], {frames}), length}});
}

// istft(self, n_fft, hop_length, win_length, window, center, normalized,
// onesided, length, return_complex) of a one-sided [bins, frames] or [B,
// bins, frames] spectrum: each frame's inverse real FFT (_fft_c2r), times the
// window, overlap-added (col2im), divided by the overlap-added squared window,
// cut to the signal (less n_fft / 2 at both ends when centred, or `length`
// samples, zero-padded past the frames' end).
void decompose_istft(Rewriter& r) {
  Node* spectrum = r.tensor_arg(0);
  const TensorMeta& input = spectrum->meta.tensor();
  if ((input.rank() != 2 && input.rank() != 3) || !input.is_static()) {
    r.fail("takes a static [bins, frames] or [B, bins, frames] spectrum, got " + input.to_string());
  }
  if (input.dtype != ScalarType::ComplexFloat && input.dtype != ScalarType::ComplexDouble) {
    r.fail("takes a complex spectrum, got " + input.to_string());
  }
  if (!r.arg(7).is_none() && !r.bool_arg(7)) r.fail("a two-sided spectrum needs a complex-to-complex FFT (Kiln's FFTs are real)");
  if (r.bool_arg(9)) r.fail("return_complex=True needs a complex-to-complex FFT (Kiln's FFTs are real)");
  const int64_t n_fft = r.int_arg(1);
  const int64_t hop = r.arg(2).is_none() ? n_fft / 4 : r.int_arg(2);
  const int64_t win_length = r.arg(3).is_none() ? n_fft : r.int_arg(3);
  if (n_fft <= 0 || hop <= 0 || win_length <= 0 || win_length > n_fft) {
    r.fail("needs n_fft > 0, hop_length > 0 and 0 < win_length <= n_fft, got " + std::to_string(n_fft) + ", " +
           std::to_string(hop) + " and " + std::to_string(win_length));
  }
  if (input.rank() == 2) spectrum = r.op("aten::unsqueeze", {spectrum, int64_t{0}});
  const std::vector<int64_t> sizes = spectrum->meta.tensor().static_sizes();
  if (sizes[1] != n_fft / 2 + 1) {
    r.fail("a one-sided spectrum of n_fft " + std::to_string(n_fft) + " has " + std::to_string(n_fft / 2 + 1) + " bins, got " +
           input.to_string());
  }
  const ScalarType real = r.out().dtype;
  Node* frames = r.op("aten::_fft_c2r", {r.op("aten::permute", {spectrum, ArgumentList{int64_t{0}, int64_t{2}, int64_t{1}}}),
                                         ArgumentList{int64_t{2}}, int64_t{r.bool_arg(6) ? 1 : 2}, n_fft});
  Node* window = frame_window(r, r.arg(4), n_fft, win_length, real);
  frames = r.op("aten::mul.Tensor", {frames, window});
  Node* signal = overlap_add(r, r.op("aten::permute", {frames, ArgumentList{int64_t{0}, int64_t{2}, int64_t{1}}}), n_fft, hop);
  Node* squares = r.op("aten::view", {r.op("aten::mul.Tensor", {window, window}), ArgumentList{int64_t{1}, n_fft, int64_t{1}}});
  squares = r.op("aten::expand", {squares, ArgumentList{int64_t{1}, n_fft, sizes[2]}});
  Node* envelope = overlap_add(r, squares, n_fft, hop);
  const int64_t total = n_fft + hop * (sizes[2] - 1);
  const int64_t start = r.bool_arg(5) ? n_fft / 2 : 0;
  const int64_t end = r.arg(8).is_none() ? (r.bool_arg(5) ? total - n_fft / 2 : total) : std::min(start + r.int_arg(8), total);
  const auto cut = [&](Node* x) { return r.op("aten::slice.Tensor", {x, int64_t{1}, start, end}); };
  // torch refuses an envelope below 1e-11 where it divides, a check of values: there the quotient is inf or NaN.
  signal = r.op("aten::div.Tensor", {cut(signal), cut(envelope)});
  if (!r.arg(8).is_none() && start + r.int_arg(8) > total) {
    signal = r.op("aten::constant_pad_nd", {signal, ArgumentList{int64_t{0}, start + r.int_arg(8) - total}, 0.0});
  }
  r.replace_with(input.rank() == 2 ? r.op("aten::squeeze.dims", {signal, ArgumentList{int64_t{0}}}) : signal);
}

// cos (or sin) of 2 pi (k n mod N) / N for k, n < N: an N x N float32
// matrix, the angles reduced exactly in int64 and taken in float64.
Node* dft_matrix(Rewriter& r, int64_t n, bool sine) {
  Node* k = r.op("aten::arange.start_step", {int64_t{0}, n}, {{"dtype", ScalarType::Long}});
  Node* kn = r.op("aten::mul.Tensor", {r.op("aten::view", {k, ints({n, 1})}), r.op("aten::view", {k, ints({1, n})})});
  Node* turns = r.op("aten::_to_copy", {r.op("aten::remainder.Scalar", {kn, n})}, {{"dtype", ScalarType::Double}});
  Node* angle = r.op("aten::mul.Tensor", {turns, 2.0 * M_PI / static_cast<double>(n)});
  return r.op("aten::_to_copy", {r.op(sine ? "aten::sin" : "aten::cos", {angle})}, {{"dtype", ScalarType::Float}});
}

// y[..., k, ...] = sum_n x[..., n, ...] m[n, k] along `dim`: the dim moved
// last, one mm, moved back.
Node* along(Rewriter& r, Node* x, size_t dim, Node* m) {
  const std::vector<int64_t> sizes = sizes_of(r, x);
  const size_t rank = sizes.size();
  std::vector<int64_t> order, moved;
  for (size_t d = 0; d < rank; ++d) {
    if (d != dim) order.push_back(static_cast<int64_t>(d));
  }
  order.push_back(static_cast<int64_t>(dim));
  for (int64_t d : order) moved.push_back(sizes[static_cast<size_t>(d)]);
  std::vector<int64_t> back(rank);
  for (size_t i = 0; i < rank; ++i) back[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  // Core ops only (a core program gets this rewrite too): a contiguous
  // copy of the permuted tensor, then views.
  Node* moved_last = r.op("aten::clone", {r.op("aten::permute", {x, ints(order)})}, {{"memory_format", MemoryFormat::Contiguous}});
  Node* rows = r.op("aten::view", {moved_last, ints({-1, sizes[dim]})});
  Node* product = r.op("aten::view", {r.op("aten::mm", {rows, m}), ints(moved)});
  return r.op("aten::permute", {product, ints(back)});
}

// The real and imaginary parts of the DFT of real `x` over one or two dims
// (sign -1 forward, +1 inverse), scaled by `scale`:
//   1 dim:  re = x C, im = sign x S
//   2 dims: re = (x C_b) C_a - (x S_b) S_a, im = sign ((x C_b) S_a + (x S_b) C_a)
// with C, S the cos and sin matrices of each dim's length. Null for a part
// not asked for.
struct Parts {
  Node* re = nullptr;
  Node* im = nullptr;
};

Parts dft_parts(Rewriter& r, Node* x, const Signal& signal, double sign, double scale, bool want_re, bool want_im) {
  if (signal.dims.size() > 2) r.fail("takes the part of an FFT over " + std::to_string(signal.dims.size()) + " dims; at most 2");
  if (x->meta.tensor().dtype != ScalarType::Float) x = r.op("aten::_to_copy", {x}, {{"dtype", ScalarType::Float}});
  const size_t b = signal.dims.back();
  Node* cos_b = dft_matrix(r, signal.lengths.back(), false);
  Node* sin_b = dft_matrix(r, signal.lengths.back(), true);
  Parts parts;
  if (signal.dims.size() == 1) {
    if (want_re) parts.re = along(r, x, b, cos_b);
    if (want_im) parts.im = r.op("aten::mul.Tensor", {along(r, x, b, sin_b), sign});
  } else {
    const size_t a = signal.dims.front();
    Node* cos_a = dft_matrix(r, signal.lengths.front(), false);
    Node* sin_a = dft_matrix(r, signal.lengths.front(), true);
    Node* xc = along(r, x, b, cos_b);
    Node* xs = along(r, x, b, sin_b);
    if (want_re) parts.re = r.op("aten::sub.Tensor", {along(r, xc, a, cos_a), along(r, xs, a, sin_a)});
    if (want_im) {
      parts.im = r.op("aten::mul.Tensor", {r.op("aten::add.Tensor", {along(r, xc, a, sin_a), along(r, xs, a, cos_a)}), sign});
    }
  }
  if (scale != 1.0) {
    if (parts.re != nullptr) parts.re = r.op("aten::mul.Tensor", {parts.re, scale});
    if (parts.im != nullptr) parts.im = r.op("aten::mul.Tensor", {parts.im, scale});
  }
  return parts;
}

double norm_scale(const Signal& signal, int64_t mode) {
  double count = 1;
  for (int64_t length : signal.lengths) count *= static_cast<double>(length);
  return mode == 1 ? 1.0 / std::sqrt(count) : mode == 2 ? 1.0 / count : 1.0;
}

bool is_real_tensor(const Node* x) {
  return x != nullptr && std::holds_alternative<TensorMeta>(x->meta.val) &&
         (x->meta.tensor().dtype == ScalarType::Float || x->meta.tensor().dtype == ScalarType::Double);
}

// real(fft) or imag(fft) of a real tensor (fft_fft, fft_fft2, fft_fftn).
void part_of_fft(Rewriter& r, bool imaginary) {
  Node* fft = r.tensor_arg(0);
  const std::string op = fft->is_call_function() ? fft->target() : "";
  const bool one = op == "aten::fft_fft.default", two = op == "aten::fft_fft2.default", many = op == "aten::fft_fftn.default";
  if (!one && !two && !many) r.fail("takes the part of " + fft->name() + ", not of an FFT of a real tensor");
  const std::vector<Argument> args = bind_node_arguments(*fft);
  Node* x = args.at(0).is_node() ? args[0].node() : nullptr;
  if (!is_real_tensor(x)) r.fail("transforms a complex tensor; Kiln's FFTs are of real ones");
  Signal signal;
  if (one) {
    signal = signal_of(r, x, args.at(1).is_none() ? Argument(None{}) : Argument(ArgumentList{args[1]}),
                       Argument(ArgumentList{args.at(2)}), false);
  } else {
    const Argument dims = two && args.at(2).is_none() ? Argument(ArgumentList{int64_t{-2}, int64_t{-1}}) : args.at(2);
    signal = signal_of(r, x, args.at(1), dims, false);
  }
  for (size_t i = 0; i < signal.dims.size(); ++i) x = resize_dim(r, x, signal.dims[i], signal.lengths[i]);
  const Parts parts = dft_parts(r, x, signal, -1.0, norm_scale(signal, norm_mode(r, args.at(3), false)), !imaginary, imaginary);
  Node* result = imaginary ? parts.im : parts.re;
  if (r.node().meta.tensor().dtype == ScalarType::Double) result = r.op("aten::_to_copy", {result}, {{"dtype", ScalarType::Double}});
  r.replace_with(result);
  // The complex FFT, once no part reads it, is gone: nothing runs it.
  if (fft->users().empty()) fft->graph().erase_node(fft);
}

// The real tensor x of view_as_real(_fft_c2c(_to_copy(x, complex), ...)),
// or null for any other view_as_real.
Node* real_signal_of(const Node& view) {
  if (view.args().empty() || !view.args()[0].is_node()) return nullptr;
  const Node* fft = view.args()[0].node();
  if (!fft->is_call_function() || fft->target() != "aten::_fft_c2c.default" || fft->args().empty() ||
      !fft->args()[0].is_node()) {
    return nullptr;
  }
  const Node* complex = fft->args()[0].node();
  if (!complex->is_call_function() || complex->target() != "aten::_to_copy.default" || complex->args().empty() ||
      !complex->args()[0].is_node()) {
    return nullptr;
  }
  Node* x = complex->args()[0].node();
  return is_real_tensor(x) ? x : nullptr;
}

// view_as_real(_fft_c2c(_to_copy(x, complex), dim, normalization, forward))
// of a real x, as core ATen spells fftn(x).real: stack(re, im, -1).
void real_view_of_fft(Rewriter& r) {
  Node* x = real_signal_of(r.node());
  if (x == nullptr) r.fail("views as real an FFT of a complex tensor; Kiln's FFTs are of real ones");
  Node* fft = r.tensor_arg(0);
  Node* complex = fft->args()[0].node();
  const std::vector<Argument> args = bind_node_arguments(*fft);
  std::vector<int64_t> dims;
  for (const Argument& d : args.at(1).list()) dims.push_back(d.to_int());
  const Signal signal = signal_of(r, x, Argument(None{}), Argument(ints(dims)), false);
  const int64_t mode = args.at(2).to_int();
  if (mode < 0 || mode > 2) r.fail("normalization " + std::to_string(mode) + " is not 0, 1 or 2");
  const Parts parts = dft_parts(r, x, signal, args.at(3).to_bool() ? -1.0 : 1.0, norm_scale(signal, mode), true, true);
  Node* stacked = r.op("aten::cat", {ArgumentList{r.op("aten::unsqueeze", {parts.re, int64_t{-1}}),
                                                  r.op("aten::unsqueeze", {parts.im, int64_t{-1}})},
                                     int64_t{-1}});
  r.replace_with(r.node().meta.tensor().dtype == ScalarType::Double
                     ? r.op("aten::_to_copy", {stacked}, {{"dtype", ScalarType::Double}})
                     : stacked);
  if (fft->users().empty()) fft->graph().erase_node(fft);
  if (complex->users().empty()) complex->graph().erase_node(complex);
}

}  // namespace

bool rewrite_ffts_of_real_tensors(ExportedProgram& program) {
  std::vector<std::string> names;
  for (const Node* node : program.graph()) {
    const bool view = node->is_call_function() && (node->target() == "aten::view_as_real.default" ||
                                                   node->target() == "aten::view_as_real_copy.default");
    if (view && real_signal_of(*node) != nullptr) names.push_back(node->name());
  }
  for (const std::string& name : names) {
    Node* node = program.graph().find_node(name);
    if (node == nullptr) continue;
    Rewriter rewriter(*node);
    real_view_of_fft(rewriter);
  }
  if (!names.empty()) update_signature_from_graph(program);  // an output may be a rewritten view
  return !names.empty();
}

void add_spectral_decompositions(DecompositionTable& t) {
  t["aten::real.default"] = [](Rewriter& r) { part_of_fft(r, false); };
  t["aten::imag.default"] = [](Rewriter& r) { part_of_fft(r, true); };
  t["aten::hann_window.default"] = [](Rewriter& r) { decompose_hann_window(r, true, r.arg(1)); };
  t["aten::hann_window.periodic"] = [](Rewriter& r) { decompose_hann_window(r, r.bool_arg(1), r.arg(2)); };
  t["aten::stft.default"] = decompose_stft;
  t["aten::stft.center"] = decompose_stft_center;
  t["aten::istft.default"] = decompose_istft;
  t["aten::fft_rfft.default"] = [](Rewriter& r) { real_to_complex(r, one_dim(r, false), r.arg(3)); };
  t["aten::fft_irfft.default"] = [](Rewriter& r) { complex_to_real(r, one_dim(r, true), r.arg(3)); };
  for (const char* op : {"aten::fft_rfft2.default", "aten::fft_rfftn.default"}) {
    t[op] = [](Rewriter& r) { real_to_complex(r, signal_of(r, r.tensor_arg(0), r.arg(1), r.arg(2), false), r.arg(3)); };
  }
  for (const char* op : {"aten::fft_irfft2.default", "aten::fft_irfftn.default"}) {
    t[op] = [](Rewriter& r) { complex_to_real(r, signal_of(r, r.tensor_arg(0), r.arg(1), r.arg(2), true), r.arg(3)); };
  }
}

}  // namespace kiln::aot::passes
