// _embedding_bag: bags of rows of `weight`, picked by `indices` and cut by
// `offsets`, reduced to one row each (sum, mean or max), with the auxiliary
// outputs PyTorch's CPU kernel returns: offset2bag (each index's bag),
// bag_size (each bag's count of non-padding indices) and max_indices (the
// row each maximum came from). Bags are read one output element at a time,
// so no accumulator needs temporary memory.
#include <cstdint>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/indexing.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum Mode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

struct Bags {
  Tensor weight, indices, offsets;
  std::optional<Tensor> per_sample_weights;
  int64_t mode = kSum;
  int64_t padding_idx = -1;  // negative: none
  bool include_last_offset = false;
  int64_t num_bags = 0;
};

// Reads an index tensor's element `i` (a 1-D Long or Int tensor).
int64_t index_at(const Tensor& t, int64_t i) {
  const int64_t at = i * t.strides()[0];
  return t.scalar_type() == ScalarType::Long ? t.const_data_ptr<int64_t>()[at] : t.const_data_ptr<int32_t>()[at];
}

bool check_1d_index(KernelArgs& a, const Tensor& t, const char* name) {
  if (!util::check_index_dtype(a, t, name)) return false;
  if (t.dim() == 1) return true;
  a.fail(Error::InvalidArgument, "'%s' has %zd dims; it must be 1-D", name, t.dim());
  return false;
}

bool check_arguments(KernelArgs& a, const Bags& b) {
  if (b.weight.dim() != 2) {
    a.fail(Error::InvalidArgument, "'weight' has %zd dims; it must be 2-D", b.weight.dim());
    return false;
  }
  if (!util::is_floating_or_half(b.weight.scalar_type())) {
    a.fail(Error::InvalidArgument, "'weight' has dtype %s; it must be Float, Double, Half or BFloat16",
           runtime::to_string(b.weight.scalar_type()));
    return false;
  }
  if (!check_1d_index(a, b.indices, "indices") || !check_1d_index(a, b.offsets, "offsets")) return false;
  if (b.mode < kSum || b.mode > kMax) {
    a.fail(Error::InvalidArgument, "'mode' %lld must be 0 (sum), 1 (mean) or 2 (max)", static_cast<long long>(b.mode));
    return false;
  }
  if (!b.per_sample_weights) return true;
  const Tensor& psw = *b.per_sample_weights;
  if (b.mode != kSum) {
    a.fail(Error::InvalidArgument, "'per_sample_weights' are only supported with mode 0 (sum)");
    return false;
  }
  if (psw.dim() != 1 || psw.numel() != b.indices.numel()) {
    a.fail(Error::InvalidArgument, "'per_sample_weights' must be 1-D with one weight per index (%zd)",
           b.indices.numel());
    return false;
  }
  return a.check_dtype(psw, "per_sample_weights", b.weight.scalar_type());
}

// Offsets start at 0, never decrease and stay within the indices; with
// include_last_offset the last one is the number of indices. (PyTorch's CPU
// kernel reads a last offset short of the end two ways at once, so Kiln
// refuses it.)
bool check_offsets(KernelArgs& a, const Bags& b) {
  const int64_t count = b.offsets.numel(), n = b.indices.numel();
  if (b.include_last_offset && count == 0) {
    a.fail(Error::InvalidArgument, "'offsets' is empty; with 'include_last_offset' it needs the end offset");
    return false;
  }
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = index_at(b.offsets, i);
    const int64_t low = i == 0 ? 0 : index_at(b.offsets, i - 1);
    if ((i == 0 && v != 0) || v < low || v > n) {
      a.fail(Error::InvalidArgument,
             "'offsets'[%lld] is %lld; offsets must start at 0, never decrease and not pass %lld",
             static_cast<long long>(i), static_cast<long long>(v), static_cast<long long>(n));
      return false;
    }
  }
  if (b.include_last_offset && index_at(b.offsets, count - 1) != n) {
    a.fail(Error::NotSupported, "'offsets' ends at %lld; with 'include_last_offset' it must end at the %lld indices",
           static_cast<long long>(index_at(b.offsets, count - 1)), static_cast<long long>(n));
    return false;
  }
  return true;
}

// The indices of bag `bag`: [begin, end).
void bag_range(const Bags& b, int64_t bag, int64_t* begin, int64_t* end) {
  *begin = index_at(b.offsets, bag);
  *end = bag + 1 < b.offsets.numel() ? index_at(b.offsets, bag + 1) : b.indices.numel();
}

bool is_padding(const Bags& b, int64_t row) { return b.padding_idx >= 0 && row == b.padding_idx; }

// PyTorch's CPU kernel leaves offset2bag empty on its summing fast path.
bool skips_offset2bag(const Bags& b) {
  const ScalarType t = b.weight.scalar_type();
  return b.mode == kSum && b.padding_idx < 0 && t != ScalarType::Double;
}

// Sizes the four outputs. offset2bag is filled whenever out1 already holds
// one entry per index, as torch.export sizes it for BFloat16 where the CPU
// kernel (and its fast path) leaves it empty.
bool resize_outputs(KernelArgs& a, const Bags& b, Span<const Tensor> outs) {
  const auto bags = static_cast<SizesType>(b.num_bags);
  const SizesType rows[2] = {bags, b.weight.sizes()[1]};
  const bool fills_offset2bag = !skips_offset2bag(b) || outs[1].numel() == b.indices.numel();
  const SizesType offset2bag_size = fills_offset2bag ? static_cast<SizesType>(b.indices.numel()) : 0;
  return a.resize_out(outs[0], "out0", {rows, 2}) && a.resize_out(outs[1], "out1", {&offset2bag_size, 1}) &&
         a.resize_out(outs[2], "out2", {&bags, 1}) &&
         a.resize_out(outs[3], "out3", {rows, b.mode == kMax ? size_t{2} : size_t{1}});
}

// Writes `value` at element offset `at` of a Long or Int tensor.
void put_index(const Tensor& t, int64_t at, int64_t value) {
  if (t.scalar_type() == ScalarType::Long) {
    t.mutable_data_ptr<int64_t>()[at] = value;
  } else {
    t.mutable_data_ptr<int32_t>()[at] = static_cast<int32_t>(value);
  }
}

// offset2bag, bag_size, and max_indices but for mode max (a copy of bag_size).
void write_bag_indices(const Bags& b, const Tensor& offset2bag, const Tensor& bag_size, const Tensor& max_indices) {
  if (b.num_bags == 0) {  // no bag holds the indices: PyTorch's count of offsets up to each, less one
    for (int64_t i = 0; i < offset2bag.numel(); ++i) put_index(offset2bag, i * offset2bag.strides()[0], -1);
  }
  for (int64_t bag = 0; bag < b.num_bags; ++bag) {
    int64_t begin = 0, end = 0;
    bag_range(b, bag, &begin, &end);
    int64_t counted = 0;
    for (int64_t i = begin; i < end; ++i) {
      if (offset2bag.numel() > 0) put_index(offset2bag, i * offset2bag.strides()[0], bag);
      counted += is_padding(b, index_at(b.indices, i)) ? 0 : 1;
    }
    const int64_t size = b.mode == kSum ? 0 : counted;  // PyTorch counts only for mean and max
    put_index(bag_size, bag * bag_size.strides()[0], size);
    if (b.mode != kMax) put_index(max_indices, bag * max_indices.strides()[0], size);
  }
}

// One element (bag, column d) of the sum or mean: accumulated in float for
// the 16-bit floats, rounded to T, then divided by the count for the mean.
template <typename T>
T reduce_sum(const Bags& b, int64_t begin, int64_t end, int64_t d) {
  using C = util::compute_t<T>;
  const T* w = b.weight.const_data_ptr<T>();
  const int64_t row_stride = b.weight.strides()[0], column = d * b.weight.strides()[1];
  const T* psw = b.per_sample_weights ? b.per_sample_weights->const_data_ptr<T>() : nullptr;
  C sum = 0;
  int64_t count = 0;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t row = index_at(b.indices, i);
    if (is_padding(b, row)) continue;
    const C value = static_cast<C>(w[row * row_stride + column]);
    sum += psw != nullptr ? value * static_cast<C>(psw[i * b.per_sample_weights->strides()[0]]) : value;
    ++count;
  }
  const T total = util::store_as<T>(sum);
  if (b.mode != kMean || count == 0) return total;
  return util::store_as<T>(static_cast<C>(total) / static_cast<C>(count));
}

// One element of the max, and the row it came from: the first of equals,
// 0 and row 0 for a bag without rows.
template <typename T>
T reduce_max(const Bags& b, int64_t begin, int64_t end, int64_t d, int64_t* from_row) {
  using C = util::compute_t<T>;
  const T* w = b.weight.const_data_ptr<T>();
  const int64_t row_stride = b.weight.strides()[0], column = d * b.weight.strides()[1];
  bool empty = true;
  T best = util::store_as<T>(C(0));
  *from_row = 0;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t row = index_at(b.indices, i);
    if (is_padding(b, row)) continue;
    const T value = w[row * row_stride + column];
    if (empty || static_cast<C>(value) > static_cast<C>(best)) {
      best = value;
      *from_row = row;
    }
    empty = false;
  }
  return best;
}

void write_output(const Bags& b, const Tensor& out, const Tensor& max_indices) {
  const int64_t columns = b.weight.sizes()[1];
  util::visit_floating_or_half(b.weight.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.mutable_data_ptr<T>();
    for (int64_t bag = 0; bag < b.num_bags; ++bag) {
      int64_t begin = 0, end = 0;
      bag_range(b, bag, &begin, &end);
      for (int64_t d = 0; d < columns; ++d) {
        T& slot = o[bag * out.strides()[0] + d * out.strides()[1]];
        if (b.mode != kMax) {
          slot = reduce_sum<T>(b, begin, end, d);
          continue;
        }
        int64_t from_row = 0;
        slot = reduce_max<T>(b, begin, end, d, &from_row);
        put_index(max_indices, bag * max_indices.strides()[0] + d * max_indices.strides()[1], from_row);
      }
    }
  });
}

// Reads the arguments in schema order; scale_grad_by_freq and sparse only
// matter for the backward pass.
bool read_bags(KernelArgs& a, Bags* b, Tensor* outs) {
  bool scale_grad_by_freq = false, sparse = false;
  return a.check_count(13) && a.tensor(0, "weight", &b->weight) && a.tensor(1, "indices", &b->indices) &&
         a.tensor(2, "offsets", &b->offsets) && a.boolean(3, "scale_grad_by_freq", &scale_grad_by_freq) &&
         a.integer(4, "mode", &b->mode) && a.boolean(5, "sparse", &sparse) &&
         a.optional_tensor(6, "per_sample_weights", &b->per_sample_weights) &&
         a.boolean(7, "include_last_offset", &b->include_last_offset) && a.integer(8, "padding_idx", &b->padding_idx) &&
         a.tensor(9, "out0", &outs[0]) && a.tensor(10, "out1", &outs[1]) && a.tensor(11, "out2", &outs[2]) &&
         a.tensor(12, "out3", &outs[3]);
}

// out0 has weight's dtype; the others are Int when indices and offsets both
// are, else Long (PyTorch's common index type).
bool check_out_dtypes(KernelArgs& a, const Bags& b, const Tensor* outs) {
  const bool ints = b.indices.scalar_type() == ScalarType::Int && b.offsets.scalar_type() == ScalarType::Int;
  const ScalarType index_type = ints ? ScalarType::Int : ScalarType::Long;
  return a.check_dtype(outs[0], "out0", b.weight.scalar_type()) && a.check_dtype(outs[1], "out1", index_type) &&
         a.check_dtype(outs[2], "out2", index_type) && a.check_dtype(outs[3], "out3", index_type);
}

}  // namespace

void embedding_bag_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::_embedding_bag.out", args);
  Bags b;
  Tensor outs[4];
  if (!read_bags(a, &b, outs) || !check_arguments(a, b) || !check_out_dtypes(a, b, outs) ||
      !util::check_indices(a, b.indices, "indices", -1, {b.weight.sizes()[0], 0, false}) || !check_offsets(a, b)) {
    return;
  }
  b.num_bags = b.offsets.numel() - (b.include_last_offset ? 1 : 0);
  if (!resize_outputs(a, b, {outs, 4})) return;
  write_bag_indices(b, outs[1], outs[2], outs[3]);
  write_output(b, outs[0], outs[3]);
}

}  // namespace kiln::kernels::portable
