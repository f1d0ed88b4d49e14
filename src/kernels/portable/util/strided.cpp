#include "kernels/portable/util/strided.h"

#include <cstring>

#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"

namespace kiln::kernels::portable::util {

bool broadcast_shape(Span<const SizesType> a, Span<const SizesType> b, SizesType* out, size_t* out_rank) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  if (rank > kMaxDims) return false;
  for (size_t i = 0; i < rank; ++i) {
    // i counts from the innermost dim.
    const SizesType sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const SizesType sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (sa != sb && sa != 1 && sb != 1) return false;
    out[rank - 1 - i] = sa == 1 ? sb : sa;
  }
  *out_rank = rank;
  return true;
}

bool broadcasts_to(Span<const SizesType> from, Span<const SizesType> to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[d + lead]) return false;
  }
  return true;
}

namespace {

// Steps through a tensor's elements in logical order, one at a time; for the
// side of a copy whose shape differs from the one driving the rows.
class ElementCursor {
 public:
  explicit ElementCursor(const Tensor& t) : rank_(static_cast<size_t>(t.dim())) {
    for (size_t d = 0; d < rank_; ++d) {
      sizes_[d] = t.sizes()[d];
      strides_[d] = t.strides()[d];
    }
  }
  int64_t offset() const { return offset_; }
  void advance() {
    for (size_t d = rank_; d-- > 0;) {
      offset_ += strides_[d];
      if (++index_[d] < sizes_[d]) return;
      offset_ -= strides_[d] * sizes_[d];
      index_[d] = 0;
    }
  }

 private:
  size_t rank_;
  int64_t sizes_[kMaxDims] = {};
  int64_t strides_[kMaxDims] = {};
  int64_t index_[kMaxDims] = {};
  int64_t offset_ = 0;
};

}  // namespace

BlockCopier::BlockCopier(const int64_t* sizes, size_t rank, const int64_t* dst_strides, const int64_t* src_strides,
                         size_t element_size)
    : element_size_(element_size) {
  layout_.rank = rank;
  for (size_t d = 0; d < rank; ++d) {
    layout_.sizes[d] = sizes[d];
    layout_.strides[0][d] = dst_strides[d];
    layout_.strides[1][d] = src_strides[d];
  }
  coalesce(layout_);
  if (layout_.rank == 0) {
    dense_bytes_ = static_cast<int64_t>(element_size);
  } else if (layout_.rank == 1 && layout_.strides[0][0] == 1 && layout_.strides[1][0] == 1) {
    dense_bytes_ = layout_.sizes[0] * static_cast<int64_t>(element_size);
  } else {
    for (size_t d = 0; d < layout_.rank; ++d) {
      if (layout_.sizes[d] == 0) dense_bytes_ = 0;
    }
  }
}

// Copies use memmove, not memcpy: a program's memory plan may place the
// destination over the source (pte_fuzz built such a plan), and an
// overlapping memcpy is undefined behaviour; memmove merely copies.
void BlockCopier::copy(void* dst, const void* src) const {
  if (dense_bytes_ >= 0) {
    if (dense_bytes_ > 0) std::memmove(dst, src, static_cast<size_t>(dense_bytes_));
    return;
  }
  visit_element_size(element_size_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(dst);
    const T* in = static_cast<const T*>(src);
    for_each_row(layout_, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
      T* o = out + offsets[0];
      const T* s = in + offsets[1];
      if (inner[0] == 1 && inner[1] == 1) {
        std::memmove(o, s, static_cast<size_t>(n) * sizeof(T));
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * inner[0]] = s[i * inner[1]];
      }
    });
  });
}

void convert_block(const int64_t* sizes, size_t rank, void* dst, ScalarType dst_type, const int64_t* dst_strides,
                   const void* src, ScalarType src_type, const int64_t* src_strides) {
  if (dst_type == src_type) {
    BlockCopier(sizes, rank, dst_strides, src_strides, runtime::element_size(dst_type)).copy(dst, src);
    return;
  }
  StridedLayout<2> layout;
  layout.rank = rank;
  for (size_t d = 0; d < rank; ++d) {
    layout.sizes[d] = sizes[d];
    layout.strides[0][d] = dst_strides[d];
    layout.strides[1][d] = src_strides[d];
  }
  visit_convertible(dst_type, [&](auto out_tag) {
    using Out = typename decltype(out_tag)::type;
    visit_convertible(src_type, [&](auto in_tag) {
      using In = typename decltype(in_tag)::type;
      Out* out = static_cast<Out*>(dst);
      const In* in = static_cast<const In*>(src);
      for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
        Out* o = out + offsets[0];
        const In* s = in + offsets[1];
        if (inner[0] == 1 && inner[1] == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = convert<Out>(s[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) o[i * inner[0]] = convert<Out>(s[i * inner[1]]);
        }
      });
    });
  });
}

void copy_logical(const Tensor& src, const Tensor& dst) {
  if (src.numel() == 0) return;
  if (is_dense(src) && is_dense(dst)) {
    // out may be self: a buffer updated in place (update_buffers_in_place).
    if (dst.mutable_data_ptr() == src.const_data_ptr()) return;
    std::memmove(dst.mutable_data_ptr(), src.const_data_ptr(), src.nbytes());
    return;
  }
  StridedLayout<1> layout;
  set_index_space(layout, src.sizes());
  for (size_t d = 0; d < layout.rank; ++d) layout.strides[0][d] = src.strides()[d];
  ElementCursor cursor(dst);
  visit_element_size(src.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.const_data_ptr<T>();
    T* out = dst.mutable_data_ptr<T>();
    for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
      for (int64_t i = 0; i < n; ++i, cursor.advance()) out[cursor.offset()] = in[offsets[0] + i * inner[0]];
    });
  });
}

void copy_with_strides(const Tensor& src, const int64_t* src_strides, const Tensor& dst) {
  StridedLayout<2> layout;
  set_index_space(layout, dst.sizes());
  for (size_t d = 0; d < layout.rank; ++d) {
    layout.strides[0][d] = dst.strides()[d];
    layout.strides[1][d] = src_strides[d];
  }
  visit_element_size(src.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.const_data_ptr<T>();
    T* out = dst.mutable_data_ptr<T>();
    for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
      T* o = out + offsets[0];
      const T* s = in + offsets[1];
      if (inner[0] == 1 && inner[1] == 1) {
        std::memmove(o, s, static_cast<size_t>(n) * sizeof(T));
        return;
      }
      for (int64_t i = 0; i < n; ++i) o[i * inner[0]] = s[i * inner[1]];
    });
  });
}

}  // namespace kiln::kernels::portable::util
