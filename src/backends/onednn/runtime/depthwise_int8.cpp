// Kiln's int8 depthwise convolution (depthwise_int8.h).
//
// Channels go in blocks of 64, 32 or 16 (a 512-, 256- or 128-bit register of
// bytes). For a block, each input row the outputs read is turned once into
// dwords of four neighbouring columns: dword (j, c) holds the bytes of
// columns j..j+3 of channel c (the source's zero point where they are
// padding; an int8 source moved onto uint8). An output then takes each
// kernel row's taps 4 at a time with VPDPBUSD (uint8 x int8, added in 32
// bits), against weights packed the same way (taps past the kernel's width
// are 0), four outputs of a row sharing each register of weights. The
// transformed rows of the last kH input rows are kept in a ring, so an input
// row is transformed once however many output rows read it.
//
// The byte interleave is two rounds of unpacks, which work inside 128-bit
// lanes: register k of a transformed column holds, in lane L, channels
// 16L + 4k .. 16L + 4k + 3. The weights and per-channel constants are packed
// in that order, and the result's packs (32 -> 16 -> 8 bits, also inside
// lanes) undo it, so the stored bytes are in channel order again.
#include "backends/onednn/runtime/depthwise_int8.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::backends::onednn {

namespace {

constexpr int64_t kBlock = 64;  // channels per full block (one 512-bit register of bytes)
constexpr size_t kMaxScratchBytes = size_t{1} << 20;

int64_t tap_groups(const DepthwiseInt8& c) { return (c.kernel_w + 3) / 4; }
// Transformed columns an output row reads.
int64_t transformed_columns(const DepthwiseInt8& c) { return (c.out_w - 1) * c.stride_w + 4 * (tap_groups(c) - 1) + 1; }

// A block of channels: [first, first + width) of which `valid` exist; width
// 64, 32 or 16 (a 512-, 256- or 128-bit register of bytes). The channels
// past the last full block of 64 go in narrower blocks, so that 144
// channels are 64 + 64 + 16, not three blocks of 64. An image of 16 or 32
// channels at stride 1 is one block of 64 bytes that holds `pixels` (4 or 2)
// neighbouring pixels instead: the bytes of a row are contiguous, and at
// stride 1 so are the windows of neighbouring outputs.
struct Block {
  int64_t first, width, valid;
  size_t offset;  // in the packed bytes
  int64_t pixels;
};

int64_t pixels_per_block(const DepthwiseInt8& c) {
  return c.stride_w == 1 && (c.channels == 16 || c.channels == 32) ? 64 / c.channels : 1;
}

// Per block: compensation (int32), multipliers and offsets (float32), then
// kH x groups x 4 registers of weights.
size_t block_bytes(const DepthwiseInt8& c, int64_t width) {
  return static_cast<size_t>(3 * width * 4 + c.kernel_h * tap_groups(c) * 4 * width);
}

int64_t tail_width(int64_t rest) { return rest > 48 ? 64 : rest > 16 ? 32 : 16; }

int64_t channel_blocks(const DepthwiseInt8& c) {
  if (pixels_per_block(c) > 1) return 1;
  int64_t blocks = c.channels / kBlock;
  for (int64_t rest = c.channels % kBlock; rest > 0; rest -= std::min(rest, tail_width(rest))) ++blocks;
  return blocks;
}

Block block_of(const DepthwiseInt8& c, int64_t index) {
  if (pixels_per_block(c) > 1) return Block{0, kBlock, kBlock, 0, pixels_per_block(c)};
  const int64_t full = c.channels / kBlock;
  Block b{0, kBlock, kBlock, 0, 1};
  if (index < full) {
    b.first = index * kBlock;
    b.offset = static_cast<size_t>(index) * block_bytes(c, kBlock);
    return b;
  }
  b.first = full * kBlock;
  b.offset = static_cast<size_t>(full) * block_bytes(c, kBlock);
  for (int64_t i = full;; ++i) {
    b.width = tail_width(c.channels - b.first);
    b.valid = std::min(b.width, c.channels - b.first);
    if (i == index) return b;
    b.offset += block_bytes(c, b.width);
    b.first += b.valid;
  }
}

// Where channel `o` of a block of `width` lies in the unpacked order:
// register k = (o % 16) / 4, dword 4 * (o / 16) + o % 4 of its width / 4.
int64_t permuted(int64_t o, int64_t width) { return ((o % 16) / 4) * (width / 4) + (o / 16) * 4 + o % 4; }
// Whether the activation runs on the float32 result (a hardswish, or a grid
// between), or its clamp folds into the requantization.
bool float_result(const DepthwiseInt8& c) { return c.hard_swish || c.swish || c.grid_between; }
int32_t source_zero_point(const DepthwiseInt8& c) { return c.src_zero_point + (c.src_signed ? 128 : 0); }

}  // namespace

const char* depthwise_int8_refusal(const DepthwiseInt8& c, bool vnni) {
#if !defined(__x86_64__)
  (void)c;
  (void)vnni;
  return "Kiln's int8 depthwise kernel is for x86-64 only";
#else
  if (!vnni) return "the CPU has no AVX-512 VNNI";
  if (c.batch < 1 || c.channels < 1 || c.in_h < 1 || c.in_w < 1 || c.out_h < 1 || c.out_w < 1) {
    return "an empty tensor";
  }
  if (c.kernel_h != 1 && c.kernel_h != 3 && c.kernel_h != 5 && c.kernel_h != 7) {
    return "a kernel height other than 1, 3, 5 or 7";
  }
  if (c.kernel_w < 1 || c.kernel_w > 8) return "a kernel wider than 8";
  if (c.stride_h < 1 || c.stride_w < 1 || c.stride_h > c.kernel_h || c.stride_w > 4) return "strides out of range";
  if (c.pad_top < 0 || c.pad_left < 0 || c.pad_bottom < 0 || c.pad_right < 0 || c.pad_top >= c.kernel_h ||
      c.pad_bottom >= c.kernel_h || c.pad_left >= c.kernel_w || c.pad_right >= c.kernel_w) {
    return "padding out of range";
  }
  if (c.in_h + c.pad_top + c.pad_bottom < c.kernel_h || c.in_w + c.pad_left + c.pad_right < c.kernel_w ||
      c.out_h != (c.in_h + c.pad_top + c.pad_bottom - c.kernel_h) / c.stride_h + 1 ||
      c.out_w != (c.in_w + c.pad_left + c.pad_right - c.kernel_w) / c.stride_w + 1) {
    return "result sizes that do not follow from the source's";
  }
  if (!(c.src_scale > 0) || !(c.dst_scale > 0) || !std::isfinite(c.src_scale) || !std::isfinite(c.dst_scale)) {
    return "a scale that is not a positive number";
  }
  if (std::isnan(c.low) || std::isnan(c.high) || c.low > c.high) return "a clamp whose bounds are not ordered";
  const bool clamps = c.low != -std::numeric_limits<float>::infinity() || c.high != std::numeric_limits<float>::infinity();
  if ((c.hard_swish || c.swish) && clamps) return "a clamp and a hardswish or swish";
  if (c.hard_swish && c.swish) return "a hardswish and a swish";
  if (c.grid_between && (!std::isfinite(c.grid_multiplier) || !std::isfinite(c.grid_scale) || std::isnan(c.grid_low) ||
                         std::isnan(c.grid_high) || c.grid_low > c.grid_high)) {
    return "a grid between that is not one";
  }
  if (depthwise_int8_scratch_bytes(c) > kMaxScratchBytes) return "rows too wide for its scratch";
  return nullptr;
#endif
}

size_t depthwise_int8_packed_bytes(const DepthwiseInt8& c) {
  const Block last = block_of(c, channel_blocks(c) - 1);
  return last.offset + block_bytes(c, last.width);
}

size_t depthwise_int8_scratch_bytes(const DepthwiseInt8& c) {
  return static_cast<size_t>(c.kernel_h * transformed_columns(c) * 4 * kBlock);
}

int64_t depthwise_int8_items(const DepthwiseInt8& c) { return c.batch * channel_blocks(c) * c.out_h; }

int64_t depthwise_int8_first_item(const DepthwiseInt8& c, int64_t parts, int64_t part) {
  // An item costs its block's width: a row of 144 channels is blocks of 64,
  // 64 and 16, and a share ending inside a row ends at a block's start.
  const int64_t blocks = channel_blocks(c);
  int64_t row_cost = 0;  // of one output row over every block
  for (int64_t b = 0; b < blocks; ++b) row_cost += block_of(c, b).width;
  const int64_t target = c.batch * c.out_h * row_cost * part / parts;
  const int64_t row = target / row_cost;
  int64_t rest = target % row_cost, block = 0;
  for (; rest > 0; ++block) rest -= block_of(c, block).width;
  return row * blocks + block - (rest < 0 ? 1 : 0);
}

void pack_depthwise_int8(const DepthwiseInt8& c, const int8_t* weights, const float* weight_scales, const float* bias,
                         uint8_t* packed) {
  const int64_t groups = tap_groups(c), taps = c.kernel_h * c.kernel_w;
  const int32_t zero_point = source_zero_point(c);
  std::memset(packed, 0, depthwise_int8_packed_bytes(c));
  for (int64_t index = 0; index < channel_blocks(c); ++index) {
    const Block b = block_of(c, index);
    uint8_t* block = packed + b.offset;
    auto* compensation = reinterpret_cast<int32_t*>(block);
    auto* multiplier = reinterpret_cast<float*>(block + b.width * 4);
    auto* offset = reinterpret_cast<float*>(block + 2 * b.width * 4);
    auto* w = reinterpret_cast<int8_t*>(block + 3 * b.width * 4);
    for (int64_t o = 0; o < b.valid; ++o) {
      // Each of a block's pixels has the same channels.
      const int64_t channel = b.pixels > 1 ? o % c.channels : b.first + o, p = permuted(o, b.width);
      const int8_t* kernel = weights + channel * taps;
      int32_t sum = 0;
      for (int64_t t = 0; t < taps; ++t) sum += kernel[t];
      compensation[p] = -zero_point * sum;
      const float bias_value = bias != nullptr ? bias[channel] : 0.0f;
      if (float_result(c)) {  // the float32 result: the result's grid comes after the activation
        multiplier[p] = c.src_scale * weight_scales[channel];
        offset[p] = bias_value;
      } else {
        multiplier[p] = c.src_scale * weight_scales[channel] / c.dst_scale;
        offset[p] = bias_value / c.dst_scale + static_cast<float>(c.dst_zero_point);
      }
      for (int64_t r = 0; r < c.kernel_h; ++r) {
        for (int64_t g = 0; g < groups; ++g) {
          for (int64_t t = 0; t < 4 && 4 * g + t < c.kernel_w; ++t) {
            w[(r * groups + g) * 4 * b.width + p * 4 + t] = kernel[r * c.kernel_w + 4 * g + t];
          }
        }
      }
    }
  }
}

#if defined(__x86_64__)

namespace {

#define KILN_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma"), always_inline)) inline
#define KILN_VNNI_ENTRY __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma")))
#define KILN_VNNI_LAMBDA __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma"), always_inline))

// The instructions, at each register width.
template <int64_t W>
struct Vec;

template <>
struct Vec<64> {
  using I = __m512i;
  using F = __m512;
  using M = __mmask64;
  KILN_VNNI static I load(const void* p) { return _mm512_load_si512(p); }
  KILN_VNNI static void store(void* p, I v) { _mm512_store_si512(p, v); }
  KILN_VNNI static I load_bytes(M m, const void* p) { return _mm512_maskz_loadu_epi8(m, p); }
  KILN_VNNI static I load_bytes_or(I fill, M m, const void* p) { return _mm512_mask_loadu_epi8(fill, m, p); }
  KILN_VNNI static void store_bytes(void* p, M m, I v) { _mm512_mask_storeu_epi8(p, m, v); }
  KILN_VNNI static I bytes(int v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  KILN_VNNI static I bitwise_xor(I a, I b) { return _mm512_xor_si512(a, b); }
  KILN_VNNI static I unpacklo8(I a, I b) { return _mm512_unpacklo_epi8(a, b); }
  KILN_VNNI static I unpackhi8(I a, I b) { return _mm512_unpackhi_epi8(a, b); }
  KILN_VNNI static I unpacklo16(I a, I b) { return _mm512_unpacklo_epi16(a, b); }
  KILN_VNNI static I unpackhi16(I a, I b) { return _mm512_unpackhi_epi16(a, b); }
  KILN_VNNI static I dpbusd(I acc, I u8, I s8) { return _mm512_dpbusd_epi32(acc, u8, s8); }
  KILN_VNNI static F loadf(const void* p) { return _mm512_load_ps(p); }
  KILN_VNNI static F to_float(I acc, F multiplier, F offset) {
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), multiplier, offset);
  }
  KILN_VNNI static I to_int(F f) { return _mm512_cvtps_epi32(f); }  // rounds half to even (MXCSR's default)
  KILN_VNNI static F floats(float v) { return _mm512_set1_ps(v); }
  KILN_VNNI static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  KILN_VNNI static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  KILN_VNNI static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a * b
  KILN_VNNI static F divide_one_plus_pow2(F f, F p, F n) {  // f / (1 + p * 2^n)
    return _mm512_div_ps(f, _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_scalef_ps(p, n)));
  }
  KILN_VNNI static F round(F a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }  // half to even
  KILN_VNNI static F clamp(F a, F low, F high) { return _mm512_min_ps(_mm512_max_ps(a, low), high); }
  KILN_VNNI static I pack(I q0, I q1, I q2, I q3, bool to_signed, I low, I high) {
    const I lo = _mm512_packs_epi32(q0, q1), hi = _mm512_packs_epi32(q2, q3);
    if (to_signed) return _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(lo, hi), low), high);
    return _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(lo, hi), low), high);
  }
};

template <>
struct Vec<32> {
  using I = __m256i;
  using F = __m256;
  using M = __mmask32;
  KILN_VNNI static I load(const void* p) { return _mm256_load_si256(static_cast<const I*>(p)); }
  KILN_VNNI static void store(void* p, I v) { _mm256_store_si256(static_cast<I*>(p), v); }
  KILN_VNNI static I load_bytes(M m, const void* p) { return _mm256_maskz_loadu_epi8(m, p); }
  KILN_VNNI static I load_bytes_or(I fill, M m, const void* p) { return _mm256_mask_loadu_epi8(fill, m, p); }
  KILN_VNNI static void store_bytes(void* p, M m, I v) { _mm256_mask_storeu_epi8(p, m, v); }
  KILN_VNNI static I bytes(int v) { return _mm256_set1_epi8(static_cast<char>(v)); }
  KILN_VNNI static I bitwise_xor(I a, I b) { return _mm256_xor_si256(a, b); }
  KILN_VNNI static I unpacklo8(I a, I b) { return _mm256_unpacklo_epi8(a, b); }
  KILN_VNNI static I unpackhi8(I a, I b) { return _mm256_unpackhi_epi8(a, b); }
  KILN_VNNI static I unpacklo16(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
  KILN_VNNI static I unpackhi16(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
  KILN_VNNI static I dpbusd(I acc, I u8, I s8) { return _mm256_dpbusd_epi32(acc, u8, s8); }
  KILN_VNNI static F loadf(const void* p) { return _mm256_load_ps(static_cast<const float*>(p)); }
  KILN_VNNI static F to_float(I acc, F multiplier, F offset) {
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), multiplier, offset);
  }
  KILN_VNNI static I to_int(F f) { return _mm256_cvtps_epi32(f); }  // rounds half to even (MXCSR's default)
  KILN_VNNI static F floats(float v) { return _mm256_set1_ps(v); }
  KILN_VNNI static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  KILN_VNNI static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  KILN_VNNI static F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  KILN_VNNI static F divide_one_plus_pow2(F f, F p, F n) {  // f / (1 + p * 2^n)
    return _mm256_div_ps(f, _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_scalef_ps(p, n)));
  }
  KILN_VNNI static F round(F a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }  // half to even
  KILN_VNNI static F clamp(F a, F low, F high) { return _mm256_min_ps(_mm256_max_ps(a, low), high); }
  KILN_VNNI static I pack(I q0, I q1, I q2, I q3, bool to_signed, I low, I high) {
    const I lo = _mm256_packs_epi32(q0, q1), hi = _mm256_packs_epi32(q2, q3);
    if (to_signed) return _mm256_min_epi8(_mm256_max_epi8(_mm256_packs_epi16(lo, hi), low), high);
    return _mm256_min_epu8(_mm256_max_epu8(_mm256_packus_epi16(lo, hi), low), high);
  }
};

template <>
struct Vec<16> {
  using I = __m128i;
  using F = __m128;
  using M = __mmask16;
  KILN_VNNI static I load(const void* p) { return _mm_load_si128(static_cast<const I*>(p)); }
  KILN_VNNI static void store(void* p, I v) { _mm_store_si128(static_cast<I*>(p), v); }
  KILN_VNNI static I load_bytes(M m, const void* p) { return _mm_maskz_loadu_epi8(m, p); }
  KILN_VNNI static I load_bytes_or(I fill, M m, const void* p) { return _mm_mask_loadu_epi8(fill, m, p); }
  KILN_VNNI static void store_bytes(void* p, M m, I v) { _mm_mask_storeu_epi8(p, m, v); }
  KILN_VNNI static I bytes(int v) { return _mm_set1_epi8(static_cast<char>(v)); }
  KILN_VNNI static I bitwise_xor(I a, I b) { return _mm_xor_si128(a, b); }
  KILN_VNNI static I unpacklo8(I a, I b) { return _mm_unpacklo_epi8(a, b); }
  KILN_VNNI static I unpackhi8(I a, I b) { return _mm_unpackhi_epi8(a, b); }
  KILN_VNNI static I unpacklo16(I a, I b) { return _mm_unpacklo_epi16(a, b); }
  KILN_VNNI static I unpackhi16(I a, I b) { return _mm_unpackhi_epi16(a, b); }
  KILN_VNNI static I dpbusd(I acc, I u8, I s8) { return _mm_dpbusd_epi32(acc, u8, s8); }
  KILN_VNNI static F loadf(const void* p) { return _mm_load_ps(static_cast<const float*>(p)); }
  KILN_VNNI static F to_float(I acc, F multiplier, F offset) {
    return _mm_fmadd_ps(_mm_cvtepi32_ps(acc), multiplier, offset);
  }
  KILN_VNNI static I to_int(F f) { return _mm_cvtps_epi32(f); }  // rounds half to even (MXCSR's default)
  KILN_VNNI static F floats(float v) { return _mm_set1_ps(v); }
  KILN_VNNI static F fmadd(F a, F b, F c) { return _mm_fmadd_ps(a, b, c); }
  KILN_VNNI static F mul(F a, F b) { return _mm_mul_ps(a, b); }
  KILN_VNNI static F fnmadd(F a, F b, F c) { return _mm_fnmadd_ps(a, b, c); }  // c - a * b
  KILN_VNNI static F divide_one_plus_pow2(F f, F p, F n) {  // f / (1 + p * 2^n)
    return _mm_div_ps(f, _mm_add_ps(_mm_set1_ps(1.0f), _mm_scalef_ps(p, n)));
  }
  KILN_VNNI static F round(F a) { return _mm_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }  // half to even
  KILN_VNNI static F clamp(F a, F low, F high) { return _mm_min_ps(_mm_max_ps(a, low), high); }
  KILN_VNNI static I pack(I q0, I q1, I q2, I q3, bool to_signed, I low, I high) {
    const I lo = _mm_packs_epi32(q0, q1), hi = _mm_packs_epi32(q2, q3);
    if (to_signed) return _mm_min_epi8(_mm_max_epi8(_mm_packs_epi16(lo, hi), low), high);
    return _mm_min_epu8(_mm_max_epu8(_mm_packus_epi16(lo, hi), low), high);
  }
};

// f * sigmoid(alpha * f) = f / (1 + exp(-alpha * f)) at any width:
// exp(x) = 2^n e^r with n = round(x / ln 2), r = x - n ln 2 (ln 2 in two
// parts), e^r a degree-6 Taylor polynomial (|r| <= ln 2 / 2: within 2 ulp).
template <typename V>
KILN_VNNI typename V::F swish(typename V::F f, typename V::F alpha) {
  using F = typename V::F;
  const F x = V::clamp(V::mul(f, V::mul(alpha, V::floats(-1.0f))), V::floats(-87.0f), V::floats(88.0f));
  const F n = V::round(V::mul(x, V::floats(1.44269504f)));
  F r = V::fnmadd(n, V::floats(0.693145751953125f), x);
  r = V::fnmadd(n, V::floats(1.428606765330187e-06f), r);
  F p = V::floats(1.0f / 720);
  for (const float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = V::fmadd(p, r, V::floats(c));
  return V::divide_one_plus_pow2(f, p, n);
}

// What a call's items share.
struct Call {
  const DepthwiseInt8* c;
  int64_t groups, columns;
  int64_t step;  // the transformed columns outputs read: every step-th
  int32_t low, high;  // the clamp on the result's grid, zero point included (in its 8 bits)
};

template <int64_t W>
typename Vec<W>::M mask_of(int64_t valid) {
  using M = typename Vec<W>::M;
  return valid >= W ? static_cast<M>(~M{0}) : static_cast<M>((uint64_t{1} << valid) - 1);
}

// Input row `row` (of the padded image) of block `b` into a ring slot:
// the columns an output reads (every `step`-th), each from the source's
// columns j .. j + 3 (the zero point where they are padding).
template <int64_t W>
KILN_VNNI void transform_row(const Call& call, const uint8_t* image, const Block& b, int64_t row, uint8_t* slot) {
  using V = Vec<W>;
  using I = typename V::I;
  const DepthwiseInt8& c = *call.c;
  const int64_t in_y = row - c.pad_top;
  const auto mask = mask_of<W>(b.valid);
  const I zero_point = V::bytes(source_zero_point(c));
  const I flip = V::bytes(c.src_signed ? 0x80 : 0);
  const bool inside = in_y >= 0 && in_y < c.in_h;
  const uint8_t* line = image + in_y * c.in_w * c.channels + b.first;
  // Source column x's bytes of the block (its `pixels` pixels from x on),
  // the zero point in the padding.
  const auto column = [&](int64_t x) KILN_VNNI_LAMBDA {
    const int64_t in_x = x - c.pad_left;
    if (!inside || in_x + b.pixels <= 0 || in_x >= c.in_w) return zero_point;
    auto bytes = mask;
    if (b.pixels > 1 && (in_x < 0 || in_x + b.pixels > c.in_w)) {
      bytes = 0;
      for (int64_t i = std::max<int64_t>(0, -in_x); i < std::min(b.pixels, c.in_w - in_x); ++i) {
        bytes |= mask_of<W>(c.channels) << (i * c.channels);
      }
    }
    return V::bitwise_xor(V::load_bytes_or(zero_point, bytes, line + in_x * c.channels), flip);
  };
  // The columns whose pixels are all in the image (most of them): no checks.
  const int64_t first_inside = inside ? c.pad_left : 0;
  const int64_t last_inside = inside ? c.pad_left + c.in_w - b.pixels : -1;
  const auto any_column = [&](int64_t x) KILN_VNNI_LAMBDA {
    if (x < first_inside || x > last_inside) return column(x);
    return V::bitwise_xor(V::load_bytes_or(zero_point, mask, line + (x - c.pad_left) * c.channels), flip);
  };
  const auto put = [&](I a, I b1, I c2, I d, int64_t j) KILN_VNNI_LAMBDA {
    const I ab_lo = V::unpacklo8(a, b1), ab_hi = V::unpackhi8(a, b1);
    const I cd_lo = V::unpacklo8(c2, d), cd_hi = V::unpackhi8(c2, d);
    uint8_t* out = slot + j * 4 * W;
    V::store(out, V::unpacklo16(ab_lo, cd_lo));
    V::store(out + W, V::unpackhi16(ab_lo, cd_lo));
    V::store(out + 2 * W, V::unpacklo16(ab_hi, cd_hi));
    V::store(out + 3 * W, V::unpackhi16(ab_hi, cd_hi));
  };
  const int64_t step = call.step * b.pixels;
  if (!inside) {
    // A padding row: every column the zero point's bytes.
    for (int64_t j = 0; j < call.columns; j += step) put(zero_point, zero_point, zero_point, zero_point, j);
    return;
  }
  I a = any_column(0), b1 = any_column(1), c2 = any_column(2), d = any_column(3);
  put(a, b1, c2, d, 0);
  if (step == 1) {
    for (int64_t j = 1; j < call.columns; ++j) {
      a = b1, b1 = c2, c2 = d, d = any_column(j + 3);
      put(a, b1, c2, d, j);
    }
  } else if (step == 2) {
    for (int64_t j = 2; j < call.columns; j += 2) {
      a = c2, b1 = d, c2 = any_column(j + 2), d = any_column(j + 3);
      put(a, b1, c2, d, j);
    }
  } else {
    for (int64_t j = step; j < call.columns; j += step) {
      put(any_column(j), any_column(j + 1), any_column(j + 2), any_column(j + 3), j);
    }
  }
}

// N outputs of one output row of block `b` from output x on (N blocks of
// b.pixels outputs each); `rows[r]` is the transformed input row kernel row
// r reads. The N share each register of weights.
template <int64_t W, int KH, int G, int N, bool kFloatResult>
KILN_VNNI void outputs(const Call& call, const Block& b, const uint8_t* block, const uint8_t* const* rows, int64_t x,
                       uint8_t* out_row) {
  using V = Vec<W>;
  using I = typename V::I;
  const DepthwiseInt8& c = *call.c;
  const uint8_t* weights = block + 3 * W * 4;
  I acc[N][4];
#pragma GCC unroll 4
  for (int n = 0; n < N; ++n) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) acc[n][k] = V::load(block + k * W);
  }
#pragma GCC unroll 7
  for (int r = 0; r < KH; ++r) {
#pragma GCC unroll 2
    for (int g = 0; g < G; ++g) {
      const uint8_t* column = rows[r] + (x * c.stride_w + 4 * g) * 4 * W;
      const int64_t next = b.pixels * c.stride_w * 4 * W;  // the next of the N
      const uint8_t* w = weights + (r * G + g) * 4 * W;
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        const I wk = V::load(w + k * W);
#pragma GCC unroll 4
        for (int n = 0; n < N; ++n) acc[n][k] = V::dpbusd(acc[n][k], V::load(column + n * next + k * W), wk);
      }
    }
  }
  const I low = V::bytes(call.low), high = V::bytes(call.high);
#pragma GCC unroll 4
  for (int n = 0; n < N; ++n) {
    const int64_t at = x + n * b.pixels;  // its first output
    // A block of pixels past the row's end stores only the ones in it.
    const auto mask = mask_of<W>(b.pixels == 1 ? b.valid : std::min(b.pixels, c.out_w - at) * c.channels);
    I q[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      typename V::F f = V::to_float(acc[n][k], V::loadf(block + W * 4 + k * W), V::loadf(block + 2 * W * 4 + k * W));
      if constexpr (kFloatResult) {
        // f is the float32 result here: onto the grid between, the
        // activation, then onto the result's grid.
        if (c.grid_between) {
          f = V::mul(V::clamp(V::round(V::mul(f, V::floats(c.grid_multiplier))), V::floats(c.grid_low),
                              V::floats(c.grid_high)),
                     V::floats(c.grid_scale));
        }
        if (c.swish) {
          f = swish<V>(f, V::floats(c.swish_alpha));
        } else if (c.hard_swish) {
          const typename V::F gate = V::clamp(V::fmadd(f, V::floats(c.hard_swish_alpha), V::floats(c.hard_swish_beta)),
                                              V::floats(0.0f), V::floats(1.0f));
          f = V::mul(f, gate);
        } else {
          f = V::clamp(f, V::floats(c.low), V::floats(c.high));
        }
        f = V::fmadd(f, V::floats(1.0f / c.dst_scale), V::floats(static_cast<float>(c.dst_zero_point)));
      }
      q[k] = V::to_int(f);
    }
    V::store_bytes(out_row + at * c.channels + b.first, mask,
                   V::pack(q[0], q[1], q[2], q[3], c.dst_signed, low, high));
  }
}

template <int64_t W, int KH, int G, bool kFloatResult>
KILN_VNNI_ENTRY void output_row(const Call& call, const Block& b, const uint8_t* block, const uint8_t* const* rows,
                                uint8_t* out_row) {
  constexpr int kN = 4;
  int64_t x = 0;
  for (; x + kN * b.pixels <= call.c->out_w; x += kN * b.pixels) outputs<W, KH, G, kN, kFloatResult>(call, b, block, rows, x, out_row);
  for (; x < call.c->out_w; x += b.pixels) outputs<W, KH, G, 1, kFloatResult>(call, b, block, rows, x, out_row);
}

template <int64_t W>
KILN_VNNI_ENTRY void transform_row_entry(const Call& call, const uint8_t* image, const Block& b, int64_t row,
                                         uint8_t* slot) {
  transform_row<W>(call, image, b, row, slot);
}

using OutputRow = void (*)(const Call&, const Block&, const uint8_t*, const uint8_t* const*, uint8_t*);
using TransformRow = void (*)(const Call&, const uint8_t*, const Block&, int64_t, uint8_t*);

template <int64_t W, bool kFloatResult>
OutputRow output_row_for(int64_t kernel_h, int64_t groups) {
  switch (kernel_h * 10 + groups) {
    case 11: return output_row<W, 1, 1, kFloatResult>;
    case 12: return output_row<W, 1, 2, kFloatResult>;
    case 31: return output_row<W, 3, 1, kFloatResult>;
    case 32: return output_row<W, 3, 2, kFloatResult>;
    case 51: return output_row<W, 5, 1, kFloatResult>;
    case 52: return output_row<W, 5, 2, kFloatResult>;
    case 71: return output_row<W, 7, 1, kFloatResult>;
    case 72: return output_row<W, 7, 2, kFloatResult>;
    default: return nullptr;
  }
}

template <int64_t W>
OutputRow output_row_for(const DepthwiseInt8& c, int64_t groups) {
  return float_result(c) ? output_row_for<W, true>(c.kernel_h, groups) : output_row_for<W, false>(c.kernel_h, groups);
}

int32_t grid_bound(const DepthwiseInt8& c, float bound, int32_t lowest, int32_t highest) {
  const double v = std::nearbyint(static_cast<double>(bound) / c.dst_scale + c.dst_zero_point);
  return static_cast<int32_t>(std::clamp(v, static_cast<double>(lowest), static_cast<double>(highest)));
}

// Block `b` of output rows [y_begin, y_end) of one image, each input row
// transformed once into the ring of kernel_h slots in `scratch`.
void run_block_rows(const Call& call, const Block& b, const uint8_t* packed, const uint8_t* in, uint8_t* out,
                    int64_t image, int64_t y_begin, int64_t y_end, uint8_t* scratch) {
  const DepthwiseInt8& c = *call.c;
  const OutputRow row_of = b.width == 64   ? output_row_for<64>(c, call.groups)
                           : b.width == 32 ? output_row_for<32>(c, call.groups)
                                           : output_row_for<16>(c, call.groups);
  const TransformRow transform = b.width == 64   ? transform_row_entry<64>
                                 : b.width == 32 ? transform_row_entry<32>
                                                 : transform_row_entry<16>;
  if (row_of == nullptr) return;  // refused by depthwise_int8_refusal
  const size_t slot_bytes = static_cast<size_t>(call.columns * 4 * b.width);
  const uint8_t* image_in = in + image * c.in_h * c.in_w * c.channels;
  uint8_t* image_out = out + image * c.out_h * c.out_w * c.channels;
  int64_t held[7] = {-1, -1, -1, -1, -1, -1, -1};  // the padded row in each ring slot
  for (int64_t y = y_begin; y < y_end; ++y) {
    const uint8_t* rows[7];
    for (int64_t r = 0; r < c.kernel_h; ++r) {
      const int64_t row = y * c.stride_h + r, slot = row % c.kernel_h;
      uint8_t* slot_data = scratch + static_cast<size_t>(slot) * slot_bytes;
      if (held[slot] != row) {
        transform(call, image_in, b, row, slot_data);
        held[slot] = row;
      }
      rows[r] = slot_data;
    }
    row_of(call, b, packed + b.offset, rows, image_out + y * c.out_w * c.channels);
  }
}

}  // namespace

void run_depthwise_int8(const DepthwiseInt8& c, const uint8_t* packed, const void* src, void* dst, int64_t first,
                        int64_t last, uint8_t* scratch) {
  const int32_t lowest = c.dst_signed ? -128 : 0, highest = c.dst_signed ? 127 : 255;
  const Call call{&c,
                  tap_groups(c),
                  transformed_columns(c),
                  4 % c.stride_w == 0 ? c.stride_w : 1,
                  c.low > -std::numeric_limits<float>::infinity() ? grid_bound(c, c.low, lowest, highest) : lowest,
                  c.high < std::numeric_limits<float>::infinity() ? grid_bound(c, c.high, lowest, highest) : highest};
  const int64_t blocks = channel_blocks(c);
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  // Items are ordered by image, row and block; a thread runs each block of
  // an image over the rows its items cover, reading the input rows it
  // transforms once per block.
  const int64_t image_items = c.out_h * blocks;
  for (int64_t image = first / image_items; image * image_items < last; ++image) {
    const int64_t begin = std::max(first - image * image_items, int64_t{0});
    const int64_t end = std::min(last - image * image_items, image_items);
    for (int64_t block = 0; block < blocks; ++block) {
      // The rows y with begin <= y * blocks + block < end.
      const int64_t y_begin = begin > block ? (begin - block + blocks - 1) / blocks : 0;
      const int64_t y_end = end > block ? (end - block + blocks - 1) / blocks : 0;
      if (y_begin < y_end) run_block_rows(call, block_of(c, block), packed, in, out, image, y_begin, y_end, scratch);
    }
  }
}
#else

void run_depthwise_int8(const DepthwiseInt8&, const uint8_t*, const void*, void*, int64_t, int64_t, uint8_t*) {}

#endif

}  // namespace kiln::backends::onednn
