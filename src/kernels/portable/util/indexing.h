// Reading index tensors for the portable indexing kernels (index.cpp,
// scatter.cpp, embedding_bag.cpp): their dtypes (Long or Int), the range check
// every index passes before anything is written, masks, and byte addressing of
// elements by offset.
#pragma once

#include <cstdint>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable::util {

inline bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

/// Fails unless `index` (the argument `name`) is Long or Int.
bool check_index_dtype(KernelArgs& a, const Tensor& index, const char* name);

/// Runs `f` with TypeTag<int64_t> or TypeTag<int32_t> for an index dtype.
template <typename F>
void visit_index(ScalarType t, F&& f) {
  if (t == ScalarType::Long) {
    f(TypeTag<int64_t>{});
  } else {
    f(TypeTag<int32_t>{});
  }
}

/// Where an index tensor points: a dim of `size` elements, numbered `dim` in
/// messages (-1: not named), and whether negatives count from the end.
struct IndexTarget {
  int64_t size = 0;
  long dim = -1;
  bool wrap = false;
};

/// Checks that every element of `index` (Long or Int) lies in [-size, size)
/// when `target.wrap`, else in [0, size). `element` is the index's position
/// in the list argument `name`, or -1. The message names the bad index, and
/// the dim when `target.dim` >= 0.
bool check_indices(KernelArgs& a, const Tensor& index, const char* name, long element, IndexTarget target);

/// The number of true (nonzero) elements of a Bool or Byte tensor.
int64_t count_true(const Tensor& mask);

inline const uint8_t* element_at(const Tensor& t, int64_t offset) {
  return static_cast<const uint8_t*>(t.const_data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}
inline uint8_t* mutable_element_at(const Tensor& t, int64_t offset) {
  return static_cast<uint8_t*>(t.mutable_data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}

}  // namespace kiln::kernels::portable::util
