// mean.dim and any.dim: reductions over a set of dims, for any layout of self
// and out. Each output element is reduced in one pass over its inputs: mean
// accumulates in double (PyTorch accumulates float in float, with a cascaded
// sum) and rounds once; any stops at the first nonzero.
#include <algorithm>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Which dims of a rank-`rank` tensor are reduced; `dims` empty means all
// (a 0-dim tensor accepts dim 0 and -1, and reduces nothing).
bool reduced_dims(KernelArgs& a, Span<const int64_t> dims, size_t rank, bool* reduced) {
  for (size_t d = 0; d < util::kMaxDims; ++d) reduced[d] = dims.empty();
  const auto r = static_cast<int64_t>(std::max<size_t>(rank, 1));
  for (int64_t dim : dims) {
    if (dim < -r || dim >= r) {
      a.fail(Error::InvalidArgument, "'dim' %lld is out of range for %zu dims", static_cast<long long>(dim), rank);
      return false;
    }
    const size_t d = static_cast<size_t>(dim < 0 ? dim + r : dim);
    if (reduced[d]) {
      a.fail(Error::InvalidArgument, "'dim' %lld appears twice", static_cast<long long>(dim));
      return false;
    }
    reduced[d] = true;
  }
  return true;
}

// The two index spaces of a reduction: the kept dims (one point per output
// element, with self's and out's strides) and the reduced dims (self's
// strides), each an odometer over at most kMaxDims dims.
struct Reduction {
  size_t kept_rank = 0;
  int64_t kept_sizes[util::kMaxDims] = {};
  int64_t kept_in[util::kMaxDims] = {};
  int64_t kept_out[util::kMaxDims] = {};
  size_t reduced_rank = 0;
  int64_t reduced_sizes[util::kMaxDims] = {};
  int64_t reduced_in[util::kMaxDims] = {};
  int64_t count = 1;  // elements per output
};

// Resizes out to the reduced shape and lays out the reduction.
bool plan_reduction(KernelArgs& a, const Tensor& self, const bool* reduced, bool keepdim, const Tensor& out,
                    Reduction* plan) {
  SizesType shape[util::kMaxDims];
  size_t out_rank = 0;
  const size_t rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) shape[out_rank++] = self.sizes()[d];
    else if (keepdim) shape[out_rank++] = 1;
  }
  if (!a.resize_out(out, "out", {shape, out_rank})) return false;
  size_t out_dim = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = self.sizes()[d];
    if (!reduced[d]) {
      plan->kept_sizes[plan->kept_rank] = size;
      plan->kept_in[plan->kept_rank] = self.strides()[d];
      plan->kept_out[plan->kept_rank++] = out.strides()[out_dim++];
      continue;
    }
    if (keepdim) ++out_dim;
    plan->count *= size;
    if (size == 1) continue;
    // Merge with the previous reduced dim when self steps through both densely.
    const size_t last = plan->reduced_rank - 1;
    if (plan->reduced_rank > 0 && plan->reduced_in[last] == self.strides()[d] * size) {
      plan->reduced_sizes[last] *= size;
      plan->reduced_in[last] = self.strides()[d];
    } else {
      plan->reduced_sizes[plan->reduced_rank] = size;
      plan->reduced_in[plan->reduced_rank++] = self.strides()[d];
    }
  }
  return true;
}

// Advances an odometer over `sizes`, moving each offset by its strides;
// false once it wraps around to the start.
template <size_t K>
bool step(size_t rank, const int64_t* sizes, int64_t* index, int64_t* offsets, const int64_t* const (&strides)[K]) {
  for (size_t d = rank; d-- > 0;) {
    for (size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
    if (++index[d] < sizes[d]) return true;
    for (size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * sizes[d];
    index[d] = 0;
  }
  return false;
}

// Calls out_fn(in_base, out_offset) for each output element.
template <typename F>
void for_each_output(const Reduction& plan, F out_fn) {
  for (size_t d = 0; d < plan.kept_rank; ++d) {
    if (plan.kept_sizes[d] == 0) return;
  }
  int64_t index[util::kMaxDims] = {};
  int64_t offsets[2] = {};
  const int64_t* const strides[2] = {plan.kept_in, plan.kept_out};
  do {
    out_fn(offsets[0], offsets[1]);
  } while (step(plan.kept_rank, plan.kept_sizes, index, offsets, strides));
}

// Calls in_fn(in_offset) for each input element of the output at `base`
// until in_fn returns false.
template <typename F>
void for_each_input(const Reduction& plan, int64_t base, F in_fn) {
  if (plan.count == 0) return;
  int64_t index[util::kMaxDims] = {};
  int64_t offsets[1] = {base};
  const int64_t* const strides[1] = {plan.reduced_in};
  do {
    if (!in_fn(offsets[0])) return;
  } while (step(plan.reduced_rank, plan.reduced_sizes, index, offsets, strides));
}

}  // namespace

void mean_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::mean.out", args);
  Tensor self, out;
  bool keepdim = false;
  Span<const int64_t> dims;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.boolean(2, "keepdim", &keepdim) || !a.tensor(4, "out", &out)) {
    return;
  }
  if (!args[1]->isNone() && !a.int_list(1, "dim", &dims)) return;
  // PyTorch: the result dtype is `dtype` if given, else self's, and must be
  // floating; out must have it.
  ScalarType dtype = self.scalar_type();
  if (!args[3]->isNone()) {
    int64_t code = 0;
    if (!a.integer(3, "dtype", &code)) return;
    if (code != static_cast<int64_t>(ScalarType::Float) && code != static_cast<int64_t>(ScalarType::Double)) {
      a.fail(Error::InvalidArgument, "'dtype' %lld is not a supported floating dtype (Float or Double)",
             static_cast<long long>(code));
      return;
    }
    dtype = static_cast<ScalarType>(code);
  }
  if (!util::is_real_or_bool(self.scalar_type()) || !util::is_floating(dtype)) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s; without a floating 'dtype' it must be Float or Double",
           runtime::to_string(self.scalar_type()));
    return;
  }
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!a.check_dtype(out, "out", dtype) || !reduced_dims(a, dims, static_cast<size_t>(self.dim()), reduced) ||
      !plan_reduction(a, self, reduced, keepdim, out, &plan)) {
    return;
  }
  util::visit_real_or_bool(self.scalar_type(), [&](auto in_tag) {
    util::visit_floating(dtype, [&](auto out_tag) {
      using In = typename decltype(in_tag)::type;
      using Out = typename decltype(out_tag)::type;
      const In* x = self.const_data_ptr<In>();
      Out* y = out.mutable_data_ptr<Out>();
      for_each_output(plan, [&](int64_t base, int64_t o) {
        double sum = 0;
        for_each_input(plan, base, [&](int64_t i) {
          sum += static_cast<double>(x[i]);
          return true;
        });
        y[o] = static_cast<Out>(sum / static_cast<double>(plan.count));  // 0 / 0 gives NaN, as torch
      });
    });
  });
}

void any_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::any.out", args);
  Tensor self, out;
  int64_t dim = 0;
  bool keepdim = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "keepdim", &keepdim) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  const int64_t dim_list[1] = {dim};
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!a.check_dtype(out, "out", ScalarType::Bool) ||
      !reduced_dims(a, {dim_list, 1}, static_cast<size_t>(self.dim()), reduced) ||
      !plan_reduction(a, self, reduced, keepdim, out, &plan)) {
    return;
  }
  util::visit_real_or_bool(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self.const_data_ptr<T>();
    bool* y = out.mutable_data_ptr<bool>();
    for_each_output(plan, [&](int64_t base, int64_t o) {
      bool found = false;
      for_each_input(plan, base, [&](int64_t i) {
        found = x[i] != T(0);  // NaN counts as true
        return !found;
      });
      y[o] = found;
    });
  });
}

}  // namespace kiln::kernels::portable
