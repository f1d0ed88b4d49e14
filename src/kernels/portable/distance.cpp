// _cdist_forward and _pdist_forward: p-norm distances between rows, as
// PyTorch's CPU kernels compute them (Distance.cpp, DistanceOpsKernel.cpp),
// summing the row in order in the input's dtype:
//
//   p = 0:   the count of differing entries;
//   p = 1:   sum |x - y|;          p = 2: sqrt(sum (x - y)^2);
//   p = inf: max |x - y|;          else:  (sum |x - y|^p)^(1 / p).
//
// cdist with p = 2 takes PyTorch's matrix-product formula when compute_mode
// asks for it (1), or by default (None or 0) when either side has more than 25
// rows: sqrt(max(sum (-2 x) y + |x|^2 + |y|^2, 0)), which is faster in
// PyTorch and rounds differently (coincident rows give a small positive
// distance, not 0).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum class Norm { Zero, One, Two, Infinity, General };

template <Norm N>
using NormTag = std::integral_constant<Norm, N>;

// Calls f(NormTag<N>{}) for the norm of `p` (p >= 0).
template <typename F>
void visit_norm(double p, F&& f) {
  if (p == 0) f(NormTag<Norm::Zero>{});
  else if (p == 1) f(NormTag<Norm::One>{});
  else if (p == 2) f(NormTag<Norm::Two>{});
  else if (std::isinf(p)) f(NormTag<Norm::Infinity>{});
  else f(NormTag<Norm::General>{});
}

// The p-norm of x - y over m entries. NaN propagates through every norm.
template <Norm N, typename T>
T row_distance(const T* x, const T* y, int64_t m, T p) {
  T total = T(0);
  for (int64_t k = 0; k < m; ++k) {
    const T d = std::fabs(x[k] - y[k]);
    if constexpr (N == Norm::Zero) total += std::min(std::ceil(d), T(1));
    else if constexpr (N == Norm::One) total += d;
    else if constexpr (N == Norm::Two) total += d * d;
    else if constexpr (N == Norm::Infinity) total = d > total || std::isnan(d) ? d : total;
    else total += std::pow(d, p);
  }
  if constexpr (N == Norm::Two) return std::sqrt(total);
  else if constexpr (N == Norm::General) return std::pow(total, T(1) / p);
  else return total;
}

template <typename T>
T squared_norm(const T* x, int64_t m) {
  T total = T(0);
  for (int64_t k = 0; k < m; ++k) total += x[k] * x[k];
  return total;
}

// PyTorch's matrix-product form of the 2-norm: the product of
// [-2 x, |x|^2, 1] and [y, 1, |y|^2], clamped at 0.
template <typename T>
T euclidean_by_products(const T* x, const T* y, int64_t m, T x_norm) {
  T total = T(0);
  for (int64_t k = 0; k < m; ++k) total += (T(-2) * x[k]) * y[k];
  total += x_norm;
  total += squared_norm(y, m);
  return std::sqrt(std::max(total, T(0)));
}

// One [P, M] by [R, M] pair of matrices into a [P, R] block.
struct Block {
  int64_t rows1 = 0, rows2 = 0, columns = 0;
};

template <typename T>
void cdist_block(const T* x1, const T* x2, T* out, const Block& b, double p, bool by_products) {
  if (by_products) {
    for (int64_t i = 0; i < b.rows1; ++i) {
      const T* x = x1 + i * b.columns;
      const T x_norm = squared_norm(x, b.columns);
      for (int64_t j = 0; j < b.rows2; ++j) {
        out[i * b.rows2 + j] = euclidean_by_products(x, x2 + j * b.columns, b.columns, x_norm);
      }
    }
    return;
  }
  visit_norm(p, [&](auto tag) {
    constexpr Norm N = decltype(tag)::value;
    for (int64_t i = 0; i < b.rows1; ++i) {
      for (int64_t j = 0; j < b.rows2; ++j) {
        out[i * b.rows2 + j] = row_distance<N>(x1 + i * b.columns, x2 + j * b.columns, b.columns, util::convert<T, double>(p));
      }
    }
  });
}

// A non-negative `p` argument at `index`.
bool read_p(KernelArgs& a, size_t index, double* p) {
  if (!a.floating(index, "p", p)) return false;
  if (!(*p >= 0)) {
    a.fail(Error::InvalidArgument, "'p' must be non-negative, got %g", *p);
    return false;
  }
  return true;
}

bool check_floating(KernelArgs& a, const Tensor& t, const char* name) {
  if (util::is_floating(t.scalar_type())) return true;
  a.fail(Error::InvalidArgument, "'%s' has unsupported dtype %s (float or double)", name,
         runtime::to_string(t.scalar_type()));
  return false;
}

// The `compute_mode` argument: None is 0.
bool read_compute_mode(KernelArgs& a, Span<EValue*> args, size_t index, int64_t* mode) {
  *mode = 0;
  if (args[index]->isNone()) return true;
  if (!a.integer(index, "compute_mode", mode)) return false;
  if (*mode < 0 || *mode > 2) {
    a.fail(Error::InvalidArgument, "'compute_mode' must be 0, 1, 2 or None, got %lld", static_cast<long long>(*mode));
    return false;
  }
  return true;
}

// The broadcast batch dims of x1 [*, P, M] and x2 [*, R, M] followed by
// [P, R] into `shape`; false (failed) if the matrices do not match.
bool cdist_shape(KernelArgs& a, const Tensor& x1, const Tensor& x2, SizesType* shape, size_t* rank) {
  if (x1.dim() < 2 || x2.dim() < 2) {
    a.fail(Error::InvalidArgument, "'x1' and 'x2' must have at least 2 dims, got %zd and %zd", x1.dim(), x2.dim());
    return false;
  }
  if (x1.size(x1.dim() - 1) != x2.size(x2.dim() - 1)) {
    a.fail(Error::InvalidArgument, "'x1' and 'x2' must have the same number of columns, got %lld and %lld",
           static_cast<long long>(x1.size(x1.dim() - 1)), static_cast<long long>(x2.size(x2.dim() - 1)));
    return false;
  }
  const Span<const SizesType> batch1(x1.sizes().data(), static_cast<size_t>(x1.dim() - 2));
  const Span<const SizesType> batch2(x2.sizes().data(), static_cast<size_t>(x2.dim() - 2));
  if (!util::broadcast_shape(batch1, batch2, shape, rank) || *rank + 2 > util::kMaxDims) {
    a.fail(Error::InvalidArgument, "the batch dims of 'x1' and 'x2' do not broadcast");
    return false;
  }
  shape[(*rank)++] = x1.size(x1.dim() - 2);
  shape[(*rank)++] = x2.size(x2.dim() - 2);
  return true;
}

// The element strides of the matrices of a contiguous [*, rows, M] `t` along
// the broadcast batch dims `sizes` (0 where t is broadcast).
void batch_strides(const Tensor& t, const SizesType* sizes, size_t rank, int64_t* strides) {
  const size_t own = static_cast<size_t>(t.dim() - 2);
  int64_t stride = static_cast<int64_t>(t.size(t.dim() - 2)) * t.size(t.dim() - 1);
  for (size_t d = rank; d-- > 0;) {
    const size_t back = rank - d;  // 1 for the innermost batch dim
    const bool broadcast = back > own || t.size(own - back) == 1;
    strides[d] = broadcast ? 0 : stride;
    if (!broadcast) stride *= sizes[d];
  }
}

template <typename T>
void cdist(const Tensor& x1, const Tensor& x2, const Tensor& out, const SizesType* shape, size_t batch_rank,
           double p, int64_t mode) {
  const Block b{shape[batch_rank], shape[batch_rank + 1], x1.size(x1.dim() - 1)};
  const bool by_products = p == 2 && (mode == 1 || (mode == 0 && (b.rows1 > 25 || b.rows2 > 25)));
  int64_t sizes[util::kMaxDims], strides1[util::kMaxDims], strides2[util::kMaxDims];
  for (size_t d = 0; d < batch_rank; ++d) sizes[d] = shape[d];
  batch_strides(x1, shape, batch_rank, strides1);
  batch_strides(x2, shape, batch_rank, strides2);
  util::StridedCursor<2> cursor(sizes, batch_rank);
  cursor.set_strides(0, strides1);
  cursor.set_strides(1, strides2);
  T* block = out.mutable_data_ptr<T>();
  do {
    cdist_block(x1.const_data_ptr<T>() + cursor.offset(0), x2.const_data_ptr<T>() + cursor.offset(1), block, b, p,
                by_products);
    block += b.rows1 * b.rows2;
  } while (cursor.next());
}

template <typename T>
void pdist(const T* self, T* out, int64_t n, int64_t m, double p) {
  visit_norm(p, [&](auto tag) {
    constexpr Norm N = decltype(tag)::value;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) *out++ = row_distance<N>(self + i * m, self + j * m, m, util::convert<T, double>(p));
    }
  });
}

}  // namespace

void cdist_forward_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_cdist_forward.out", args);
  Tensor x1, x2, out;
  double p = 0;
  int64_t mode = 0;
  if (!a.check_count(5) || !a.tensor(0, "x1", &x1) || !a.tensor(1, "x2", &x2) || !read_p(a, 2, &p) ||
      !read_compute_mode(a, args, 3, &mode) || !a.tensor(4, "out", &out) || !check_floating(a, x1, "x1") ||
      !a.check_dtype(x2, "x2", x1.scalar_type()) || !a.check_dtype(out, "out", x1.scalar_type())) {
    return;
  }
  SizesType shape[util::kMaxDims];
  size_t rank = 0;
  if (!cdist_shape(a, x1, x2, shape, &rank) || !a.check_contiguous(x1, "x1") || !a.check_contiguous(x2, "x2") ||
      !a.resize_out(out, "out", {shape, rank}) || !a.check_contiguous(out, "out") || out.numel() == 0) {
    return;
  }
  util::visit_floating(x1.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cdist<T>(x1, x2, out, shape, rank - 2, p, mode);
  });
}

void pdist_forward_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_pdist_forward.out", args);
  Tensor self, out;
  double p = 0;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !read_p(a, 1, &p) || !a.tensor(2, "out", &out) ||
      !check_floating(a, self, "self") || !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  if (self.dim() != 2) {
    a.fail(Error::InvalidArgument, "'self' must have 2 dims, got %zd", self.dim());
    return;
  }
  const int64_t n = self.size(0), m = self.size(1);
  if (n * (n - 1) / 2 > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'self' has %lld rows: %lld pairs, more than a tensor's INT32_MAX elements",
           static_cast<long long>(n), static_cast<long long>(n * (n - 1) / 2));
    return;
  }
  const SizesType pairs[1] = {static_cast<SizesType>(n * (n - 1) / 2)};
  if (!a.check_contiguous(self, "self") || !a.resize_out(out, "out", pairs) || out.numel() == 0) return;
  util::visit_floating(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    pdist(self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), n, m, p);
  });
}

}  // namespace kiln::kernels::portable
