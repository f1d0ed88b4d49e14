// Kiln's product of a quantized image and a quantized value per channel
// (channel_scale_int8.h).
#include "backends/onednn/runtime/channel_scale_int8.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::backends::onednn {

namespace {

// Products past int32's range have no rounding: saturated in float first.
constexpr float kBound = 1e9f;

int32_t byte_at(const void* data, int64_t i, bool is_signed) {
  return is_signed ? static_cast<const int8_t*>(data)[i] : static_cast<const uint8_t*>(data)[i];
}

void scale_row(const ChannelScaleInt8& s, const float* factors, const void* src, void* dst, int64_t row) {
  const int32_t lowest = s.dst_signed ? -128 : 0, highest = s.dst_signed ? 127 : 255;
  auto* out = static_cast<uint8_t*>(dst) + row * s.channels;
  for (int64_t c = 0; c < s.channels; ++c) {
    const float product = static_cast<float>(byte_at(src, row * s.channels + c, s.src_signed) - s.src_zero_point) *
                          factors[c];
    const float bounded = std::isnan(product) ? -kBound : std::min(std::max(product, -kBound), kBound);
    const int64_t rounded = static_cast<int64_t>(std::nearbyint(bounded)) + s.dst_zero_point;
    out[c] = static_cast<uint8_t>(std::clamp<int64_t>(rounded, lowest, highest));
  }
}

#if defined(__x86_64__)

// Sixteen channels a step, the last ones masked.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void scale_rows_avx512(const ChannelScaleInt8& s,
                                                                           const float* factors, const void* src,
                                                                           void* dst, int64_t first, int64_t last) {
  const __m512i src_zero_point = _mm512_set1_epi32(s.src_zero_point);
  const __m512i dst_zero_point = _mm512_set1_epi32(s.dst_zero_point);
  const __m512 low = _mm512_set1_ps(-kBound), high = _mm512_set1_ps(kBound);
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t row = first; row < last; ++row) {
    const uint8_t* x = in + row * s.channels;
    uint8_t* y = out + row * s.channels;
    for (int64_t c = 0; c < s.channels; c += 16) {
      const __mmask16 mask = s.channels - c >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (s.channels - c)) - 1);
      const __m128i bytes = _mm_maskz_loadu_epi8(mask, x + c);
      const __m512i q = s.src_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
      const __m512 product =
          _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, src_zero_point)), _mm512_maskz_loadu_ps(mask, factors + c));
      // max returns its second operand for a NaN: -kBound, as scale_row has it.
      const __m512 bounded = _mm512_min_ps(_mm512_max_ps(product, low), high);
      const __m512i rounded = _mm512_add_epi32(_mm512_cvtps_epi32(bounded), dst_zero_point);
      const __m128i result = s.dst_signed ? _mm512_cvtsepi32_epi8(rounded)
                                          : _mm512_cvtusepi32_epi8(_mm512_max_epi32(rounded, _mm512_setzero_si512()));
      _mm_mask_storeu_epi8(y + c, mask, result);
    }
  }
}

#endif

}  // namespace

ChannelScaleInt8::Path ChannelScaleInt8::best_path() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) return Path::kAvx512;
#endif
  return Path::kScalar;
}

void channel_scale_factors(const ChannelScaleInt8& s, const void* gate, float* factors) {
  const double scale = static_cast<double>(s.src_scale) * s.gate_scale / s.dst_scale;
  for (int64_t i = 0; i < s.batch * s.channels; ++i) {
    factors[i] = static_cast<float>(scale * (byte_at(gate, i, s.gate_signed) - s.gate_zero_point));
  }
}

void run_channel_scale_int8(const ChannelScaleInt8& s, const float* factors, const void* src, void* dst, int64_t first,
                            int64_t last, ChannelScaleInt8::Path path) {
  // Rows of one image at a time: each image its own factors.
  for (int64_t n = first / std::max<int64_t>(s.pixels, 1); n < s.batch && n * s.pixels < last; ++n) {
    const int64_t begin = std::max(first, n * s.pixels), end = std::min(last, (n + 1) * s.pixels);
    const float* f = factors + n * s.channels;
#if defined(__x86_64__)
    if (path == ChannelScaleInt8::Path::kAvx512) {
      scale_rows_avx512(s, f, src, dst, begin, end);
      continue;
    }
#endif
    for (int64_t row = begin; row < end; ++row) scale_row(s, f, src, dst, row);
  }
}

}  // namespace kiln::backends::onednn
