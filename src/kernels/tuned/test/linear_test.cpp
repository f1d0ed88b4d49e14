// Every path the CPU runs against the double-precision reference and
// against the portable path: odd sizes, groups, zero points, bias, M from 1
// to 70, panel ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/tuned/test/tuned_test_util.h"

namespace kiln::kernels::tuned {
namespace {

using testing::Layer;

struct Shape {
  WeightFormat format;
  int64_t n, k, group;  // group 0: one per row
  bool zero_points, bias;
};

const char* mode_name(ActivationMode mode) {
  return mode == ActivationMode::kFloat ? "float" : mode == ActivationMode::kInt8PerToken ? "int8 per token" : "int8 block32";
}

std::string describe(const Shape& s, ActivationMode mode, int64_t m, Isa isa) {
  char text[200];
  std::snprintf(text, sizeof text, "%s, format %d, n %lld, k %lld, group %lld, zp %d, bias %d, %s, m %lld",
                isa_name(isa), static_cast<int>(s.format), static_cast<long long>(s.n), static_cast<long long>(s.k),
                static_cast<long long>(s.group), s.zero_points, s.bias, mode_name(mode), static_cast<long long>(m));
  return text;
}

// y within float rounding of the reference: a few ulp of Σ|terms| per term
// summed (the paths sum in different orders).
void expect_near_reference(const std::vector<float>& y, const std::vector<double>& ref,
                           const std::vector<double>& bound, int64_t k) {
  const double tolerance = 4e-7 * std::sqrt(static_cast<double>(k) + 16.0);
  int reported = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double error = std::fabs(y[i] - ref[i]);
    if (!(error <= tolerance * bound[i] + 1e-30) && reported++ < 5) {
      ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", reference " << ref[i] << " (error " << error
                    << ", bound " << tolerance * bound[i] << ")";
    }
  }
}

void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  int reported = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], 4) != 0 && reported++ < 5) {
      ADD_FAILURE() << "y[" << i << "] = " << a[i] << " on this path, " << b[i] << " on the portable path";
    }
  }
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> kShapes = {
      {WeightFormat::kF32, 16, 32, 0, false, false},  {WeightFormat::kF32, 33, 37, 0, false, true},
      {WeightFormat::kQ8, 16, 64, 0, false, false},   {WeightFormat::kQ8, 50, 70, 32, true, true},
      {WeightFormat::kQ8, 17, 96, 64, false, true},   {WeightFormat::kQ8, 5, 45, 0, true, false},
      {WeightFormat::kQ4, 16, 64, 32, false, false},  {WeightFormat::kQ4, 70, 200, 64, true, true},
      {WeightFormat::kQ4, 31, 96, 0, false, true},    {WeightFormat::kQ4, 1, 40, 0, true, false},
      {WeightFormat::kQ4, 48, 256, 128, true, false},
  };
  return kShapes;
}

const int64_t kRows[] = {1, 2, 3, 4, 5, 7, 8, 9, 17, 70};

void check_all(ActivationMode mode) {
  uint32_t seed = 1;
  for (const Shape& s : shapes()) {
    if (mode != ActivationMode::kFloat && s.format == WeightFormat::kF32) continue;
    const Layer layer = testing::make_layer(s.format, s.n, s.k, s.group, s.zero_points, s.bias, seed++);
    for (int64_t m : kRows) {
      const std::vector<float> x = testing::random_activations(m, s.k, seed++);
      std::vector<double> bound;
      const std::vector<double> ref = testing::reference(layer, mode, x, m, &bound);
      const std::vector<float> portable = testing::run(layer, mode, x, m, Isa::kPortable);
      for (Isa isa : testing::supported_paths()) {
        SCOPED_TRACE(describe(s, mode, m, isa));
        const std::vector<float> y = testing::run(layer, mode, x, m, isa);
        expect_near_reference(y, ref, bound, s.k);
        if (mode != ActivationMode::kFloat) expect_same_bits(y, portable);
        // Any split of the panels gives the same bits.
        expect_same_bits(testing::run(layer, mode, x, m, isa, 3), y);
      }
    }
  }
}

TEST(TunedLinear, FloatActivationsMatchTheReferenceOnEveryPath) { check_all(ActivationMode::kFloat); }

TEST(TunedLinear, Int8PerTokenMatchesThePortablePathBitForBit) { check_all(ActivationMode::kInt8PerToken); }

TEST(TunedLinear, Int8Block32MatchesThePortablePathBitForBit) { check_all(ActivationMode::kInt8Block32); }

// Activations whose per-token scale is 1 and weights with scales of 1 make
// every step exact, so y must be the integer Σ (x_q - z_x)(q - z) itself: the
// int32 sums of every path are exact (including the +128 / +8 offsets of the
// unsigned VNNI operands and their corrections).
TEST(TunedLinear, Int8PerTokenIntegerSumsAreExact) {
  for (WeightFormat format : {WeightFormat::kQ8, WeightFormat::kQ4}) {
    for (bool zero_points : {false, true}) {
      const int64_t n = 40, k = 256, m = 3;
      Layer layer = testing::make_layer(format, n, k, 64, zero_points, false, 7);
      std::fill(layer.scales.begin(), layer.scales.end(), 1.0f);
      ASSERT_EQ(pack_linear(layer.desc, layer.q.data(), layer.scales.data(),
                            zero_points ? layer.zeros.data() : nullptr, {layer.packed.data(), layer.packed.size()}),
                runtime::Error::Ok);
      // Integers spanning exactly 255 (scale 1), the extremes of each row
      // at -128 + r and 127 + r.
      std::vector<float> x(m * k);
      std::mt19937 rng(3);
      for (int64_t r = 0; r < m; ++r) {
        std::uniform_int_distribution<int> value(-100 + static_cast<int>(r), 100 + static_cast<int>(r));
        for (int64_t i = 0; i < k; ++i) x[r * k + i] = static_cast<float>(value(rng));
        x[r * k + 5] = -128.0f + static_cast<float>(r);
        x[r * k + 9] = 127.0f + static_cast<float>(r);
      }
      const testing::Quantized xq = testing::quantize(layer, ActivationMode::kInt8PerToken, x, m);
      for (Isa isa : testing::supported_paths()) {
        SCOPED_TRACE(isa_name(isa));
        const std::vector<float> y = testing::run(layer, ActivationMode::kInt8PerToken, x, m, isa);
        for (int64_t r = 0; r < m; ++r) {
          ASSERT_EQ(xq.scale[r], 1.0f);
          for (int64_t o = 0; o < n; ++o) {
            int64_t exact = 0;
            for (int64_t i = 0; i < k; ++i) {
              const int z = zero_points ? layer.zeros[o * layer.groups + i / 64] : 0;
              exact += int64_t{xq.q[r * k + i] - xq.zero[r]} * (layer.q[o * k + i] - z);
            }
            ASSERT_EQ(y[r * n + o], static_cast<float>(exact)) << "row " << r << ", output " << o;
          }
        }
      }
    }
  }
}

TEST(TunedLinear, LargeRowsStayAccurateOnEveryPath) {
  // K = 1536 with one scale per row: the integer sums of q8 exceed 2^24.
  const Layer layer = testing::make_layer(WeightFormat::kQ8, 40, 1536, 0, true, true, 11);
  const std::vector<float> x = testing::random_activations(2, 1536, 12);
  for (ActivationMode mode : {ActivationMode::kFloat, ActivationMode::kInt8PerToken, ActivationMode::kInt8Block32}) {
    std::vector<double> bound;
    const std::vector<double> ref = testing::reference(layer, mode, x, 2, &bound);
    for (Isa isa : testing::supported_paths()) {
      SCOPED_TRACE(std::string(isa_name(isa)) + " " + mode_name(mode));
      expect_near_reference(testing::run(layer, mode, x, 2, isa), ref, bound, 1536);
      expect_near_reference(testing::run(layer, mode, x, 1, isa), ref, bound, 1536);
    }
  }
}

TEST(TunedLinear, SplitPanelsCoversEveryPanelOnce) {
  for (int64_t panels : {1, 2, 7, 36, 3072}) {
    for (int parts : {1, 2, 3, 8}) {
      int64_t expected_begin = 0;
      for (int i = 0; i < parts; ++i) {
        int64_t begin = 0, end = 0;
        split_panels(panels, parts, i, &begin, &end);
        EXPECT_EQ(begin, expected_begin);
        EXPECT_LE(end - begin, panels / parts + 1);
        EXPECT_GE(end - begin, panels / parts);
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, panels);
    }
  }
}

}  // namespace
}  // namespace kiln::kernels::tuned
