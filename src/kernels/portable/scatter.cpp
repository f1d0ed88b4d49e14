// Scatter: out = self, then every element of `index` sends one value (src's
// element at the same position, or a Scalar) to out along `dim`, at the
// position the index names. scatter writes it; scatter_add and scatter_reduce
// combine it with what is there, in index order, as PyTorch's CPU loops do.
// Index walks one line along `dim` at a time: the lines of out, index and src
// share every other coordinate.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/accumulate.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/indexing.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;
using util::combine;
using util::Reduce;
using util::visit_every_dtype;

// The operands of one scatter; a 0-dim tensor acts as 1-D of one element.
struct ScatterLines {
  util::Geometry out, index, src;  // a Scalar source has all-zero strides
  size_t dim = 0;
};

util::Geometry at_least_1d(const Tensor& t) {
  util::Geometry g = util::geometry(t);
  if (g.rank == 0) g = util::Geometry{1, {1}, {1}};
  return g;
}

// PyTorch's shape rule, checked only for a non-empty index: index has self's
// (and src's) rank, and is no larger than src in any dim and than self in any
// dim but `dim`.
bool check_scatter_shapes(KernelArgs& a, const ScatterLines& g, bool has_src) {
  if (g.index.rank != g.out.rank || (has_src && g.src.rank != g.out.rank)) {
    a.fail(Error::InvalidArgument, "'index' has %zu dims, 'self'%s %zu; they must match", g.index.rank,
           has_src ? " and 'src'" : "", g.out.rank);
    return false;
  }
  for (size_t d = 0; d < g.index.rank; ++d) {
    const int64_t size = g.index.sizes[d];
    const bool past_self = d != g.dim && size > g.out.sizes[d];
    if (past_self || (has_src && size > g.src.sizes[d])) {
      a.fail(Error::InvalidArgument, "'index' has size %lld in dim %zu, larger than '%s' (%lld)",
             static_cast<long long>(size), d, past_self ? "self" : "src",
             static_cast<long long>(past_self ? g.out.sizes[d] : g.src.sizes[d]));
      return false;
    }
  }
  return true;
}

// The checks every scatter shares, then out = self. `src` is null for a
// Scalar source. Fills `lines` for scatter_lines.
bool prepare_scatter(KernelArgs& a, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     const Tensor& out, ScatterLines* lines) {
  if (!a.check_valid_dtype(self, "self")) return false;
  if ((src != nullptr && !a.check_dtype(*src, "src", self.scalar_type())) ||
      !a.check_dtype(out, "out", self.scalar_type()) || !util::check_index_dtype(a, index, "index") ||
      !a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &lines->dim)) {
    return false;
  }
  lines->out = at_least_1d(self);
  lines->index = at_least_1d(index);
  lines->src = src != nullptr ? at_least_1d(*src) : util::Geometry{lines->out.rank, {}, {}};
  if (index.numel() > 0) {
    const long named_dim = static_cast<long>(lines->dim);
    if (!check_scatter_shapes(a, *lines, src != nullptr) ||
        !util::check_indices(a, index, "index", -1, {lines->out.sizes[lines->dim], named_dim, false})) {
      return false;
    }
  }
  if (!a.resize_out(out, "out", self.sizes())) return false;
  util::copy_logical(self, out);
  lines->out = at_least_1d(out);
  return true;
}

// Calls line(out_offset, index_offset, src_offset) for the start of every
// line of index along `dim`, then runs `length` (index's size there) steps.
template <typename F>
void for_each_line(const ScatterLines& g, F&& line) {
  int64_t sizes[util::kMaxDims];
  for (size_t d = 0; d < g.index.rank; ++d) {
    if (g.index.sizes[d] == 0) return;
    sizes[d] = d == g.dim ? 1 : g.index.sizes[d];
  }
  util::StridedCursor<3> cursor(sizes, g.index.rank);
  cursor.set_strides(0, g.out.strides);
  cursor.set_strides(1, g.index.strides);
  cursor.set_strides(2, g.src.strides);
  do {
    line(cursor.offset(0), cursor.offset(1), cursor.offset(2));
  } while (cursor.next());
}

// Calls visit(out_element, src_element) for every index element, in index order.
template <typename T, typename V>
void scatter_elements(const ScatterLines& g, const Tensor& index, const T* src, T* out, V&& visit) {
  const int64_t length = g.index.sizes[g.dim];
  const int64_t out_step = g.out.strides[g.dim], index_step = g.index.strides[g.dim], src_step = g.src.strides[g.dim];
  util::visit_index(index.scalar_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* ids = index.const_data_ptr<I>();
    for_each_line(g, [&](int64_t o, int64_t i, int64_t s) {
      for (int64_t t = 0; t < length; ++t) {
        visit(out[o + static_cast<int64_t>(ids[i + t * index_step]) * out_step], src[s + t * src_step]);
      }
    });
  });
}

// scatter.src and scatter.value move elements as raw bytes.
void scatter_copy(const ScatterLines& g, const Tensor& index, const void* src, const Tensor& out) {
  util::visit_element_size(out.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_elements(g, index, static_cast<const T*>(src), out.mutable_data_ptr<T>(), [](T& to, T from) { to = from; });
  });
}

// ---- reductions ----

// What a slot starts from when include_self is false.
template <Reduce R, typename T>
T identity() {
  if constexpr (R == Reduce::Sum || R == Reduce::Mean) {
    return util::convert<T>(0);
  } else if constexpr (R == Reduce::Prod) {
    return util::convert<T>(1);
  } else if constexpr (util::is_float_like_v<T>) {
    const float inf = std::numeric_limits<float>::infinity();
    return util::convert<T>(R == Reduce::Max ? -inf : inf);
  } else {
    return R == Reduce::Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

// A slot's count as PyTorch holds it: a tensor of T counting up by one, so
// the 16-bit floats stop where +1 no longer changes them, integers wrap, and
// a count of 0 divides by 1.
template <typename T>
T count_as(int64_t count) {
  if constexpr (util::is_float_like_v<T>) {
    const int64_t stop = std::is_same_v<T, runtime::Half> ? 2048 : std::is_same_v<T, runtime::BFloat16> ? 256
                         : std::is_same_v<T, float> ? (int64_t{1} << 24) : INT64_MAX;
    return util::convert<T>(static_cast<double>(std::min(count, stop)));
  } else {
    const auto n = static_cast<T>(static_cast<uint64_t>(count));
    return n == 0 ? T{1} : n;
  }
}

// sum / count: true division for floats, floor division for integers.
template <typename T>
T mean_of(T sum, int64_t count) {
  const T n = count_as<T>(count);
  if constexpr (util::is_float_like_v<T>) {
    using C = util::compute_t<T>;
    return util::store_as<T>(static_cast<C>(sum) / static_cast<C>(n));
  } else if constexpr (std::is_signed_v<T>) {
    if (n == -1) return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(sum));  // no overflow of lowest / -1
    const T q = static_cast<T>(sum / n);
    return (sum % n != 0 && (sum < 0) != (n < 0)) ? static_cast<T>(q - 1) : q;
  } else {
    return static_cast<T>(sum / n);
  }
}

// Divides each slot the index reaches by its count (plus one for self), line
// by line; `counts` holds one entry per element of out's dim.
template <typename T, typename I>
void divide_by_counts(const ScatterLines& g, const I* ids, T* out, bool include_self, int64_t* counts) {
  const int64_t length = g.index.sizes[g.dim];
  const int64_t out_step = g.out.strides[g.dim], index_step = g.index.strides[g.dim];
  for_each_line(g, [&](int64_t o, int64_t i, int64_t) {
    for (int64_t t = 0; t < length; ++t) ++counts[ids[i + t * index_step]];
    for (int64_t t = 0; t < length; ++t) {
      int64_t& count = counts[ids[i + t * index_step]];
      if (count == 0) continue;  // divided already
      T& slot = out[o + static_cast<int64_t>(ids[i + t * index_step]) * out_step];
      slot = mean_of(slot, count + (include_self ? 1 : 0));
      count = 0;
    }
  });
}

template <Reduce R, typename T>
void scatter_reduce_typed(const ScatterLines& g, const Tensor& index, const Tensor& src, const Tensor& out,
                          bool include_self, int64_t* counts) {
  T* o = out.mutable_data_ptr<T>();
  const T* s = src.const_data_ptr<T>();
  if (!include_self) {
    const T start = identity<R, T>();
    scatter_elements(g, index, s, o, [&](T& to, T) { to = start; });
  }
  scatter_elements(g, index, s, o, [](T& to, T from) { to = combine<R, T>(to, from); });
  if constexpr (R == Reduce::Mean) {
    util::visit_index(index.scalar_type(), [&](auto tag) {
      divide_by_counts(g, index.const_data_ptr<typename decltype(tag)::type>(), o, include_self, counts);
    });
  }
}

template <typename F>
void visit_reduce(Reduce r, F&& f) {
  switch (r) {
    case Reduce::Sum: f(std::integral_constant<Reduce, Reduce::Sum>{}); return;
    case Reduce::Prod: f(std::integral_constant<Reduce, Reduce::Prod>{}); return;
    case Reduce::Mean: f(std::integral_constant<Reduce, Reduce::Mean>{}); return;
    case Reduce::Max: f(std::integral_constant<Reduce, Reduce::Max>{}); return;
    case Reduce::Min: f(std::integral_constant<Reduce, Reduce::Min>{}); return;
  }
}

void scatter_reduce(const ScatterLines& g, const Tensor& index, const Tensor& src, const Tensor& out, Reduce r,
                    bool include_self, int64_t* counts) {
  visit_every_dtype(out.scalar_type(), [&](auto dtype_tag) {
    using T = typename decltype(dtype_tag)::type;
    visit_reduce(r, [&](auto reduce_tag) {
      constexpr Reduce kReduce = decltype(reduce_tag)::value;
      if constexpr (kReduce == Reduce::Mean && std::is_same_v<T, bool>) {
        return;  // refused before
      } else {
        scatter_reduce_typed<kReduce, T>(g, index, src, out, include_self, counts);
      }
    });
  });
}

bool parse_reduce(KernelArgs& a, Span<const char> text, Reduce* out) {
  static constexpr struct {
    const char* name;
    Reduce reduce;
  } kNames[] = {{"sum", Reduce::Sum}, {"prod", Reduce::Prod}, {"mean", Reduce::Mean}, {"amax", Reduce::Max},
                {"amin", Reduce::Min}};
  for (const auto& entry : kNames) {
    if (text.size() == std::strlen(entry.name) && std::memcmp(text.data(), entry.name, text.size()) == 0) {
      *out = entry.reduce;
      return true;
    }
  }
  a.fail(Error::InvalidArgument, "'reduce' must be 'sum', 'prod', 'mean', 'amax' or 'amin', got '%.*s'",
         static_cast<int>(text.size()), text.data());
  return false;
}

// PyTorch has no mean of bools; of the wide unsigned integers it only sums
// and multiplies, and only with include_self.
bool check_reduce_dtype(KernelArgs& a, Reduce r, bool include_self, ScalarType t) {
  const bool wide_unsigned = t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
  if (r == Reduce::Mean && t == ScalarType::Bool) {
    a.fail(Error::NotSupported, "'reduce' mean is not supported for dtype Bool");
    return false;
  }
  if (wide_unsigned && (!include_self || (r != Reduce::Sum && r != Reduce::Prod))) {
    a.fail(Error::NotSupported, "dtype %s supports only 'reduce' sum and prod with 'include_self' true",
           runtime::to_string(t));
    return false;
  }
  return true;
}

bool check_arithmetic_dtype(KernelArgs& a, ScalarType t) {
  bool known = false;
  visit_every_dtype(t, [&](auto) { known = true; });
  if (!known) a.fail(Error::NotSupported, "'self' has dtype %s, which is not supported", runtime::to_string(t));
  return known;
}

// Reads (self, dim, index, src), the first arguments of scatter.src,
// scatter_add and scatter_reduce.
bool read_scatter_args(KernelArgs& a, Tensor* self, int64_t* dim, Tensor* index, Tensor* src) {
  return a.tensor(0, "self", self) && a.integer(1, "dim", dim) && a.tensor(2, "index", index) &&
         a.tensor(3, "src", src);
}

}  // namespace

void scatter_src_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::scatter.src_out", args);
  Tensor self, index, src, out;
  int64_t dim = 0;
  ScatterLines lines;
  if (!a.check_count(5) || !read_scatter_args(a, &self, &dim, &index, &src) || !a.tensor(4, "out", &out) ||
      !prepare_scatter(a, self, dim, index, &src, out, &lines)) {
    return;
  }
  scatter_copy(lines, index, src.const_data_ptr(), out);
}

void scatter_value_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::scatter.value_out", args);
  Tensor self, index, out;
  int64_t dim = 0;
  const EValue* value = nullptr;
  ScatterLines lines;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.tensor(2, "index", &index) || !a.scalar(3, "value", &value) || !a.tensor(4, "out", &out) ||
      !check_arithmetic_dtype(a, self.scalar_type())) {
    return;
  }
  uint64_t element = 0;  // the value as self's dtype, in the low bytes
  bool fits = false;
  visit_every_dtype(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fits = util::scalar_converts<T>(*value);
    const T converted = util::scalar_as<T>(*value);
    std::memcpy(&element, &converted, sizeof converted);
  });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'value' %g cannot be converted to %s without overflow", value->toScalarAsDouble(),
           runtime::to_string(self.scalar_type()));
    return;
  }
  if (!prepare_scatter(a, self, dim, index, nullptr, out, &lines)) return;
  scatter_copy(lines, index, &element, out);
}

void scatter_add_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::scatter_add.out", args);
  Tensor self, index, src, out;
  int64_t dim = 0;
  ScatterLines lines;
  if (!a.check_count(5) || !read_scatter_args(a, &self, &dim, &index, &src) || !a.tensor(4, "out", &out) ||
      !check_arithmetic_dtype(a, self.scalar_type()) || !prepare_scatter(a, self, dim, index, &src, out, &lines)) {
    return;
  }
  scatter_reduce(lines, index, src, out, Reduce::Sum, true, nullptr);
}

void scatter_reduce_two_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::scatter_reduce.two_out", args);
  Tensor self, index, src, out;
  int64_t dim = 0;
  Span<const char> reduce_name;
  Reduce reduce = Reduce::Sum;
  bool include_self = true;
  ScatterLines lines;
  if (!a.check_count(7) || !read_scatter_args(a, &self, &dim, &index, &src) ||
      !a.string(4, "reduce", &reduce_name) || !parse_reduce(a, reduce_name, &reduce) ||
      !a.boolean(5, "include_self", &include_self) || !a.tensor(6, "out", &out) ||
      !check_arithmetic_dtype(a, self.scalar_type()) ||
      !check_reduce_dtype(a, reduce, include_self, self.scalar_type()) ||
      !prepare_scatter(a, self, dim, index, &src, out, &lines)) {
    return;
  }
  int64_t* counts = nullptr;  // mean's count of each slot along one line
  if (reduce == Reduce::Mean && index.numel() > 0) {
    const size_t bytes = static_cast<size_t>(lines.out.sizes[lines.dim]) * sizeof(int64_t);
    auto memory = ctx.allocate_temp(bytes, alignof(int64_t));
    if (!memory.ok()) {
      a.fail(memory.error(), "'reduce' mean needs %zu bytes of temporary memory, which the context did not give",
             bytes);
      return;
    }
    counts = static_cast<int64_t*>(*memory);
    std::memset(counts, 0, bytes);
  }
  scatter_reduce(lines, index, src, out, reduce, include_self, counts);
}

}  // namespace kiln::kernels::portable
