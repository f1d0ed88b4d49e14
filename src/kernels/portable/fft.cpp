// _fft_r2c and _fft_c2r: PyTorch's real-to-complex and complex-to-real
// discrete Fourier transforms over a list of dims, on Eigen's FFT (header-only,
// float and double, any length; chosen over Debian's KISS FFT, which is
// float-only and whose real transform takes only even lengths; see
// docs/ops.md for the measurement).
//
// Both are separable: r2c transforms the last listed dim real-to-complex
// (keeping n / 2 + 1 bins when onesided, else all n by Hermitian symmetry) and
// then every other listed dim complex-to-complex; c2r runs the inverse
// complex-to-complex transforms first and the complex-to-real one on the last
// listed dim, whose output length is `last_dim_size` (its input holding the
// last_dim_size / 2 + 1 bins of a onesided transform, the imaginary parts of
// the bins that must be real ignored, as PyTorch's pocketfft does).
// `normalization` is c10's fft_norm_mode: 0 none, 1 by 1 / sqrt(n), 2 by 1 / n,
// with n the product of the signal's lengths (the output's, for c2r).
//
// Eigen's FFT keeps plans and scratch on the heap; these two kernels allocate,
// unlike the rest of the portable library. Eigen cannot plan a transform of
// length 1, the identity, which is done here.
#include <unsupported/Eigen/FFT>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// The lines of a contiguous tensor along one dim: count() lines of `length`
// elements stride() apart, line k starting at element first(k).
struct Lines {
  int64_t outer = 1, length = 1, inner = 1;

  Lines(Span<const SizesType> sizes, size_t dim) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (d < dim) outer *= sizes[d];
      else if (d > dim) inner *= sizes[d];
    }
    length = sizes[dim];
  }
  int64_t count() const { return outer * inner; }
  int64_t stride() const { return inner; }
  int64_t first(int64_t k) const { return (k / inner) * length * inner + k % inner; }
};

// The `dim` and `normalization` arguments: distinct dims wrapped into the
// tensor's rank, none of length 0, and a mode in [0, 2].
bool read_transform(KernelArgs& a, const Tensor& self, Span<const int64_t> dim_list, int64_t normalization,
                    size_t* dims, bool check_lengths) {
  if (dim_list.size() == 0) {
    a.fail(Error::InvalidArgument, "'dim' must name at least one dim");
    return false;
  }
  for (size_t i = 0; i < dim_list.size(); ++i) {
    if (!a.wrap_dim(dim_list[i], static_cast<size_t>(self.dim()), "dim", &dims[i])) return false;
    for (size_t j = 0; j < i; ++j) {
      if (dims[j] == dims[i]) {
        a.fail(Error::InvalidArgument, "'dim' names dim %zu twice", dims[i]);
        return false;
      }
    }
    if (check_lengths && self.size(static_cast<ssize_t>(dims[i])) == 0) {
      a.fail(Error::InvalidArgument, "cannot transform dim %zu of length 0", dims[i]);
      return false;
    }
  }
  if (normalization < 0 || normalization > 2) {
    a.fail(Error::InvalidArgument, "'normalization' must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got %lld",
           static_cast<long long>(normalization));
    return false;
  }
  return true;
}

template <typename T>
T norm_scale(int64_t normalization, double n) {
  if (normalization == 1) return static_cast<T>(1.0 / std::sqrt(n));
  if (normalization == 2) return static_cast<T>(1.0 / n);
  return T(1);
}

// Transforms every line of the contiguous complex `data` (of `sizes`) along
// `dim`, forward or inverse (unscaled).
template <typename T>
void complex_pass(Eigen::FFT<T>& fft, std::complex<T>* data, Span<const SizesType> sizes, size_t dim, bool inverse) {
  const Lines lines(sizes, dim);
  if (lines.length == 1) return;
  std::vector<std::complex<T>> in(static_cast<size_t>(lines.length)), result(in.size());
  for (int64_t k = 0; k < lines.count(); ++k) {
    std::complex<T>* line = data + lines.first(k);
    for (int64_t j = 0; j < lines.length; ++j) in[j] = line[j * lines.stride()];
    if (inverse) fft.inv(result.data(), in.data(), lines.length);
    else fft.fwd(result.data(), in.data(), lines.length);
    for (int64_t j = 0; j < lines.length; ++j) line[j * lines.stride()] = result[j];
  }
}

template <typename T>
void r2c(const Tensor& self, const Tensor& out, const size_t* dims, size_t num_dims, int64_t normalization) {
  Eigen::FFT<T> fft;
  fft.SetFlag(Eigen::FFT<T>::Unscaled);
  const size_t last = dims[num_dims - 1];
  const Lines in_lines(self.sizes(), last);
  const Lines out_lines(out.sizes(), last);
  const int64_t n = in_lines.length;
  std::vector<T> line_in(static_cast<size_t>(n));
  std::vector<std::complex<T>> spectrum(static_cast<size_t>(n));
  const T* input = self.const_data_ptr<T>();
  auto* output = out.mutable_data_ptr<std::complex<T>>();
  for (int64_t k = 0; k < in_lines.count(); ++k) {
    const T* line = input + in_lines.first(k);
    for (int64_t j = 0; j < n; ++j) line_in[j] = line[j * in_lines.stride()];
    if (n == 1) spectrum[0] = line_in[0];
    else fft.fwd(spectrum.data(), line_in.data(), n);  // all n bins (Eigen reflects the upper half)
    std::complex<T>* target = output + out_lines.first(k);
    for (int64_t j = 0; j < out_lines.length; ++j) target[j * out_lines.stride()] = spectrum[j];
  }
  double signal = static_cast<double>(n);
  for (size_t i = 0; i + 1 < num_dims; ++i) {
    complex_pass(fft, output, out.sizes(), dims[i], /*inverse=*/false);
    signal *= static_cast<double>(self.size(static_cast<ssize_t>(dims[i])));
  }
  const T scale = norm_scale<T>(normalization, signal);
  if (scale != T(1)) {
    for (ssize_t i = 0; i < out.numel(); ++i) output[i] *= scale;
  }
}

template <typename T>
void c2r(const Tensor& self, const Tensor& out, const size_t* dims, size_t num_dims, int64_t normalization) {
  Eigen::FFT<T> fft;
  fft.SetFlag(Eigen::FFT<T>::Unscaled);
  const auto* input = self.const_data_ptr<std::complex<T>>();
  std::vector<std::complex<T>> work(input, input + self.numel());
  double signal = 1;
  for (size_t i = 0; i + 1 < num_dims; ++i) {
    complex_pass(fft, work.data(), self.sizes(), dims[i], /*inverse=*/true);
    signal *= static_cast<double>(out.size(static_cast<ssize_t>(dims[i])));
  }
  const size_t last = dims[num_dims - 1];
  const Lines in_lines(self.sizes(), last);
  const Lines out_lines(out.sizes(), last);
  const int64_t n = out_lines.length;
  const int64_t bins = n / 2 + 1;
  signal *= static_cast<double>(n);
  std::vector<std::complex<T>> half(static_cast<size_t>(bins));
  std::vector<T> line_out(static_cast<size_t>(n));
  T* output = out.mutable_data_ptr<T>();
  const T scale = norm_scale<T>(normalization, signal);
  for (int64_t k = 0; k < out_lines.count(); ++k) {
    const std::complex<T>* line = work.data() + in_lines.first(k);
    for (int64_t j = 0; j < bins; ++j) half[j] = line[j * in_lines.stride()];
    if (n == 1) line_out[0] = half[0].real();
    else fft.inv(line_out.data(), half.data(), n);
    T* target = output + out_lines.first(k);
    for (int64_t j = 0; j < n; ++j) target[j * out_lines.stride()] = line_out[j] * scale;
  }
}

}  // namespace

void fft_r2c_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_fft_r2c.out", args);
  Tensor self, out;
  Span<const int64_t> dim_list;
  int64_t normalization = 0;
  bool onesided = false;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.int_list(1, "dim", &dim_list) ||
      !a.integer(2, "normalization", &normalization) || !a.boolean(3, "onesided", &onesided) ||
      !a.tensor(4, "out", &out)) {
    return;
  }
  if (self.scalar_type() != ScalarType::Float && self.scalar_type() != ScalarType::Double) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s (float or double)",
           runtime::to_string(self.scalar_type()));
    return;
  }
  size_t dims[util::kMaxDims];
  if (dim_list.size() > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'dim' names %zu dims, more than a tensor has", dim_list.size());
    return;
  }
  if (!read_transform(a, self, dim_list, normalization, dims, /*check_lengths=*/true) ||
      !a.check_dtype(out, "out", runtime::complex_type_of(self.scalar_type())) || !a.check_contiguous(self, "self") ||
      !a.check_contiguous(out, "out")) {
    return;
  }
  SizesType sizes[util::kMaxDims];
  for (ssize_t d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  const size_t last = dims[dim_list.size() - 1];
  if (onesided) sizes[last] = sizes[last] / 2 + 1;
  if (!a.resize_out(out, "out", {sizes, static_cast<size_t>(self.dim())})) return;
  if (out.numel() == 0) return;
  if (self.scalar_type() == ScalarType::Double) r2c<double>(self, out, dims, dim_list.size(), normalization);
  else r2c<float>(self, out, dims, dim_list.size(), normalization);
}

void fft_c2r_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_fft_c2r.out", args);
  Tensor self, out;
  Span<const int64_t> dim_list;
  int64_t normalization = 0, last_dim_size = 0;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.int_list(1, "dim", &dim_list) ||
      !a.integer(2, "normalization", &normalization) || !a.integer(3, "last_dim_size", &last_dim_size) ||
      !a.tensor(4, "out", &out)) {
    return;
  }
  const ScalarType type = self.scalar_type();
  if (type != ScalarType::ComplexFloat && type != ScalarType::ComplexDouble) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s (ComplexFloat or ComplexDouble)",
           runtime::to_string(type));
    return;
  }
  if (last_dim_size < 1) {
    a.fail(Error::InvalidArgument, "'last_dim_size' must be at least 1, got %lld", static_cast<long long>(last_dim_size));
    return;
  }
  size_t dims[util::kMaxDims];
  if (dim_list.size() > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "'dim' names %zu dims, more than a tensor has", dim_list.size());
    return;
  }
  const ScalarType real = type == ScalarType::ComplexDouble ? ScalarType::Double : ScalarType::Float;
  if (!read_transform(a, self, dim_list, normalization, dims, /*check_lengths=*/true) ||
      !a.check_dtype(out, "out", real) || !a.check_contiguous(self, "self") || !a.check_contiguous(out, "out")) {
    return;
  }
  const size_t last = dims[dim_list.size() - 1];
  if (self.size(static_cast<ssize_t>(last)) != last_dim_size / 2 + 1) {
    a.fail(Error::InvalidArgument, "dim %zu of 'self' has %lld bins; a last_dim_size of %lld takes %lld", last,
           static_cast<long long>(self.size(static_cast<ssize_t>(last))), static_cast<long long>(last_dim_size),
           static_cast<long long>(last_dim_size / 2 + 1));
    return;
  }
  SizesType sizes[util::kMaxDims];
  for (ssize_t d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  sizes[last] = static_cast<SizesType>(last_dim_size);
  if (!a.resize_out(out, "out", {sizes, static_cast<size_t>(self.dim())})) return;
  if (out.numel() == 0) return;
  if (real == ScalarType::Double) c2r<double>(self, out, dims, dim_list.size(), normalization);
  else c2r<float>(self, out, dims, dim_list.size(), normalization);
}

}  // namespace kiln::kernels::portable
