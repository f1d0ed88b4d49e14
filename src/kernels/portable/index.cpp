// Indexing: index.Tensor (advanced indexing with index tensors and masks),
// index_select, gather, embedding. Elements move as raw bytes of the dtype's
// size; every index is checked against its dim before anything is written.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/advanced_index.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/indexing.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::SizesType;
using runtime::Tensor;
using util::check_index_dtype;
using util::check_indices;
using util::element_at;
using util::KernelArgs;
using util::mutable_element_at;
using util::visit_index;

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
  if (!a.check_valid_dtype(self, "self")) return;
  util::IndexPlan plan;
  if (!util::plan_advanced_index(a, self, indices, &plan) || !a.resize_out(out, "out", plan.result_shape())) return;
  if (out.numel() == 0) return;
  const util::Geometry src = util::geometry(self), dst = util::geometry(out);
  const util::PostBlock post = util::post_block(plan, src);
  const util::BlockCopier block(post.sizes, post.rank, dst.strides + plan.num_pre + plan.broadcast_rank,
                                post.self_strides, self.element_size());
  util::for_each_indexed(plan, src, dst.strides, [&](int64_t out_offset, int64_t self_offset) {
    block.copy(mutable_element_at(out, out_offset), element_at(self, self_offset));
  });
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
  if (!a.check_valid_dtype(self, "self")) return;
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
  if (!check_indices(a, index, "index", -1, {src.sizes[d], static_cast<long>(d), false})) return;
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
  if (!a.check_valid_dtype(self, "self")) return;
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
  if (!check_indices(a, index, "index", -1, {src.sizes[d], static_cast<long>(d), false})) return;
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
  if (!a.check_valid_dtype(weight, "weight")) return;
  const size_t rank = static_cast<size_t>(indices.dim());
  if (rank + 1 > util::kMaxDims) {
    a.fail(Error::NotSupported, "'indices' has %zu dims, at most %zu are supported", rank, util::kMaxDims - 1);
    return;
  }
  if (!check_indices(a, indices, "indices", -1, {weight.size(0), -1, false})) return;
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
