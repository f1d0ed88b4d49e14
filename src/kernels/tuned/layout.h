// Where things are in the packed weights and in the prepared activations:
// the one description that pack_linear, prepare_linear and every path read.
#pragma once

#include <cstdint>

#include "kernels/tuned/linear.h"

namespace kiln::kernels::tuned::detail {

inline constexpr int64_t kBlockBytes = 64;
/// Quantized K is padded to this (the activation blocks of kInt8Block32).
inline constexpr int64_t kKAlign = 32;
inline constexpr int64_t kScaleBytes = kPanelRows * 4;
inline constexpr int64_t kZeroPointBytes = kPanelRows;

constexpr int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }
constexpr int64_t ceil_div(int64_t v, int64_t by) { return (v + by - 1) / by; }

/// k values one 64-byte block holds for each of its 16 rows.
constexpr int64_t k_per_block(WeightFormat format) {
  return format == WeightFormat::kF32 ? 1 : format == WeightFormat::kQ8 ? 4 : 8;
}

struct WeightLayout {
  WeightFormat format = WeightFormat::kF32;
  int64_t n = 0, k = 0;
  int64_t kpad = 0;    ///< k rounded up to 32 (f32: k).
  int64_t group = 0;   ///< Padded k per group (the last may be shorter).
  int64_t groups = 1;
  bool zero_points = false;
  int64_t panels = 0;
  int64_t group_header_bytes = 0;  ///< Scales, then zero points if any.
  int64_t panel_header_bytes = 0;  ///< R[16] of the quantized formats.
  int64_t panel_bytes = 0;

  int64_t group_k(int64_t g) const { return g + 1 < groups ? group : kpad - g * group; }
  int64_t group_blocks(int64_t g) const { return group_k(g) / k_per_block(format); }
};

/// The layout of a description that check_linear accepts.
WeightLayout weight_layout(const LinearDesc& desc);

/// The scratch prepare_linear fills, as the kernels read it.
struct Prepared {
  // kFloat: the rows to multiply (x itself, or copies padded to kpad).
  const float* xf = nullptr;
  int64_t xf_stride = 0;
  // kFloat with zero points: Σ_{k∈g} x per (row, group).
  const float* xsumf = nullptr;
  // Int8 modes: the quantized rows (zero past k) ...
  const int8_t* xq = nullptr;
  int64_t xq_stride = 0;
  // ... Σ x_q per (row, group) (kInt8PerToken) or per (row, block of 32)
  // (kInt8Block32) ...
  const int32_t* xsum = nullptr;
  int64_t xsum_stride = 0;
  // ... kInt8Block32: the scale of each (row, block of 32) ...
  const float* dscale = nullptr;
  // ... kInt8PerToken: each row's scale and zero point.
  const float* sx = nullptr;
  const int32_t* zx = nullptr;
};

/// Byte offsets of each part of the scratch; total is its size.
struct ScratchLayout {
  int64_t xf = -1, xsumf = -1, xq = -1, xsum = -1, dscale = -1, sx = -1, zx = -1;
  int64_t xf_stride = 0, xq_stride = 0, xsum_stride = 0;
  int64_t total = 0;
};

ScratchLayout scratch_layout(const WeightLayout& w, ActivationMode mode, int64_t m);

/// The kernels' view of args.scratch after prepare_linear.
Prepared prepared_view(const LinearArgs& args, const WeightLayout& w);

/// What one path computes: rows [16 p0, 16 p1) of y.
using PanelsFn = void (*)(const LinearArgs& args, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);

}  // namespace kiln::kernels::tuned::detail
