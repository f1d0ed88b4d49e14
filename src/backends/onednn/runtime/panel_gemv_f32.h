// Kiln's own float32 matrix-vector product on weights oneDNN packed: a
// linear layer on one row (an image classifier's head, batch 1) reads every
// weight once, so it is bound by the memory that streams them. oneDNN 3.2's
// brgemm matmul reads them at 12-19 GB/s on one core when they come from
// DRAM (EfficientNet-B0's 1280 x 1000 head: 0.24-0.28 ms of its 1.8 ms,
// against 0.17 ms for XNNPACK's); this loop reads the same bytes at 17-31
// GB/s, and within 5% of oneDNN's speed when they are in the caches. In the
// models: ResNet-50's head 0.50 -> 0.33 ms, EfficientNet-B4's 0.46 -> 0.30
// ms (Zen 4, one thread).
//
// The weights stay where the primitive wanted them (packed at lowering, read
// in place from the program): oneDNN's blocked layout for a K x N matrix
// with inner blocks (kb along K, P along N), K blocks contiguous inside one
// panel of P columns ("BA16a64b" on AVX-512). Element (k, n) of panel
// p = n / P is at p * panel_stride + k * P + n % P; the padding past K and N
// holds zeros the kernel never reads (x has only K values).
//
//   y[n] = act(bias[n] + sum_k x[k] * w(k, n))
//
// act: none, a relu (with a negative slope), a clamp, or a hardswish
// (x * clamp(alpha * x + beta, 0, 1)): MobileNetV3's first head layer.
//
// A pure function of its arguments: the plan checks the layout
// (panel_gemv_f32_of), each call splits the panels over the threads.
#pragma once

#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

namespace kiln::backends::onednn {

struct PanelGemvF32 {
  int64_t k = 0;             ///< inputs (rows of the K x N weights)
  int64_t n = 0;             ///< outputs
  int64_t panel = 0;         ///< P: columns per panel, 16, 32 or 64
  int64_t panel_stride = 0;  ///< floats from one panel to the next
  enum class Activation : uint8_t { kNone, kRelu, kClip, kHardSwish };
  Activation activation = Activation::kNone;
  /// kRelu: alpha the negative slope; kClip: [alpha, beta]; kHardSwish: as above.
  float alpha = 0, beta = 0;
};

/// Panels of P columns: ceil(n / P).
inline int64_t panel_gemv_f32_panels(const PanelGemvF32& g) { return (g.n + g.panel - 1) / g.panel; }

/// The product's shape when `weights` (a K x N matrix as the matmul sees
/// it, with leading dimensions of 1) is laid out as this kernel reads it:
/// false (and *why set) for any other layout.
bool panel_gemv_f32_of(const_dnnl_memory_desc_t weights, PanelGemvF32* shape, const char** why);

/// Outputs of panels [first, last): y[n] for n in [first * P, min(last * P, N)).
/// `x` holds K floats, `bias` N floats or is null.
void run_panel_gemv_f32(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                        int64_t first, int64_t last);

}  // namespace kiln::backends::onednn
