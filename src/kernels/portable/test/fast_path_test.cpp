// The float32 fast paths (dense Float tensors, util/vector_math.h) of exp,
// erf, sigmoid, tanh, silu, gelu, elu, softmax and log-softmax, called through
// the registry: each result against the op's formula in double, over a range
// that crosses every switch of the approximations, and against the same op on
// a non-dense (channels-last) tensor, which takes the <cmath> path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

// -20 to 20 in steps of 1/64 (every switch point of the approximations lies
// inside), then the special values.
std::vector<float> sweep_values() {
  std::vector<float> values;
  for (int i = -1280; i < 1280; ++i) values.push_back(static_cast<float>(i) / 64.0f);
  for (float v : {0.9f, -0.9f, 3.93f, -3.93f, 88.0f, -88.0f, 100.0f, -100.0f, 1e-30f, -1e-30f, -0.0f, kInf, -kInf,
                  kNaN}) {
    values.push_back(v);
  }
  return values;
}

struct UnaryCase {
  const char* name;
  std::function<KernelRuntimeContext(const TestTensor&, const TestTensor&)> run;
  std::function<double(double)> exact;
};

KernelRuntimeContext run_op(const char* op, const TestTensor& self, const TestTensor& out) {
  return KernelCall().tensor(self).tensor(out).run(op);
}

std::vector<UnaryCase> unary_cases() {
  const double root_half = std::sqrt(0.5), k = std::sqrt(2.0 / M_PI);
  return {
      {"exp", [](auto& s, auto& o) { return run_op("aten::exp.out", s, o); }, [](double x) { return std::exp(x); }},
      {"erf", [](auto& s, auto& o) { return run_op("aten::erf.out", s, o); }, [](double x) { return std::erf(x); }},
      {"tanh", [](auto& s, auto& o) { return run_op("aten::tanh.out", s, o); }, [](double x) { return std::tanh(x); }},
      {"sigmoid", [](auto& s, auto& o) { return run_op("aten::sigmoid.out", s, o); },
       [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"silu", [](auto& s, auto& o) { return run_op("aten::silu.out", s, o); },
       [](double x) { return x / (1 + std::exp(-x)); }},
      {"gelu",
       [](auto& s, auto& o) { return KernelCall().tensor(s).value(EValue("none", 4)).tensor(o).run("aten::gelu.out"); },
       [root_half](double x) { return 0.5 * x * (1 + std::erf(x * root_half)); }},
      {"gelu_tanh",
       [](auto& s, auto& o) { return KernelCall().tensor(s).value(EValue("tanh", 4)).tensor(o).run("aten::gelu.out"); },
       [k](double x) { return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x))); }},
      {"elu",
       [](auto& s, auto& o) {
         return KernelCall().tensor(s).scalar(1.5).scalar(1.0).scalar(0.5).tensor(o).run("aten::elu.out");
       },
       [](double x) { return x <= 0 ? 1.5 * std::expm1(0.5 * x) : x; }},
  };
}

// Within a few float ulps of the double result (2e-7 absolute where a result
// near 0 comes from a cancellation, as gelu's 1 + erf(x) for x << 0, the same
// slack PyTorch's float kernels have); NaN and infinities exactly.
::testing::AssertionResult close_to_exact(const std::vector<float>& inputs, const std::vector<float>& actual,
                                          const std::function<double(double)>& exact) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double e = exact(inputs[i]);
    const float expected = static_cast<float>(e);
    const float a = actual[i];
    const bool ok = std::isnan(expected) ? std::isnan(a)
                    : std::isinf(expected) ? a == expected
                                           : std::fabs(a - e) <= 2e-7 + 5e-7 * std::fabs(e);
    if (!ok) {
      return ::testing::AssertionFailure() << "at x = " << inputs[i] << ": " << a << ", expected " << e;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(FloatFastPaths, MatchTheFormulasInDouble) {
  const std::vector<float> inputs = sweep_values();
  const SizesType n = static_cast<SizesType>(inputs.size());
  for (const UnaryCase& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    const TestTensor self = make_tensor<float>({n}, inputs);
    const TestTensor out = zeros<float>({n});
    ASSERT_EQ(c.run(self, out).failure_state(), Error::Ok);
    EXPECT_TRUE(close_to_exact(inputs, out.values<float>(), c.exact));
  }
}

// The same values as a [1, C, H, W] tensor stored channels-last: not dense in
// the default dim order, so the kernels take their <cmath> path.
TEST(FloatFastPaths, AgreeWithTheStridedPath) {
  std::vector<float> inputs = sweep_values();
  inputs.resize(2 * 4 * 321, 0.25f);
  const std::vector<SizesType> sizes = {2, 4, 321, 1};
  const std::vector<DimOrderType> channels_last = {0, 2, 3, 1};
  for (const UnaryCase& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    const TestTensor dense = make_tensor<float>(sizes, inputs);
    const TestTensor dense_out = zeros<float>(sizes);
    TestTensor strided(ScalarType::Float, sizes, TensorShapeDynamism::Static, channels_last);
    strided.set(inputs);
    TestTensor strided_out(ScalarType::Float, sizes, TensorShapeDynamism::Static, channels_last);
    ASSERT_EQ(c.run(dense, dense_out).failure_state(), Error::Ok);
    ASSERT_EQ(c.run(strided, strided_out).failure_state(), Error::Ok);
    // Both hold the results in storage order of the same storage values; each
    // path is within close_to_exact's bound of the exact result.
    const std::vector<float> fast = dense_out.values<float>(), reference = strided_out.values<float>();
    for (size_t i = 0; i < fast.size(); ++i) {
      if (std::isnan(reference[i]) || std::isinf(reference[i])) {
        EXPECT_TRUE(std::isnan(reference[i]) ? std::isnan(fast[i]) : fast[i] == reference[i]) << "at x = " << inputs[i];
      } else {
        EXPECT_NEAR(fast[i], reference[i], 4e-7 + 1e-6 * std::fabs(reference[i])) << "at x = " << inputs[i];
      }
    }
  }
}

std::vector<double> softmax_exact(const std::vector<float>& row, bool log) {
  double max = -kInf;
  for (float v : row) max = std::isnan(v) || std::isnan(max) ? NAN : std::max(max, static_cast<double>(v));
  double sum = 0;
  for (float v : row) sum += std::exp(v - max);
  std::vector<double> result;
  for (float v : row) result.push_back(log ? v - max - std::log(sum) : std::exp(v - max) / sum);
  return result;
}

// Rows of 37 (two blocks of 16 lanes and a tail): ordinary values, a masked
// row (-inf entries, as attention masks give), a row with a NaN.
TEST(FloatFastPaths, SoftmaxRowsMatchDouble) {
  constexpr SizesType kRows = 3, kLength = 37;
  std::vector<float> values;
  for (SizesType i = 0; i < kRows * kLength; ++i) values.push_back(static_cast<float>((i * 37) % 41) * 0.4f - 8.0f);
  for (SizesType k = 20; k < kLength; ++k) values[kLength + k] = -kInf;
  values[2 * kLength + 30] = kNaN;
  for (bool log : {false, true}) {
    SCOPED_TRACE(log ? "log_softmax" : "softmax");
    const TestTensor self = make_tensor<float>({kRows, kLength}, values);
    const TestTensor out = zeros<float>({kRows, kLength});
    const auto ctx = KernelCall().tensor(self).scalar(int64_t{-1}).scalar(false).tensor(out).run(
        log ? "aten::_log_softmax.out" : "aten::_softmax.out");
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    const std::vector<float> actual = out.values<float>();
    for (SizesType r = 0; r < kRows; ++r) {
      const std::vector<float> row(values.begin() + r * kLength, values.begin() + (r + 1) * kLength);
      const std::vector<double> expected = softmax_exact(row, log);
      for (SizesType k = 0; k < kLength; ++k) {
        const double e = expected[k];
        const float a = actual[r * kLength + k];
        if (std::isnan(e)) {
          EXPECT_TRUE(std::isnan(a)) << "row " << r << " element " << k;
        } else if (std::isinf(e)) {
          EXPECT_EQ(a, e) << "row " << r << " element " << k;
        } else {
          EXPECT_NEAR(a, e, 1e-6 * std::fabs(e) + 1e-12) << "row " << r << " element " << k;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
