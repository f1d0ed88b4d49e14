#include "kernels/portable/util/advanced_index.h"

#include <algorithm>
#include <cstdint>

#include "kernels/portable/util/indexing.h"

namespace kiln::kernels::portable::util {

MaskCursor::MaskCursor(const Tensor& mask, const int64_t* self_strides)
    : mask_(mask.const_data_ptr<uint8_t>()), cursor_(start(mask, self_strides)), mask_tensor_(mask),
      self_strides_(self_strides) {}

int64_t MaskCursor::self_offset(int64_t q) {
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

StridedCursor<2> MaskCursor::start(const Tensor& mask, const int64_t* self_strides) {
  const Geometry g = geometry(mask);
  StridedCursor<2> cursor(g.sizes, g.rank);
  cursor.set_strides(0, g.strides);
  cursor.set_strides(1, self_strides);
  return cursor;
}

namespace {

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
    int64_t shape[kMaxDims];
    const size_t rank = broadcast_shape_of(plan->advanced[j], shape);
    const size_t result = std::max(rank, plan->broadcast_rank);
    int64_t merged[kMaxDims];
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

// Places self's dims that no index takes before or after the broadcast dims
// (advanced indices next to each other keep their place; separated by a
// slice, they go to the front) and sizes the result.
bool lay_out_result(KernelArgs& a, const Tensor& self, IndexPlan* plan) {
  const size_t rank = static_cast<size_t>(self.dim());
  size_t first = rank, last = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (plan->indexed[d]) {
      first = std::min(first, d);
      last = d;
    }
  }
  bool adjacent = true;
  for (size_t d = first; d < last; ++d) adjacent = adjacent && plan->indexed[d];
  if (plan->count == 0) first = 0;  // no advanced index: one block of everything
  for (size_t d = 0; d < rank; ++d) {
    if (plan->indexed[d]) continue;
    if (adjacent && d < first) {
      plan->pre[plan->num_pre++] = d;
    } else {
      plan->post[plan->num_post++] = d;
    }
  }
  plan->result_rank = plan->num_pre + plan->broadcast_rank + plan->num_post;
  if (plan->result_rank > kMaxDims) {
    a.fail(Error::NotSupported, "'indices' give a result of %zu dims, at most %zu are supported", plan->result_rank,
           kMaxDims);
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < plan->num_pre; ++i) plan->result_sizes[n++] = self.sizes()[plan->pre[i]];
  for (size_t i = 0; i < plan->broadcast_rank; ++i) {
    if (plan->broadcast[i] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'indices' broadcast to a dim of %lld, too large",
             static_cast<long long>(plan->broadcast[i]));
      return false;
    }
    plan->result_sizes[n++] = static_cast<SizesType>(plan->broadcast[i]);
  }
  for (size_t i = 0; i < plan->num_post; ++i) plan->result_sizes[n++] = self.sizes()[plan->post[i]];
  plan->result_numel = 1;
  for (size_t i = 0; i < plan->result_rank; ++i) {
    if (__builtin_mul_overflow(plan->result_numel, int64_t{plan->result_sizes[i]}, &plan->result_numel)) {
      a.fail(Error::InvalidArgument, "'indices' give a result with too many elements");
      return false;
    }
  }
  return true;
}

}  // namespace

bool plan_advanced_index(KernelArgs& a, const Tensor& self, Span<const std::optional<Tensor>> indices,
                         IndexPlan* plan) {
  if (!parse_indices(a, self, indices, plan) || !broadcast_indices(a, plan) || !lay_out_result(a, self, plan)) {
    return false;
  }
  // Out-of-range indices are errors only where an element is read.
  if (plan->result_numel == 0) return true;
  for (size_t j = 0; j < plan->count; ++j) {
    const AdvancedIndex& entry = plan->advanced[j];
    if (!entry.mask && !check_indices(a, entry.tensor, "indices", static_cast<long>(entry.list_position),
                                      {self.sizes()[entry.dim], static_cast<long>(entry.dim), true})) {
      return false;
    }
  }
  return true;
}

PostBlock post_block(const IndexPlan& plan, const Geometry& self) {
  PostBlock block;
  block.rank = plan.num_post;
  for (size_t i = 0; i < plan.num_post; ++i) {
    block.sizes[i] = self.sizes[plan.post[i]];
    block.self_strides[i] = self.strides[plan.post[i]];
  }
  return block;
}

}  // namespace kiln::kernels::portable::util
