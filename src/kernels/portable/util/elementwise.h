// Elementwise loops for the portable kernels: apply a function to every
// element of one or more (broadcast) inputs and store into an out tensor that
// has already been checked and resized.
//
// map_unary / map_binary take the C++ types of their operands: dense
// same-shape operands run one flat loop; anything else (broadcasting,
// non-contiguous dim orders) goes through for_each_row, whose common row
// shapes (dense, or one operand repeated) get their own loops so they
// vectorize.
//
// map_elementwise serves ops whose operands may each have any dtype (mixed
// dtypes, Half/BFloat16, Scalars, an out dtype other than the result's): it is
// instantiated per computation type only, and converts a chunk of each row at
// a time into the computation type (through a loader chosen once per operand),
// so its inner loop always runs over dense arrays of one type.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/scalar.h"
#include "kernels/portable/util/strided.h"
#include "runtime/core/evalue.h"

namespace kiln::kernels::portable::util {

/// A Scalar EValue (Int, Double or Bool) as a T, converted as PyTorch does
/// when it casts a Scalar to a tensor's dtype (a C++ cast; a double beyond
/// float's range becomes an infinity in float and the 16-bit floats).
template <typename T>
T scalar_to(const EValue& value) {
  if (value.isInt()) return static_cast<T>(value.toInt());
  if (value.isBool()) return static_cast<T>(value.toBool());
  const double v = value.toDouble();
  if constexpr (std::is_same_v<T, float> || is_half_v<T>) {
    // From 2^128 - 2^103 on, a double rounds to infinity in float; the cast
    // itself is undefined there.
    if (std::fabs(v) >= 0x1.ffffffp127) return static_cast<T>(std::copysign(std::numeric_limits<float>::infinity(), v));
    return static_cast<T>(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// out[i] = f(in[i]) for `in` of type In and `out` of type Out, same shape.
template <typename In, typename Out, typename F>
void map_unary(const Tensor& in, const Tensor& out, F f) {
  const In* src = in.const_data_ptr<In>();
  Out* dst = out.mutable_data_ptr<Out>();
  if (is_dense(in) && is_dense(out)) {
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]);
    return;
  }
  StridedLayout<2> layout;
  set_index_space(layout, out.sizes());
  set_broadcast_strides(layout, 0, out);
  set_broadcast_strides(layout, 1, in);
  for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
    Out* o = dst + offsets[0];
    const In* s = src + offsets[1];
    if (inner[0] == 1 && inner[1] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(s[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * inner[0]] = f(s[i * inner[1]]);
    }
  });
}

/// out[i] = f(a[i], b[i]) with `a` and `b` broadcast to out's shape.
template <typename A, typename B, typename Out, typename F>
void map_binary(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const A* pa = a.const_data_ptr<A>();
  const B* pb = b.const_data_ptr<B>();
  Out* po = out.mutable_data_ptr<Out>();
  if (is_dense(a) && is_dense(b) && is_dense(out) && same_sizes(a, out) && same_sizes(b, out)) {
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    return;
  }
  StridedLayout<3> layout;
  set_index_space(layout, out.sizes());
  set_broadcast_strides(layout, 0, out);
  set_broadcast_strides(layout, 1, a);
  set_broadcast_strides(layout, 2, b);
  for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
    Out* o = po + offsets[0];
    const A* x = pa + offsets[1];
    const B* y = pb + offsets[2];
    if (inner[0] == 1 && inner[1] == 1 && inner[2] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (inner[0] == 1 && inner[1] == 0 && inner[2] == 1) {
      const A xv = *x;
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else if (inner[0] == 1 && inner[1] == 1 && inner[2] == 0) {
      const B yv = *y;
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * inner[0]] = f(x[i * inner[1]], y[i * inner[2]]);
    }
  });
}

/// Elements per chunk that map_elementwise converts and computes at a time.
constexpr int64_t kElementwiseChunk = 256;

/// Reads `n` elements, `stride` apart, from `data` + `offset` (in elements)
/// into `dst` as the computation type K.
template <typename K>
using RowLoader = void (*)(const void* data, int64_t offset, int64_t stride, int64_t n, K* dst);
/// Writes `n` computed values to `data` + `offset`, `stride` apart.
template <typename K>
using RowStorer = void (*)(const K* src, int64_t n, void* data, int64_t offset, int64_t stride);

/// Loads elements of type S cast to T (rounded to it, for a 16-bit T), as compute_t<T>.
template <typename S, typename T>
void load_row(const void* data, int64_t offset, int64_t stride, int64_t n, compute_t<T>* dst) {
  const S* src = static_cast<const S*>(data) + offset;
  for (int64_t i = 0; i < n; ++i) dst[i] = convert<compute_t<T>>(convert<T>(src[i * stride]));
}

/// Stores values computed for a result of type R: rounded to R, then cast to O.
template <typename R, typename O>
void store_row(const compute_t<R>* src, int64_t n, void* data, int64_t offset, int64_t stride) {
  O* dst = static_cast<O*>(data) + offset;
  for (int64_t i = 0; i < n; ++i) dst[i * stride] = convert<O>(store_as<R>(src[i]));
}

/// The loader of `source` elements cast to T; null for a dtype outside
/// visit_real_or_bool_or_half.
template <typename T>
RowLoader<compute_t<T>> row_loader(ScalarType source) {
  RowLoader<compute_t<T>> loader = nullptr;
  visit_real_or_bool_or_half(source, [&](auto tag) { loader = &load_row<typename decltype(tag)::type, T>; });
  return loader;
}

/// The storer of an R result into an `out` dtype; null for a dtype outside
/// visit_real_or_bool_or_half.
template <typename R>
RowStorer<compute_t<R>> row_storer(ScalarType out) {
  RowStorer<compute_t<R>> storer = nullptr;
  visit_real_or_bool_or_half(out, [&](auto tag) { storer = &store_row<R, typename decltype(tag)::type>; });
  return storer;
}

/// One input of map_elementwise, read as T: chunks of a row come straight
/// from the tensor when it holds T (not a 16-bit float) densely along the row,
/// otherwise they are converted into a buffer; a Scalar fills the buffer once.
template <typename T>
class ElementwiseInput {
 public:
  using K = compute_t<T>;

  explicit ElementwiseInput(const Operand& operand) {
    if (operand.is_scalar()) {
      const K value = operand.exact ? scalar_to<K>(*operand.scalar) : convert<K>(scalar_to<T>(*operand.scalar));
      std::fill(buffer_, buffer_ + kElementwiseChunk, value);
      constant_ = true;
      return;
    }
    data_ = operand.tensor.const_data_ptr();
    const ScalarType dtype = operand.tensor.scalar_type();
    direct_ = std::is_same_v<T, K> && dtype == runtime::CppTypeToScalarType<T>::value;
    load_ = operand.exact ? row_loader<K>(dtype) : row_loader<T>(dtype);
  }

  /// Elements [start, start + n) of the row at `offset` with step `stride`.
  const K* chunk(int64_t offset, int64_t stride, int64_t start, int64_t n) {
    if (constant_) return buffer_;
    if (direct_ && stride == 1) return static_cast<const K*>(data_) + offset + start;
    load_(data_, offset + start * stride, stride, n, buffer_);
    return buffer_;
  }

 private:
  const void* data_ = nullptr;
  bool constant_ = false;
  bool direct_ = false;
  RowLoader<K> load_ = nullptr;
  K buffer_[kElementwiseChunk];
};

/// The out tensor of map_elementwise: results go straight into it when it
/// holds R (not a 16-bit float) densely along the row, otherwise into a buffer
/// that is then stored with conversion.
template <typename R>
class ElementwiseOutput {
 public:
  using K = compute_t<R>;

  explicit ElementwiseOutput(const Tensor& out)
      : data_(out.mutable_data_ptr()),
        direct_(std::is_same_v<R, K> && out.scalar_type() == runtime::CppTypeToScalarType<R>::value),
        store_(row_storer<R>(out.scalar_type())) {}

  K* chunk(int64_t offset, int64_t stride, int64_t start) {
    return direct_ && stride == 1 ? static_cast<K*>(data_) + offset + start : buffer_;
  }
  /// Stores `values` (from chunk) if they were computed into the buffer.
  void commit(const K* values, int64_t offset, int64_t stride, int64_t start, int64_t n) {
    if (values == buffer_) store_(buffer_, n, data_, offset + start * stride, stride);
  }

 private:
  void* data_;
  bool direct_;
  RowStorer<K> store_;
  K buffer_[kElementwiseChunk];
};

template <typename KR, typename F, typename... K>
inline void apply_chunk(KR* dst, int64_t n, F& f, const K*... src) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]...);
}

template <typename R, typename... Ts, typename F, size_t... I>
void map_elementwise_impl(const Operand* inputs, const Tensor& out, F& f, std::index_sequence<I...>) {
  StridedLayout<sizeof...(Ts) + 1> layout;
  set_index_space(layout, out.sizes());
  set_broadcast_strides(layout, 0, out);
  // A Scalar keeps stride 0 in every dim.
  ((inputs[I].is_scalar() ? void() : set_broadcast_strides(layout, I + 1, inputs[I].tensor)), ...);
  std::tuple<ElementwiseInput<Ts>...> in{inputs[I]...};
  ElementwiseOutput<R> result(out);
  for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
    for (int64_t start = 0; start < n; start += kElementwiseChunk) {
      const int64_t m = std::min(kElementwiseChunk, n - start);
      compute_t<R>* dst = result.chunk(offsets[0], inner[0], start);
      apply_chunk(dst, m, f, std::get<I>(in).chunk(offsets[I + 1], inner[I + 1], start, m)...);
      result.commit(dst, offsets[0], inner[0], start, m);
    }
  });
}

/// out[i] = f(x_0[i], ..., x_{N-1}[i]) over out's shape, each input broadcast
/// to it. Input k is cast to Ts_k as PyTorch casts operands to the common
/// dtype (rounded for a 16-bit float, unless `exact`) and passed to f as
/// compute_t<Ts_k>; f returns compute_t<R>, which is rounded to R and then
/// cast to out's dtype. Every tensor operand and out must have a dtype of
/// visit_real_or_bool_or_half (check_elementwise_dtypes), and out must already
/// have the broadcast shape (resize_to_broadcast).
template <typename R, typename... Ts, typename F>
void map_elementwise(const Operand (&inputs)[sizeof...(Ts)], const Tensor& out, F f) {
  map_elementwise_impl<R, Ts...>(inputs, out, f, std::index_sequence_for<Ts...>{});
}

/// Fails unless every tensor operand has a dtype map_elementwise handles
/// (Bool, Int, Long, Float, Double, Half, BFloat16).
inline bool check_elementwise_dtypes(KernelArgs& a, Span<const Operand> operands) {
  for (const Operand& operand : operands) {
    if (operand.is_scalar() || is_real_or_bool_or_half(operand.tensor.scalar_type())) continue;
    a.fail(Error::InvalidArgument, "'%s' has unsupported dtype %s", operand.name,
           runtime::to_string(operand.tensor.scalar_type()));
    return false;
  }
  return true;
}

/// Resizes `out` (named "out") to the broadcast shape of the tensor operands;
/// fails naming the first operand that does not broadcast with those before it.
inline bool resize_to_broadcast(KernelArgs& a, Span<const Operand> operands, const Tensor& out) {
  SizesType shape[kMaxDims];
  size_t rank = 0;
  const char* previous = nullptr;  // the one tensor operand before, or null
  size_t count = 0;
  for (const Operand& operand : operands) {
    if (operand.is_scalar()) continue;
    SizesType next[kMaxDims];
    size_t next_rank = 0;
    if (!broadcast_shape({shape, rank}, operand.tensor.sizes(), next, &next_rank)) {
      char have[96], add[96];
      format_sizes({shape, rank}, have, sizeof have);
      format_sizes(operand.tensor.sizes(), add, sizeof add);
      if (count == 1) {
        a.fail(Error::InvalidArgument, "'%s' of shape %s and '%s' of shape %s do not broadcast", previous, have,
               operand.name, add);
      } else {
        a.fail(Error::InvalidArgument,
               "'%s' of shape %s does not broadcast with %s, the shape of the operands before it", operand.name, add,
               have);
      }
      return false;
    }
    std::copy(next, next + next_rank, shape);
    rank = next_rank;
    previous = operand.name;
    ++count;
  }
  return a.resize_out(out, "out", {shape, rank});
}

}  // namespace kiln::kernels::portable::util
