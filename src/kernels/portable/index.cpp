// Indexing: index.Tensor (advanced indexing with index tensors and masks),
// index_select, gather, embedding. Elements move as raw bytes of the dtype's
// size; every index is checked against its dim before anything is written.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

bool check_index_dtype(KernelArgs& a, const Tensor& index, const char* name) {
  if (is_index_dtype(index.scalar_type())) return true;
  a.fail(Error::InvalidArgument, "'%s' has dtype %s, expected Long or Int", name,
         runtime::to_string(index.scalar_type()));
  return false;
}

// Runs `f` with int64_t or int32_t for an index tensor's dtype.
template <typename F>
void visit_index(ScalarType t, F&& f) {
  if (t == ScalarType::Long) {
    f(util::TypeTag<int64_t>{});
  } else {
    f(util::TypeTag<int32_t>{});
  }
}

// Checks that every element of `index` (Long or Int) lies in [-size, size)
// when `wrap` (negatives count from the end), else in [0, size). `element` is
// the index's position in the list argument `name`, or -1.
bool check_indices(KernelArgs& a, const Tensor& index, const char* name, long element, int64_t size, bool wrap) {
  if (index.numel() == 0) return true;
  const util::Geometry g = util::geometry(index);
  const int64_t low = wrap ? -size : 0;
  int64_t bad = 0;
  bool ok = true;
  visit_index(index.scalar_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* data = index.const_data_ptr<I>();
    util::StridedCursor<1> cursor(g.sizes, g.rank);
    cursor.set_strides(0, g.strides);
    do {
      const int64_t v = data[cursor.offset(0)];
      if (v < low || v >= size) {
        bad = v;
        ok = false;
        return;
      }
    } while (cursor.next());
  });
  if (!ok) {
    char which[48] = "";
    if (element >= 0) std::snprintf(which, sizeof which, "[%ld]", element);
    a.fail(Error::InvalidArgument, "'%s'%s holds index %lld, out of range for a dim of size %lld", name, which,
           static_cast<long long>(bad), static_cast<long long>(size));
  }
  return ok;
}

const uint8_t* element_at(const Tensor& t, int64_t offset) {
  return static_cast<const uint8_t*>(t.const_data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}
uint8_t* mutable_element_at(const Tensor& t, int64_t offset) {
  return static_cast<uint8_t*>(t.mutable_data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}

// ---- index.Tensor ----

// One advanced index of index.Tensor: a Long/Int tensor indexing self's dim
// `dim`, or a Bool/Byte mask over self's dims [dim, dim + mask rank), which
// acts as the 1-D list of its true elements' positions.
struct AdvancedIndex {
  Tensor tensor;
  size_t list_position = 0;
  size_t dim = 0;
  bool mask = false;
  int64_t count = 0;  // a mask's true elements
};

// Finds the self offset of a mask's q-th true element, scanning forward from
// the last one found (the q asked for mostly count up by one).
class MaskCursor {
 public:
  MaskCursor(const Tensor& mask, const int64_t* self_strides)
      : mask_(mask.const_data_ptr<uint8_t>()), cursor_(start(mask, self_strides)), mask_tensor_(mask),
        self_strides_(self_strides) {}

  int64_t self_offset(int64_t q) {
    if (q < q_) {
      cursor_ = start(mask_tensor_, self_strides_);
      q_ = -1;
    }
    while (q_ < q) {
      if (q_ >= 0) cursor_.next();
      while (mask_[cursor_.offset(0)] == 0) cursor_.next();
      ++q_;
    }
    return cursor_.offset(1);
  }

 private:
  static util::StridedCursor<2> start(const Tensor& mask, const int64_t* self_strides) {
    const util::Geometry g = util::geometry(mask);
    util::StridedCursor<2> cursor(g.sizes, g.rank);
    cursor.set_strides(0, g.strides);
    cursor.set_strides(1, self_strides);
    return cursor;
  }

  const uint8_t* mask_;
  util::StridedCursor<2> cursor_;
  Tensor mask_tensor_;
  const int64_t* self_strides_;
  int64_t q_ = -1;  // which true element the cursor is on
};

// The parsed indices of index.Tensor.
struct IndexPlan {
  AdvancedIndex advanced[util::kMaxDims];
  size_t count = 0;
  bool indexed[util::kMaxDims] = {};  // self dims taken by an advanced index
  // The broadcast shape of the advanced indices.
  size_t broadcast_rank = 0;
  int64_t broadcast[util::kMaxDims] = {};
};

int64_t count_true(const Tensor& mask) {
  if (mask.numel() == 0) return 0;
  const util::Geometry g = util::geometry(mask);
  util::StridedCursor<1> cursor(g.sizes, g.rank);
  cursor.set_strides(0, g.strides);
  const uint8_t* data = mask.const_data_ptr<uint8_t>();  // Bool and Byte: one byte, nonzero is true
  int64_t count = 0;
  do {
    count += data[cursor.offset(0)] != 0;
  } while (cursor.next());
  return count;
}

// Reads the Tensor?[] indices into `plan`: which self dims each index takes,
// mask sizes and counts.
bool parse_indices(KernelArgs& a, const Tensor& self, Span<const std::optional<Tensor>> indices, IndexPlan* plan) {
  const size_t rank = static_cast<size_t>(self.dim());
  size_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const bool mask = indices[i].has_value() && !is_index_dtype(indices[i]->scalar_type());
    if (mask && indices[i]->scalar_type() != ScalarType::Bool && indices[i]->scalar_type() != ScalarType::Byte) {
      a.fail(Error::InvalidArgument, "'indices'[%zu] has dtype %s; indices must be Long, Int, Bool or Byte", i,
             runtime::to_string(indices[i]->scalar_type()));
      return false;
    }
    if (mask && indices[i]->dim() == 0) {
      a.fail(Error::NotSupported, "'indices'[%zu] is a 0-dim mask, which is not supported", i);
      return false;
    }
    const size_t width = mask ? static_cast<size_t>(indices[i]->dim()) : 1;
    if (dim + width > rank) {
      a.fail(Error::InvalidArgument, "'indices' has too many indices for 'self' of %zu dims", rank);
      return false;
    }
    if (!indices[i].has_value()) {
      ++dim;
      continue;
    }
    const Tensor& t = *indices[i];
    AdvancedIndex& entry = plan->advanced[plan->count++];
    entry.tensor = t;
    entry.list_position = i;
    entry.dim = dim;
    entry.mask = mask;
    if (mask) {
      for (size_t k = 0; k < width; ++k) {
        if (t.sizes()[k] != self.sizes()[dim + k]) {
          a.fail(Error::InvalidArgument, "'indices'[%zu] is a mask of size %d in its dim %zu, but 'self' has %d there",
                 i, t.sizes()[k], k, self.sizes()[dim + k]);
          return false;
        }
      }
      entry.count = count_true(t);
    }
    for (size_t k = 0; k < width; ++k) plan->indexed[dim + k] = true;
    dim += width;
  }
  return true;
}

// The shape an advanced index takes part in broadcasting with.
size_t broadcast_shape_of(const AdvancedIndex& entry, int64_t* shape) {
  if (entry.mask) {
    shape[0] = entry.count;
    return 1;
  }
  for (size_t d = 0; d < static_cast<size_t>(entry.tensor.dim()); ++d) shape[d] = entry.tensor.sizes()[d];
  return static_cast<size_t>(entry.tensor.dim());
}

bool broadcast_indices(KernelArgs& a, IndexPlan* plan) {
  for (size_t j = 0; j < plan->count; ++j) {
    int64_t shape[util::kMaxDims];
    const size_t rank = broadcast_shape_of(plan->advanced[j], shape);
    const size_t result = std::max(rank, plan->broadcast_rank);
    int64_t merged[util::kMaxDims];
    for (size_t i = 0; i < result; ++i) {  // i counts from the innermost dim
      const int64_t x = i < rank ? shape[rank - 1 - i] : 1;
      const int64_t y = i < plan->broadcast_rank ? plan->broadcast[plan->broadcast_rank - 1 - i] : 1;
      if (x != y && x != 1 && y != 1) {
        a.fail(Error::InvalidArgument, "'indices'[%zu] cannot be broadcast with the indices before it",
               plan->advanced[j].list_position);
        return false;
      }
      merged[result - 1 - i] = x == 1 ? y : x;
    }
    std::copy(merged, merged + result, plan->broadcast);
    plan->broadcast_rank = result;
  }
  return true;
}

// Writes index.Tensor's result: out = pre + broadcast + post, where pre and
// post are self's sliced dims.
void gather_indexed(const Tensor& self, IndexPlan& plan, const size_t* pre, size_t num_pre, const size_t* post,
                    size_t num_post, const Tensor& out) {
  const util::Geometry src = util::geometry(self), dst = util::geometry(out);
  int64_t pre_sizes[util::kMaxDims], pre_self[util::kMaxDims];
  for (size_t i = 0; i < num_pre; ++i) {
    pre_sizes[i] = src.sizes[pre[i]];
    pre_self[i] = src.strides[pre[i]];
  }
  int64_t post_sizes[util::kMaxDims], post_self[util::kMaxDims];
  for (size_t i = 0; i < num_post; ++i) {
    post_sizes[i] = src.sizes[post[i]];
    post_self[i] = src.strides[post[i]];
  }
  const size_t rb = plan.broadcast_rank;
  util::StridedCursor<2> outer(pre_sizes, num_pre);
  outer.set_strides(0, dst.strides);
  outer.set_strides(1, pre_self);
  const util::BlockCopier block(post_sizes, num_post, dst.strides + num_pre + rb, post_self, self.element_size());

  // Operand 0 walks out's broadcast dims; operand 1 + j the j-th index (its
  // element offset, or for a mask which true element).
  util::StridedCursor<util::kMaxDims + 1> inner(plan.broadcast, rb);
  inner.set_strides(0, dst.strides + num_pre);
  std::optional<MaskCursor> masks[util::kMaxDims];
  for (size_t j = 0; j < plan.count; ++j) {
    const AdvancedIndex& entry = plan.advanced[j];
    int64_t strides[util::kMaxDims] = {};
    if (entry.mask) {
      strides[rb - 1] = entry.count == 1 ? 0 : 1;
      masks[j].emplace(entry.tensor, src.strides + entry.dim);
    } else {
      const size_t lead = rb - static_cast<size_t>(entry.tensor.dim());
      for (size_t d = lead; d < rb; ++d) {
        strides[d] = entry.tensor.sizes()[d - lead] == 1 ? 0 : entry.tensor.strides()[d - lead];
      }
    }
    inner.set_strides(1 + j, strides);
  }
  do {
    do {
      int64_t offset = outer.offset(1);
      for (size_t j = 0; j < plan.count; ++j) {
        const AdvancedIndex& entry = plan.advanced[j];
        const int64_t at = inner.offset(1 + j);
        if (entry.mask) {
          offset += masks[j]->self_offset(at);
          continue;
        }
        // A per-element dtype test: predictable, and cheap beside the block copy.
        int64_t v = entry.tensor.scalar_type() == ScalarType::Long ? entry.tensor.const_data_ptr<int64_t>()[at]
                                                                    : entry.tensor.const_data_ptr<int32_t>()[at];
        if (v < 0) v += src.sizes[entry.dim];
        offset += v * src.strides[entry.dim];
      }
      block.copy(mutable_element_at(out, outer.offset(0) + inner.offset(0)), element_at(self, offset));
    } while (inner.next());
  } while (outer.next());
}

}  // namespace

void index_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::index.Tensor_out", args);
  Tensor self, out;
  Span<const std::optional<Tensor>> indices;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.optional_tensor_list(1, "indices", &indices) ||
      !a.tensor(2, "out", &out) || !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  if (indices.empty()) {
    a.fail(Error::InvalidArgument, "'indices' is empty; at least one index is needed");
    return;
  }
  if (!runtime::is_valid(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has an invalid dtype (%d)", static_cast<int>(self.scalar_type()));
    return;
  }
  IndexPlan plan;
  if (!parse_indices(a, self, indices, &plan) || !broadcast_indices(a, &plan)) return;
  // Advanced indices next to each other keep their place in the result;
  // separated by a slice, they go to the front (NumPy's rule).
  const size_t rank = static_cast<size_t>(self.dim());
  size_t first = rank, last = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (plan.indexed[d]) {
      first = std::min(first, d);
      last = d;
    }
  }
  bool adjacent = true;
  for (size_t d = first; d < last; ++d) adjacent = adjacent && plan.indexed[d];
  if (plan.count == 0) first = 0;  // no advanced index: one block copy of everything
  size_t pre[util::kMaxDims], post[util::kMaxDims], num_pre = 0, num_post = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (plan.indexed[d]) continue;
    if (adjacent && d < first) {
      pre[num_pre++] = d;
    } else {
      post[num_post++] = d;
    }
  }
  const size_t out_rank = num_pre + plan.broadcast_rank + num_post;
  if (out_rank > util::kMaxDims) {
    a.fail(Error::NotSupported, "'indices' give a result of %zu dims, at most %zu are supported", out_rank,
           util::kMaxDims);
    return;
  }
  SizesType shape[util::kMaxDims];
  size_t n = 0;
  for (size_t i = 0; i < num_pre; ++i) shape[n++] = self.sizes()[pre[i]];
  for (size_t i = 0; i < plan.broadcast_rank; ++i) {
    if (plan.broadcast[i] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'indices' broadcast to a dim of %lld, too large",
             static_cast<long long>(plan.broadcast[i]));
      return;
    }
    shape[n++] = static_cast<SizesType>(plan.broadcast[i]);
  }
  for (size_t i = 0; i < num_post; ++i) shape[n++] = self.sizes()[post[i]];
  // Out-of-range indices are errors only where an element is read.
  int64_t result_numel = 1;
  for (size_t i = 0; i < out_rank; ++i) {
    if (__builtin_mul_overflow(result_numel, int64_t{shape[i]}, &result_numel)) {
      a.fail(Error::InvalidArgument, "'indices' give a result with too many elements");
      return;
    }
  }
  if (result_numel > 0) {
    for (size_t j = 0; j < plan.count; ++j) {
      const AdvancedIndex& entry = plan.advanced[j];
      if (!entry.mask && !check_indices(a, entry.tensor, "indices", static_cast<long>(entry.list_position),
                                        self.sizes()[entry.dim], true)) {
        return;
      }
    }
  }
  if (!a.resize_out(out, "out", {shape, out_rank})) return;
  if (out.numel() == 0) return;
  gather_indexed(self, plan, pre, num_pre, post, num_post, out);
}

void index_select_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::index_select.out", args);
  Tensor self, index, out;
  int64_t dim = 0;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.tensor(2, "index", &index) || !a.tensor(3, "out", &out) || !a.check_dtype(out, "out", self.scalar_type()) ||
      !check_index_dtype(a, index, "index")) {
    return;
  }
  if (!runtime::is_valid(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has an invalid dtype (%d)", static_cast<int>(self.scalar_type()));
    return;
  }
  if (index.dim() > 1) {
    a.fail(Error::InvalidArgument, "'index' has %zd dims; it must be 0-dim or 1-D", index.dim());
    return;
  }
  const size_t rank = static_cast<size_t>(self.dim());
  size_t d = 0;
  if (!a.wrap_dim(dim, rank, "dim", &d)) return;
  if (rank == 0 && index.numel() != 1) {
    a.fail(Error::InvalidArgument, "'index' has %zd elements; indexing a 0-dim 'self' takes exactly one",
           index.numel());
    return;
  }
  util::Geometry src = util::geometry(self);
  if (rank == 0) {  // as a 1-element 1-D tensor
    src.rank = 1;
    src.sizes[0] = 1;
    src.strides[0] = 1;
  }
  if (!check_indices(a, index, "index", -1, src.sizes[d], false)) return;
  SizesType shape[util::kMaxDims];
  std::copy(self.sizes().begin(), self.sizes().end(), shape);
  if (rank > 0) shape[d] = static_cast<SizesType>(index.numel());
  if (!a.resize_out(out, "out", {shape, rank})) return;
  if (out.numel() == 0) return;
  util::Geometry dst = util::geometry(out);
  if (rank == 0) dst = src;
  const util::BlockCopier block(src.sizes + d + 1, src.rank - d - 1, dst.strides + d + 1, src.strides + d + 1,
                                self.element_size());
  util::StridedCursor<2> outer(src.sizes, d);
  outer.set_strides(0, dst.strides);
  outer.set_strides(1, src.strides);
  const int64_t index_stride = index.dim() == 1 ? index.strides()[0] : 0;
  visit_index(index.scalar_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* ids = index.const_data_ptr<I>();
    do {
      for (int64_t j = 0; j < index.numel(); ++j) {
        const int64_t v = ids[j * index_stride];
        block.copy(mutable_element_at(out, outer.offset(0) + j * dst.strides[d]),
                   element_at(self, outer.offset(1) + v * src.strides[d]));
      }
    } while (outer.next());
  });
}

void gather_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::gather.out", args);
  Tensor self, index, out;
  int64_t dim = 0;
  bool sparse_grad = false;  // a hint for the backward pass
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.tensor(2, "index", &index) || !a.boolean(3, "sparse_grad", &sparse_grad) || !a.tensor(4, "out", &out) ||
      !a.check_dtype(out, "out", self.scalar_type()) || !check_index_dtype(a, index, "index")) {
    return;
  }
  if (!runtime::is_valid(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has an invalid dtype (%d)", static_cast<int>(self.scalar_type()));
    return;
  }
  // A 0-dim self or index acts as 1-D of one element.
  const size_t rank = std::max<size_t>(static_cast<size_t>(self.dim()), 1);
  if (std::max<size_t>(static_cast<size_t>(index.dim()), 1) != rank) {
    a.fail(Error::InvalidArgument, "'index' has %zd dims but 'self' has %zd; they must match", index.dim(),
           self.dim());
    return;
  }
  size_t d = 0;
  if (!a.wrap_dim(dim, static_cast<size_t>(self.dim()), "dim", &d)) return;
  util::Geometry src = util::geometry(self), ids = util::geometry(index);
  for (util::Geometry* g : {&src, &ids}) {
    if (g->rank == 0) *g = util::Geometry{1, {1}, {1}};
  }
  if (index.numel() > 0) {
    for (size_t k = 0; k < rank; ++k) {
      if (k != d && ids.sizes[k] > src.sizes[k]) {
        a.fail(Error::InvalidArgument, "'index' has size %lld in dim %zu, larger than 'self' (%lld)",
               static_cast<long long>(ids.sizes[k]), k, static_cast<long long>(src.sizes[k]));
        return;
      }
    }
  }
  if (!check_indices(a, index, "index", -1, src.sizes[d], false)) return;
  if (!a.resize_out(out, "out", index.sizes())) return;
  if (out.numel() == 0) return;
  util::Geometry dst = util::geometry(out);
  if (dst.rank == 0) dst = util::Geometry{1, {1}, {1}};
  util::StridedLayout<3> layout;
  layout.rank = rank;
  const int64_t dim_stride = src.strides[d];
  for (size_t k = 0; k < rank; ++k) {
    layout.sizes[k] = ids.sizes[k];
    layout.strides[0][k] = dst.strides[k];
    layout.strides[1][k] = ids.strides[k];
    layout.strides[2][k] = k == d ? 0 : src.strides[k];
  }
  util::visit_element_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = self.const_data_ptr<T>();
    T* o = out.mutable_data_ptr<T>();
    visit_index(index.scalar_type(), [&](auto index_tag) {
      using I = typename decltype(index_tag)::type;
      const I* id = index.const_data_ptr<I>();
      util::for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
        T* row_out = o + offsets[0];
        const I* row_ids = id + offsets[1];
        const T* row_in = in + offsets[2];
        for (int64_t i = 0; i < n; ++i) {
          row_out[i * inner[0]] = row_in[i * inner[2] + static_cast<int64_t>(row_ids[i * inner[1]]) * dim_stride];
        }
      });
    });
  });
}

void embedding_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::embedding.out", args);
  Tensor weight, indices, out;
  int64_t padding_idx = -1;  // these three only matter for the backward pass
  bool scale_grad_by_freq = false, sparse = false;
  if (!a.check_count(6) || !a.tensor(0, "weight", &weight) || !a.tensor(1, "indices", &indices) ||
      !a.integer(2, "padding_idx", &padding_idx) || !a.boolean(3, "scale_grad_by_freq", &scale_grad_by_freq) ||
      !a.boolean(4, "sparse", &sparse) || !a.tensor(5, "out", &out) ||
      !a.check_dtype(out, "out", weight.scalar_type()) || !check_index_dtype(a, indices, "indices")) {
    return;
  }
  if (weight.dim() != 2) {
    a.fail(Error::InvalidArgument, "'weight' has %zd dims; it must be 2-D", weight.dim());
    return;
  }
  if (!runtime::is_valid(weight.scalar_type())) {
    a.fail(Error::InvalidArgument, "'weight' has an invalid dtype (%d)", static_cast<int>(weight.scalar_type()));
    return;
  }
  const size_t rank = static_cast<size_t>(indices.dim());
  if (rank + 1 > util::kMaxDims) {
    a.fail(Error::NotSupported, "'indices' has %zu dims, at most %zu are supported", rank, util::kMaxDims - 1);
    return;
  }
  if (!check_indices(a, indices, "indices", -1, weight.size(0), false)) return;
  SizesType shape[util::kMaxDims];
  std::copy(indices.sizes().begin(), indices.sizes().end(), shape);
  shape[rank] = weight.size(1);
  if (!a.resize_out(out, "out", {shape, rank + 1})) return;
  if (out.numel() == 0) return;
  const util::Geometry ids = util::geometry(indices), dst = util::geometry(out);
  const int64_t row_size = weight.size(1), weight_row_stride = weight.strides()[1];
  const util::BlockCopier row(&row_size, 1, dst.strides + rank, &weight_row_stride, weight.element_size());
  util::StridedCursor<2> cursor(ids.sizes, rank);
  cursor.set_strides(0, ids.strides);
  cursor.set_strides(1, dst.strides);
  const int64_t row_stride = weight.strides()[0];
  visit_index(indices.scalar_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* data = indices.const_data_ptr<I>();
    do {
      const int64_t v = data[cursor.offset(0)];
      row.copy(mutable_element_at(out, cursor.offset(1)), element_at(weight, v * row_stride));
    } while (cursor.next());
  });
}

}  // namespace kiln::kernels::portable
