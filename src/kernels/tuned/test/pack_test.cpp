// The packed layout, byte for byte where the kernels rely on it, and the
// errors of check_linear and pack_linear.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/tuned/test/tuned_test_util.h"

namespace kiln::kernels::tuned {
namespace {

using runtime::Error;

template <typename T>
T read(const std::vector<uint8_t>& bytes, int64_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

TEST(TunedPack, RejectsBadDescriptions) {
  EXPECT_EQ(check_linear({0, 16, WeightFormat::kF32, 0, false}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, -1, WeightFormat::kF32, 0, false}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, 64, WeightFormat::kF32, 0, true}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, 64, WeightFormat::kQ4, 48, false}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, 64, WeightFormat::kQ4, 0, false}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, 64, static_cast<WeightFormat>(9), 64, false}), Error::InvalidArgument);
  EXPECT_EQ(check_linear({16, 70, WeightFormat::kQ8, 70, true}), Error::Ok);
  EXPECT_EQ(check_linear({16, 70, WeightFormat::kQ8, 32, true}), Error::Ok);
  EXPECT_EQ(packed_linear_bytes({16, 64, WeightFormat::kQ4, 48, false}), 0u);
  EXPECT_EQ(check_linear_mode({16, 64, WeightFormat::kF32, 0, false}, ActivationMode::kInt8PerToken),
            Error::NotSupported);
  EXPECT_EQ(check_linear_mode({16, 65536, WeightFormat::kQ8, 65536, false}, ActivationMode::kInt8PerToken),
            Error::NotSupported);
  EXPECT_EQ(check_linear_mode({16, 65536, WeightFormat::kQ8, 65536, false}, ActivationMode::kInt8Block32),
            Error::Ok);
  EXPECT_EQ(linear_scratch_bytes({16, 64, WeightFormat::kF32, 0, false}, ActivationMode::kInt8Block32, 1), 0u);
}

TEST(TunedPack, RejectsBadWeights) {
  const LinearDesc desc{3, 32, WeightFormat::kQ4, 32, true};
  std::vector<uint8_t> out(packed_linear_bytes(desc));
  std::vector<int8_t> q(3 * 32, 1);
  std::vector<float> s(3, 1.0f);
  std::vector<int8_t> z(3, 0);
  EXPECT_EQ(pack_linear(desc, q.data(), s.data(), z.data(), {out.data(), out.size()}), Error::Ok);
  EXPECT_EQ(pack_linear(desc, q.data(), s.data(), z.data(), {out.data(), out.size() - 1}), Error::InvalidArgument);
  EXPECT_EQ(pack_linear(desc, q.data(), nullptr, z.data(), {out.data(), out.size()}), Error::InvalidArgument);
  EXPECT_EQ(pack_linear(desc, q.data(), s.data(), nullptr, {out.data(), out.size()}), Error::InvalidArgument);
  EXPECT_EQ(pack_linear(desc, nullptr, s.data(), z.data(), {out.data(), out.size()}), Error::InvalidArgument);
  q[40] = 8;
  EXPECT_EQ(pack_linear(desc, q.data(), s.data(), z.data(), {out.data(), out.size()}), Error::InvalidArgument);
  q[40] = 0;
  z[2] = -9;
  EXPECT_EQ(pack_linear(desc, q.data(), s.data(), z.data(), {out.data(), out.size()}), Error::InvalidArgument);
}

TEST(TunedPack, F32PanelsHoldSixteenRowsPerK) {
  const testing::Layer layer = testing::make_layer(WeightFormat::kF32, 20, 3, 0, false, false, 1);
  ASSERT_EQ(layer.packed.size(), 2u * 3 * 64);
  EXPECT_EQ(read<float>(layer.packed, (2 * 16 + 5) * 4), layer.wf[5 * 3 + 2]);
  EXPECT_EQ(read<float>(layer.packed, 3 * 64 + (1 * 16 + 3) * 4), layer.wf[19 * 3 + 1]);
  EXPECT_EQ(read<float>(layer.packed, 3 * 64 + (1 * 16 + 4) * 4), 0.0f);  // row 20: padding
}

TEST(TunedPack, Q4BlocksHoldTwoHalvesOfFourK) {
  // k = 40 pads to 64: groups of 32, the second holding k 32..39 and zeros.
  const testing::Layer layer = testing::make_layer(WeightFormat::kQ4, 17, 40, 32, true, false, 2);
  const int64_t group_bytes = 64 + 16 + 4 * 64;
  ASSERT_EQ(layer.packed.size(), 2u * (64 + 2 * group_bytes));
  const int64_t r = 6, g = 1, block = 1;  // k 40..47 of row 6: padding
  const int64_t group_at = 64 + g * group_bytes;
  EXPECT_EQ(read<float>(layer.packed, group_at + r * 4), layer.scales[r * 2 + g]);
  const int8_t z = read<int8_t>(layer.packed, group_at + 64 + r);
  EXPECT_EQ(z, layer.zeros[r * 2 + g]);
  for (int64_t b = 0; b < 2; ++b) {
    for (int j = 0; j < 4; ++j) {
      const auto byte = read<uint8_t>(layer.packed, group_at + 80 + (b == 0 ? 0 : block) * 64 + r * 4 + j);
      const int64_t k_lo = 32 + b * 8 + j, k_hi = k_lo + 4;
      const int lo = k_lo < 40 ? layer.q[r * 40 + k_lo] : z, hi = k_hi < 40 ? layer.q[r * 40 + k_hi] : z;
      EXPECT_EQ(byte & 0x0F, lo & 0x0F) << "k " << k_lo;
      EXPECT_EQ(byte >> 4, hi & 0x0F) << "k " << k_hi;
    }
  }
  // The panel's row constant: Σ_g s Σ_k (q - z).
  double expected = 0;
  for (int64_t k = 0; k < 40; ++k) expected += layer.weight(r, k);
  EXPECT_NEAR(read<float>(layer.packed, r * 4), expected, 1e-5 * (1 + std::fabs(expected)));
}

TEST(TunedPack, Q8BlocksHoldFourConsecutiveK) {
  const testing::Layer layer = testing::make_layer(WeightFormat::kQ8, 16, 64, 0, false, false, 3);
  ASSERT_EQ(layer.packed.size(), 64u + 64 + 16 * 64);  // no zero points
  const int64_t r = 11, k = 4 * 9 + 2;
  EXPECT_EQ(read<int8_t>(layer.packed, 128 + 9 * 64 + r * 4 + 2), layer.q[r * 64 + k]);
}

}  // namespace
}  // namespace kiln::kernels::tuned
