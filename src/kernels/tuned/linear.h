// Linear layers with packed weights: y[M,N] = x[M,K] · Wᵀ (+ bias[N]), W in
// PyTorch's layout [N,K], row-major. For LLM decode (M = 1: a matrix-vector
// product bound by the memory that streams W) and prefill (M = 2..64: a
// register-blocked GEMM).
//
// Weight formats (WeightFormat):
//   f32  float weights.
//   q8   int8 weights q with a float scale s per (row, group of G along K)
//        and an optional int8 zero point z: w = (q - z) * s. G = K is one
//        scale per row (torchao's Int8WeightOnly).
//   q4   the same with q in [-8, 7] (torchao holds int4 in int8), packed two
//        per byte.
//
// Packed layout (`pack_linear`, the same bytes for every path, so one .pte
// runs on every CPU). Rows go in panels of 16 (N padded with zero rows);
// each panel is contiguous and the kernels stream it front to back:
//   f32   K blocks of 64 bytes, block k = the 16 rows' w[n][k].
//   q8/q4 a panel header of 16 floats R[n] = Σ_g s[n,g] Σ_{k∈g} (q - z)
//         (what the integer path needs to correct for the activations' zero
//         point), then per group: 16 float scales, 16 int8 zero points (only
//         when the layer has them), and the group's blocks. K is padded to a
//         multiple of 32 with zero weights (w = 0, i.e. q = z).
//         q8 block: 16 rows × 4 consecutive k; the dword of row r holds
//           q[r][k..k+3] in its bytes 0..3 (the four bytes vpdpbusd and sdot
//           multiply and add).
//         q4 block: 16 rows × 8 consecutive k; byte j (0..3) of row r's dword
//           holds k+j in its low nibble and k+4+j in its high nibble, two's
//           complement. So `& 0x0F` / `>> 4` give the two halves of four
//           consecutive k each (the integer paths), and the k-th nibble sits
//           at bit 8j (+4): one shift puts it where a 16-entry table lookup
//           (vpermps) or an arithmetic shift reads it (the float paths).
//
// Activations (ActivationMode):
//   kFloat         activations stay float (PyTorch's weight-only numerics);
//                  the kernels dequantize the weights as PyTorch does,
//                  (q - z) * s, or (for M = 1) apply s to the float partial
//                  sum of each group.
//   kInt8PerToken  each row of x quantized to int8 as torchao's 8da4w/8da8w
//                  does (choose_qparams_affine ASYMMETRIC per token, eps as
//                  given; quantize_affine, round half to even), then
//                  y = s_x Σ_g s[n,g] Σ_{k∈g} (x_q - z_x)(q - z) with the
//                  inner sums exact in int32 (|Σ| < 2^31: K ≤ 32768).
//   kInt8Block32   x quantized symmetric per block of 32 along K (scale
//                  d = max|x| / 127, round half to even), as llama.cpp's
//                  Q8 activations: y = Σ_g s[n,g] Σ_b d_b Σ_{k∈b} x_q (q - z).
//                  Faster and less exact than kInt8PerToken.
//
// A call: `prepare_linear` once (it reads x into the scratch: padding, the
// per-group sums, the quantized activations), then `compute_linear` on any
// split of the panels, from any threads (they only read the scratch).
// Neither allocates nor fails: check the description with
// `check_linear` when the weights are packed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/tuned/isa.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"

namespace kiln::kernels::tuned {

enum class WeightFormat : uint8_t { kF32, kQ8, kQ4 };

enum class ActivationMode : uint8_t { kFloat, kInt8PerToken, kInt8Block32 };

/// Rows per panel: the unit of work `compute_linear` is split by.
inline constexpr int64_t kPanelRows = 16;

/// torchao's eps for the activations of Int8DynamicActivationIntxWeight
/// (choose_qparams_affine with eps=None: torch.finfo(float32).smallest_normal).
inline constexpr float kTorchaoActivationEps = 1.17549435e-38f;
/// torch.finfo(float32).eps, what other torchao recipes pass.
inline constexpr float kFloat32Eps = 1.1920928955078125e-07f;

struct LinearDesc {
  int64_t n = 0;  ///< Output features (rows of W).
  int64_t k = 0;  ///< Input features.
  WeightFormat format = WeightFormat::kF32;
  /// q8/q4: K values per scale; a multiple of 32, or K (one scale per row).
  int64_t group_size = 0;
  /// q8/q4: whether each (row, group) has an int8 zero point.
  bool zero_points = false;
};

/// Ok, or InvalidArgument (logged) naming what is wrong with `desc`.
runtime::Error check_linear(const LinearDesc& desc);
/// Ok, or NotSupported (logged) if `mode` does not go with the format
/// (f32 weights take float activations only).
runtime::Error check_linear_mode(const LinearDesc& desc, ActivationMode mode);

/// Panels of 16 rows: ceil(n / 16).
int64_t linear_panels(const LinearDesc& desc);
/// Size of the packed weights; 0 if `check_linear` fails.
size_t packed_linear_bytes(const LinearDesc& desc);

/// Packs W for `desc` into `out` (packed_linear_bytes(desc) bytes, 64-byte
/// aligned for speed). `weights`: [n, k] floats (f32) or int8 (q8; q4 with
/// values in [-8, 7]). `scales`: [n, groups] floats, groups = ceil(k / G).
/// `zero_points`: [n, groups] int8 when desc.zero_points (q4: in [-8, 7]),
/// else null. InvalidArgument on a bad description, a null or short buffer
/// or a value out of range (each named in the log).
runtime::Error pack_linear(const LinearDesc& desc, const void* weights, const float* scales,
                           const int8_t* zero_points, runtime::Span<uint8_t> out);

/// Scratch `prepare_linear` fills for m rows (64-byte aligned).
size_t linear_scratch_bytes(const LinearDesc& desc, ActivationMode mode, int64_t m);

struct LinearArgs {
  const LinearDesc* desc = nullptr;
  ActivationMode mode = ActivationMode::kFloat;
  const uint8_t* packed = nullptr;  ///< pack_linear's output.
  const float* x = nullptr;         ///< [m, k], rows x_stride apart.
  int64_t m = 0;
  int64_t x_stride = 0;
  const float* bias = nullptr;  ///< [n] or null.
  float* y = nullptr;           ///< [m, n], rows y_stride apart.
  int64_t y_stride = 0;
  void* scratch = nullptr;  ///< linear_scratch_bytes(*desc, mode, m), 64-byte aligned.
  float eps = kTorchaoActivationEps;  ///< kInt8PerToken: the smallest activation scale.
};

/// Reads x into the scratch; once per call, before compute_linear.
void prepare_linear(const LinearArgs& args);

/// Rows [16 p0, 16 p1) ∩ [0, n) of y for all m rows, on the active path.
void compute_linear(const LinearArgs& args, int64_t panel_begin, int64_t panel_end);

/// The same on a given path (which must be supported: isa_supported).
void compute_linear_on(Isa isa, const LinearArgs& args, int64_t panel_begin, int64_t panel_end);

/// Part `index` of `parts` balanced ranges of `panels` panels: [*begin, *end).
void split_panels(int64_t panels, int parts, int index, int64_t* begin, int64_t* end);

}  // namespace kiln::kernels::tuned
