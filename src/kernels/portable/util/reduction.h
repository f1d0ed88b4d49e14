// Reductions and along-one-dim loops for the portable kernels.
//
// A Reduction splits self's dims into kept dims (one point per output
// element) and reduced dims (the inputs of one output), for any dim list,
// keepdim and layout of self and the outs. `reduce` runs an accumulator over
// it in one of two ways:
//   - per output, its inputs in logical order; a contiguous run of them is
//     split over independent lanes so the loop vectorizes;
//   - when self's innermost kept dim is contiguous (a reduction over outer
//     dims), a block of neighbouring outputs in lockstep, one contiguous load
//     per reduced element.
// AlongDim describes the 1-D lines of tensors along one dim, for scans, sorts
// and softmax.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable::util {

/// A dim argument of rank-`rank` self, wrapped into [0, rank). A 0-dim
/// tensor takes dim 0 and -1, as PyTorch's scalars do.
inline bool wrap_dim(KernelArgs& a, const char* name, int64_t dim, size_t rank, size_t* out) {
  const auto r = static_cast<int64_t>(rank > 0 ? rank : 1);
  if (dim < -r || dim >= r) {
    a.fail(Error::InvalidArgument, "'%s' %lld is out of range for %zu dims", name, static_cast<long long>(dim), rank);
    return false;
  }
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return true;
}

/// Marks in `reduced[kMaxDims]` the dims of a rank-`rank` tensor that `dims`
/// names, each at most once (a 0-dim tensor accepts 0 and -1, reducing
/// nothing). An empty `dims` marks every dim if `empty_means_all` (sum, amax,
/// ...), none otherwise (any.dims, all.dims).
inline bool reduced_dims(KernelArgs& a, const char* name, Span<const int64_t> dims, size_t rank, bool empty_means_all,
                         bool* reduced) {
  for (size_t d = 0; d < kMaxDims; ++d) reduced[d] = dims.empty() && empty_means_all;
  bool scalar_dim_seen = false;
  for (int64_t dim : dims) {
    size_t d = 0;
    if (!wrap_dim(a, name, dim, rank, &d)) return false;
    bool& seen = rank == 0 ? scalar_dim_seen : reduced[d];
    if (seen) {
      a.fail(Error::InvalidArgument, "'%s' %lld appears more than once", name, static_cast<long long>(dim));
      return false;
    }
    seen = true;
  }
  return true;
}

/// An out tensor of a reduction and its schema name.
struct NamedOut {
  Tensor tensor;
  const char* name;
};

/// The index spaces of a reduction. Kept dims: one point per output, with
/// self's strides and each out's; reduced dims: self's strides. Size-1 dims
/// are dropped and dims that every operand steps through densely are merged,
/// which keeps logical order within each space.
struct Reduction {
  static constexpr size_t kMaxOuts = 2;
  size_t kept_rank = 0;
  int64_t kept_sizes[kMaxDims] = {};
  int64_t kept_in[kMaxDims] = {};
  int64_t kept_out[kMaxOuts][kMaxDims] = {};
  size_t reduced_rank = 0;
  int64_t reduced_sizes[kMaxDims] = {};
  int64_t reduced_in[kMaxDims] = {};
  int64_t count = 1;    // inputs per output
  int64_t outputs = 1;  // output elements
};

namespace reduction_detail {

// Appends a dim to an odometer's list, merging it into the previous one when
// every operand steps through both densely.
template <size_t K>
void push_dim(size_t* rank, int64_t* sizes, int64_t* const (&strides)[K], int64_t size, const int64_t (&dim_strides)[K]) {
  if (size == 1) return;
  if (*rank > 0 && sizes[*rank - 1] != 0 && size != 0) {
    bool dense = true;
    for (size_t k = 0; k < K; ++k) dense = dense && strides[k][*rank - 1] == dim_strides[k] * size;
    if (dense) {
      sizes[*rank - 1] *= size;
      for (size_t k = 0; k < K; ++k) strides[k][*rank - 1] = dim_strides[k];
      return;
    }
  }
  sizes[*rank] = size;
  for (size_t k = 0; k < K; ++k) strides[k][*rank] = dim_strides[k];
  ++*rank;
}

// Calls fn(offsets) for every point of an odometer over `sizes`, innermost
// dim fastest, each offset starting at `start` and moving by its strides.
template <size_t K, typename F>
void walk(size_t rank, const int64_t* sizes, const int64_t* const (&strides)[K], const int64_t (&start)[K], F&& fn) {
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return;
  }
  int64_t index[kMaxDims] = {};
  int64_t offsets[K];
  for (size_t k = 0; k < K; ++k) offsets[k] = start[k];
  while (true) {
    fn(static_cast<const int64_t(&)[K]>(offsets));
    size_t d = rank;
    while (true) {
      if (d == 0) return;
      --d;
      for (size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
      if (++index[d] < sizes[d]) break;
      for (size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * sizes[d];
      index[d] = 0;
    }
  }
}

}  // namespace reduction_detail

/// Resizes each out to self's shape with the reduced dims removed (kept as 1
/// if `keepdim`) and lays out the reduction.
inline bool plan_reduction(KernelArgs& a, const Tensor& self, const bool* reduced, bool keepdim,
                           std::initializer_list<NamedOut> outs, Reduction* plan) {
  SizesType shape[kMaxDims];
  size_t out_rank = 0;
  const size_t rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) shape[out_rank++] = self.sizes()[d];
    else if (keepdim) shape[out_rank++] = 1;
  }
  for (const NamedOut& out : outs) {
    if (!a.resize_out(out.tensor, out.name, {shape, out_rank})) return false;
  }
  *plan = Reduction{};
  int64_t* const kept[1 + Reduction::kMaxOuts] = {plan->kept_in, plan->kept_out[0], plan->kept_out[1]};
  int64_t* const reduced_strides[1] = {plan->reduced_in};
  size_t out_dim = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = self.sizes()[d];
    if (reduced[d]) {
      if (keepdim) ++out_dim;
      plan->count *= size;
      reduction_detail::push_dim(&plan->reduced_rank, plan->reduced_sizes, reduced_strides, size,
                                 {static_cast<int64_t>(self.strides()[d])});
      continue;
    }
    int64_t strides[1 + Reduction::kMaxOuts] = {self.strides()[d], 0, 0};
    size_t k = 1;
    for (const NamedOut& out : outs) strides[k++] = out.tensor.strides()[out_dim];
    ++out_dim;
    plan->outputs *= size;
    reduction_detail::push_dim(&plan->kept_rank, plan->kept_sizes, kept, size, strides);
  }
  return true;
}

/// Calls fn(in_base, out_offsets) for each output, in logical order, where
/// in_base is the offset in self of its first input and out_offsets[k] its
/// offset in out k.
template <typename F>
void for_each_output(const Reduction& plan, F&& fn) {
  const int64_t* const strides[3] = {plan.kept_in, plan.kept_out[0], plan.kept_out[1]};
  reduction_detail::walk(plan.kept_rank, plan.kept_sizes, strides, {0, 0, 0},
                         [&](const int64_t(&offsets)[3]) { fn(offsets[0], offsets + 1); });
}

/// Calls row(offset, n, stride) for each run of the inputs of the output at
/// self offset `base`: the reduced elements in logical order, n at a time.
template <typename F>
void for_each_input_row(const Reduction& plan, int64_t base, F&& row) {
  if (plan.count == 0) return;
  if (plan.reduced_rank == 0) {
    row(base, int64_t{1}, int64_t{1});
    return;
  }
  const size_t inner = plan.reduced_rank - 1;
  const int64_t* const strides[1] = {plan.reduced_in};
  reduction_detail::walk(inner, plan.reduced_sizes, strides, {base}, [&](const int64_t(&offsets)[1]) {
    row(offsets[0], plan.reduced_sizes[inner], plan.reduced_in[inner]);
  });
}

/// Loads an element for arithmetic: the 16-bit floats as float.
template <typename T>
inline compute_t<T> load(T x) {
  return static_cast<compute_t<T>>(x);
}

/// Converts an element to To as PyTorch's casts do: to Bool as x != 0;
/// floating to integral truncating, with NaN and out-of-range values giving
/// To's lowest value (x86's result, which PyTorch inherits) instead of
/// undefined behaviour.
template <typename To, typename From>
inline To cast_value(From from) {
  const auto x = load(from);
  using X = decltype(x);
  if constexpr (std::is_same_v<To, bool>) {
    return x != X(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<X>) {
    const double v = static_cast<double>(x);
    const double limit = std::ldexp(1.0, std::numeric_limits<To>::digits);
    return v > -limit - 1 && v < limit ? static_cast<To>(v) : std::numeric_limits<To>::lowest();
  } else {
    return store_as<To>(x);
  }
}

/// The identity of max: -inf for floating types, the lowest value otherwise.
template <typename C>
constexpr C lowest_value() {
  if constexpr (std::numeric_limits<C>::has_infinity) return -std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::lowest();
}
template <typename C>
constexpr C highest_value() {
  if constexpr (std::numeric_limits<C>::has_infinity) return std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::max();
}

/// Runs an accumulator over the inputs of the output at self offset `base`.
/// An accumulator `op` has a type Acc, `Acc init()`, `Acc add(Acc, In x,
/// int64_t index)` (index: x's position among the output's inputs in logical
/// order) and, if `Op::kLanes`, `Acc merge(Acc, Acc)`, which lets a
/// contiguous run be accumulated in independent lanes (without index);
/// `Op::kUnroll` then says whether to unroll the loop over the lanes (best for
/// plain arithmetic).
template <typename In, typename Op>
typename Op::Acc accumulate(const Reduction& plan, const In* x, int64_t base, const Op& op) {
  using Acc = typename Op::Acc;
  Acc acc = op.init();
  int64_t index = 0;
  for_each_input_row(plan, base, [&](int64_t offset, int64_t n, int64_t stride) {
    const In* p = x + offset;
    if constexpr (Op::kLanes) {
      constexpr int64_t kLanes = sizeof(Acc) >= 8 ? 8 : 16;
      if (stride == 1 && n >= 2 * kLanes) {
        Acc lanes[kLanes];
        for (int64_t j = 0; j < kLanes; ++j) lanes[j] = op.init();
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes) {
          if constexpr (Op::kUnroll) {
            // Unrolled, the lanes stay in registers and the adds become vector
            // ops; selects (max, ...) vectorize only as a loop over the lanes.
#pragma GCC unroll 16
            for (int64_t j = 0; j < kLanes; ++j) lanes[j] = op.add(lanes[j], p[i + j], 0);
          } else {
            for (int64_t j = 0; j < kLanes; ++j) lanes[j] = op.add(lanes[j], p[i + j], 0);
          }
        }
        for (; i < n; ++i) lanes[0] = op.add(lanes[0], p[i], 0);
        for (int64_t width = kLanes / 2; width > 0; width /= 2) {
          for (int64_t j = 0; j < width; ++j) lanes[j] = op.merge(lanes[j], lanes[j + width]);
        }
        acc = op.merge(acc, lanes[0]);
        index += n;
        return;
      }
    }
    if (stride == 1) {
      for (int64_t i = 0; i < n; ++i) acc = op.add(acc, p[i], index + i);
    } else {
      for (int64_t i = 0; i < n; ++i) acc = op.add(acc, p[i * stride], index + i);
    }
    index += n;
  });
  return acc;
}

/// Reduces self (data `x`) by `op` and calls store(acc, out_offsets) for every
/// output (see for_each_output). Outputs are independent, so the order of the
/// calls is unspecified.
template <typename In, typename Op, typename Store>
void reduce(const Reduction& plan, const In* x, const Op& op, Store&& store) {
  if (plan.outputs == 0) return;
  const size_t last = plan.kept_rank - 1;
  if (plan.kept_rank == 0 || plan.kept_in[last] != 1 || plan.reduced_rank == 0 || plan.count == 0) {
    for_each_output(plan, [&](int64_t base, const int64_t* out) { store(accumulate(plan, x, base, op), out); });
    return;
  }
  // Self's innermost kept dim is contiguous: accumulate up to kBlock
  // neighbouring outputs in lockstep over their (equally laid out) inputs.
  using Acc = typename Op::Acc;
  constexpr int64_t kBlock = 64;
  const int64_t* const strides[3] = {plan.kept_in, plan.kept_out[0], plan.kept_out[1]};
  const int64_t run = plan.kept_sizes[last];
  reduction_detail::walk(last, plan.kept_sizes, strides, {0, 0, 0}, [&](const int64_t(&offsets)[3]) {
    for (int64_t start = 0; start < run; start += kBlock) {
      const int64_t block = run - start < kBlock ? run - start : kBlock;
      Acc acc[kBlock];
      for (int64_t j = 0; j < block; ++j) acc[j] = op.init();
      int64_t index = 0;
      for_each_input_row(plan, offsets[0] + start, [&](int64_t offset, int64_t n, int64_t stride) {
        for (int64_t i = 0; i < n; ++i, ++index) {
          const In* p = x + offset + i * stride;
          for (int64_t j = 0; j < block; ++j) acc[j] = op.add(acc[j], p[j], index);
        }
      });
      for (int64_t j = 0; j < block; ++j) {
        const int64_t out[2] = {offsets[1] + (start + j) * plan.kept_out[0][last],
                                offsets[2] + (start + j) * plan.kept_out[1][last]};
        store(acc[j], out);
      }
    }
  });
}

/// The 1-D lines along one dim of K tensors that agree in every other dim
/// (their sizes along `dim` may differ): `lines` is the index space of the
/// other dims with each tensor's strides, `length[k]` and `stride[k]` tensor
/// k's size and stride along `dim`. A 0-dim tensor is one line of length 1.
template <size_t K>
struct AlongDim {
  StridedLayout<K> lines;
  int64_t length[K] = {};
  int64_t stride[K] = {};
};

/// The lines of `tensors` along `dim` (already wrapped; 0 for a 0-dim tensor).
template <size_t K>
AlongDim<K> along_dim(const Tensor (&tensors)[K], size_t dim) {
  AlongDim<K> result;
  const size_t rank = static_cast<size_t>(tensors[0].dim());
  for (size_t k = 0; k < K; ++k) {
    result.length[k] = rank == 0 ? 1 : tensors[k].sizes()[dim];
    result.stride[k] = rank == 0 ? 1 : tensors[k].strides()[dim];
  }
  for (size_t d = 0; d < rank; ++d) {
    if (d == dim) continue;
    result.lines.sizes[result.lines.rank] = tensors[0].sizes()[d];
    for (size_t k = 0; k < K; ++k) result.lines.strides[k][result.lines.rank] = tensors[k].strides()[d];
    ++result.lines.rank;
  }
  return result;
}

}  // namespace kiln::kernels::portable::util
