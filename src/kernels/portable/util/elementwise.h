// Elementwise loops for the portable kernels: apply a function to every
// element of one or two (broadcast) inputs and store into an out tensor that
// has already been checked and resized.
//
// Dense same-shape operands run one flat loop; anything else (broadcasting,
// non-contiguous dim orders) goes through for_each_row, whose common row
// shapes (dense, or one operand repeated) get their own loops so they
// vectorize.
#pragma once

#include <cstdint>

#include "kernels/portable/util/strided.h"
#include "runtime/core/evalue.h"

namespace kiln::kernels::portable::util {

/// A Scalar EValue (Int, Double or Bool) as a T, converted as PyTorch does
/// when it casts a Scalar to a tensor's dtype.
template <typename T>
T scalar_to(const EValue& value) {
  if (value.isInt()) return static_cast<T>(value.toInt());
  if (value.isBool()) return static_cast<T>(value.toBool());
  return static_cast<T>(value.toDouble());
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

}  // namespace kiln::kernels::portable::util
