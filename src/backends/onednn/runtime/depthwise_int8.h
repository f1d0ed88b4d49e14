// Kiln's own int8 depthwise convolution, which OneDnnBackend runs instead of
// oneDNN's on CPUs with AVX-512 VNNI. oneDNN 3.2's int8 depthwise kernels
// (jit_int8, brdgmm_dw) multiply one tap at a time, about 13 multiply-adds
// per cycle (49 GMAC/s for MobileNetV2's 56x56x144 layer on one Zen 5 core);
// depthwise layers were a third of MobileNetV2's int8 time. This one adds
// four taps of a kernel row at once with VPDPBUSD: each input row is
// turned once into dwords of four neighbouring columns' bytes, which every
// output row that reads it takes with one instruction per kernel row and 16
// channels. A 1x1 kernel is a per-channel scale and shift of int8 values (a
// batch norm between two grids, lowering_int8.cpp): oneDNN's jit_int8 took
// 7.7 us for each of DenseNet-121's at 16x16 (64 to 256 channels).
//
// Layouts: source and result channels-last (N, H, W, C), int8 or uint8 with
// a scale and zero point; weights (C, 1, kH, kW) int8 with one scale per
// channel (zero point 0); bias float32 or none. The result is
//   q = saturate(round_half_even(act(grid(acc * src_scale * w_scale[c] + bias[c]))
//                                / dst_scale + dst_zero_point))
// with acc = sum of w * (q_src - src_zero_point) over the taps, padding
// reading the source's zero point, act a clamp (relu, relu6, none), a
// hardswish or a swish, and grid the identity or a quantization onto a grid between:
// the computation oneDNN's int8 convolution makes with such post-ops.
//
// These are pure functions: the plan asks depthwise_int8_takes, init packs
// the weights once (pack_depthwise_int8), and each call runs the work items
// split over the threads (run_depthwise_int8).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::backends::onednn {

/// One depthwise convolution: C channels, multiplier 1.
struct DepthwiseInt8 {
  int64_t batch = 1;
  int64_t channels = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool src_signed = false;  ///< int8 source (else uint8)
  bool dst_signed = false;  ///< int8 result (else uint8)
  float src_scale = 1, dst_scale = 1;
  int32_t src_zero_point = 0, dst_zero_point = 0;
  /// The clamp before requantization, in the float32 result's units
  /// (relu: 0 and +inf; relu6/hardtanh: its bounds; none: -inf and +inf).
  float low = 0, high = 0;
  /// A hardswish instead of the clamp (which is then -inf to +inf):
  /// f * clamp(alpha * f + beta, 0, 1) of the float32 result f.
  bool hard_swish = false;
  float hard_swish_alpha = 1.0f / 6, hard_swish_beta = 0.5f;
  /// A swish (silu: alpha 1) instead of the clamp: f * sigmoid(alpha * f),
  /// its exponential a polynomial within 2 ulp of std::exp (a result on a
  /// tie between two grid steps may round to the other).
  bool swish = false;
  float swish_alpha = 1;
  /// A grid between the convolution and its activation (PT2E quantizes a
  /// convolution's result before a hardswish, and the hardswish's after it):
  /// f = clamp(round_half_even(f * grid_multiplier), grid_low, grid_high) *
  /// grid_scale first.
  bool grid_between = false;
  float grid_multiplier = 1, grid_low = 0, grid_high = 0, grid_scale = 1;
};

/// Why Kiln's kernel does not take `conv` on this CPU (a sentence), or null
/// when it does. `vnni`: the CPU has AVX-512 VNNI (and oneDNN may use it).
const char* depthwise_int8_refusal(const DepthwiseInt8& conv, bool vnni);

/// Bytes of the packed weights and per-channel constants.
size_t depthwise_int8_packed_bytes(const DepthwiseInt8& conv);

/// Bytes of scratch one thread needs (its padded and transformed rows).
size_t depthwise_int8_scratch_bytes(const DepthwiseInt8& conv);

/// Packs `weights` (C x kH x kW int8), `weight_scales` (C) and `bias` (C, or
/// null) into `packed` (depthwise_int8_packed_bytes, 64-byte aligned).
void pack_depthwise_int8(const DepthwiseInt8& conv, const int8_t* weights, const float* weight_scales,
                         const float* bias, uint8_t* packed);

/// Work items of a call: each output row of each channel block, by image,
/// then row, then block. A thread's share is whole rows of the image (but
/// at its two ends): the rows the convolution before wrote, if oneDNN split
/// that one by pixels, and still in the same core's cache. Split by channel
/// blocks, MobileNetV2's 56x56 layers took 53 us at two threads against 42.
int64_t depthwise_int8_items(const DepthwiseInt8& conv);

/// The first item of part `part` (0 to `parts`; `parts` gives the item
/// count) when the items are split over `parts` threads by their cost (their
/// block's width): a thread's share may start or end inside a row.
int64_t depthwise_int8_first_item(const DepthwiseInt8& conv, int64_t parts, int64_t part);

/// Runs the items [first, last): reads `src` (N x H x W x C), writes `dst`
/// (N x OH x OW x C), with `scratch` of depthwise_int8_scratch_bytes (64-byte
/// aligned) for this thread alone.
void run_depthwise_int8(const DepthwiseInt8& conv, const uint8_t* packed, const void* src, void* dst, int64_t first,
                        int64_t last, uint8_t* scratch);

}  // namespace kiln::backends::onednn
