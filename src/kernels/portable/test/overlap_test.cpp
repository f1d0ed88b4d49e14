// Copy kernels whose out overlaps their input. A program's memory plan may
// place them so (pte_fuzz built such a plan: squeeze_copy's out 1.5 KiB into
// its 1.75 KiB input); the copy must then behave as memmove — never an
// overlapping memcpy, which is undefined (the sanitizer suite reports it).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

using runtime::TensorImpl;

// A float tensor of `sizes` over `data`, which the caller owns.
struct AliasTensor {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  TensorImpl impl;

  AliasTensor(std::vector<SizesType> s, float* data)
      : sizes(std::move(s)),
        dim_order(contiguous(sizes.size())),
        strides(sizes.size()),
        impl(ScalarType::Float, static_cast<ssize_t>(sizes.size()), sizes.data(), data, dim_order.data(),
             fill_strides(sizes, dim_order, strides)) {}

  static std::vector<DimOrderType> contiguous(size_t rank) {
    std::vector<DimOrderType> order(rank);
    for (size_t d = 0; d < rank; ++d) order[d] = static_cast<DimOrderType>(d);
    return order;
  }
  static StridesType* fill_strides(const std::vector<SizesType>& sizes, const std::vector<DimOrderType>& order,
                                   std::vector<StridesType>& strides) {
    EXPECT_EQ(runtime::compute_strides({sizes.data(), sizes.size()}, {order.data(), order.size()},
                                       {strides.data(), strides.size()}),
              Error::Ok);
    return strides.data();
  }
  EValue value() { return EValue(Tensor(&impl)); }
};

std::vector<float> ramp(size_t n) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  return values;
}

TEST(OverlappingCopy, SqueezeCopyIntoItsOwnTail) {
  std::vector<float> buffer = ramp(12);
  AliasTensor self({1, 8}, buffer.data());
  AliasTensor out({8}, buffer.data() + 4);
  const auto ctx = KernelCall().value(self.value()).int_list({0}).value(out.value()).run("aten::squeeze_copy.dims_out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(std::vector<float>(buffer.begin() + 4, buffer.end()), ramp(8));
}

TEST(OverlappingCopy, ViewCopyIntoItsOwnHead) {
  std::vector<float> buffer = ramp(12);
  AliasTensor self({2, 4}, buffer.data() + 4);
  AliasTensor out({8}, buffer.data());
  const auto ctx = KernelCall().value(self.value()).int_list({8}).value(out.value()).run("aten::view_copy.out");
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  std::vector<float> expected = ramp(12);
  expected.erase(expected.begin(), expected.begin() + 4);
  EXPECT_EQ(std::vector<float>(buffer.begin(), buffer.begin() + 8), expected);
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
