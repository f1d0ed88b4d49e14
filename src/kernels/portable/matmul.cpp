// mm and addmm: a cache-blocked, register-blocked matrix product (no BLAS).
#include <algorithm>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Columns of the output (and of mat2) handled per pass, so that the rows
// being accumulated stay in L1 while mat2's panel streams through.
constexpr int64_t kColumnBlock = 256;
// Output rows accumulated together: each loaded mat2 element is used this
// many times.
constexpr int64_t kRowBlock = 4;

template <typename T>
inline T madd(T acc, T a, T b) {
  return util::wrapping_add(acc, util::wrapping_mul(a, b));
}

// Rows [i, i + kRows) x columns [j0, j0 + jn) of a @ b, each summed over k in
// order from zero, in T. They are accumulated in a local tile (so the loop
// vectorizes without alias checks, and out may alias addmm's self) and then
// handed to `store(row, j0, values, jn)`.
template <typename T, int64_t kRows, typename Store>
void matmul_block(const T* a, const T* b, int64_t i, int64_t j0, int64_t jn, int64_t m, int64_t p, Store& store) {
  T acc[kRows][kColumnBlock];
  for (int64_t r = 0; r < kRows; ++r) std::fill(acc[r], acc[r] + jn, T(0));
  for (int64_t k = 0; k < m; ++k) {
    const T* bk = b + k * p + j0;
    T av[kRows];
    for (int64_t r = 0; r < kRows; ++r) av[r] = a[(i + r) * m + k];
    for (int64_t j = 0; j < jn; ++j) {
      const T bv = bk[j];
      for (int64_t r = 0; r < kRows; ++r) acc[r][j] = madd(acc[r][j], av[r], bv);
    }
  }
  for (int64_t r = 0; r < kRows; ++r) store(i + r, j0, static_cast<const T*>(acc[r]), jn);
}

// a[n, m] @ b[m, p], both dense row-major, delivered block by block to `store`.
template <typename T, typename Store>
void matmul(const T* a, const T* b, int64_t n, int64_t m, int64_t p, Store store) {
  for (int64_t j0 = 0; j0 < p; j0 += kColumnBlock) {
    const int64_t jn = std::min(kColumnBlock, p - j0);
    int64_t i = 0;
    for (; i + kRowBlock <= n; i += kRowBlock) matmul_block<T, kRowBlock>(a, b, i, j0, jn, m, p, store);
    for (; i < n; ++i) matmul_block<T, 1>(a, b, i, j0, jn, m, p, store);
  }
}

// Checks mat1 @ mat2 (named as in the schema) and that out has their dtype;
// resizes out to [n, p].
bool check_matmul(KernelArgs& a, const Tensor& mat1, const char* name1, const Tensor& mat2, const char* name2,
                  const Tensor& out) {
  if (mat1.dim() != 2 || mat2.dim() != 2) {
    a.fail(Error::InvalidArgument, "'%s' must be a matrix, got %zd dims", mat1.dim() != 2 ? name1 : name2,
           mat1.dim() != 2 ? mat1.dim() : mat2.dim());
    return false;
  }
  if (mat1.size(1) != mat2.size(0)) {
    a.fail(Error::InvalidArgument, "'%s' [%d, %d] and '%s' [%d, %d] cannot be multiplied", name1, mat1.size(0),
           mat1.size(1), name2, mat2.size(0), mat2.size(1));
    return false;
  }
  if (!util::is_real(mat1.scalar_type())) {
    a.fail(Error::InvalidArgument, "'%s' has unsupported dtype %s", name1, runtime::to_string(mat1.scalar_type()));
    return false;
  }
  if (!a.check_dtype(mat2, name2, mat1.scalar_type()) || !a.check_dtype(out, "out", mat1.scalar_type())) return false;
  if (!a.check_contiguous(mat1, name1) || !a.check_contiguous(mat2, name2)) return false;
  const SizesType shape[2] = {mat1.size(0), mat2.size(1)};
  return a.resize_out(out, "out", shape) && a.check_contiguous(out, "out");
}

bool check_scalar_kind(KernelArgs& a, const EValue& value, const char* name, ScalarType dtype) {
  if (value.isDouble() && !util::is_floating(dtype)) {
    a.fail(Error::InvalidArgument, "'%s' must not be a floating point number for integral inputs (%s)", name,
           runtime::to_string(dtype));
    return false;
  }
  return true;
}

}  // namespace

void mm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::mm.out", args);
  Tensor self, mat2, out;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.tensor(1, "mat2", &mat2) || !a.tensor(2, "out", &out)) {
    return;
  }
  if (!check_matmul(a, self, "self", mat2, "mat2", out)) return;
  util::visit_real(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.mutable_data_ptr<T>();
    const int64_t p = mat2.size(1);
    matmul(self.const_data_ptr<T>(), mat2.const_data_ptr<T>(), self.size(0), self.size(1), p,
           [&](int64_t i, int64_t j0, const T* values, int64_t jn) { std::copy(values, values + jn, c + i * p + j0); });
  });
}

void addmm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::addmm.out", args);
  Tensor self, mat1, mat2, out;
  const EValue* beta = nullptr;
  const EValue* alpha = nullptr;
  if (!a.check_count(6) || !a.tensor(0, "self", &self) || !a.tensor(1, "mat1", &mat1) ||
      !a.tensor(2, "mat2", &mat2) || !a.scalar(3, "beta", &beta) || !a.scalar(4, "alpha", &alpha) ||
      !a.tensor(5, "out", &out)) {
    return;
  }
  if (!check_matmul(a, mat1, "mat1", mat2, "mat2", out)) return;
  const ScalarType dtype = mat1.scalar_type();
  if (!a.check_dtype(self, "self", dtype) || !check_scalar_kind(a, *beta, "beta", dtype) ||
      !check_scalar_kind(a, *alpha, "alpha", dtype)) {
    return;
  }
  if (!util::broadcasts_to(self.sizes(), out.sizes())) {
    char s[96];
    util::format_sizes(self.sizes(), s, sizeof s);
    a.fail(Error::InvalidArgument, "'self' of shape %s does not broadcast to [%d, %d]", s, out.size(0), out.size(1));
    return;
  }
  // Strides that read self broadcast over out's [n, p].
  util::StridedLayout<1> layout;
  util::set_index_space(layout, out.sizes());
  util::set_broadcast_strides(layout, 0, self);
  const int64_t self_row = layout.strides[0][0];
  const int64_t self_col = layout.strides[0][1];

  util::visit_real(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.mutable_data_ptr<T>();
    const T alpha_t = util::scalar_to<T>(*alpha);
    const T beta_t = util::scalar_to<T>(*beta);
    const T* s = self.const_data_ptr<T>();
    const int64_t p = mat2.size(1);
    // As in BLAS gemm (which PyTorch calls): beta == 0 ignores self, NaNs included.
    auto store = [&](int64_t i, int64_t j0, const T* values, int64_t jn) {
      T* row = c + i * p + j0;
      if (beta_t == T(0)) {
        for (int64_t j = 0; j < jn; ++j) row[j] = util::wrapping_mul(alpha_t, values[j]);
        return;
      }
      const T* srow = s + i * self_row + j0 * self_col;
      for (int64_t j = 0; j < jn; ++j) {
        const T scaled_self = util::wrapping_mul(beta_t, srow[j * self_col]);
        row[j] = util::wrapping_add(util::wrapping_mul(alpha_t, values[j]), scaled_self);
      }
    };
    matmul(mat1.const_data_ptr<T>(), mat2.const_data_ptr<T>(), mat1.size(0), mat1.size(1), p, store);
  });
}

}  // namespace kiln::kernels::portable

namespace kiln::kernels::portable {

void bmm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::bmm.out", args);
  Tensor self, mat2, out;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.tensor(1, "mat2", &mat2) || !a.tensor(2, "out", &out)) {
    return;
  }
  if (self.dim() != 3 || mat2.dim() != 3) {
    a.fail(Error::InvalidArgument, "'%s' must be a batch of matrices (3 dims), got %zd dims",
           self.dim() != 3 ? "self" : "mat2", self.dim() != 3 ? self.dim() : mat2.dim());
    return;
  }
  if (self.size(0) != mat2.size(0) || self.size(2) != mat2.size(1)) {
    a.fail(Error::InvalidArgument, "'self' [%d, %d, %d] and 'mat2' [%d, %d, %d] cannot be batch-multiplied",
           self.size(0), self.size(1), self.size(2), mat2.size(0), mat2.size(1), mat2.size(2));
    return;
  }
  if (!util::is_real(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  const SizesType shape[3] = {self.size(0), self.size(1), mat2.size(2)};
  if (!a.check_dtype(mat2, "mat2", self.scalar_type()) || !a.check_dtype(out, "out", self.scalar_type()) ||
      !a.check_contiguous(self, "self") || !a.check_contiguous(mat2, "mat2") || !a.resize_out(out, "out", shape) ||
      !a.check_contiguous(out, "out")) {
    return;
  }
  const int64_t n = self.size(1), m = self.size(2), p = mat2.size(2);
  util::visit_real(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t b = 0; b < self.size(0); ++b) {
      T* c = out.mutable_data_ptr<T>() + b * n * p;
      matmul(self.const_data_ptr<T>() + b * n * m, mat2.const_data_ptr<T>() + b * m * p, n, m, p,
             [&](int64_t i, int64_t j0, const T* values, int64_t jn) { std::copy(values, values + jn, c + i * p + j0); });
    }
  });
}

}  // namespace kiln::kernels::portable
