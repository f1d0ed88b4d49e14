// Meta rules of the reductions: the reduced dims drop out (or stay as 1 with
// keepdim); sums and products of integers give int64 unless a dtype is
// given, mean needs a floating dtype, any/all give bool (uint8 stays uint8),
// arg-reductions give int64, and max/min/topk/sort return (values, indices).
#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {
namespace {

// sum, prod and cumsum accumulate integers in int64.
ScalarType accumulating_dtype(const Call& c, size_t dtype_arg) {
  if (auto dtype = c.dtype(dtype_arg)) return *dtype;
  const ScalarType self = c.tensor(0).dtype;
  return is_integral(self) ? ScalarType::Long : self;
}

// Reducing a dim of static size 0 has no result for ops without an identity.
void check_nonempty(const Call& c, const std::vector<size_t>& dims, const char* op) {
  const TensorMeta& self = c.tensor(0);
  for (size_t d : dims) {
    if (d < self.rank() && self.sizes[d].constant_value() == 0) {
      c.fail(std::string(op) + " cannot reduce dim " + std::to_string(d) + " of size 0 in " + self.to_string());
    }
  }
}

ValueMeta reduce(const Call& c, size_t dim_arg, size_t keepdim_arg, bool empty_means_all, ScalarType dtype) {
  const TensorMeta& self = c.tensor(0);
  const auto dims = reduction_dims(c, dim_arg, self.rank(), empty_means_all);
  return TensorMeta(dtype, reduce_sizes(self.sizes, dims, c.boolean(keepdim_arg)));
}

ValueMeta reduce_all(ScalarType dtype) { return TensorMeta(dtype, std::vector<SymExpr>{}); }

// One dim (an int argument) reduced.
std::vector<SymExpr> reduce_one(const Call& c, size_t dim_arg, size_t keepdim_arg) {
  const TensorMeta& self = c.tensor(0);
  return reduce_sizes(self.sizes, {c.dim(c.integer(dim_arg), self.rank())}, c.boolean(keepdim_arg));
}

ScalarType logical_dtype(const Call& c) { return c.tensor(0).dtype == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool; }

ValueMeta mean(const Call& c) {
  const auto dtype = c.dtype(3);
  const ScalarType self = c.tensor(0).dtype;
  if (!dtype && !runtime::is_floating_type(self)) {
    c.fail(std::string("mean of a ") + runtime::to_string(self) + " tensor needs a floating dtype argument");
  }
  return reduce(c, 1, 2, true, dtype.value_or(self));
}

ValueMeta var(const Call& c) {
  const ScalarType self = c.tensor(0).dtype;
  if (!runtime::is_floating_type(self)) c.fail(std::string("var takes a floating-point tensor, got ") + runtime::to_string(self));
  return reduce(c, 1, 3, true, self);
}

ValueMeta extremum(const Call& c, const char* op) {
  const TensorMeta& self = c.tensor(0);
  const auto dims = reduction_dims(c, 1, self.rank(), true);
  check_nonempty(c, dims, op);
  return TensorMeta(self.dtype, reduce_sizes(self.sizes, dims, c.boolean(2)));
}

// argmax(self, int? dim=None, bool keepdim=False): no dim reduces everything.
ValueMeta arg_extremum(const Call& c, const char* op) {
  const TensorMeta& self = c.tensor(0);
  if (c.is_none(1)) {
    check_nonempty(c, reduction_dims(c, 1, self.rank(), true), op);
    const std::vector<SymExpr> ones(c.boolean(2) ? self.rank() : 0, SymExpr::constant(1));
    return TensorMeta(ScalarType::Long, ones);
  }
  const size_t dim = c.dim(c.integer(1), self.rank());
  check_nonempty(c, {dim}, op);
  return TensorMeta(ScalarType::Long, reduce_sizes(self.sizes, {dim}, c.boolean(2)));
}

ValueMeta values_and_indices(const Call& c, std::vector<SymExpr> sizes) {
  return std::vector<TensorMeta>{TensorMeta(c.tensor(0).dtype, sizes), TensorMeta(ScalarType::Long, sizes)};
}

ValueMeta topk(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const SymExpr k = c.sym_arg(1);
  const size_t dim = c.dim(c.integer(2), self.rank());
  std::vector<SymExpr> sizes = self.sizes;
  const SymExpr available = self.rank() == 0 ? SymExpr::constant(1) : self.sizes[dim];
  if (const auto kv = k.constant_value()) {
    const auto size = available.constant_value();
    if (*kv < 0 || (size && *kv > *size)) c.fail("k " + std::to_string(*kv) + " is out of range for " + self.to_string());
  }
  if (self.rank() > 0) sizes[dim] = k;
  return values_and_indices(c, sizes);
}

}  // namespace

void add_reduction_rules(RuleTable& t) {
  t["aten::sum.dim_IntList"] = [](const Call& c) { return reduce(c, 1, 2, true, accumulating_dtype(c, 3)); };
  t["aten::sum.default"] = [](const Call& c) { return reduce_all(accumulating_dtype(c, 1)); };
  t["aten::prod.default"] = [](const Call& c) { return reduce_all(accumulating_dtype(c, 1)); };
  t["aten::prod.dim_int"] = [](const Call& c) {
    return ValueMeta(TensorMeta(accumulating_dtype(c, 3), reduce_one(c, 1, 2)));
  };
  t["aten::cumsum.default"] = [](const Call& c) {
    c.dim(c.integer(1), c.tensor(0).rank());
    return ValueMeta(TensorMeta(accumulating_dtype(c, 2), c.tensor(0).sizes));
  };
  t["aten::mean.dim"] = mean;
  t["aten::var.correction"] = var;
  t["aten::amax.default"] = [](const Call& c) { return extremum(c, "amax"); };
  t["aten::amin.default"] = [](const Call& c) { return extremum(c, "amin"); };
  t["aten::argmax.default"] = [](const Call& c) { return arg_extremum(c, "argmax"); };
  t["aten::argmin.default"] = [](const Call& c) { return arg_extremum(c, "argmin"); };

  t["aten::any.default"] = [](const Call& c) { return reduce_all(logical_dtype(c)); };
  t["aten::all.default"] = [](const Call& c) { return reduce_all(logical_dtype(c)); };
  t["aten::any.dim"] = [](const Call& c) { return ValueMeta(TensorMeta(logical_dtype(c), reduce_one(c, 1, 2))); };
  t["aten::all.dim"] = [](const Call& c) { return ValueMeta(TensorMeta(logical_dtype(c), reduce_one(c, 1, 2))); };
  // any.dims/all.dims with an empty list reduce nothing (None reduces all).
  t["aten::any.dims"] = [](const Call& c) { return reduce(c, 1, 2, false, logical_dtype(c)); };
  t["aten::all.dims"] = [](const Call& c) { return reduce(c, 1, 2, false, logical_dtype(c)); };

  t["aten::max.dim"] = [](const Call& c) { return values_and_indices(c, reduce_one(c, 1, 2)); };
  t["aten::min.dim"] = [](const Call& c) { return values_and_indices(c, reduce_one(c, 1, 2)); };
  t["aten::topk.default"] = topk;
  t["aten::sort.default"] = [](const Call& c) {
    c.dim(c.integer(1), c.tensor(0).rank());
    return values_and_indices(c, c.tensor(0).sizes);
  };
}

}  // namespace kiln::aot::meta
