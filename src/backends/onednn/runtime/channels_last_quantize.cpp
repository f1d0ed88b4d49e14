// Kiln's quantization of a few-channel image into channels-last bytes
// (channels_last_quantize.h).
#include "backends/onednn/runtime/channels_last_quantize.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::backends::onednn {

namespace {

uint8_t quantize_one(const ChannelsLastQuantize& q, float x) {
  const int32_t lowest = q.to_signed ? -128 : 0, highest = q.to_signed ? 127 : 255;
  const float product = x * q.inverse_scale;
  if (std::isnan(product)) return static_cast<uint8_t>(lowest);  // as the vector path's conversion has it
  // Saturated in float first: a value past int32's range has no rounding.
  const float bounded = std::min(std::max(product, -1e9f), 1e9f);
  const int64_t rounded = static_cast<int64_t>(std::nearbyint(bounded)) + q.zero_point;
  return static_cast<uint8_t>(std::clamp<int64_t>(rounded, lowest, highest));
}

void quantize_pixels(const ChannelsLastQuantize& q, const float* image, uint8_t* out, int64_t first, int64_t last) {
  for (int64_t p = first; p < last; ++p) {
    for (int64_t c = 0; c < q.channels; ++c) out[p * q.channels + c] = quantize_one(q, image[c * q.pixels + p]);
  }
}

#if defined(__x86_64__)

// Sixteen values of a plane into bytes, without AVX-512 or with it.
struct Sse {
  __attribute__((target("sse4.1,ssse3"), always_inline)) static inline __m128i bytes(const ChannelsLastQuantize& q,
                                                                                      const float* x) {
    const __m128 scale = _mm_set1_ps(q.inverse_scale), high = _mm_set1_ps(1e9f), low = _mm_set1_ps(-1e9f);
    const __m128i zero_point = _mm_set1_epi32(q.zero_point);
    __m128i v[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      const __m128 scaled = _mm_mul_ps(_mm_loadu_ps(x + 4 * i), scale);
      v[i] = _mm_add_epi32(_mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(scaled, low), high)), zero_point);
    }
    const __m128i lo = _mm_packs_epi32(v[0], v[1]), hi = _mm_packs_epi32(v[2], v[3]);
    return q.to_signed ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi);
  }
};

struct Avx512 {
  __attribute__((target("avx512f,avx512bw,avx512vl,sse4.1,ssse3"), always_inline)) static inline __m128i bytes(
      const ChannelsLastQuantize& q, const float* x) {
    const __m512 scaled = _mm512_mul_ps(_mm512_loadu_ps(x), _mm512_set1_ps(q.inverse_scale));
    const __m512 bounded = _mm512_min_ps(_mm512_max_ps(scaled, _mm512_set1_ps(-1e9f)), _mm512_set1_ps(1e9f));
    const __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(bounded), _mm512_set1_epi32(q.zero_point));
    return q.to_signed ? _mm512_cvtsepi32_epi8(v) : _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, _mm512_setzero_si512()));
  }
};

// Sixteen pixels of each plane into 16 * C bytes: each plane's 16 values
// rounded to bytes (the zero point added after rounding, PyTorch's order;
// oneDNN's conversion adds it before, which moves a tie now and then),
// then each output vector of 16 bytes gathered from the planes by byte
// shuffles. `masks[c][k]` picks plane c's bytes for output vector k (0x80:
// none). The same loop for each ISA (a target's intrinsics inline only into
// functions of that target).
#define KILN_QUANTIZE_BLOCKS(C, Isa)                                                                        \
  do {                                                                                                      \
    __m128i shuffles[C][C];                                                                                 \
    for (int c = 0; c < C; ++c) {                                                                           \
      for (int k = 0; k < C; ++k) shuffles[c][k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks[c][k])); \
    }                                                                                                       \
    for (int64_t p = first; p < last; p += 16) {                                                            \
      __m128i planes[C];                                                                                    \
      _Pragma("GCC unroll 4") for (int c = 0; c < C; ++c) planes[c] = Isa::bytes(q, image + c * q.pixels + p); \
      _Pragma("GCC unroll 4") for (int k = 0; k < C; ++k) {                                                 \
        __m128i bytes = _mm_shuffle_epi8(planes[0], shuffles[0][k]);                                        \
        _Pragma("GCC unroll 4") for (int c = 1; c < C; ++c) {                                               \
          bytes = _mm_or_si128(bytes, _mm_shuffle_epi8(planes[c], shuffles[c][k]));                         \
        }                                                                                                   \
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * C + 16 * k), bytes);                          \
      }                                                                                                     \
    }                                                                                                       \
  } while (false)

template <int C>
__attribute__((target("sse4.1,ssse3"))) void quantize_blocks_sse(const ChannelsLastQuantize& q, const float* image,
                                                                uint8_t* out, int64_t first, int64_t last,
                                                                const uint8_t (*masks)[4][16]) {
  KILN_QUANTIZE_BLOCKS(C, Sse);
}

template <int C>
__attribute__((target("avx512f,avx512bw,avx512vl,sse4.1,ssse3"))) void quantize_blocks_avx512(
    const ChannelsLastQuantize& q, const float* image, uint8_t* out, int64_t first, int64_t last,
    const uint8_t (*masks)[4][16]) {
  KILN_QUANTIZE_BLOCKS(C, Avx512);
}

#undef KILN_QUANTIZE_BLOCKS

using QuantizeBlocks = void (*)(const ChannelsLastQuantize&, const float*, uint8_t*, int64_t, int64_t,
                                const uint8_t (*)[4][16]);

QuantizeBlocks quantize_blocks_for(int64_t channels, bool avx512) {
  static constexpr QuantizeBlocks kSse[] = {quantize_blocks_sse<1>, quantize_blocks_sse<2>, quantize_blocks_sse<3>,
                                            quantize_blocks_sse<4>};
  static constexpr QuantizeBlocks kAvx512[] = {quantize_blocks_avx512<1>, quantize_blocks_avx512<2>,
                                               quantize_blocks_avx512<3>, quantize_blocks_avx512<4>};
  return (avx512 ? kAvx512 : kSse)[channels - 1];
}

#endif

}  // namespace

bool channels_last_quantize_takes(const ChannelsLastQuantize& q) {
  return q.batch >= 1 && q.pixels >= 1 && q.channels >= 1 && q.channels <= ChannelsLastQuantize::kMaxChannels &&
         std::isfinite(q.inverse_scale);
}

ChannelsLastQuantize::Path ChannelsLastQuantize::best_path() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) return Path::kAvx512;
  if (__builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3")) return Path::kSse;
#endif
  return Path::kScalar;
}

void run_channels_last_quantize(const ChannelsLastQuantize& q, const float* src, uint8_t* dst, int64_t first_pixel,
                                int64_t last_pixel, ChannelsLastQuantize::Path path) {
  for (int64_t n = 0; n < q.batch; ++n) {
    const float* image = src + n * q.channels * q.pixels;
    uint8_t* out = dst + n * q.channels * q.pixels;
    int64_t p = first_pixel;
#if defined(__x86_64__)
    if (path != ChannelsLastQuantize::Path::kScalar) {
      uint8_t masks[ChannelsLastQuantize::kMaxChannels][4][16];
      for (int64_t c = 0; c < q.channels; ++c) {
        for (int64_t k = 0; k < q.channels; ++k) {
          for (int64_t i = 0; i < 16; ++i) {
            const int64_t at = 16 * k + i;  // byte `at` of the 16 pixels' output
            masks[c][k][i] = at % q.channels == c ? static_cast<uint8_t>(at / q.channels) : 0x80;
          }
        }
      }
      const int64_t blocks_end = first_pixel + (last_pixel - first_pixel) / 16 * 16;
      quantize_blocks_for(q.channels, path == ChannelsLastQuantize::Path::kAvx512)(q, image, out, first_pixel,
                                                                                    blocks_end, masks);
      p = blocks_end;
    }
#endif
    quantize_pixels(q, image, out, p, last_pixel);
  }
}

}  // namespace kiln::backends::onednn
