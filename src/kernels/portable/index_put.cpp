// Writing through indices and masks: index_put (self[indices] = values, or +=
// with accumulate), masked_scatter (self's masked elements replaced by
// source's, in order), and nonzero (a mask's true positions as indices).
// Every index is checked, and every count known, before anything is written.
#include <cstdint>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/accumulate.h"
#include "kernels/portable/util/advanced_index.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/indexing.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

bool check_broadcasts(KernelArgs& a, const Tensor& t, const char* name, Span<const SizesType> shape,
                      const char* shape_name) {
  if (util::broadcasts_to(t.sizes(), shape)) return true;
  char have[96], want[96];
  util::format_sizes(t.sizes(), have, sizeof have);
  util::format_sizes(shape, want, sizeof want);
  a.fail(Error::InvalidArgument, "'%s' of shape %s cannot be broadcast to %s %s", name, have, shape_name, want);
  return false;
}

// index_put with accumulate: adds the values' block at each position, one
// element at a time in self's dtype (PyTorch's serial CPU loop).
void accumulate_indexed(const util::IndexPlan& plan, const Tensor& values, const int64_t* value_strides,
                        const Tensor& out) {
  const util::Geometry dst = util::geometry(out);
  const util::PostBlock post = util::post_block(plan, dst);
  const int64_t* post_value_strides = value_strides + plan.num_pre + plan.broadcast_rank;
  util::visit_every_dtype(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.mutable_data_ptr<T>();
    const T* v = values.const_data_ptr<T>();
    util::for_each_indexed(plan, dst, value_strides, [&](int64_t value_offset, int64_t out_offset) {
      util::StridedCursor<2> cursor(post.sizes, post.rank);
      cursor.set_strides(0, post.self_strides);
      cursor.set_strides(1, post_value_strides);
      do {
        T& slot = o[out_offset + cursor.offset(0)];
        slot = util::combine<util::Reduce::Sum, T>(slot, v[value_offset + cursor.offset(1)]);
      } while (cursor.next());
    });
  });
}

void put_indexed(const util::IndexPlan& plan, const Tensor& values, const int64_t* value_strides, const Tensor& out) {
  const util::Geometry dst = util::geometry(out);
  const util::PostBlock post = util::post_block(plan, dst);
  const util::BlockCopier block(post.sizes, post.rank, post.self_strides,
                                value_strides + plan.num_pre + plan.broadcast_rank, out.element_size());
  util::for_each_indexed(plan, dst, value_strides, [&](int64_t value_offset, int64_t out_offset) {
    block.copy(util::mutable_element_at(out, out_offset), util::element_at(values, value_offset));
  });
}

// The broadcast of self and mask, masked_scatter's result shape.
bool masked_result_shape(KernelArgs& a, const Tensor& self, const Tensor& mask, SizesType* shape, size_t* rank) {
  if (util::broadcast_shape(self.sizes(), mask.sizes(), shape, rank)) return true;
  char s[96], m[96];
  util::format_sizes(self.sizes(), s, sizeof s);
  util::format_sizes(mask.sizes(), m, sizeof m);
  a.fail(Error::InvalidArgument, "'mask' of shape %s cannot be broadcast with 'self' of shape %s", m, s);
  return false;
}

// How many elements of `mask` broadcast to `layout`'s index space (operand 0
// the mask) are true.
int64_t count_broadcast_true(const util::StridedLayout<1>& layout, const Tensor& mask) {
  const uint8_t* m = mask.const_data_ptr<uint8_t>();
  int64_t count = 0;
  util::for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
    for (int64_t i = 0; i < n; ++i) count += m[offsets[0] + i * inner[0]] != 0;
  });
  return count;
}

// masked_scatter's write: out = self where the mask is false, and the next
// element of source (in its logical order) where it is true.
void scatter_masked(const util::StridedLayout<3>& layout, const Tensor& self, const Tensor& mask,
                    const Tensor& source, const Tensor& out) {
  const uint8_t* m = mask.const_data_ptr<uint8_t>();
  const util::Geometry src = util::geometry(source);
  util::StridedCursor<1> next_source(src.sizes, src.rank);
  next_source.set_strides(0, src.strides);
  util::visit_element_size(out.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.mutable_data_ptr<T>();
    const T* s = self.const_data_ptr<T>();
    const T* from = source.const_data_ptr<T>();
    util::for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
      for (int64_t i = 0; i < n; ++i) {
        if (m[offsets[2] + i * inner[2]] != 0) {
          o[offsets[0] + i * inner[0]] = from[next_source.offset(0)];
          next_source.next();
        } else {
          o[offsets[0] + i * inner[0]] = s[offsets[1] + i * inner[1]];
        }
      }
    });
  });
}

}  // namespace

void index_put_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::index_put.out", args);
  Tensor self, values, out;
  Span<const std::optional<Tensor>> indices;
  bool accumulate = false;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.optional_tensor_list(1, "indices", &indices) ||
      !a.tensor(2, "values", &values) || !a.boolean(3, "accumulate", &accumulate) || !a.tensor(4, "out", &out) ||
      !a.check_valid_dtype(self, "self") || !a.check_dtype(values, "values", self.scalar_type()) ||
      !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  bool has_index = false;
  for (const std::optional<Tensor>& index : indices) has_index = has_index || index.has_value();
  if (!has_index) {
    a.fail(Error::InvalidArgument, "'indices' holds no tensor; at least one index is needed");
    return;
  }
  bool computes = false;
  util::visit_every_dtype(self.scalar_type(), [&](auto) { computes = true; });
  if (accumulate && !computes) {
    a.fail(Error::NotSupported, "'accumulate' is not supported for dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  util::IndexPlan plan;
  if (!util::plan_advanced_index(a, self, indices, &plan) ||
      !check_broadcasts(a, values, "values", plan.result_shape(), "the indexing result") ||
      !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  util::copy_logical(self, out);
  if (plan.result_numel == 0) return;
  int64_t value_strides[util::kMaxDims];
  util::broadcast_strides(values, plan.result_rank, value_strides);
  if (accumulate) {
    accumulate_indexed(plan, values, value_strides, out);
  } else {
    put_indexed(plan, values, value_strides, out);
  }
}

void masked_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::masked_scatter.out", args);
  Tensor self, mask, source, out;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.tensor(1, "mask", &mask) ||
      !a.tensor(2, "source", &source) || !a.tensor(3, "out", &out) || !a.check_valid_dtype(self, "self") ||
      !a.check_dtype(mask, "mask", ScalarType::Bool) || !a.check_dtype(source, "source", self.scalar_type()) ||
      !a.check_dtype(out, "out", self.scalar_type())) {
    return;
  }
  SizesType shape[util::kMaxDims];
  size_t rank = 0;
  if (!masked_result_shape(a, self, mask, shape, &rank)) return;
  util::StridedLayout<3> layout;  // out, self, mask
  util::set_index_space(layout, {shape, rank});
  util::set_broadcast_strides(layout, 1, self);
  util::set_broadcast_strides(layout, 2, mask);
  util::StridedLayout<1> mask_only;
  util::set_index_space(mask_only, {shape, rank});
  util::set_broadcast_strides(mask_only, 0, mask);
  const int64_t needed = count_broadcast_true(mask_only, mask);
  if (source.numel() < needed) {
    a.fail(Error::InvalidArgument, "'source' has %zd elements, fewer than the %lld true elements of 'mask'",
           source.numel(), static_cast<long long>(needed));
    return;
  }
  if (!a.resize_out(out, "out", {shape, rank})) return;
  const Span<const runtime::StridesType> out_strides = out.strides();
  for (size_t d = 0; d < rank; ++d) layout.strides[0][d] = out_strides[d];
  scatter_masked(layout, self, mask, source, out);
}

void nonzero_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::nonzero.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out) ||
      !a.check_dtype(out, "out", ScalarType::Long)) {
    return;
  }
  if (!util::is_convertible(self.scalar_type())) {
    a.fail(Error::NotSupported, "'self' has dtype %s, which is not supported", runtime::to_string(self.scalar_type()));
    return;
  }
  const util::Geometry g = util::geometry(self);
  // Two passes over self: the count sizes out before any index is written.
  const auto for_each_nonzero = [&](auto&& visit) {
    if (self.numel() == 0) return;
    util::visit_convertible(self.scalar_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* data = self.const_data_ptr<T>();
      util::StridedCursor<1> cursor(g.sizes, g.rank);
      cursor.set_strides(0, g.strides);
      do {
        if (util::convert<bool>(data[cursor.offset(0)])) visit(cursor);
      } while (cursor.next());
    });
  };
  int64_t count = 0;
  for_each_nonzero([&](const auto&) { ++count; });
  if (count > INT32_MAX) {
    a.fail(Error::NotSupported, "'self' has %lld nonzero elements, more than an out dim can hold",
           static_cast<long long>(count));
    return;
  }
  const SizesType shape[2] = {static_cast<SizesType>(count), static_cast<SizesType>(g.rank)};
  if (!a.resize_out(out, "out", {shape, 2})) return;
  int64_t* o = out.mutable_data_ptr<int64_t>();
  const int64_t row_stride = out.strides()[0], column_stride = out.strides()[1];
  int64_t row = 0;
  for_each_nonzero([&](const auto& cursor) {
    for (size_t d = 0; d < g.rank; ++d) o[row * row_stride + static_cast<int64_t>(d) * column_stride] = cursor.index(d);
    ++row;
  });
}

}  // namespace kiln::kernels::portable
