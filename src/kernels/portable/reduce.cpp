// Reductions over dim lists (sum, prod, mean, var, amax/amin, argmax/argmin,
// max/min.dim, any/all) on util::Reduction, so every dim list, keepdim and
// layout is handled in one place (util/reduction.h); and cumsum.
//
// As PyTorch, each input is cast to the result's dtype before it is reduced.
// Sums of floating values (and mean, var, cumsum) accumulate in double,
// integral ones in int64 with wraparound; products in the result's compute
// type. max-like reductions propagate NaN; the index-returning ones give the
// first index of the extreme, a NaN counting as the extreme.
#include <algorithm>
#include <optional>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/reduction.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;
using util::Reduction;

// ---- arguments ----

// A `ScalarType?` argument: None, or a dtype code of one of the dtypes the
// portable kernels compute in.
bool optional_dtype(KernelArgs& a, Span<EValue*> args, size_t index, std::optional<ScalarType>* out) {
  *out = std::nullopt;
  if (args[index]->isNone()) return true;
  int64_t code = 0;
  if (!a.integer(index, "dtype", &code)) return false;
  const auto dtype = static_cast<ScalarType>(code);
  if (code < 0 || code > 127 || !runtime::is_valid(dtype) || !util::is_real_or_bool_or_half(dtype)) {
    a.fail(Error::InvalidArgument, "'dtype' %lld is not a supported dtype", static_cast<long long>(code));
    return false;
  }
  *out = dtype;
  return true;
}

// An `int[]?` dims argument; None reads as an empty list.
bool optional_dims(KernelArgs& a, Span<EValue*> args, size_t index, Span<const int64_t>* dims) {
  *dims = {};
  return args[index]->isNone() || a.int_list(index, "dim", dims);
}

bool check_self(KernelArgs& a, const Tensor& self, bool supported) {
  if (!supported) a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
  return supported;
}

// The dtype of a sum or product: `dtype` if given (out must have it); else,
// where PyTorch infers it from out (the dim overloads), out's; else self's,
// with Bool and integral self widened to Long (out must have it).
bool sum_dtype(KernelArgs& a, const Tensor& self, std::optional<ScalarType> dtype, bool from_out, const Tensor& out,
               ScalarType* result) {
  if (!check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type()))) return false;
  if (!dtype && from_out) {
    *result = out.scalar_type();
    if (util::is_real_or_bool_or_half(*result)) return true;
    a.fail(Error::InvalidArgument, "'out' has unsupported dtype %s", runtime::to_string(*result));
    return false;
  }
  const ScalarType own = util::is_floating_or_half(self.scalar_type()) ? self.scalar_type() : ScalarType::Long;
  *result = dtype.value_or(own);
  return a.check_dtype(out, "out", *result);
}

// amax, argmax, max.dim, ...: a reduction over a dim of size 0 has no
// identity, so PyTorch rejects it even when the output is empty.
bool check_no_empty_reduced_dim(KernelArgs& a, const Tensor& self, const bool* reduced) {
  for (size_t d = 0; d < static_cast<size_t>(self.dim()); ++d) {
    if (reduced[d] && self.sizes()[d] == 0) {
      a.fail(Error::InvalidArgument, "'self' has size 0 in reduced dim %zu, which has no extreme", d);
      return false;
    }
  }
  return true;
}

// ---- accumulators (see util::accumulate) ----

// x cast to Out, as a value of Out's compute type.
template <typename Out, typename In>
inline util::compute_t<Out> as_out(In x) {
  if constexpr (std::is_same_v<In, Out>) return util::load(x);
  else return util::load(util::cast_value<Out>(x));
}

// The type a sum into Out accumulates in.
template <typename Out>
using sum_acc_t = std::conditional_t<std::is_same_v<Out, bool>, bool,
                                     std::conditional_t<std::is_integral_v<Out>, int64_t, double>>;

template <typename In, typename Out>
struct SumOp {
  using Acc = sum_acc_t<Out>;
  static constexpr bool kLanes = true, kUnroll = true;
  Acc init() const { return Acc(0); }
  Acc add(Acc acc, In x, int64_t) const { return merge(acc, static_cast<Acc>(as_out<Out>(x))); }
  Acc merge(Acc a, Acc b) const {
    if constexpr (std::is_same_v<Acc, bool>) return a || b;
    else return util::wrapping_add(a, b);
  }
};

template <typename In, typename Out>
struct ProdOp {
  using Acc = std::conditional_t<std::is_integral_v<Out> && !std::is_same_v<Out, bool>, int64_t, util::compute_t<Out>>;
  static constexpr bool kLanes = true, kUnroll = true;
  Acc init() const { return Acc(1); }
  Acc add(Acc acc, In x, int64_t) const { return merge(acc, static_cast<Acc>(as_out<Out>(x))); }
  Acc merge(Acc a, Acc b) const { return util::wrapping_mul(a, b); }
};

// amax (kMax) or amin: NaN wins over every value.
template <typename T, bool kMax>
struct ExtremeOp {
  using Acc = util::compute_t<T>;
  static constexpr bool kLanes = true, kUnroll = false;
  Acc init() const { return kMax ? util::lowest_value<Acc>() : util::highest_value<Acc>(); }
  Acc add(Acc acc, T x, int64_t) const { return merge(acc, util::load(x)); }
  Acc merge(Acc a, Acc b) const { return (kMax ? b > a : b < a) || util::is_nan(b) ? b : a; }
};

// argmax (kMax) or argmin: the first extreme, or the first NaN.
template <typename T, bool kMax>
struct ArgExtremeOp {
  struct Acc {
    util::compute_t<T> value;
    int64_t index;
  };
  static constexpr bool kLanes = false, kUnroll = false;
  Acc init() const { return {ExtremeOp<T, kMax>{}.init(), 0}; }
  Acc add(Acc acc, T x, int64_t index) const {
    const auto v = util::load(x);
    const bool better = (kMax ? v > acc.value : v < acc.value) || util::is_nan(v);
    return better && !util::is_nan(acc.value) ? Acc{v, index} : acc;
  }
};

template <typename In>
struct DoubleSumOp {
  using Acc = double;
  static constexpr bool kLanes = true, kUnroll = true;
  double init() const { return 0; }
  double add(double acc, In x, int64_t) const { return acc + static_cast<double>(util::load(x)); }
  double merge(double a, double b) const { return a + b; }
};

template <typename In>
struct SquaredDeviationOp {
  using Acc = double;
  static constexpr bool kLanes = true, kUnroll = true;
  double mean;
  double init() const { return 0; }
  double add(double acc, In x, int64_t) const {
    const double d = static_cast<double>(util::load(x)) - mean;
    return acc + d * d;
  }
  double merge(double a, double b) const { return a + b; }
};

// any (kAll false) or all: NaN is nonzero.
template <typename In, bool kAll>
struct LogicalOp {
  using Acc = bool;
  static constexpr bool kLanes = true, kUnroll = false;
  bool init() const { return kAll; }
  bool add(bool acc, In x, int64_t) const { return merge(acc, util::load(x) != util::compute_t<In>(0)); }
  bool merge(bool a, bool b) const { return kAll ? a && b : a || b; }
};

// ---- shared kernels ----

template <template <typename, typename> class Op>
void sum_or_prod(KernelArgs& a, const Tensor& self, const bool* reduced, bool keepdim, ScalarType dtype,
                 const Tensor& out) {
  Reduction plan;
  if (!util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) return;
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto in_tag) {
    util::visit_real_or_bool_or_half(dtype, [&](auto out_tag) {
      using In = typename decltype(in_tag)::type;
      using Out = typename decltype(out_tag)::type;
      Out* y = out.mutable_data_ptr<Out>();
      util::reduce(plan, self.const_data_ptr<In>(), Op<In, Out>{},
                   [&](auto acc, const int64_t* o) { y[o[0]] = util::store_as<Out>(acc); });
    });
  });
}

// sum.IntList_out and prod.int_out: PyTorch takes the dtype from out when
// `dtype` is None.
template <template <typename, typename> class Op>
void sum_or_prod_dims(KernelArgs& a, Span<EValue*> args, Span<const int64_t> dims, bool keepdim) {
  Tensor self, out;
  std::optional<ScalarType> dtype;
  ScalarType result = ScalarType::Float;
  bool reduced[util::kMaxDims];
  if (!a.tensor(0, "self", &self) || !a.tensor(4, "out", &out) || !optional_dtype(a, args, 3, &dtype) ||
      !sum_dtype(a, self, dtype, /*from_out=*/true, out, &result) ||
      !util::reduced_dims(a, "dim", dims, static_cast<size_t>(self.dim()), true, reduced)) {
    return;
  }
  sum_or_prod<Op>(a, self, reduced, keepdim, result, out);
}

// sum.out and prod.out: everything, out of the result's dtype.
template <template <typename, typename> class Op>
void sum_or_prod_all(KernelArgs& a, Span<EValue*> args) {
  Tensor self, out;
  std::optional<ScalarType> dtype;
  ScalarType result = ScalarType::Float;
  bool reduced[util::kMaxDims];
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.tensor(2, "out", &out) ||
      !optional_dtype(a, args, 1, &dtype) || !sum_dtype(a, self, dtype, /*from_out=*/false, out, &result) ||
      !util::reduced_dims(a, "dim", {}, static_cast<size_t>(self.dim()), true, reduced)) {
    return;
  }
  sum_or_prod<Op>(a, self, reduced, false, result, out);
}

template <bool kMax>
void extreme_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  Span<const int64_t> dims;
  bool keepdim = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.int_list(1, "dim", &dims) ||
      !a.boolean(2, "keepdim", &keepdim) || !a.tensor(3, "out", &out) ||
      !check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type())) ||
      !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!util::reduced_dims(a, "dim", dims, static_cast<size_t>(self.dim()), true, reduced) ||
      !check_no_empty_reduced_dim(a, self, reduced) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) {
    return;
  }
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.mutable_data_ptr<T>();
    util::reduce(plan, self.const_data_ptr<T>(), ExtremeOp<T, kMax>{},
                 [&](auto acc, const int64_t* o) { y[o[0]] = util::store_as<T>(acc); });
  });
}

// Writes the first extreme's index (and, if `values` is given, the extreme)
// of every output of the plan.
template <bool kMax>
void arg_extreme(const Reduction& plan, const Tensor& self, const Tensor* values, const Tensor& indices) {
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t* index_data = indices.mutable_data_ptr<int64_t>();
    T* value_data = values != nullptr ? values->mutable_data_ptr<T>() : nullptr;
    util::reduce(plan, self.const_data_ptr<T>(), ArgExtremeOp<T, kMax>{}, [&](auto acc, const int64_t* o) {
      if (value_data != nullptr) value_data[o[0]] = util::store_as<T>(acc.value);
      index_data[o[values != nullptr ? 1 : 0]] = acc.index;
    });
  });
}

template <bool kMax>
void arg_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  bool keepdim = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.boolean(2, "keepdim", &keepdim) ||
      !a.tensor(3, "out", &out) || !check_self(a, self, util::is_real_or_half(self.scalar_type())) ||
      !a.check_dtype(out, "out", ScalarType::Long)) {
    return;
  }
  // dim None: the index into the flattened self.
  int64_t dim = 0;
  const bool all = args[1]->isNone();
  if (!all && !a.integer(1, "dim", &dim)) return;
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!util::reduced_dims(a, "dim", {&dim, all ? size_t{0} : size_t{1}}, static_cast<size_t>(self.dim()), true, reduced) ||
      !check_no_empty_reduced_dim(a, self, reduced) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) {
    return;
  }
  arg_extreme<kMax>(plan, self, nullptr, out);
}

// max.dim_max, min.dim_min: values and indices along one dim.
template <bool kMax>
void extreme_dim_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, const char* values_name,
                        const char* indices_name) {
  KernelArgs a(ctx, op, args);
  Tensor self, values, indices;
  int64_t dim = 0;
  bool keepdim = false;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "keepdim", &keepdim) || !a.tensor(3, values_name, &values) ||
      !a.tensor(4, indices_name, &indices) ||
      !check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type())) ||
      !a.check_dtype(values, values_name, self.scalar_type()) ||
      !a.check_dtype(indices, indices_name, ScalarType::Long)) {
    return;
  }
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!util::reduced_dims(a, "dim", {&dim, 1}, static_cast<size_t>(self.dim()), true, reduced) ||
      !check_no_empty_reduced_dim(a, self, reduced) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{values, values_name}, {indices, indices_name}}, &plan)) {
    return;
  }
  arg_extreme<kMax>(plan, self, &values, indices);
}

// any and all over the dims marked in `reduced`; out is Bool.
template <bool kAll>
void logical_reduce(KernelArgs& a, const Tensor& self, const bool* reduced, bool keepdim, const Tensor& out) {
  Reduction plan;
  if (!check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type())) ||
      !a.check_dtype(out, "out", ScalarType::Bool) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) {
    return;
  }
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    bool* y = out.mutable_data_ptr<bool>();
    util::reduce(plan, self.const_data_ptr<T>(), LogicalOp<T, kAll>{}, [&](bool acc, const int64_t* o) { y[o[0]] = acc; });
  });
}

// any.all_out, all.all_out: (self, out).
template <bool kAll>
void logical_all_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  bool reduced[util::kMaxDims];
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out) ||
      !util::reduced_dims(a, "dim", {}, static_cast<size_t>(self.dim()), true, reduced)) {
    return;
  }
  logical_reduce<kAll>(a, self, reduced, false, out);
}

// any.out, all.out (one int dim) and any.dims_out, all.dims_out (int[]?:
// None reduces everything, [] nothing): (self, dim, keepdim, out).
template <bool kAll>
void logical_dims_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, bool dim_list) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  bool keepdim = false;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.boolean(2, "keepdim", &keepdim) ||
      !a.tensor(3, "out", &out)) {
    return;
  }
  int64_t dim = 0;
  Span<const int64_t> dims{&dim, 1};
  if (dim_list ? !optional_dims(a, args, 1, &dims) : !a.integer(1, "dim", &dim)) return;
  const bool all = dim_list && args[1]->isNone();
  bool reduced[util::kMaxDims];
  if (!util::reduced_dims(a, "dim", dims, static_cast<size_t>(self.dim()), all, reduced)) return;
  logical_reduce<kAll>(a, self, reduced, keepdim, out);
}

// ---- cumsum ----

template <typename In, typename Out>
void cumsum_lines(const util::AlongDim<2>& along, const In* x, Out* y) {
  using Acc = sum_acc_t<Out>;
  const SumOp<In, Out> op;
  const int64_t length = along.length[0], in_step = along.stride[0], out_step = along.stride[1];
  util::for_each_row(along.lines, [&](const int64_t* offsets, int64_t lines, const int64_t* inner) {
    const In* in = x + offsets[0];
    Out* out = y + offsets[1];
    if (lines > 1 && inner[0] == 1 && inner[1] == 1) {
      // Neighbouring lines are contiguous: scan a block of them in lockstep.
      constexpr int64_t kBlock = 64;
      for (int64_t start = 0; start < lines; start += kBlock) {
        const int64_t block = std::min(kBlock, lines - start);
        Acc acc[kBlock];
        for (int64_t j = 0; j < block; ++j) acc[j] = op.init();
        for (int64_t k = 0; k < length; ++k) {
          const In* p = in + start + k * in_step;
          Out* q = out + start + k * out_step;
          for (int64_t j = 0; j < block; ++j) {
            acc[j] = op.add(acc[j], p[j], 0);
            q[j] = util::store_as<Out>(acc[j]);
          }
        }
      }
      return;
    }
    for (int64_t j = 0; j < lines; ++j) {
      const In* p = in + j * inner[0];
      Out* q = out + j * inner[1];
      Acc acc = op.init();
      for (int64_t k = 0; k < length; ++k) {
        acc = op.add(acc, p[k * in_step], 0);
        q[k * out_step] = util::store_as<Out>(acc);
      }
    }
  });
}

}  // namespace

void sum_intlist_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::sum.IntList_out", args);
  Span<const int64_t> dims;
  bool keepdim = false;
  if (!a.check_count(5) || !optional_dims(a, args, 1, &dims) || !a.boolean(2, "keepdim", &keepdim)) return;
  sum_or_prod_dims<SumOp>(a, args, dims, keepdim);
}

void sum_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::sum.out", args);
  sum_or_prod_all<SumOp>(a, args);
}

void prod_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::prod.out", args);
  sum_or_prod_all<ProdOp>(a, args);
}

void prod_int_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::prod.int_out", args);
  int64_t dim = 0;
  bool keepdim = false;
  if (!a.check_count(5) || !a.integer(1, "dim", &dim) || !a.boolean(2, "keepdim", &keepdim)) return;
  sum_or_prod_dims<ProdOp>(a, args, {&dim, 1}, keepdim);
}

void mean_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::mean.out", args);
  Tensor self, out;
  bool keepdim = false;
  Span<const int64_t> dims;
  std::optional<ScalarType> dtype;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !optional_dims(a, args, 1, &dims) ||
      !a.boolean(2, "keepdim", &keepdim) || !optional_dtype(a, args, 3, &dtype) || !a.tensor(4, "out", &out) ||
      !check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type()))) {
    return;
  }
  // PyTorch: the result dtype is `dtype` if given, else out's (inferred), and
  // must be floating; without `dtype`, self must be floating too.
  if (dtype && !util::is_floating_or_half(*dtype)) {
    a.fail(Error::InvalidArgument, "'dtype' %s is not a floating dtype", runtime::to_string(*dtype));
    return;
  }
  if (!dtype && !util::is_floating_or_half(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s; without a floating 'dtype' it must be floating",
           runtime::to_string(self.scalar_type()));
    return;
  }
  const ScalarType result = dtype.value_or(out.scalar_type());
  if (!util::is_floating_or_half(result)) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, which is not floating", runtime::to_string(result));
    return;
  }
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!a.check_dtype(out, "out", result) ||
      !util::reduced_dims(a, "dim", dims, static_cast<size_t>(self.dim()), true, reduced) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) {
    return;
  }
  const auto count = static_cast<double>(plan.count);
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto in_tag) {
    util::visit_floating_or_half(result, [&](auto out_tag) {
      using In = typename decltype(in_tag)::type;
      using Out = typename decltype(out_tag)::type;
      Out* y = out.mutable_data_ptr<Out>();
      // 0 / 0 gives NaN for an empty reduction, as in PyTorch.
      util::reduce(plan, self.const_data_ptr<In>(), SumOp<In, Out>{},
                   [&](double sum, const int64_t* o) { y[o[0]] = util::store_as<Out>(sum / count); });
    });
  });
}

void var_correction_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::var.correction_out", args);
  Tensor self, out;
  bool keepdim = false;
  Span<const int64_t> dims;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !optional_dims(a, args, 1, &dims) ||
      !a.boolean(3, "keepdim", &keepdim) || !a.tensor(4, "out", &out)) {
    return;
  }
  double correction = 1;
  if (!args[2]->isNone()) {
    const EValue* value = nullptr;
    if (!a.scalar(2, "correction", &value)) return;
    correction = value->toScalarAsDouble();
  }
  if (!util::is_floating_or_half(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has dtype %s; var needs a floating dtype",
           runtime::to_string(self.scalar_type()));
    return;
  }
  if (!util::is_floating_or_half(out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s; var needs a floating dtype", runtime::to_string(out.scalar_type()));
    return;
  }
  bool reduced[util::kMaxDims];
  Reduction plan;
  if (!util::reduced_dims(a, "dim", dims, static_cast<size_t>(self.dim()), true, reduced) ||
      !util::plan_reduction(a, self, reduced, keepdim, {{out, "out"}}, &plan)) {
    return;
  }
  // Two passes in double: the mean, then the squared deviations from it.
  // PyTorch divides by max(N - correction, 0), giving inf or NaN past N.
  const auto count = static_cast<double>(plan.count);
  const double divisor = std::max(count - correction, 0.0);
  util::visit_floating_or_half(self.scalar_type(), [&](auto in_tag) {
    util::visit_floating_or_half(out.scalar_type(), [&](auto out_tag) {
      using In = typename decltype(in_tag)::type;
      using Out = typename decltype(out_tag)::type;
      const In* x = self.const_data_ptr<In>();
      Out* y = out.mutable_data_ptr<Out>();
      util::for_each_output(plan, [&](int64_t base, const int64_t* o) {
        const double mean = util::accumulate(plan, x, base, DoubleSumOp<In>{}) / count;
        const double squares = util::accumulate(plan, x, base, SquaredDeviationOp<In>{mean});
        // The variance of nothing is NaN whatever the correction.
        y[o[0]] = util::store_as<Out>(plan.count == 0 ? mean : squares / divisor);
      });
    });
  });
}

void amax_out(KernelRuntimeContext& ctx, Span<EValue*> args) { extreme_kernel<true>(ctx, args, "aten::amax.out"); }
void amin_out(KernelRuntimeContext& ctx, Span<EValue*> args) { extreme_kernel<false>(ctx, args, "aten::amin.out"); }
void argmax_out(KernelRuntimeContext& ctx, Span<EValue*> args) { arg_kernel<true>(ctx, args, "aten::argmax.out"); }
void argmin_out(KernelRuntimeContext& ctx, Span<EValue*> args) { arg_kernel<false>(ctx, args, "aten::argmin.out"); }

void max_dim_max(KernelRuntimeContext& ctx, Span<EValue*> args) {
  extreme_dim_kernel<true>(ctx, args, "aten::max.dim_max", "max", "max_values");
}
void min_dim_min(KernelRuntimeContext& ctx, Span<EValue*> args) {
  extreme_dim_kernel<false>(ctx, args, "aten::min.dim_min", "min", "min_indices");
}

void any_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_dims_kernel<false>(ctx, args, "aten::any.out", false);
}
void any_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_dims_kernel<false>(ctx, args, "aten::any.dims_out", true);
}
void any_all_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_all_kernel<false>(ctx, args, "aten::any.all_out");
}
void all_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_dims_kernel<true>(ctx, args, "aten::all.out", false);
}
void all_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_dims_kernel<true>(ctx, args, "aten::all.dims_out", true);
}
void all_all_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  logical_all_kernel<true>(ctx, args, "aten::all.all_out");
}

void cumsum_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::cumsum.out", args);
  Tensor self, out;
  int64_t dim = 0;
  std::optional<ScalarType> dtype;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !optional_dtype(a, args, 2, &dtype) || !a.tensor(3, "out", &out) ||
      !check_self(a, self, util::is_real_or_bool_or_half(self.scalar_type()))) {
    return;
  }
  // The dtype is `dtype` if given, else out's (PyTorch infers it); never Bool.
  const ScalarType result = dtype.value_or(out.scalar_type());
  if (!util::is_real_or_half(result)) {
    a.fail(Error::InvalidArgument, "'%s' is %s; cumsum needs a numeric dtype", dtype ? "dtype" : "out",
           runtime::to_string(result));
    return;
  }
  size_t d = 0;
  if (!a.check_dtype(out, "out", result) || !util::wrap_dim(a, "dim", dim, static_cast<size_t>(self.dim()), &d) ||
      !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  if (self.numel() == 0) return;
  const Tensor tensors[2] = {self, out};
  const util::AlongDim<2> along = util::along_dim(tensors, d);
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto in_tag) {
    util::visit_real_or_half(result, [&](auto out_tag) {
      using In = typename decltype(in_tag)::type;
      using Out = typename decltype(out_tag)::type;
      cumsum_lines(along, self.const_data_ptr<In>(), out.mutable_data_ptr<Out>());
    });
  });
}

}  // namespace kiln::kernels::portable
