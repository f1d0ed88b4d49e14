// The float approximations of util/vector_math.h against the double-precision
// <cmath> functions: an error bound in ulp over sweeps of the whole float
// range (every 257th bit pattern, plus every float near the points where a
// function switches formula), and the special values.
#include "kernels/portable/util/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

#include "tests/support/sweep.h"

namespace kiln::kernels::portable::util {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float float_from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

uint32_t bits_from_float(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The spacing of floats at |exact| (2^-149 in the subnormal range).
double float_spacing(double exact) {
  const double magnitude = std::fabs(exact);
  if (magnitude < std::numeric_limits<float>::min()) return std::ldexp(1.0, -149);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
  return std::ldexp(1.0, exponent - 1 - 23);
}

// |got - exact| in units of the float spacing at `exact`; 0 for a matching
// NaN or infinity (a result beyond float's range must be the infinity).
double ulp_error(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : kInf;
  if (std::fabs(exact) > std::numeric_limits<float>::max()) {
    const bool same_infinity = std::isinf(got) && std::signbit(got) == std::signbit(exact);
    // The largest float is the faithful result just past its range.
    return same_infinity || std::fabs(exact) < 0x1.ffffffp127 ? 0 : kInf;
  }
  if (std::isinf(got) || std::isnan(got)) return kInf;
  return std::fabs(static_cast<double>(got) - exact) / float_spacing(exact);
}

// The worst error seen over a set of arguments, and where.
struct Worst {
  double ulp = 0;
  float at = 0;
  void see(float x, double error) {
    if (error > ulp || std::isnan(error)) {
      ulp = error;
      at = x;
    }
  }
  std::string describe() const {
    std::ostringstream text;
    text.precision(9);
    text << ulp << " ulp at x = " << at;
    return text.str();
  }
};

template <typename Approx, typename Exact>
void check_over(Worst& worst, float x, Approx approx, Exact exact) {
  worst.see(x, ulp_error(approx(x), exact(static_cast<double>(x))));
}

// Every `step`th float bit pattern (both signs, infinities and NaNs too),
// then every float within `around` patterns of each point in `switches`
// (sampled in the sanitizer build: tests/support/sweep.h).
template <typename Approx, typename Exact>
Worst sweep(Approx approx, Exact exact, std::initializer_list<float> switches, uint32_t step = 257,
            uint32_t around = 1 << 16) {
  Worst worst;
  const uint64_t stride = kiln::testing::sweep_stride(step);
  around = static_cast<uint32_t>(kiln::testing::sweep_count(around));
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += stride) {
    check_over(worst, float_from_bits(static_cast<uint32_t>(bits)), approx, exact);
  }
  for (float point : switches) {
    for (float sign : {1.0f, -1.0f}) {
      const uint32_t center = bits_from_float(point);
      for (uint32_t b = center - around; b != center + around; ++b) {
        check_over(worst, sign * float_from_bits(b), approx, exact);
      }
    }
  }
  std::cout << "worst: " << worst.describe() << "\n";
  return worst;
}

TEST(VectorMath, ExpWithin2UlpOverTheFloatRange) {
  // 0.35: |r| = ln2/2; +-87.34 and 88.72: the ends of the normal range; 103.9: of the subnormals.
  const Worst worst =
      sweep(exp_f32, [](double x) { return std::exp(x); }, {0.34657359f, 87.3365479f, 88.7228394f, 103.9f});
  EXPECT_LE(worst.ulp, 2.0) << worst.describe();
}

TEST(VectorMath, Expm1Within2UlpOverTheFloatRange) {
  const Worst worst =
      sweep(expm1_f32, [](double x) { return std::expm1(x); }, {0.34657359f, 1e-7f, 17.0f, 30.0f, 88.7228394f});
  EXPECT_LE(worst.ulp, 2.0) << worst.describe();
}

TEST(VectorMath, ErfWithin2UlpOverTheFloatRange) {
  const Worst worst = sweep(erf_f32, [](double x) { return std::erf(x); }, {0.9f, 3.93f, 1e-30f});
  EXPECT_LE(worst.ulp, 2.0) << worst.describe();
}

TEST(VectorMath, TanhWithin2UlpOverTheFloatRange) {
  const Worst worst = sweep(tanh_f32, [](double x) { return std::tanh(x); }, {0.9f, 9.0f, 44.5f});
  EXPECT_LE(worst.ulp, 2.0) << worst.describe();
}

TEST(VectorMath, SigmoidWithin3UlpOverTheFloatRange) {
  // As 1 / (1 + e^-x) in float (and PyTorch): 0 once e^-x overflows float.
  const auto exact = [](double x) {
    const double e = std::exp(-x);
    return e > std::numeric_limits<float>::max() ? 0.0 : 1.0 / (1.0 + e);
  };
  const Worst worst = sweep(sigmoid_f32, exact, {0.0f, 17.0f, 87.3365479f, 88.7228394f});
  EXPECT_LE(worst.ulp, 3.0) << worst.describe();
}

// Special values: the results <cmath> gives, signed zeros included.
void expect_same(float actual, float expected, const char* what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << what << " is " << actual << ", expected NaN";
  } else {
    EXPECT_EQ(actual, expected) << what;
    EXPECT_EQ(std::signbit(actual), std::signbit(expected)) << what << ": sign of " << actual;
  }
}

TEST(VectorMath, SpecialValuesAsCmath) {
  const float denormal = std::numeric_limits<float>::denorm_min() * 1000;
  for (float x : {0.0f, -0.0f, kInf, -kInf, kNaN, -kNaN, denormal, -denormal, 1e30f, -1e30f}) {
    const std::string at = " at " + std::to_string(x);
    expect_same(exp_f32(x), std::exp(x), ("exp" + at).c_str());
    expect_same(expm1_f32(x), std::expm1(x), ("expm1" + at).c_str());
    expect_same(erf_f32(x), std::erf(x), ("erf" + at).c_str());
    expect_same(tanh_f32(x), std::tanh(x), ("tanh" + at).c_str());
    expect_same(sigmoid_f32(x), static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))),
                ("sigmoid" + at).c_str());
  }
}

TEST(VectorMath, ExpUnderflowsGraduallyAndOverflowsToInfinity) {
  EXPECT_EQ(exp_f32(-103.0f), static_cast<float>(std::exp(-103.0)));  // subnormal: 19 * 2^-149
  EXPECT_EQ(exp_f32(-104.0f), 0.0f);
  EXPECT_LE(ulp_error(exp_f32(88.72f), std::exp(static_cast<double>(88.72f))), 2.0);  // 3.39e38, near the largest float
  EXPECT_EQ(exp_f32(88.73f), kInf);
}

}  // namespace
}  // namespace kiln::kernels::portable::util
