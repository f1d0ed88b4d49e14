// topk.values and sort.values, along one dim of any layout, without
// allocating. A line's indices are ordered in place in the indices out by a
// total order on (value, index): NaN above every value, equal values by index.
// So the result is the stable order whichever algorithm produced it, and the
// values are then gathered from self. sort runs std::sort on a contiguous
// indices line and a heapsort on a strided one; topk keeps a heap of the k
// best indices while it scans the line (O(n log k)), then sorts the heap.
#include <algorithm>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/reduction.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Whether element i of a line goes before element j in the output.
template <typename T, bool kDescending>
struct Before {
  const T* x;
  int64_t step;
  bool operator()(int64_t i, int64_t j) const {
    const auto a = util::load(x[i * step]);
    const auto b = util::load(x[j * step]);
    const bool a_nan = util::is_nan(a), b_nan = util::is_nan(b);
    // "a ranks above b": NaN above every number.
    const bool a_above = kDescending ? a > b || (a_nan && !b_nan) : a < b || (b_nan && !a_nan);
    const bool b_above = kDescending ? b > a || (b_nan && !a_nan) : b < a || (a_nan && !b_nan);
    return a_above || (!b_above && i < j);
  }
};

// A line of int64 indices at a stride.
struct IndexLine {
  int64_t* data;
  int64_t stride;
  int64_t& operator[](int64_t i) const { return data[i * stride]; }
};

// Restores the heap property below `root` in heap[0, size): every parent
// goes after its children, so heap[0] is the element that goes last.
template <typename Order>
void sift_down(IndexLine heap, int64_t root, int64_t size, const Order& before) {
  const int64_t value = heap[root];
  while (true) {
    int64_t child = 2 * root + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap[child], heap[child + 1])) ++child;
    if (!before(value, heap[child])) break;
    heap[root] = heap[child];
    root = child;
  }
  heap[root] = value;
}

template <typename Order>
void make_heap(IndexLine heap, int64_t size, const Order& before) {
  for (int64_t i = size / 2; i-- > 0;) sift_down(heap, i, size, before);
}

// Turns a heap into the output order.
template <typename Order>
void sort_heap(IndexLine heap, int64_t size, const Order& before) {
  for (int64_t end = size - 1; end > 0; --end) {
    std::swap(heap[0], heap[end]);
    sift_down(heap, 0, end, before);
  }
}

// The first k elements of a line of n in the output order, as indices.
template <typename Order>
void select_first(IndexLine indices, int64_t n, int64_t k, const Order& before) {
  if (k == n && indices.stride == 1) {
    for (int64_t i = 0; i < n; ++i) indices.data[i] = i;
    std::sort(indices.data, indices.data + n, before);
    return;
  }
  for (int64_t i = 0; i < k; ++i) indices[i] = i;
  make_heap(indices, k, before);
  for (int64_t i = k; i < n; ++i) {
    if (k > 0 && before(i, indices[0])) {
      indices[0] = i;
      sift_down(indices, 0, k, before);
    }
  }
  sort_heap(indices, k, before);
}

// Fills values and indices, whose lines along `dim` hold the first k
// elements of self's lines in the order of Before<T, descending>.
void order_lines(const Tensor& self, const Tensor& values, const Tensor& indices, size_t dim, bool descending) {
  const Tensor tensors[3] = {self, values, indices};
  const util::AlongDim<3> along = util::along_dim(tensors, dim);
  const int64_t n = along.length[0], k = along.length[1];
  util::visit_real_or_bool_or_half(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self.const_data_ptr<T>();
    T* v = values.mutable_data_ptr<T>();
    int64_t* idx = indices.mutable_data_ptr<int64_t>();
    util::for_each_row(along.lines, [&](const int64_t* offsets, int64_t lines, const int64_t* inner) {
      for (int64_t j = 0; j < lines; ++j) {
        const T* line = x + offsets[0] + j * inner[0];
        const IndexLine order{idx + offsets[2] + j * inner[2], along.stride[2]};
        if (descending) {
          select_first(order, n, k, Before<T, true>{line, along.stride[0]});
        } else {
          select_first(order, n, k, Before<T, false>{line, along.stride[0]});
        }
        T* value_line = v + offsets[1] + j * inner[1];
        for (int64_t i = 0; i < k; ++i) value_line[i * along.stride[1]] = line[order[i] * along.stride[0]];
      }
    });
  });
}

// The outs of (values, indices) ops: values of self's dtype, Long indices,
// both resized to `sizes`.
bool check_outs(KernelArgs& a, const Tensor& self, const Tensor& values, const Tensor& indices,
                Span<const SizesType> sizes) {
  return a.check_dtype(values, "values", self.scalar_type()) && a.check_dtype(indices, "indices", ScalarType::Long) &&
         a.resize_out(values, "values", sizes) && a.resize_out(indices, "indices", sizes);
}

}  // namespace

void topk_values(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::topk.values", args);
  Tensor self, values, indices;
  int64_t k = 0, dim = 0;
  bool largest = true, sorted = true;
  if (!a.check_count(7) || !a.tensor(0, "self", &self) || !a.integer(1, "k", &k) || !a.integer(2, "dim", &dim) ||
      !a.boolean(3, "largest", &largest) || !a.boolean(4, "sorted", &sorted) || !a.tensor(5, "values", &values) ||
      !a.tensor(6, "indices", &indices)) {
    return;
  }
  // sorted=False leaves the order to the implementation; it is sorted here too.
  if (!util::is_real_or_half(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  const size_t rank = static_cast<size_t>(self.dim());
  size_t d = 0;
  if (!util::wrap_dim(a, "dim", dim, rank, &d)) return;
  const int64_t size = rank == 0 ? 1 : self.sizes()[d];
  if (k < 0 || k > size) {
    a.fail(Error::InvalidArgument, "'k' %lld is out of range for a dim of size %lld", static_cast<long long>(k),
           static_cast<long long>(size));
    return;
  }
  SizesType sizes[util::kMaxDims];
  for (size_t i = 0; i < rank; ++i) sizes[i] = i == d ? static_cast<SizesType>(k) : self.sizes()[i];
  if (!check_outs(a, self, values, indices, {sizes, rank})) return;
  if (values.numel() == 0) return;
  order_lines(self, values, indices, d, largest);
}

void sort_values(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::sort.values", args);
  Tensor self, values, indices;
  int64_t dim = 0;
  bool descending = false;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.integer(1, "dim", &dim) ||
      !a.boolean(2, "descending", &descending) || !a.tensor(3, "values", &values) || !a.tensor(4, "indices", &indices)) {
    return;
  }
  if (!util::is_real_or_bool_or_half(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  size_t d = 0;
  if (!util::wrap_dim(a, "dim", dim, static_cast<size_t>(self.dim()), &d) ||
      !check_outs(a, self, values, indices, self.sizes())) {
    return;
  }
  if (values.numel() == 0) return;
  order_lines(self, values, indices, d, descending);
}

}  // namespace kiln::kernels::portable
