// Kiln's float32 matrix-vector product over oneDNN's packed weights
// (runtime/panel_gemv_f32.h) against a plain loop: weights laid out by a
// oneDNN reorder in each panel width the kernel reads, a matmul's and a
// convolution's, with each activation, K that the kernel's
// four-at-a-time loop does not divide, N that leaves the last panel short,
// with and without a bias, the panels split into ranges; and the layouts it
// must refuse.
#include "backends/onednn/runtime/panel_gemv_f32.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kiln::backends::onednn {
namespace {

struct Desc {
  dnnl_memory_desc_t desc = nullptr;
  ~Desc() { dnnl_memory_desc_destroy(desc); }
};

// `plain` (row-major, of sizes `dims`) in layout `tag`, by a oneDNN reorder.
std::vector<float> packed(const std::vector<float>& plain, const std::vector<int64_t>& dims, dnnl_format_tag_t tag,
                          const_dnnl_memory_desc_t* desc_out, Desc* holder) {
  static constexpr dnnl_format_tag_t kPlain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd};
  dnnl_engine_t engine = nullptr;
  EXPECT_EQ(dnnl_engine_create(&engine, dnnl_cpu, 0), dnnl_success);
  dnnl_stream_t stream = nullptr;
  EXPECT_EQ(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), dnnl_success);
  const int rank = static_cast<int>(dims.size());
  dnnl_dims_t sizes = {0};
  for (int d = 0; d < rank; ++d) sizes[d] = dims[static_cast<size_t>(d)];
  Desc from;
  EXPECT_EQ(dnnl_memory_desc_create_with_tag(&from.desc, rank, sizes, dnnl_f32, kPlain[rank - 1]), dnnl_success);
  EXPECT_EQ(dnnl_memory_desc_create_with_tag(&holder->desc, rank, sizes, dnnl_f32, tag), dnnl_success);
  std::vector<float> out(dnnl_memory_desc_get_size(holder->desc) / sizeof(float), 1e30f);
  dnnl_memory_t src = nullptr, dst = nullptr;
  EXPECT_EQ(dnnl_memory_create(&src, from.desc, engine, const_cast<float*>(plain.data())), dnnl_success);
  EXPECT_EQ(dnnl_memory_create(&dst, holder->desc, engine, out.data()), dnnl_success);
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  EXPECT_EQ(dnnl_reorder_primitive_desc_create(&pd, from.desc, engine, holder->desc, engine, nullptr), dnnl_success);
  EXPECT_EQ(dnnl_primitive_create(&reorder, pd), dnnl_success);
  dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
  EXPECT_EQ(dnnl_primitive_execute(reorder, stream, 2, args), dnnl_success);
  EXPECT_EQ(dnnl_stream_wait(stream), dnnl_success);
  dnnl_primitive_destroy(reorder);
  dnnl_primitive_desc_destroy(pd);
  dnnl_memory_destroy(src);
  dnnl_memory_destroy(dst);
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  *desc_out = holder->desc;
  return out;
}

// A layout the kernel reads: a matmul's K x N weights, or a convolution's
// N x K x 1 x 1 (transposed, so that w(k, n) is the same number).
struct Layout {
  dnnl_format_tag_t tag;
  int64_t panel;
  bool convolution;
};

std::vector<float> packed_weights(const std::vector<float>& w, int64_t k, int64_t n, const Layout& layout,
                                  const_dnnl_memory_desc_t* desc, Desc* holder) {
  if (!layout.convolution) return packed(w, {k, n}, layout.tag, desc, holder);
  std::vector<float> transposed(w.size());
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < n; ++j) transposed[static_cast<size_t>(j * k + i)] = w[static_cast<size_t>(i * n + j)];
  }
  return packed(transposed, {n, k, 1, 1}, layout.tag, desc, holder);
}

std::vector<PanelGemvF32::Path> gemv_paths() {
  // Every path this CPU can run (an AVX-512 CPU runs the AVX2 one too).
  std::vector<PanelGemvF32::Path> all = {PanelGemvF32::Path::kPortable};
  const PanelGemvF32::Path best = PanelGemvF32::best_path();
  if (best != PanelGemvF32::Path::kPortable) all.push_back(PanelGemvF32::Path::kAvx2);
  if (best == PanelGemvF32::Path::kAvx512) all.push_back(PanelGemvF32::Path::kAvx512);
  return all;
}

TEST(PanelGemvF32Test, MatchesAPlainLoopInEveryPanelWidth) {
  for (const Layout layout : {Layout{dnnl_BA16a64b, 64, false}, Layout{dnnl_BA16a48b, 48, false},
                              Layout{dnnl_BA16a32b, 32, false}, Layout{dnnl_BA16a16b, 16, false},
                              Layout{dnnl_Acdb64a, 64, true}, Layout{dnnl_Acdb48a, 48, true},
                              Layout{dnnl_Acdb32a, 32, true}, Layout{dnnl_Acdb24a, 24, true},
                              Layout{dnnl_Acdb16a, 16, true}, Layout{dnnl_Acdb8a, 8, true}}) {
    for (const int64_t k : {1, 3, 37, 300}) {
      for (const int64_t n : {1, 16, 70, 129}) {
        const std::string at = std::string(layout.convolution ? "convolution" : "matmul") + ", panel " +
                               std::to_string(layout.panel) + ", k " + std::to_string(k) + ", n " + std::to_string(n);
        std::vector<float> w(static_cast<size_t>(k * n)), x(static_cast<size_t>(k)), bias(static_cast<size_t>(n));
        for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * static_cast<float>(i));
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11f * static_cast<float>(i)) - 0.2f;
        for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.5f * static_cast<float>(i);
        Desc holder;
        const_dnnl_memory_desc_t desc = nullptr;
        const std::vector<float> weights = packed_weights(w, k, n, layout, &desc, &holder);
        PanelGemvF32 shape;
        const char* why = nullptr;
        ASSERT_TRUE(panel_gemv_f32_of(desc, layout.convolution ? 1 : 0, layout.convolution ? 0 : 1, &shape, &why))
            << at << ": " << why;
        EXPECT_EQ(shape.k, k);
        EXPECT_EQ(shape.n, n);
        EXPECT_EQ(shape.panel, layout.panel);
        const int64_t panels = panel_gemv_f32_panels(shape);
        for (const PanelGemvF32::Path path : gemv_paths()) {
          for (const bool with_bias : {false, true}) {
            // The panels in up to three ranges, as threads would take them.
            std::vector<float> y(static_cast<size_t>(n) + 1, 7.0f);  // one past the end, left alone
            const int64_t cut1 = panels / 3, cut2 = 2 * panels / 3;
            const float* b = with_bias ? bias.data() : nullptr;
            run_panel_gemv_f32(shape, x.data(), weights.data(), b, y.data(), 0, cut1, path);
            run_panel_gemv_f32(shape, x.data(), weights.data(), b, y.data(), cut1, cut2, path);
            run_panel_gemv_f32(shape, x.data(), weights.data(), b, y.data(), cut2, panels, path);
            for (int64_t j = 0; j < n; ++j) {
              double expected = with_bias ? bias[static_cast<size_t>(j)] : 0.0;
              double magnitude = std::fabs(expected);
              for (int64_t i = 0; i < k; ++i) {
                const double term = static_cast<double>(x[static_cast<size_t>(i)]) * w[static_cast<size_t>(i * n + j)];
                expected += term;
                magnitude += std::fabs(term);
              }
              ASSERT_NEAR(y[static_cast<size_t>(j)], expected, 1e-5 * magnitude + 1e-6)
                  << at << ", path " << static_cast<int>(path) << ", column " << j;
            }
            EXPECT_EQ(y[static_cast<size_t>(n)], 7.0f) << at;
          }
        }
      }
    }
  }
}

TEST(PanelGemvF32Test, AppliesItsActivationToEachResult) {
  // Each activation after the sum and the bias, on results of both signs.
  using Activation = KernelActivation::Kind;
  const int64_t k = 5, n = 70;
  std::vector<float> w(static_cast<size_t>(k * n)), x(static_cast<size_t>(k), 1.0f), bias(static_cast<size_t>(n));
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * static_cast<float>(i) - 3.0f;
  Desc holder;
  const_dnnl_memory_desc_t desc = nullptr;
  const std::vector<float> weights = packed_weights(w, k, n, Layout{dnnl_Acdb48a, 48, true}, &desc, &holder);
  struct Case {
    Activation activation;
    float alpha, beta;
    float (*expected)(float v, float alpha, float beta);
  };
  const Case cases[] = {
      {Activation::kRelu, 0.0f, 0.0f, [](float v, float, float) { return v < 0 ? 0.0f : v; }},
      {Activation::kRelu, 0.1f, 0.0f, [](float v, float a, float) { return v < 0 ? v * a : v; }},
      {Activation::kClip, -1.0f, 2.0f, [](float v, float a, float b) { return std::fmin(std::fmax(v, a), b); }},
      {Activation::kHardSwish, 1.0f / 6, 0.5f,
       [](float v, float a, float b) { return v * std::fmin(std::fmax(a * v + b, 0.0f), 1.0f); }},
      {Activation::kHardSigmoid, 1.0f / 6, 0.5f,
       [](float v, float a, float b) { return std::fmin(std::fmax(a * v + b, 0.0f), 1.0f); }},
      {Activation::kLogistic, 0.0f, 0.0f, [](float v, float, float) { return 1.0f / (1.0f + std::exp(-v)); }},
      {Activation::kSwish, 1.0f, 0.0f, [](float v, float a, float) { return v / (1.0f + std::exp(-a * v)); }},
      {Activation::kSwish, 0.5f, 0.0f, [](float v, float a, float) { return v / (1.0f + std::exp(-a * v)); }},
  };
  for (const Case& c : cases) {
    PanelGemvF32 shape;
    const char* why = nullptr;
    ASSERT_TRUE(panel_gemv_f32_of(desc, 1, 0, &shape, &why)) << why;
    shape.activation = KernelActivation{c.activation, c.alpha, c.beta};
    for (const PanelGemvF32::Path path : gemv_paths()) {
      std::vector<float> y(static_cast<size_t>(n));
      run_panel_gemv_f32(shape, x.data(), weights.data(), bias.data(), y.data(), 0, panel_gemv_f32_panels(shape), path);
      int negative = 0;
      for (int64_t j = 0; j < n; ++j) {
        float sum = bias[static_cast<size_t>(j)];
        for (int64_t i = 0; i < k; ++i) sum += w[static_cast<size_t>(i * n + j)];
        negative += sum < 0;
        const float expected = c.expected(sum, c.alpha, c.beta);
        EXPECT_NEAR(y[static_cast<size_t>(j)], expected, 1e-5f + 1e-6f * std::fabs(expected))
            << static_cast<int>(c.activation) << ", column " << j;
      }
      EXPECT_GT(negative, 0);
      EXPECT_LT(negative, n);
    }
  }
}

TEST(PanelGemvF32Test, RefusesLayoutsItDoesNotRead) {
  const auto refused = [](int rank, const dnnl_dims_t dims, dnnl_data_type_t type, dnnl_format_tag_t tag, int k_dim,
                          int n_dim) {
    Desc desc;
    EXPECT_EQ(dnnl_memory_desc_create_with_tag(&desc.desc, rank, dims, type, tag), dnnl_success);
    PanelGemvF32 shape;
    const char* why = nullptr;
    const bool taken = panel_gemv_f32_of(desc.desc, k_dim, n_dim, &shape, &why);
    EXPECT_TRUE(taken || why != nullptr);
    return !taken;
  };
  const dnnl_dims_t matrix = {40, 70}, image = {70, 40, 1, 1}, kernel = {70, 40, 3, 1}, batch = {2, 40, 70};
  // Plain, and outputs not innermost.
  EXPECT_TRUE(refused(2, matrix, dnnl_f32, dnnl_ab, 0, 1));
  EXPECT_TRUE(refused(2, matrix, dnnl_f32, dnnl_ba, 0, 1));
  EXPECT_TRUE(refused(2, matrix, dnnl_f32, dnnl_AB16b64a, 0, 1));
  // Panels the kernel has no width for.
  EXPECT_TRUE(refused(4, image, dnnl_f32, dnnl_Acdb4a, 1, 0));
  // A batch of matrices, a 3x1 kernel, int8 weights.
  EXPECT_TRUE(refused(3, batch, dnnl_f32, dnnl_aCB16b64c, 1, 2));
  EXPECT_TRUE(refused(4, kernel, dnnl_f32, dnnl_Acdb32a, 1, 0));
  EXPECT_TRUE(refused(2, matrix, dnnl_s8, dnnl_BA16a64b, 0, 1));
  // The dimensions swapped.
  EXPECT_TRUE(refused(2, matrix, dnnl_f32, dnnl_BA16a64b, 1, 0));
  // And the layouts it reads, taken.
  EXPECT_FALSE(refused(2, matrix, dnnl_f32, dnnl_BA16a64b, 0, 1));
  EXPECT_FALSE(refused(4, image, dnnl_f32, dnnl_Acdb32a, 1, 0));
  EXPECT_FALSE(refused(4, image, dnnl_f32, dnnl_Acdb24a, 1, 0));
  EXPECT_FALSE(refused(4, image, dnnl_f32, dnnl_Acdb8a, 1, 0));
}

}  // namespace
}  // namespace kiln::backends::onednn
