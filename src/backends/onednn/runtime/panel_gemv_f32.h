// Kiln's own float32 matrix-vector product on weights oneDNN packed: a
// linear layer on one row (an image classifier's head, batch 1) or a 1x1
// convolution of a one-pixel image (a squeeze-excitation's) reads every
// weight once.
//
// The head is bound by the memory that streams its weights. oneDNN 3.2's
// brgemm matmul reads them at 12-19 GB/s on one core when they come from
// DRAM (EfficientNet-B0's 1280 x 1000 head: 0.24-0.28 ms of its 1.8 ms,
// against 0.17 ms for XNNPACK's); this loop reads the same bytes at 17-31
// GB/s, and within 5% of oneDNN's speed when they are in the caches. In the
// models: ResNet-50's head 0.50 -> 0.33 ms, EfficientNet-B4's 0.46 -> 0.30
// ms (Zen 4, one thread). A squeeze-excitation's convolutions are small
// enough that oneDNN's cost per call dominates: 0.6-4.7 us each on
// brgconv_1x1 with its sigmoid or swish.
//
// The weights stay where the primitive wanted them (packed at lowering, read
// in place from the program): oneDNN's blocked layouts with P outputs
// innermost and the inputs of one panel of P outputs one after another
// ("BA16a64b" for a matmul's K x N weights, "Acdb32a" for a convolution's
// O x I x 1 x 1). Element (k, n) of panel p = n / P is at
// p * panel_stride + k * P + n % P; the padding past K and N holds zeros the
// kernel never reads (x has only K values).
//
//   y[n] = act(bias[n] + sum_k x[k] * w(k, n))
//
// act: none, a relu (with a negative slope), a clamp, a hardswish
// (x * clamp(alpha * x + beta, 0, 1): MobileNetV3's first head layer), a
// hardsigmoid (clamp(alpha * x + beta, 0, 1): its squeeze-excitation's
// gate), a sigmoid or a swish (x * sigmoid(alpha * x)).
//
// A pure function of its arguments: the plan checks the layout
// (panel_gemv_f32_of), each call splits the panels over the threads. The
// sums run on AVX-512 or AVX2 intrinsics as the path asks (on AVX2, oneDNN
// lays a squeeze-excitation's weights out in panels of 8 to 32: "Acdb24a"),
// else on the portable loop, which GCC vectorizes at -O2 with its sums in
// memory (about 18 GMAC/s on a squeeze-excitation's products).
#pragma once

#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/runtime/kernel_activation.h"

namespace kiln::backends::onednn {

struct PanelGemvF32 {
  int64_t k = 0;             ///< inputs (rows of the K x N weights)
  int64_t n = 0;             ///< outputs
  int64_t panel = 0;         ///< P: columns per panel, 8, 16, 24, 32, 48 or 64
  int64_t panel_stride = 0;  ///< floats from one panel to the next
  /// Applied to each output after its bias: every kind.
  KernelActivation activation;

  /// The instructions the sums run on: the CPU's best by default.
  enum class Path { kPortable, kAvx2, kAvx512 };
  static Path best_path();
};

/// Panels of P columns: ceil(n / P).
inline int64_t panel_gemv_f32_panels(const PanelGemvF32& g) { return (g.n + g.panel - 1) / g.panel; }

/// The product's shape when `weights`, whose dimension `k_dim` is K and
/// `n_dim` N and every other 1, is laid out as this kernel reads it: false
/// (and *why set) for any other layout.
bool panel_gemv_f32_of(const_dnnl_memory_desc_t weights, int k_dim, int n_dim, PanelGemvF32* shape, const char** why);

/// Outputs of panels [first, last): y[n] for n in [first * P, min(last * P, N)).
/// `x` holds K floats, `bias` N floats or is null.
void run_panel_gemv_f32(const PanelGemvF32& g, const float* x, const float* weights, const float* bias, float* y,
                        int64_t first, int64_t last, PanelGemvF32::Path path = PanelGemvF32::best_path());

}  // namespace kiln::backends::onednn
