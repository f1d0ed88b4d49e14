// Advanced indexing, self[indices] with a Tensor?[] of indices, as index.Tensor
// reads it and index_put writes through it: the plan (which dims each index
// takes, their broadcast shape, the result's shape) and a walk over the
// result that gives, for each of its positions, the element of self it is.
//
// The result is pre + broadcast + post: pre and post are self's dims that no
// index takes (every such dim is post unless the indices sit next to each
// other, NumPy's rule), broadcast the indices' broadcast shape. A Bool/Byte
// mask acts as the 1-D list of its true elements' positions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable::util {

/// One advanced index: a Long/Int tensor indexing self's dim `dim`, or a
/// Bool/Byte mask over self's dims [dim, dim + mask rank).
struct AdvancedIndex {
  Tensor tensor;
  size_t list_position = 0;
  size_t dim = 0;
  bool mask = false;
  int64_t count = 0;  // a mask's true elements
};

struct IndexPlan {
  AdvancedIndex advanced[kMaxDims];
  size_t count = 0;
  bool indexed[kMaxDims] = {};  // self dims taken by an advanced index
  size_t broadcast_rank = 0;
  int64_t broadcast[kMaxDims] = {};
  // Self's dims before and after the broadcast dims in the result.
  size_t pre[kMaxDims] = {}, post[kMaxDims] = {};
  size_t num_pre = 0, num_post = 0;
  size_t result_rank = 0;
  SizesType result_sizes[kMaxDims] = {};
  int64_t result_numel = 0;

  Span<const SizesType> result_shape() const { return {result_sizes, result_rank}; }
};

/// Reads `indices` (one entry per leading dim of self: None, a Long/Int index
/// tensor or a Bool/Byte mask) into `plan`, and checks every Long/Int index
/// against its dim (negatives count from the end) if the result is not empty.
/// Messages name the argument `indices` and the list position.
bool plan_advanced_index(KernelArgs& a, const Tensor& self, Span<const std::optional<Tensor>> indices,
                         IndexPlan* plan);

/// The sizes and self strides of the post dims: the block of self each walk
/// position stands for.
struct PostBlock {
  int64_t sizes[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {};
  size_t rank = 0;
};
PostBlock post_block(const IndexPlan& plan, const Geometry& self);

/// Finds the self offset of a mask's q-th true element, scanning forward from
/// the last one found (the q asked for mostly count up by one).
class MaskCursor {
 public:
  MaskCursor(const Tensor& mask, const int64_t* self_strides);
  int64_t self_offset(int64_t q);

 private:
  static StridedCursor<2> start(const Tensor& mask, const int64_t* self_strides);

  const uint8_t* mask_;
  StridedCursor<2> cursor_;
  Tensor mask_tensor_;
  const int64_t* self_strides_;
  int64_t q_ = -1;  // which true element the cursor is on
};

/// Calls visit(result_offset, self_offset) for every position of the
/// result's pre and broadcast dims in row-major order: result_offset by
/// `result_strides` (one per result dim), self_offset the element of self
/// (laid out as `self`) at that position, the post dims at 0. The plan's
/// Long/Int indices must have been checked.
template <typename F>
void for_each_indexed(const IndexPlan& plan, const Geometry& self, const int64_t* result_strides, F&& visit) {
  int64_t pre_sizes[kMaxDims], pre_self[kMaxDims];
  for (size_t i = 0; i < plan.num_pre; ++i) {
    pre_sizes[i] = self.sizes[plan.pre[i]];
    pre_self[i] = self.strides[plan.pre[i]];
  }
  const size_t rb = plan.broadcast_rank;
  StridedCursor<2> outer(pre_sizes, plan.num_pre);
  outer.set_strides(0, result_strides);
  outer.set_strides(1, pre_self);
  // Operand 0 walks the result's broadcast dims; operand 1 + j the j-th
  // index (its element offset, or for a mask which true element).
  StridedCursor<kMaxDims + 1> inner(plan.broadcast, rb);
  inner.set_strides(0, result_strides + plan.num_pre);
  std::optional<MaskCursor> masks[kMaxDims];
  for (size_t j = 0; j < plan.count; ++j) {
    const AdvancedIndex& entry = plan.advanced[j];
    int64_t strides[kMaxDims] = {};
    if (entry.mask) {
      strides[rb - 1] = entry.count == 1 ? 0 : 1;
      masks[j].emplace(entry.tensor, self.strides + entry.dim);
    } else {
      broadcast_strides(entry.tensor, rb, strides);
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
        // A per-element dtype test: predictable, and cheap beside the block's work.
        int64_t v = entry.tensor.scalar_type() == ScalarType::Long ? entry.tensor.const_data_ptr<int64_t>()[at]
                                                                    : entry.tensor.const_data_ptr<int32_t>()[at];
        if (v < 0) v += self.sizes[entry.dim];
        offset += v * self.strides[entry.dim];
      }
      visit(outer.offset(0) + inner.offset(0), offset);
    } while (inner.next());
  } while (outer.next());
}

}  // namespace kiln::kernels::portable::util
