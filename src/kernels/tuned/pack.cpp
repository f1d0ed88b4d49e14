// Checks a linear layer's description and packs its weights (at lowering
// time, on the host; runtime rules all the same: no exceptions, no
// allocation). The layout is described in linear.h and computed in one place,
// weight_layout.
#include <cstring>

#include "kernels/tuned/layout.h"
#include "kernels/tuned/linear.h"
#include "runtime/core/log.h"

namespace kiln::kernels::tuned {

using runtime::Error;

namespace {

// Past this the kInt8PerToken sums of a group might leave int32.
constexpr int64_t kMaxIntegerGroup = 32768;
// Keeps every size and offset far from int64's end.
constexpr int64_t kMaxDim = int64_t{1} << 30;

const char* format_name(WeightFormat format) {
  return format == WeightFormat::kF32 ? "f32" : format == WeightFormat::kQ8 ? "q8" : "q4";
}

bool quantized(WeightFormat format) { return format != WeightFormat::kF32; }

}  // namespace

Error check_linear(const LinearDesc& d) {
  KILN_CHECK_OR_LOG_RETURN(d.n > 0 && d.n <= kMaxDim && d.k > 0 && d.k <= kMaxDim, InvalidArgument,
                           "linear: n = %lld and k = %lld must be in [1, 2^30]", static_cast<long long>(d.n),
                           static_cast<long long>(d.k));
  KILN_CHECK_OR_LOG_RETURN(d.format == WeightFormat::kF32 || d.format == WeightFormat::kQ8 ||
                               d.format == WeightFormat::kQ4,
                           InvalidArgument, "linear: unknown weight format %d", static_cast<int>(d.format));
  if (!quantized(d.format)) {
    KILN_CHECK_OR_LOG_RETURN(!d.zero_points, InvalidArgument, "linear: f32 weights have no zero points");
    return Error::Ok;
  }
  KILN_CHECK_OR_LOG_RETURN(d.group_size == d.k || (d.group_size > 0 && d.group_size % detail::kKAlign == 0),
                           InvalidArgument,
                           "linear: %s group size %lld must be k (%lld, one scale per row) or a multiple of 32",
                           format_name(d.format), static_cast<long long>(d.group_size),
                           static_cast<long long>(d.k));
  return Error::Ok;
}

Error check_linear_mode(const LinearDesc& d, ActivationMode mode) {
  if (Error e = check_linear(d); e != Error::Ok) return e;
  if (mode == ActivationMode::kFloat) return Error::Ok;
  KILN_CHECK_OR_LOG_RETURN(mode == ActivationMode::kInt8PerToken || mode == ActivationMode::kInt8Block32,
                           NotSupported, "linear: unknown activation mode %d", static_cast<int>(mode));
  KILN_CHECK_OR_LOG_RETURN(quantized(d.format), NotSupported,
                           "linear: f32 weights take float activations only, not int8 ones");
  const detail::WeightLayout w = detail::weight_layout(d);
  KILN_CHECK_OR_LOG_RETURN(mode != ActivationMode::kInt8PerToken || w.group <= kMaxIntegerGroup, NotSupported,
                           "linear: groups of %lld k with int8 activations could overflow int32 (at most %lld)",
                           static_cast<long long>(w.group), static_cast<long long>(kMaxIntegerGroup));
  return Error::Ok;
}

int64_t linear_panels(const LinearDesc& desc) { return detail::ceil_div(desc.n, kPanelRows); }

size_t packed_linear_bytes(const LinearDesc& desc) {
  if (check_linear(desc) != Error::Ok) return 0;
  const detail::WeightLayout w = detail::weight_layout(desc);
  return static_cast<size_t>(w.panels * w.panel_bytes);
}

namespace detail {

WeightLayout weight_layout(const LinearDesc& d) {
  WeightLayout w;
  w.format = d.format;
  w.n = d.n;
  w.k = d.k;
  w.panels = linear_panels(d);
  if (d.format == WeightFormat::kF32) {
    w.kpad = w.group = d.k;
    w.panel_bytes = d.k * kBlockBytes;
    return w;
  }
  w.kpad = round_up(d.k, kKAlign);
  w.group = d.group_size >= d.k ? w.kpad : d.group_size;
  w.groups = ceil_div(w.kpad, w.group);
  w.zero_points = d.zero_points;
  w.group_header_bytes = kScaleBytes + (d.zero_points ? kZeroPointBytes : 0);
  w.panel_header_bytes = kScaleBytes;
  w.panel_bytes = w.panel_header_bytes + w.groups * w.group_header_bytes +
                  w.kpad / k_per_block(d.format) * kBlockBytes;
  return w;
}

}  // namespace detail

namespace {

// Packs one panel of f32 weights: block k holds the panel's rows at k.
void pack_f32_panel(const detail::WeightLayout& w, const float* weights, int64_t row0, uint8_t* out) {
  auto* dst = reinterpret_cast<float*>(out);
  for (int64_t k = 0; k < w.k; ++k) {
    for (int64_t r = 0; r < kPanelRows; ++r) {
      const int64_t n = row0 + r;
      dst[k * kPanelRows + r] = n < w.n ? weights[n * w.k + k] : 0.0f;
    }
  }
}

// The weight of row n at padded position k as stored: q, or z past k (w = 0).
int8_t stored_q(const detail::WeightLayout& w, const int8_t* q, int64_t n, int64_t k, int8_t z) {
  return k < w.k ? q[n * w.k + k] : z;
}

// Writes the 64-byte block of 16 rows × (4 or 8) k starting at k0.
void pack_quant_block(const detail::WeightLayout& w, const int8_t* q, const int8_t* z_of_row, int64_t row0,
                      int64_t k0, uint8_t* out) {
  for (int64_t r = 0; r < kPanelRows; ++r) {
    const int64_t n = row0 + r;
    uint8_t* dword = out + 4 * r;
    for (int j = 0; j < 4; ++j) {
      if (n >= w.n) {
        dword[j] = 0;
      } else if (w.format == WeightFormat::kQ8) {
        dword[j] = static_cast<uint8_t>(stored_q(w, q, n, k0 + j, z_of_row[r]));
      } else {
        const auto lo = static_cast<uint8_t>(stored_q(w, q, n, k0 + j, z_of_row[r]) & 0x0F);
        const auto hi = static_cast<uint8_t>(stored_q(w, q, n, k0 + 4 + j, z_of_row[r]) & 0x0F);
        dword[j] = static_cast<uint8_t>(lo | (hi << 4));
      }
    }
  }
}

void pack_quant_panel(const detail::WeightLayout& w, const int8_t* q, const float* scales, const int8_t* zps,
                      int64_t row0, uint8_t* out) {
  double row_constant[kPanelRows] = {};
  uint8_t* p = out + w.panel_header_bytes;
  for (int64_t g = 0; g < w.groups; ++g) {
    float s[kPanelRows] = {};
    int8_t z[kPanelRows] = {};
    for (int64_t r = 0; r < kPanelRows && row0 + r < w.n; ++r) {
      s[r] = scales[(row0 + r) * w.groups + g];
      z[r] = zps != nullptr ? zps[(row0 + r) * w.groups + g] : 0;
    }
    std::memcpy(p, s, sizeof s);
    p += detail::kScaleBytes;
    if (w.zero_points) {
      std::memcpy(p, z, sizeof z);
      p += detail::kZeroPointBytes;
    }
    const int64_t k_begin = g * w.group, k_end = k_begin + w.group_k(g);
    for (int64_t k0 = k_begin; k0 < k_end; k0 += detail::k_per_block(w.format)) {
      pack_quant_block(w, q, z, row0, k0, p);
      p += detail::kBlockBytes;
    }
    for (int64_t r = 0; r < kPanelRows && row0 + r < w.n; ++r) {
      int64_t sum = 0;
      for (int64_t k = k_begin; k < k_end && k < w.k; ++k) sum += q[(row0 + r) * w.k + k] - z[r];
      row_constant[r] += static_cast<double>(s[r]) * static_cast<double>(sum);
    }
  }
  float header[kPanelRows];
  for (int64_t r = 0; r < kPanelRows; ++r) header[r] = static_cast<float>(row_constant[r]);
  std::memcpy(out, header, sizeof header);
}

Error check_quant_values(const LinearDesc& d, const int8_t* q, const int8_t* zps, int64_t groups) {
  if (d.format != WeightFormat::kQ4) return Error::Ok;
  for (int64_t i = 0; i < d.n * d.k; ++i) {
    KILN_CHECK_OR_LOG_RETURN(q[i] >= -8 && q[i] <= 7, InvalidArgument,
                             "pack_linear: q4 weight [%lld, %lld] = %d is outside [-8, 7]",
                             static_cast<long long>(i / d.k), static_cast<long long>(i % d.k), q[i]);
  }
  for (int64_t i = 0; zps != nullptr && i < d.n * groups; ++i) {
    KILN_CHECK_OR_LOG_RETURN(zps[i] >= -8 && zps[i] <= 7, InvalidArgument,
                             "pack_linear: q4 zero point [%lld, %lld] = %d is outside [-8, 7]",
                             static_cast<long long>(i / groups), static_cast<long long>(i % groups), zps[i]);
  }
  return Error::Ok;
}

}  // namespace

Error pack_linear(const LinearDesc& desc, const void* weights, const float* scales, const int8_t* zero_points,
                  runtime::Span<uint8_t> out) {
  if (Error e = check_linear(desc); e != Error::Ok) return e;
  const detail::WeightLayout w = detail::weight_layout(desc);
  const auto bytes = static_cast<size_t>(w.panels * w.panel_bytes);
  KILN_CHECK_OR_LOG_RETURN(out.data() != nullptr && out.size() >= bytes, InvalidArgument,
                           "pack_linear: the output holds %zu bytes, the packed weights need %zu", out.size(),
                           bytes);
  KILN_CHECK_OR_LOG_RETURN(weights != nullptr, InvalidArgument, "pack_linear: no weights");
  if (desc.format == WeightFormat::kF32) {
    for (int64_t p = 0; p < w.panels; ++p) {
      pack_f32_panel(w, static_cast<const float*>(weights), p * kPanelRows, out.data() + p * w.panel_bytes);
    }
    return Error::Ok;
  }
  KILN_CHECK_OR_LOG_RETURN(scales != nullptr, InvalidArgument, "pack_linear: %s weights need scales",
                           format_name(desc.format));
  KILN_CHECK_OR_LOG_RETURN((zero_points != nullptr) == desc.zero_points, InvalidArgument,
                           "pack_linear: the description says %s zero points, the call %s them",
                           desc.zero_points ? "with" : "without", zero_points != nullptr ? "gives" : "does not give");
  const auto* q = static_cast<const int8_t*>(weights);
  if (Error e = check_quant_values(desc, q, zero_points, w.groups); e != Error::Ok) return e;
  for (int64_t p = 0; p < w.panels; ++p) {
    pack_quant_panel(w, q, scales, zero_points, p * kPanelRows, out.data() + p * w.panel_bytes);
  }
  return Error::Ok;
}

}  // namespace kiln::kernels::tuned
