// Kiln's own ops (llm_ops.cpp) against straightforward double-precision
// references: grouped-query attention with bool, float and causal masks
// (and the keys past a row's last visible one never read), RMS norm, the
// half rotation with broadcast cos and sin; and the arguments they refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "runtime/kernel/thread_pool.h"

namespace kiln::kernels::portable {
namespace {

using testing::KernelCall;
using testing::make_tensor;
using testing::TestTensor;
using testing::zeros;

std::vector<float> pattern(size_t n, float step, float offset = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = step * static_cast<float>((i * 7 + 3) % 11) - 0.5f + offset;
  return v;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

// softmax(q k^T * scale + bias) v per head; bias -inf hides a key.
std::vector<double> reference_attention(const std::vector<float>& q, const std::vector<float>& k,
                                        const std::vector<float>& v, const std::vector<float>& bias, int heads,
                                        int kv_heads, int len, int keys, int e, double scale) {
  std::vector<double> out(static_cast<size_t>(heads * len * e), 0.0);
  for (int h = 0; h < heads; ++h) {
    const int g = h / (heads / kv_heads);
    for (int i = 0; i < len; ++i) {
      std::vector<double> s(static_cast<size_t>(keys));
      double top = -1e300;
      for (int j = 0; j < keys; ++j) {
        double dot = 0;
        for (int d = 0; d < e; ++d) dot += double(q[(h * len + i) * e + d]) * k[(g * keys + j) * e + d];
        s[j] = dot * scale + bias[static_cast<size_t>(i * keys + j)];
        top = std::max(top, s[j]);
      }
      double total = 0;
      for (double& x : s) total += (x = std::isinf(x) ? 0 : std::exp(x - top));
      for (int j = 0; j < keys; ++j) {
        for (int d = 0; d < e; ++d) {
          out[(h * len + i) * e + d] += total > 0 ? s[j] / total * v[(g * keys + j) * e + d] : 0;
        }
      }
    }
  }
  return out;
}

void expect_near(const std::vector<float>& actual, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

constexpr int kHeads = 4, kKvHeads = 2, kLen = 3, kKeys = 6, kE = 8;

struct AttentionInputs {
  std::vector<float> q = pattern(kHeads * kLen * kE, 0.11f);
  std::vector<float> k = pattern(kKvHeads * kKeys * kE, 0.07f, 0.1f);
  std::vector<float> v = pattern(kKvHeads * kKeys * kE, 0.13f, -0.2f);
  TestTensor tq = make_tensor<float>({1, kHeads, kLen, kE}, q);
  TestTensor tk = make_tensor<float>({1, kKvHeads, kKeys, kE}, k);
  TestTensor tv = make_tensor<float>({1, kKvHeads, kKeys, kE}, v);
};

TEST(KilnSdpa, GroupedHeadsWithABoolMask) {
  AttentionInputs in;
  std::vector<uint8_t> allowed(kLen * kKeys);
  std::vector<float> bias(kLen * kKeys);
  for (int i = 0; i < kLen; ++i) {
    for (int j = 0; j < kKeys; ++j) {
      allowed[i * kKeys + j] = j <= i + 2 && j != 1;
      bias[i * kKeys + j] = allowed[i * kKeys + j] ? 0.0f : -kInf;
    }
  }
  TestTensor mask(runtime::ScalarType::Bool, {1, 1, kLen, kKeys});
  mask.set(allowed);
  TestTensor out = zeros<float>({1, kHeads, kLen, kE});
  const auto ctx = KernelCall().tensor(in.tq).tensor(in.tk).tensor(in.tv).tensor(mask).scalar(false).scalar(0.35).tensor(out).run("kiln::sdpa.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  expect_near(out.values<float>(), reference_attention(in.q, in.k, in.v, bias, kHeads, kKvHeads, kLen, kKeys, kE, 0.35), 1e-5);
}

TEST(KilnSdpa, AFloatMaskAndCausal) {
  AttentionInputs in;
  std::vector<float> bias = pattern(kLen * kKeys, 0.2f);
  bias[kKeys + 4] = -kInf;
  TestTensor mask = make_tensor<float>({kLen, kKeys}, bias);
  TestTensor out = zeros<float>({1, kHeads, kLen, kE});
  auto ctx = KernelCall().tensor(in.tq).tensor(in.tk).tensor(in.tv).tensor(mask).scalar(false).scalar(0.5).tensor(out).run("kiln::sdpa.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  expect_near(out.values<float>(), reference_attention(in.q, in.k, in.v, bias, kHeads, kKvHeads, kLen, kKeys, kE, 0.5), 1e-5);

  std::vector<float> causal(kLen * kKeys);
  for (int i = 0; i < kLen; ++i) {
    for (int j = 0; j < kKeys; ++j) causal[i * kKeys + j] = j <= i ? 0.0f : -kInf;
  }
  ctx = KernelCall().tensor(in.tq).tensor(in.tk).tensor(in.tv).none().scalar(true).scalar(0.5).tensor(out).run("kiln::sdpa.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  expect_near(out.values<float>(), reference_attention(in.q, in.k, in.v, causal, kHeads, kKvHeads, kLen, kKeys, kE, 0.5), 1e-5);
}

// Keys past a row's last visible one are never read: NaN there changes nothing.
TEST(KilnSdpa, TheHiddenTailOfTheCacheIsNotRead) {
  AttentionInputs in;
  std::vector<float> k = in.k, v = in.v;
  for (int g = 0; g < kKvHeads; ++g) {
    for (int d = 0; d < kE; ++d) {
      k[(g * kKeys + kKeys - 1) * kE + d] = std::numeric_limits<float>::quiet_NaN();
      v[(g * kKeys + kKeys - 1) * kE + d] = std::numeric_limits<float>::quiet_NaN();
    }
  }
  TestTensor tk = make_tensor<float>({1, kKvHeads, kKeys, kE}, k), tv = make_tensor<float>({1, kKvHeads, kKeys, kE}, v);
  std::vector<uint8_t> allowed(kLen * kKeys, 1);
  std::vector<float> bias(kLen * kKeys, 0.0f);
  for (int i = 0; i < kLen; ++i) {
    allowed[i * kKeys + kKeys - 1] = 0;
    bias[i * kKeys + kKeys - 1] = -kInf;
  }
  TestTensor mask(runtime::ScalarType::Bool, {kLen, kKeys});
  mask.set(allowed);
  TestTensor out = zeros<float>({1, kHeads, kLen, kE});
  const auto ctx = KernelCall().tensor(in.tq).tensor(tk).tensor(tv).tensor(mask).scalar(false).scalar(0.35).tensor(out).run("kiln::sdpa.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  expect_near(out.values<float>(), reference_attention(in.q, in.k, in.v, bias, kHeads, kKvHeads, kLen, kKeys, kE, 0.35), 1e-5);
}

// Head sizes of 64 and 128 run a path of their own; more keys than one
// block (64) rescale the sums between blocks; holes in the mask and a
// hidden tail.
TEST(KilnSdpa, LongRowsOfTheCommonHeadSizes) {
  for (int e : {64, 128, 40}) {
    SCOPED_TRACE("head size " + std::to_string(e));
    constexpr int heads = 6, kv_heads = 2, len = 2, keys = 200;
    const std::vector<float> q = pattern(heads * len * e, 0.05f), k = pattern(kv_heads * keys * e, 0.04f, 0.1f),
                             v = pattern(kv_heads * keys * e, 0.13f, -0.2f);
    std::vector<uint8_t> allowed(len * keys);
    std::vector<float> bias(len * keys);
    for (int i = 0; i < len; ++i) {
      for (int j = 0; j < keys; ++j) {
        allowed[i * keys + j] = j < 150 + i && j % 7 != 3;
        bias[i * keys + j] = allowed[i * keys + j] ? 0.0f : -kInf;
      }
    }
    TestTensor tq = make_tensor<float>({1, heads, len, e}, q), tk = make_tensor<float>({1, kv_heads, keys, e}, k),
               tv = make_tensor<float>({1, kv_heads, keys, e}, v);
    TestTensor mask(runtime::ScalarType::Bool, {1, 1, len, keys});
    mask.set(allowed);
    TestTensor out = zeros<float>({1, heads, len, e});
    const auto ctx = KernelCall().tensor(tq).tensor(tk).tensor(tv).tensor(mask).scalar(false).scalar(0.2).tensor(out).run("kiln::sdpa.out");
    ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
    expect_near(out.values<float>(), reference_attention(q, k, v, bias, heads, kv_heads, len, keys, e, 0.2), 1e-5);
  }
}

// The rows (batch, query, head) split over threads: each row is computed by
// the same code whichever thread takes it, so the bits do not change; tasks
// start inside a query's heads, which share its mask row.
TEST(KilnSdpa, ThreadsSplitTheRowsAndChangeNoBit) {
  constexpr int heads = 9, kv_heads = 3, len = 2, keys = 300, e = 64;
  const std::vector<float> q = pattern(heads * len * e, 0.05f), k = pattern(kv_heads * keys * e, 0.04f, 0.1f),
                           v = pattern(kv_heads * keys * e, 0.13f, -0.2f);
  std::vector<uint8_t> allowed(len * keys);
  std::vector<float> bias(len * keys);
  for (int i = 0; i < len; ++i) {
    for (int j = 0; j < keys; ++j) {
      allowed[i * keys + j] = j <= 200 + 50 * i;
      bias[i * keys + j] = allowed[i * keys + j] ? 0.0f : -kInf;
    }
  }
  TestTensor tq = make_tensor<float>({1, heads, len, e}, q), tk = make_tensor<float>({1, kv_heads, keys, e}, k),
             tv = make_tensor<float>({1, kv_heads, keys, e}, v);
  TestTensor mask(runtime::ScalarType::Bool, {1, 1, len, keys});
  mask.set(allowed);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 4}) {
    runtime::set_kernel_threads(threads);
    TestTensor out = zeros<float>({1, heads, len, e});
    const auto ctx = KernelCall().tensor(tq).tensor(tk).tensor(tv).tensor(mask).scalar(false).scalar(0.125).tensor(out).run("kiln::sdpa.out");
    runtime::set_kernel_threads(1);
    ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok) << threads << " threads";
    results.push_back(out.values<float>());
  }
  expect_near(results[0], reference_attention(q, k, v, bias, heads, kv_heads, len, keys, e, 0.125), 1e-5);
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(results[2], results[0]);
}

TEST(KilnSdpa, RefusesHeadsThatDoNotGroup) {
  AttentionInputs in;
  TestTensor k3 = zeros<float>({1, 3, kKeys, kE}), v3 = zeros<float>({1, 3, kKeys, kE});
  TestTensor out = zeros<float>({1, kHeads, kLen, kE});
  const auto ctx = KernelCall().tensor(in.tq).tensor(k3).tensor(v3).none().scalar(false).scalar(1.0).tensor(out).run("kiln::sdpa.out");
  EXPECT_EQ(ctx.failure_state(), runtime::Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("heads 4, key heads 3"), std::string::npos) << ctx.failure_message();
}

TEST(KilnRmsNorm, WeightTimesTheNormalizedRows) {
  const std::vector<float> x = pattern(2 * 5, 0.3f), w = pattern(5, 0.2f, 1.0f);
  TestTensor tx = make_tensor<float>({2, 5}, x), tw = make_tensor<float>({5}, w), out = zeros<float>({2, 5});
  const auto ctx = KernelCall().tensor(tx).tensor(tw).scalar(1e-5).tensor(out).run("kiln::rms_norm.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  std::vector<double> expected;
  for (int r = 0; r < 2; ++r) {
    double squares = 0;
    for (int i = 0; i < 5; ++i) squares += double(x[r * 5 + i]) * x[r * 5 + i];
    const double scale = 1 / std::sqrt(squares / 5 + 1e-5);
    for (int i = 0; i < 5; ++i) expected.push_back(w[i] * x[r * 5 + i] * scale);
  }
  expect_near(out.values<float>(), expected, 1e-6);

  TestTensor wrong = make_tensor<float>({4}, pattern(4, 0.1f));
  const auto refused = KernelCall().tensor(tx).tensor(wrong).scalar(1e-5).tensor(out).run("kiln::rms_norm.out");
  EXPECT_EQ(refused.failure_state(), runtime::Error::InvalidArgument);
}

TEST(KilnRotaryEmbedding, HalfRotationWithBroadcastCosAndSin) {
  // x [1, 2, 3, 4]; cos and sin [1, 1, 3, 4]: one row per position, shared by the heads.
  const std::vector<float> x = pattern(24, 0.3f), c = pattern(12, 0.1f), s = pattern(12, 0.17f);
  TestTensor tx = make_tensor<float>({1, 2, 3, 4}, x), tc = make_tensor<float>({1, 1, 3, 4}, c),
             ts = make_tensor<float>({1, 1, 3, 4}, s), out = zeros<float>({1, 2, 3, 4});
  const auto ctx = KernelCall().tensor(tx).tensor(tc).tensor(ts).tensor(out).run("kiln::rotary_embedding.out");
  ASSERT_EQ(ctx.failure_state(), runtime::Error::Ok);
  std::vector<double> expected;
  for (int h = 0; h < 2; ++h) {
    for (int p = 0; p < 3; ++p) {
      const float* row = &x[(h * 3 + p) * 4];
      const double rotated[4] = {-row[2], -row[3], row[0], row[1]};
      for (int i = 0; i < 4; ++i) expected.push_back(double(row[i]) * c[p * 4 + i] + rotated[i] * s[p * 4 + i]);
    }
  }
  expect_near(out.values<float>(), expected, 1e-6);

  TestTensor odd = zeros<float>({1, 3}), odd_out = zeros<float>({1, 3});
  const auto refused = KernelCall().tensor(odd).tensor(odd).tensor(odd).tensor(odd_out).run("kiln::rotary_embedding.out");
  EXPECT_EQ(refused.failure_state(), runtime::Error::InvalidArgument);
}

}  // namespace
}  // namespace kiln::kernels::portable
