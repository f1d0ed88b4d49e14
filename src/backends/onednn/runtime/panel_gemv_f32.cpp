#include "backends/onednn/runtime/panel_gemv_f32.h"

#include <algorithm>

namespace kiln::backends::onednn {

namespace {

// One panel: P sums, four of them per column (four consecutive k at a time)
// so that the adds of one chain do not wait on each other; the compiler keeps
// them in vector registers (one clone per ISA).
template <int P>
__attribute__((target_clones("avx512f", "avx2", "default"))) void panel_dots(const float* x, const float* w,
                                                                              int64_t k, const float* bias, float* y,
                                                                              int64_t valid) {
  float a0[P] = {}, a1[P] = {}, a2[P] = {}, a3[P] = {};
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const float* row = w + i * P;
    const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
    for (int j = 0; j < P; ++j) {
      a0[j] += x0 * row[j];
      a1[j] += x1 * row[P + j];
      a2[j] += x2 * row[2 * P + j];
      a3[j] += x3 * row[3 * P + j];
    }
  }
  for (; i < k; ++i) {
    for (int j = 0; j < P; ++j) a0[j] += x[i] * w[i * P + j];
  }
  for (int64_t j = 0; j < valid; ++j) y[j] = (a0[j] + a1[j]) + (a2[j] + a3[j]) + (bias != nullptr ? bias[j] : 0.0f);
}

void activate(const PanelGemvF32& g, float* y, int64_t count) {
  using Activation = PanelGemvF32::Activation;
  switch (g.activation) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      for (int64_t j = 0; j < count; ++j) y[j] = y[j] < 0 ? y[j] * g.alpha : y[j];
      return;
    case Activation::kClip:
      for (int64_t j = 0; j < count; ++j) y[j] = std::min(std::max(y[j], g.alpha), g.beta);
      return;
    case Activation::kHardSwish:
      for (int64_t j = 0; j < count; ++j) y[j] *= std::min(std::max(g.alpha * y[j] + g.beta, 0.0f), 1.0f);
      return;
  }
}

template <int P>
void run_panels(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                int64_t first, int64_t last) {
  for (int64_t p = first; p < last; ++p) {
    const int64_t n0 = p * P;
    const int64_t valid = g.n - n0 < P ? g.n - n0 : P;
    panel_dots<P>(x, weights + p * g.panel_stride, g.k, bias != nullptr ? bias + n0 : nullptr, y + n0, valid);
    activate(g, y + n0, valid);
  }
}

}  // namespace

bool panel_gemv_f32_of(const_dnnl_memory_desc_t weights, PanelGemvF32* shape, const char** why) {
  const auto refuse = [&](const char* reason) {
    *why = reason;
    return false;
  };
  int ndims = 0, nblks = 0;
  dnnl_format_kind_t kind = dnnl_format_kind_undef;
  dnnl_data_type_t type = dnnl_data_type_undef;
  const dnnl_dims_t *dims = nullptr, *padded = nullptr, *strides = nullptr, *blocks = nullptr, *indices = nullptr;
  if (dnnl_memory_desc_query(weights, dnnl_query_ndims_s32, &ndims) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_format_kind, &kind) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_data_type, &type) != dnnl_success || ndims < 2) {
    return refuse("the weights have no readable layout");
  }
  if (type != dnnl_f32 || kind != dnnl_blocked) return refuse("the weights are not float32 in a blocked layout");
  if (dnnl_memory_desc_query(weights, dnnl_query_dims, &dims) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_padded_dims, &padded) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_strides, &strides) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_inner_nblks_s32, &nblks) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_inner_blks, &blocks) != dnnl_success ||
      dnnl_memory_desc_query(weights, dnnl_query_inner_idxs, &indices) != dnnl_success) {
    return refuse("the weights have no readable layout");
  }
  const int kd = ndims - 2, nd = ndims - 1;
  for (int d = 0; d < kd; ++d) {
    if ((*dims)[d] != 1) return refuse("the weights are a batch of matrices");
  }
  if (nblks != 2 || (*indices)[0] != kd || (*indices)[1] != nd) return refuse("the weights are not in panels of columns");
  const int64_t kb = (*blocks)[0], panel = (*blocks)[1];
  if (panel != 16 && panel != 32 && panel != 64) return refuse("the weights' panels are not 16, 32 or 64 columns wide");
  if ((*strides)[kd] != kb * panel || (*strides)[nd] < (*padded)[kd] * panel) {
    return refuse("a panel's rows of weights are not contiguous");
  }
  shape->k = (*dims)[kd];
  shape->n = (*dims)[nd];
  shape->panel = panel;
  shape->panel_stride = (*strides)[nd];
  return true;
}

void run_panel_gemv_f32(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                        int64_t first, int64_t last) {
  switch (g.panel) {
    case 16:
      return run_panels<16>(g, x, weights, bias, y, first, last);
    case 32:
      return run_panels<32>(g, x, weights, bias, y, first, last);
    default:
      return run_panels<64>(g, x, weights, bias, y, first, last);
  }
}

}  // namespace kiln::backends::onednn
