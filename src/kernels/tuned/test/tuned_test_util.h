// Builders for the tuned kernels' tests: random layers, packing, one call on
// a chosen path, and the double-precision reference.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/tuned/layout.h"
#include "kernels/tuned/linear.h"

namespace kiln::kernels::tuned::testing {

/// A layer's unpacked weights as PyTorch holds them, and its packed form.
struct Layer {
  LinearDesc desc;
  std::vector<float> wf;     // f32: [n, k]
  std::vector<int8_t> q;     // q8/q4: [n, k]
  std::vector<float> scales;  // [n, groups]
  std::vector<int8_t> zeros;  // [n, groups] or empty
  std::vector<float> bias;    // [n] or empty
  std::vector<uint8_t> packed;
  int64_t groups = 1;

  /// The dequantized weight, (q - z) * s, in double.
  double weight(int64_t n, int64_t k) const;
};

/// Random weights (scales in [0.01, 0.1], zero points over the format's
/// range), packed; group_size 0 means k.
Layer make_layer(WeightFormat format, int64_t n, int64_t k, int64_t group_size, bool zero_points, bool bias,
                 uint32_t seed);

std::vector<float> random_activations(int64_t m, int64_t k, uint32_t seed);

/// One whole call (prepare, then every panel) on `isa`, panels split in
/// `parts` ranges computed in reverse order.
std::vector<float> run(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m, Isa isa,
                       int parts = 1, float eps = kTorchaoActivationEps);

/// The prepared activations of a call (the int8 modes' quantized rows).
struct Quantized {
  std::vector<int8_t> q;     // [m, kpad]
  std::vector<float> scale;  // kInt8PerToken: [m]; kInt8Block32: [m, kpad / 32]
  std::vector<int32_t> zero;  // kInt8PerToken: [m]
};
Quantized quantize(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m,
                   float eps = kTorchaoActivationEps);

/// y in double from the float activations (kFloat) or from the quantized
/// ones (int8 modes); `bound` gets Σ|terms| per output, the scale of the
/// float rounding error.
std::vector<double> reference(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m,
                              std::vector<double>* bound);

/// Every path this CPU runs, portable first.
std::vector<Isa> supported_paths();

}  // namespace kiln::kernels::tuned::testing
