// Strided iteration and broadcasting for the portable kernels.
//
// An elementwise kernel describes its operands as a StridedLayout: one shared
// index space (the output's shape) and, per operand, the stride in elements of
// each dimension (0 where the operand is broadcast). `for_each_row` then walks
// the index space one innermost row at a time, so the kernel's inner loop runs
// over a row with fixed strides. Dims are coalesced first, so dense operands
// become a single long row whatever their rank.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/util/kernel_args.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::kernels::portable::util {

template <size_t kOperands>
struct StridedLayout {
  size_t rank = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kOperands][kMaxDims] = {};
};

/// True if `t` is laid out in contiguous (row-major) dim order.
inline bool is_dense(const Tensor& t) { return runtime::is_contiguous_dim_order(t.dim_order()); }

/// True if `a` and `b` have the same shape.
inline bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t d = 0; d < static_cast<size_t>(a.dim()); ++d) {
    if (a.sizes()[d] != b.sizes()[d]) return false;
  }
  return true;
}

/// The broadcast of shapes `a` and `b` (NumPy rules, right-aligned) into
/// `out[kMaxDims]`; false if they are incompatible or the result has more than
/// kMaxDims dims.
bool broadcast_shape(Span<const SizesType> a, Span<const SizesType> b, SizesType* out, size_t* out_rank);

/// True if `from` broadcasts to `to` without changing `to`.
bool broadcasts_to(Span<const SizesType> from, Span<const SizesType> to);

/// Sets `layout`'s index space to `sizes` (at most kMaxDims dims).
template <size_t K>
void set_index_space(StridedLayout<K>& layout, Span<const SizesType> sizes) {
  layout.rank = sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) layout.sizes[d] = sizes[d];
}

/// `t`'s strides as it broadcasts to `rank` dims (rank >= t.dim()):
/// right-aligned, size-1 and missing dims get stride 0.
inline void broadcast_strides(const Tensor& t, size_t rank, int64_t* out) {
  const size_t lead = rank - static_cast<size_t>(t.dim());
  const Span<const SizesType> sizes = t.sizes();
  const Span<const runtime::StridesType> strides = t.strides();
  for (size_t d = 0; d < rank; ++d) out[d] = d < lead || sizes[d - lead] == 1 ? 0 : strides[d - lead];
}

/// Sets operand `k`'s strides for tensor `t`, which must broadcast to the
/// index space.
template <size_t K>
void set_broadcast_strides(StridedLayout<K>& layout, size_t k, const Tensor& t) {
  broadcast_strides(t, layout.rank, layout.strides[k]);
}

/// Merges adjacent dims that every operand steps through densely, and drops
/// size-1 dims, so rows are as long as possible.
template <size_t K>
void coalesce(StridedLayout<K>& layout) {
  size_t rank = 0;
  for (size_t d = 0; d < layout.rank; ++d) {
    if (layout.sizes[d] == 1) continue;
    bool mergeable = rank > 0;
    for (size_t k = 0; k < K && mergeable; ++k) {
      mergeable = layout.strides[k][rank - 1] == layout.strides[k][d] * layout.sizes[d];
    }
    if (mergeable) {
      layout.sizes[rank - 1] *= layout.sizes[d];
      for (size_t k = 0; k < K; ++k) layout.strides[k][rank - 1] = layout.strides[k][d];
    } else {
      layout.sizes[rank] = layout.sizes[d];
      for (size_t k = 0; k < K; ++k) layout.strides[k][rank] = layout.strides[k][d];
      ++rank;
    }
  }
  layout.rank = rank;
}

/// Calls `row(offsets, length, inner_strides)` once per innermost row of the
/// (coalesced) index space, where `offsets[k]` is operand k's element offset of
/// the row's first element and `inner_strides[k]` its step along the row.
/// Does nothing if the index space is empty.
template <size_t K, typename RowFn>
void for_each_row(StridedLayout<K> layout, RowFn&& row) {
  coalesce(layout);
  for (size_t d = 0; d < layout.rank; ++d) {
    if (layout.sizes[d] == 0) return;
  }
  if (layout.rank == 0) {  // a single element
    const int64_t offsets[K] = {};
    const int64_t inner[K] = {};
    row(offsets, int64_t{1}, inner);
    return;
  }
  const size_t inner_dim = layout.rank - 1;
  int64_t inner[K];
  for (size_t k = 0; k < K; ++k) inner[k] = layout.strides[k][inner_dim];
  int64_t index[kMaxDims] = {};
  int64_t offsets[K] = {};
  while (true) {
    row(static_cast<const int64_t*>(offsets), layout.sizes[inner_dim], static_cast<const int64_t*>(inner));
    // Odometer step over the outer dims, innermost outer dim first.
    size_t d = inner_dim;
    while (true) {
      if (d == 0) return;
      --d;
      ++index[d];
      for (size_t k = 0; k < K; ++k) offsets[k] += layout.strides[k][d];
      if (index[d] < layout.sizes[d]) break;
      for (size_t k = 0; k < K; ++k) offsets[k] -= layout.strides[k][d] * layout.sizes[d];
      index[d] = 0;
    }
  }
}

/// Walks an index space of at most kMaxDims dims in row-major order, keeping
/// the element offset of the current index in each of up to K operands.
///
///   StridedCursor<2> cursor(sizes, rank);
///   cursor.set_strides(0, out_strides);
///   cursor.set_strides(1, in_strides);
///   do { use(cursor.offset(0), cursor.offset(1)); } while (cursor.next());
///
/// An empty index space still starts at offset 0: callers check for it.
template <size_t K>
class StridedCursor {
 public:
  StridedCursor(const int64_t* sizes, size_t rank) : rank_(rank) {
    for (size_t d = 0; d < rank; ++d) sizes_[d] = sizes[d];
  }
  /// Sets operand k's strides (one per dim); operands without strides stay at offset 0.
  void set_strides(size_t k, const int64_t* strides) {
    if (k + 1 > operands_) operands_ = k + 1;
    for (size_t d = 0; d < rank_; ++d) strides_[d][k] = strides[d];
  }
  int64_t offset(size_t k) const { return offsets_[k]; }
  /// The current index along dim `d`.
  int64_t index(size_t d) const { return index_[d]; }
  /// Steps to the next index, innermost dim first; false after the last one.
  bool next() {
    for (size_t d = rank_; d-- > 0;) {
      for (size_t k = 0; k < operands_; ++k) offsets_[k] += strides_[d][k];
      if (++index_[d] < sizes_[d]) return true;
      for (size_t k = 0; k < operands_; ++k) offsets_[k] -= strides_[d][k] * sizes_[d];
      index_[d] = 0;
    }
    return false;
  }

 private:
  size_t rank_;
  size_t operands_ = 0;
  int64_t sizes_[kMaxDims] = {};
  int64_t strides_[kMaxDims][K] = {};
  int64_t index_[kMaxDims] = {};
  int64_t offsets_[K] = {};
};

/// Copies a strided block of elements, the same block many times over: built
/// once from the block's shape and both sides' element strides, then
/// `copy(dst, src)` for each pair of first elements. Runs that are contiguous
/// on both sides move with memcpy (a dense block is one memcpy).
class BlockCopier {
 public:
  /// `sizes`, `dst_strides` and `src_strides` have `rank` (at most kMaxDims)
  /// entries; `element_size` is 1, 2, 4 or 8 bytes.
  BlockCopier(const int64_t* sizes, size_t rank, const int64_t* dst_strides, const int64_t* src_strides,
              size_t element_size);
  void copy(void* dst, const void* src) const;

 private:
  StridedLayout<2> layout_;  // operand 0 the destination, 1 the source
  size_t element_size_;
  int64_t dense_bytes_ = -1;  // the block's size when it is one contiguous run
};

/// Copies a strided block (shape `sizes`, `rank` dims) from `src` of dtype
/// `src_type` to `dst` of dtype `dst_type`, converting each element as
/// PyTorch casts (util/convert.h); both dtypes must be convertible
/// (is_convertible). Same dtypes copy as BlockCopier does.
void convert_block(const int64_t* sizes, size_t rank, void* dst, ScalarType dst_type, const int64_t* dst_strides,
                   const void* src, ScalarType src_type, const int64_t* src_strides);

/// A tensor's sizes and strides widened to int64 (kMaxDims entries).
struct Geometry {
  size_t rank = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};
inline Geometry geometry(const Tensor& t) {
  Geometry g;
  g.rank = static_cast<size_t>(t.dim());
  for (size_t d = 0; d < g.rank; ++d) {
    g.sizes[d] = t.sizes()[d];
    g.strides[d] = t.strides()[d];
  }
  return g;
}

/// Copies every element of `src` to `dst` in logical (row-major) order, each
/// read and written through its own strides. Their shapes may differ but must
/// hold the same number of elements, and the dtypes must have the same size.
void copy_logical(const Tensor& src, const Tensor& dst);

/// Copies `src` into `dst` of the same shape, where `src_strides` replaces
/// src's strides (indexed by dst's dims, e.g. permuted).
void copy_with_strides(const Tensor& src, const int64_t* src_strides, const Tensor& dst);

}  // namespace kiln::kernels::portable::util
