// Fills the process-global kernel table to kMaxRegisteredKernels (and the
// lists of kernels selective build left out to kMaxLeftOutKernelLists), so it
// runs in a binary of its own: no other test may count on free capacity here.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/kernel/operator_registry.h"

namespace kiln::runtime {
namespace {

void noop(KernelRuntimeContext&, Span<EValue*>) {}

// The registry keeps the name pointers, so the names live for the process.
std::vector<std::string>& generated_names() {
  static std::vector<std::string> names;
  return names;
}

std::vector<Kernel> make_kernels(size_t first, size_t count) {
  std::vector<std::string>& names = generated_names();
  names.reserve(kMaxRegisteredKernels + 16);  // never reallocates: pointers stay valid
  std::vector<Kernel> kernels;
  for (size_t i = first; i < first + count; ++i) {
    names.push_back("overflow::op_" + std::to_string(i) + ".out");
    kernels.push_back({names.back().c_str(), noop});
  }
  return kernels;
}

Error register_range(size_t first, size_t count) {
  std::vector<Kernel> kernels = make_kernels(first, count);
  return register_kernels({kernels.data(), kernels.size()});
}

TEST(OperatorRegistryOverflowTest, FillsToCapacityAndRejectsMore) {
  ASSERT_EQ(get_num_registered_kernels(), 0u) << "nothing else in this binary may register kernels";

  // Up to one short of capacity, in uneven batches.
  const size_t almost = kMaxRegisteredKernels - 1;
  size_t registered = 0;
  while (registered < almost) {
    const size_t batch = std::min<size_t>(333, almost - registered);
    ASSERT_EQ(register_range(registered, batch), Error::Ok) << registered;
    registered += batch;
  }
  EXPECT_EQ(get_num_registered_kernels(), almost);

  // A batch of two does not fit, and none of it is registered.
  EXPECT_EQ(register_range(almost, 2), Error::RegistrationExceedingMaxKernels);
  EXPECT_EQ(get_num_registered_kernels(), almost);
  EXPECT_FALSE(registry_has_op_function(("overflow::op_" + std::to_string(almost) + ".out").c_str()));

  // Exactly the last slot fits.
  ASSERT_EQ(register_range(almost + 2, 1), Error::Ok);
  EXPECT_EQ(get_num_registered_kernels(), kMaxRegisteredKernels);

  // A full table rejects even one more kernel, but an empty batch is harmless.
  EXPECT_EQ(register_range(almost + 3, 1), Error::RegistrationExceedingMaxKernels);
  EXPECT_EQ(register_kernels({}), Error::Ok);
  EXPECT_EQ(get_num_registered_kernels(), kMaxRegisteredKernels);

  // Everything registered is still found, first and last alike.
  EXPECT_TRUE(registry_has_op_function("overflow::op_0.out"));
  EXPECT_TRUE(registry_has_op_function(("overflow::op_" + std::to_string(almost - 1) + ".out").c_str()));
  EXPECT_TRUE(registry_has_op_function(("overflow::op_" + std::to_string(almost + 2) + ".out").c_str()));
  EXPECT_FALSE(registry_has_op_function(("overflow::op_" + std::to_string(almost + 3) + ".out").c_str()));
  EXPECT_EQ(get_op_function_from_registry("overflow::op_1999.out").error(), Error::OperatorMissing);
  EXPECT_EQ(get_registered_kernels().size(), kMaxRegisteredKernels);
}

TEST(OperatorRegistryOverflowTest, LeftOutListsFillToCapacityAndRejectMore) {
  static const char* const kNames[kMaxLeftOutKernelLists + 1][1] = {
      {"a::x.out"}, {"b::x.out"}, {"c::x.out"}, {"d::x.out"}, {"e::x.out"}, {"f::x.out"}, {"g::x.out"}, {"h::x.out"},
      {"i::x.out"}};
  static_assert(kMaxLeftOutKernelLists == 8, "one name list per slot above, and one more");
  for (size_t i = 0; i < kMaxLeftOutKernelLists; ++i) ASSERT_EQ(note_left_out_kernels(kNames[i]), Error::Ok) << i;
  EXPECT_EQ(note_left_out_kernels(kNames[0]), Error::Ok);  // noted already: takes no slot
  EXPECT_EQ(note_left_out_kernels(kNames[kMaxLeftOutKernelLists]), Error::RegistrationExceedingMaxKernels);
  EXPECT_TRUE(is_left_out_kernel("h::x.out"));
  EXPECT_FALSE(is_left_out_kernel("i::x.out"));
}

}  // namespace
}  // namespace kiln::runtime
