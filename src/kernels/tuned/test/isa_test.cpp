#include "kernels/tuned/isa.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln::kernels::tuned {
namespace {

TEST(TunedIsa, NamesRoundTrip) {
  for (int i = 0; i < kIsaCount; ++i) {
    const auto isa = static_cast<Isa>(i);
    Isa parsed = Isa::kPortable;
    ASSERT_TRUE(parse_isa(isa_name(isa), &parsed)) << isa_name(isa);
    EXPECT_EQ(parsed, isa);
  }
  Isa unused = Isa::kPortable;
  EXPECT_FALSE(parse_isa("avx1024", &unused));
  EXPECT_FALSE(parse_isa("", &unused));
}

TEST(TunedIsa, ActivePathIsSupportedAndTheBestUnderItsCap) {
  EXPECT_TRUE(isa_supported(Isa::kPortable));
  const Isa active = active_isa();
  EXPECT_TRUE(isa_supported(active));
  EXPECT_EQ(best_isa_up_to(active), active);
  EXPECT_EQ(best_isa_up_to(Isa::kPortable), Isa::kPortable);
}

TEST(TunedIsa, CapsStayWithinTheArchitecture) {
  for (int i = 0; i < kIsaCount; ++i) {
    const auto cap = static_cast<Isa>(i);
    const Isa best = best_isa_up_to(cap);
    EXPECT_TRUE(isa_supported(best));
    EXPECT_LE(static_cast<int>(best), static_cast<int>(cap));
  }
#if defined(__x86_64__)
  EXPECT_FALSE(isa_supported(Isa::kNeon));
  EXPECT_EQ(best_isa_up_to(Isa::kNeonDot), Isa::kPortable);
#elif defined(__aarch64__)
  EXPECT_TRUE(isa_supported(Isa::kNeon));
  EXPECT_FALSE(isa_supported(Isa::kAvx2));
  EXPECT_EQ(best_isa_up_to(Isa::kAvx512Vnni), Isa::kPortable);
#endif
}

// The runs under qemu in make test-aarch64 (its CPU with and without the
// dot product) say which path the CPU must give through
// KILN_TUNED_EXPECT_ISA: detection checked on each.
TEST(TunedIsa, ActivePathIsTheOneTheRunExpects) {
  const char* expected = std::getenv("KILN_TUNED_EXPECT_ISA");
  if (expected == nullptr) GTEST_SKIP() << "KILN_TUNED_EXPECT_ISA is not set";
  Isa isa = Isa::kPortable;
  ASSERT_TRUE(parse_isa(expected, &isa)) << expected;
  EXPECT_STREQ(isa_name(active_isa()), expected);
}

}  // namespace
}  // namespace kiln::kernels::tuned
