// kiln::linear.out through the kernel registry: weights packed as the
// lowering packs them (kernels::tuned::pack_linear), each format and
// activation mode against a double-precision reference, on one thread and
// on the pool's threads; a tied float weight read in place ('f32_rows'); and
// the arguments it refuses, each by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/tuned/linear.h"
#include "runtime/kernel/thread_pool.h"

namespace kiln::kernels::portable {
namespace {

using testing::KernelCall;
using testing::make_tensor;
using testing::TestTensor;
using testing::zeros;
namespace tuned = kernels::tuned;

runtime::EValue text(const std::string& s) { return runtime::EValue(s.data(), s.size()); }

std::vector<float> ramp_values(size_t n, float step, float offset = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = step * static_cast<float>((i * 5 + 1) % 13) - 0.6f + offset;
  return v;
}

struct Layer {
  tuned::LinearDesc desc;
  std::vector<double> dense;  ///< the weights the packed ones stand for, [n, k]
  TestTensor packed{runtime::ScalarType::Byte, {1}};
};

// [n, k] weights of `format`, group 32 for the quantized ones.
Layer make_layer(int64_t n, int64_t k, tuned::WeightFormat format) {
  Layer layer;
  layer.desc.n = n;
  layer.desc.k = k;
  layer.desc.format = format;
  layer.desc.group_size = format == tuned::WeightFormat::kF32 ? 0 : 32;
  std::vector<float> f = ramp_values(static_cast<size_t>(n * k), 0.05f);
  std::vector<int8_t> q(static_cast<size_t>(n * k));
  const int64_t groups = (k + 31) / 32;
  std::vector<float> scales(static_cast<size_t>(n * groups));
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = 0.01f + 0.002f * static_cast<float>(i % 7);
  const int range = format == tuned::WeightFormat::kQ4 ? 8 : 128;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      const size_t i = static_cast<size_t>(r * k + c);
      q[i] = static_cast<int8_t>((r * 7 + c * 3) % (2 * range) - range);
      layer.dense.push_back(format == tuned::WeightFormat::kF32
                                ? f[i]
                                : static_cast<double>(q[i]) * scales[static_cast<size_t>(r * groups + c / 32)]);
    }
  }
  const size_t bytes = tuned::packed_linear_bytes(layer.desc);
  layer.packed = TestTensor(runtime::ScalarType::Byte, {static_cast<runtime::SizesType>(bytes)});
  std::vector<uint8_t> out(bytes);
  const void* weights = format == tuned::WeightFormat::kF32 ? static_cast<const void*>(f.data()) : q.data();
  EXPECT_EQ(tuned::pack_linear(layer.desc, weights, format == tuned::WeightFormat::kF32 ? nullptr : scales.data(),
                               nullptr, runtime::Span<uint8_t>(out.data(), out.size())),
            runtime::Error::Ok);
  layer.packed.set(out);
  return layer;
}

const char* name_of(tuned::WeightFormat format) {
  return format == tuned::WeightFormat::kF32 ? "f32" : format == tuned::WeightFormat::kQ8 ? "q8" : "q4";
}

class KilnLinearTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { runtime::set_kernel_threads(GetParam()); }
  void TearDown() override { runtime::set_kernel_threads(1); }
};

// x [2, 3, 70] (six rows) and one row, every format, float activations
// (and int8 ones for the quantized formats), with a bias.
TEST_P(KilnLinearTest, EveryFormatAndModeMatchesTheReference) {
  constexpr int64_t n = 50, k = 70;
  const std::vector<float> bias = ramp_values(n, 0.1f);
  TestTensor tb = make_tensor<float>({n}, bias);
  for (auto format : {tuned::WeightFormat::kF32, tuned::WeightFormat::kQ8, tuned::WeightFormat::kQ4}) {
    const Layer layer = make_layer(n, k, format);
    for (const char* mode : {"float", "int8_per_token", "int8_block32"}) {
      if (format == tuned::WeightFormat::kF32 && std::string(mode) != "float") continue;
      // Int8 activations are exact to their own rounding: a looser bound.
      const double tolerance = std::string(mode) == "float" ? 1e-4 : 0.05;
      for (std::vector<runtime::SizesType> shape : {std::vector<runtime::SizesType>{2, 3, k},
                                                    std::vector<runtime::SizesType>{1, k}}) {
        SCOPED_TRACE(std::string(name_of(format)) + " " + mode + " rows " + std::to_string(shape.size() == 3 ? 6 : 1));
        const size_t rows = shape.size() == 3 ? 6 : 1;
        const std::vector<float> x = ramp_values(rows * k, 0.07f, 0.05f);
        TestTensor tx = make_tensor<float>(shape, x);
        std::vector<runtime::SizesType> out_shape = shape;
        out_shape.back() = n;
        TestTensor out = zeros<float>(out_shape);
        const auto ctx = KernelCall()
                             .tensor(tx)
                             .tensor(layer.packed)
                             .tensor(tb)
                             .scalar(n)
                             .value(text(name_of(format)))
                             .scalar(layer.desc.group_size)
                             .scalar(false)
                             .value(text(mode))
                             .scalar(double{tuned::kTorchaoActivationEps})
                             .tensor(out)
                             .run("kiln::linear.out");
        ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok) << ctx.failure_message();
        const std::vector<float> got = out.values<float>();
        for (size_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < n; ++c) {
            double want = bias[static_cast<size_t>(c)];
            for (int64_t i = 0; i < k; ++i) want += double(x[r * k + i]) * layer.dense[static_cast<size_t>(c * k + i)];
            EXPECT_NEAR(got[r * n + c], want, tolerance) << "row " << r << ", column " << c;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, KilnLinearTest, ::testing::Values(1, 2));

TEST(KilnLinear, ATiedFloatWeightIsReadInPlace) {
  constexpr int64_t n = 9, k = 20;
  const std::vector<float> w = ramp_values(n * k, 0.03f), x = ramp_values(2 * k, 0.08f);
  TestTensor tw = make_tensor<float>({n, k}, w), tx = make_tensor<float>({2, k}, x), out = zeros<float>({2, n});
  const auto ctx = KernelCall()
                       .tensor(tx)
                       .tensor(tw)
                       .none()
                       .scalar(n)
                       .value(text("f32_rows"))
                       .scalar(int64_t{0})
                       .scalar(false)
                       .value(text("float"))
                       .scalar(0.0)
                       .tensor(out)
                       .run("kiln::linear.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok) << ctx.failure_message();
  const std::vector<float> got = out.values<float>();
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      double want = 0;
      for (int64_t i = 0; i < k; ++i) want += double(x[r * k + i]) * w[c * k + i];
      EXPECT_NEAR(got[r * n + c], want, 1e-5);
    }
  }
}

TEST(KilnLinear, RefusesWhatDoesNotFitByName) {
  const Layer layer = make_layer(16, 32, tuned::WeightFormat::kQ4);
  TestTensor x = zeros<float>({1, 32}), out = zeros<float>({1, 16});
  auto call = [&](const TestTensor& input, int64_t n, const char* format, const char* mode) {
    return KernelCall()
        .tensor(input)
        .tensor(layer.packed)
        .none()
        .scalar(n)
        .value(text(format))
        .scalar(int64_t{32})
        .scalar(false)
        .value(text(mode))
        .scalar(0.0)
        .tensor(out)
        .run("kiln::linear.out");
  };
  auto message = [](const runtime::KernelRuntimeContext& ctx) { return std::string(ctx.failure_message()); };
  EXPECT_NE(message(call(x, 16, "q5", "float")).find("'format' must be"), std::string::npos);
  EXPECT_NE(message(call(x, 16, "q4", "int4")).find("'activations' must be"), std::string::npos);
  EXPECT_NE(message(call(x, 17, "q4", "float")).find("'weight' holds"), std::string::npos);
  TestTensor wide = zeros<float>({1, 64});
  EXPECT_NE(message(call(wide, 16, "q4", "float")).find("'weight' holds"), std::string::npos);
  EXPECT_EQ(call(x, 16, "q4", "float").failure_state(), runtime::Error::Ok);
}

}  // namespace
}  // namespace kiln::kernels::portable
