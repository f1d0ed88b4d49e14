// The portable path: plain C++ over the packed layout, one output at a time.
// It is the reference every SIMD path is tested against. For the int8
// activation modes it defines the exact result (simd_linear.h computes the
// same int32 sums and rounds the float steps identically, fused where
// std::fma is written here); with float activations the paths differ only
// in the order of the float sums.
#include <cmath>
#include <cstring>

#include "kernels/tuned/layout.h"
#include "kernels/tuned/paths.h"

namespace kiln::kernels::tuned::detail {

namespace {

// Row r's weight at k0 + j of a quantized block (q, before the zero point).
int32_t block_q(WeightFormat format, const uint8_t* block, int64_t r, int64_t j) {
  if (format == WeightFormat::kQ8) return static_cast<int8_t>(block[4 * r + j]);
  const uint8_t byte = block[4 * r + (j & 3)];
  const int nibble = j < 4 ? byte & 0x0F : byte >> 4;
  return nibble >= 8 ? nibble - 16 : nibble;
}

struct Group {
  const float* s;
  const int8_t* z;  // null without zero points
  const uint8_t* blocks;
};

// The groups of a panel, in order.
template <typename Fn>
void for_each_group(const WeightLayout& w, const uint8_t* panel, Fn&& fn) {
  const uint8_t* p = panel + w.panel_header_bytes;
  for (int64_t g = 0; g < w.groups; ++g) {
    Group group{reinterpret_cast<const float*>(p), nullptr, nullptr};
    p += kScaleBytes;
    if (w.zero_points) {
      group.z = reinterpret_cast<const int8_t*>(p);
      p += kZeroPointBytes;
    }
    group.blocks = p;
    fn(g, group);
    p += w.group_blocks(g) * kBlockBytes;
  }
}

int32_t zero_of(const Group& group, int64_t r) { return group.z != nullptr ? group.z[r] : 0; }

float float_row(const WeightLayout& w, const uint8_t* panel, int64_t r, const float* x, const float* xsum) {
  if (w.format == WeightFormat::kF32) {
    const auto* blk = reinterpret_cast<const float*>(panel);
    float acc = 0.0f;
    for (int64_t k = 0; k < w.k; ++k) acc = std::fma(blk[k * kPanelRows + r], x[k], acc);
    return acc;
  }
  const int64_t kpb = k_per_block(w.format);
  float y = 0.0f;
  for_each_group(w, panel, [&](int64_t g, const Group& group) {
    float part = 0.0f;
    for (int64_t b = 0; b < w.group_blocks(g); ++b) {
      const uint8_t* block = group.blocks + b * kBlockBytes;
      const int64_t k0 = g * w.group + b * kpb;
      for (int64_t j = 0; j < kpb; ++j) part = std::fma(static_cast<float>(block_q(w.format, block, r, j)), x[k0 + j], part);
    }
    if (group.z != nullptr) part = std::fma(-static_cast<float>(group.z[r]), xsum[g], part);
    y = std::fma(part, group.s[r], y);
  });
  return y;
}

// Σ_{k in [k0, k0 + count)} x_q (q - z), exactly.
int32_t exact_dot(const WeightLayout& w, const uint8_t* blocks, int64_t r, const int8_t* xq, int64_t k0,
                  int64_t count, int32_t z) {
  const int64_t kpb = k_per_block(w.format);
  int32_t sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* block = blocks + (i / kpb) * kBlockBytes;
    sum += static_cast<int32_t>(xq[k0 + i]) * (block_q(w.format, block, r, i % kpb) - z);
  }
  return sum;
}

float per_token_row(const WeightLayout& w, const uint8_t* panel, int64_t r, const Prepared& x, int64_t m,
                    float bias) {
  const int8_t* xq = x.xq + m * x.xq_stride;
  float y = 0.0f;
  for_each_group(w, panel, [&](int64_t g, const Group& group) {
    const int32_t t = exact_dot(w, group.blocks, r, xq, g * w.group, w.group_k(g), zero_of(group, r));
    y = std::fma(static_cast<float>(t), group.s[r], y);
  });
  const float sx = x.sx[m];
  const float zterm = -(sx * static_cast<float>(x.zx[m]));
  const float row_constant = reinterpret_cast<const float*>(panel)[r];
  return std::fma(y, sx, std::fma(row_constant, zterm, bias));
}

float block32_row(const WeightLayout& w, const uint8_t* panel, int64_t r, const Prepared& x, int64_t m,
                  float bias) {
  const int8_t* xq = x.xq + m * x.xq_stride;
  const int64_t blocks_per_32 = kKAlign / k_per_block(w.format);
  float y = 0.0f;
  for_each_group(w, panel, [&](int64_t g, const Group& group) {
    float ag = 0.0f;
    for (int64_t span = 0; span < w.group_k(g) / kKAlign; ++span) {
      const int64_t k0 = g * w.group + span * kKAlign, block = k0 / kKAlign;
      const int32_t t = exact_dot(w, group.blocks + span * blocks_per_32 * kBlockBytes, r, xq, k0, kKAlign,
                                  zero_of(group, r));
      ag = std::fma(static_cast<float>(t), x.dscale[m * x.xsum_stride + block], ag);
    }
    y = std::fma(ag, group.s[r], y);
  });
  return y + bias;
}

}  // namespace

void portable_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
  for (int64_t panel = p0; panel < p1; ++panel) {
    const uint8_t* data = a.packed + panel * w.panel_bytes;
    for (int64_t r = 0; r < kPanelRows && panel * kPanelRows + r < w.n; ++r) {
      const int64_t n = panel * kPanelRows + r;
      const float bias = a.bias != nullptr ? a.bias[n] : 0.0f;
      for (int64_t m = 0; m < a.m; ++m) {
        float out = 0.0f;
        if (a.mode == ActivationMode::kFloat) {
          const float* xsum = x.xsumf != nullptr ? x.xsumf + m * x.xsum_stride : nullptr;
          out = float_row(w, data, r, x.xf + m * x.xf_stride, xsum) + bias;
        } else if (a.mode == ActivationMode::kInt8PerToken) {
          out = per_token_row(w, data, r, x, m, bias);
        } else {
          out = block32_row(w, data, r, x, m, bias);
        }
        a.y[m * a.y_stride + n] = out;
      }
    }
  }
}

}  // namespace kiln::kernels::tuned::detail
