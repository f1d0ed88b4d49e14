#include "kernels/portable/util/indexing.h"

#include <cstdio>

#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable::util {

bool check_index_dtype(KernelArgs& a, const Tensor& index, const char* name) {
  if (is_index_dtype(index.scalar_type())) return true;
  a.fail(Error::InvalidArgument, "'%s' has dtype %s, expected Long or Int", name,
         runtime::to_string(index.scalar_type()));
  return false;
}

bool check_indices(KernelArgs& a, const Tensor& index, const char* name, long element, IndexTarget target) {
  if (index.numel() == 0) return true;
  const Geometry g = geometry(index);
  const int64_t low = target.wrap ? -target.size : 0;
  int64_t bad = 0;
  bool ok = true;
  visit_index(index.scalar_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* data = index.const_data_ptr<I>();
    StridedCursor<1> cursor(g.sizes, g.rank);
    cursor.set_strides(0, g.strides);
    do {
      const int64_t v = data[cursor.offset(0)];
      if (v < low || v >= target.size) {
        bad = v;
        ok = false;
        return;
      }
    } while (cursor.next());
  });
  if (ok) return true;
  char which[48] = "";
  if (element >= 0) std::snprintf(which, sizeof which, "[%ld]", element);
  char dim[48] = "";
  if (target.dim >= 0) std::snprintf(dim, sizeof dim, "dim %ld ", target.dim);
  a.fail(Error::InvalidArgument, "'%s'%s holds index %lld, out of range for %sof size %lld", name, which,
         static_cast<long long>(bad), target.dim >= 0 ? dim : "a dim ", static_cast<long long>(target.size));
  return false;
}

int64_t count_true(const Tensor& mask) {
  if (mask.numel() == 0) return 0;
  const Geometry g = geometry(mask);
  StridedCursor<1> cursor(g.sizes, g.rank);
  cursor.set_strides(0, g.strides);
  const uint8_t* data = mask.const_data_ptr<uint8_t>();  // Bool and Byte: one byte, nonzero is true
  int64_t count = 0;
  do {
    count += data[cursor.offset(0)] != 0;
  } while (cursor.next());
  return count;
}

}  // namespace kiln::kernels::portable::util
