// Straightforward float reference implementations (PyTorch's semantics, in
// double accumulation) that the oneDNN runtime's results are compared with.
// Tensors are row-major std::vectors with their sizes beside them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::backends::onednn::testing::reference {

using Sizes = std::vector<int64_t>;
using Floats = std::vector<float>;

inline Sizes strides_of(const Sizes& sizes) {
  Sizes s(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) s[i - 1] = s[i] * sizes[i];
  return s;
}

inline int64_t count(const Sizes& sizes) {
  int64_t n = 1;
  for (int64_t v : sizes) n *= v;
  return n;
}

/// Calls f(index) for every multi-index of `sizes`, in row-major order.
inline void for_each_index(const Sizes& sizes, const std::function<void(const Sizes&)>& f) {
  Sizes index(sizes.size(), 0);
  for (int64_t flat = 0; flat < count(sizes); ++flat) {
    f(index);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

struct Conv2dParams {
  int64_t stride_h = 1, stride_w = 1, pad_t = 0, pad_l = 0, pad_b = 0, pad_r = 0, dil_h = 1, dil_w = 1, groups = 1;
};

/// x (N, C, H, W), w (O, C/g, kH, kW), bias (O) or empty → (N, O, OH, OW).
inline Floats conv2d(const Floats& x, const Sizes& xs, const Floats& w, const Sizes& ws, const Floats& bias,
                     const Conv2dParams& p, Sizes* out_sizes) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], O = ws[0], KH = ws[2], KW = ws[3];
  const int64_t cg = C / p.groups, og = O / p.groups;
  const int64_t OH = (H + p.pad_t + p.pad_b - p.dil_h * (KH - 1) - 1) / p.stride_h + 1;
  const int64_t OW = (W + p.pad_l + p.pad_r - p.dil_w * (KW - 1) - 1) / p.stride_w + 1;
  *out_sizes = {N, O, OH, OW};
  Floats y(static_cast<size_t>(N * O * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = bias.empty() ? 0.0 : bias[static_cast<size_t>(o)];
          const int64_t g = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * p.stride_h - p.pad_t + kh * p.dil_h;
                const int64_t iw = ow * p.stride_w - p.pad_l + kw * p.dil_w;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += double(x[static_cast<size_t>(((n * C + g * cg + c) * H + ih) * W + iw)]) *
                       w[static_cast<size_t>(((o * cg + c) * KH + kh) * KW + kw)];
              }
          y[static_cast<size_t>(((n * O + o) * OH + oh) * OW + ow)] = static_cast<float>(acc);
        }
  return y;
}

/// PyTorch's conv_transpose2d: x (N, C, H, W), w (C, O/g, kH, kW), padding
/// symmetric (pad_t, pad_l), output_padding (op_h, op_w) added at the end.
inline Floats conv_transpose2d(const Floats& x, const Sizes& xs, const Floats& w, const Sizes& ws, const Floats& bias,
                               const Conv2dParams& p, int64_t op_h, int64_t op_w, Sizes* out_sizes) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], KH = ws[2], KW = ws[3];
  const int64_t og = ws[1], cg = C / p.groups, O = og * p.groups;
  const int64_t OH = (H - 1) * p.stride_h - 2 * p.pad_t + p.dil_h * (KH - 1) + op_h + 1;
  const int64_t OW = (W - 1) * p.stride_w - 2 * p.pad_l + p.dil_w * (KW - 1) + op_w + 1;
  *out_sizes = {N, O, OH, OW};
  std::vector<double> acc(static_cast<size_t>(N * O * OH * OW), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t ww = 0; ww < W; ++ww) {
          const int64_t g = c / cg;
          for (int64_t o = 0; o < og; ++o)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t oh = h * p.stride_h - p.pad_t + kh * p.dil_h;
                const int64_t ow = ww * p.stride_w - p.pad_l + kw * p.dil_w;
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                acc[static_cast<size_t>(((n * O + g * og + o) * OH + oh) * OW + ow)] +=
                    double(x[static_cast<size_t>(((n * C + c) * H + h) * W + ww)]) *
                    w[static_cast<size_t>(((c * og + o) * KH + kh) * KW + kw)];
              }
        }
  Floats y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t o = (static_cast<int64_t>(i) / (OH * OW)) % O;
    y[i] = static_cast<float>(acc[i] + (bias.empty() ? 0.0 : bias[static_cast<size_t>(o)]));
  }
  return y;
}

/// Numpy broadcasting of `sizes` to `to` (right-aligned): the flat index in
/// the source of a destination multi-index.
inline int64_t broadcast_offset(const Sizes& sizes, const Sizes& to, const Sizes& index) {
  const Sizes strides = strides_of(sizes);
  int64_t offset = 0;
  const size_t shift = to.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) offset += (sizes[d] == 1 ? 0 : index[d + shift]) * strides[d];
  return offset;
}

/// a (..., M, K) @ b (..., K, N) [b stored (..., N, K) when transpose_b],
/// batch dims broadcast, + bias broadcast to the result.
inline Floats matmul(const Floats& a, const Sizes& as, const Floats& b, const Sizes& bs, bool transpose_b,
                     const Floats& bias, const Sizes& bias_sizes, const Sizes& out_sizes) {
  const size_t r = out_sizes.size();
  const int64_t M = out_sizes[r - 2], N = out_sizes[r - 1], K = as.back();
  Floats y(static_cast<size_t>(count(out_sizes)));
  for_each_index(out_sizes, [&](const Sizes& idx) {
    const int64_t m = idx[r - 2], n = idx[r - 1];
    Sizes ai = idx, bi = idx;
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      ai[r - 2] = m;
      ai[r - 1] = k;
      bi[r - 2] = transpose_b ? n : k;
      bi[r - 1] = transpose_b ? k : n;
      Sizes a_full = as, b_full = bs;
      // batch broadcast: size-1 dims of the operand read index 0
      acc += double(a[static_cast<size_t>(broadcast_offset(as, out_sizes, ai))]) *
             b[static_cast<size_t>(broadcast_offset(bs, out_sizes, bi))];
    }
    if (!bias.empty()) acc += bias[static_cast<size_t>(broadcast_offset(bias_sizes, out_sizes, idx))];
    const Sizes strides = strides_of(out_sizes);
    int64_t flat = 0;
    for (size_t d = 0; d < r; ++d) flat += idx[d] * strides[d];
    y[static_cast<size_t>(flat)] = static_cast<float>(acc);
    (void)M;
    (void)N;
  });
  return y;
}

/// Elementwise a op b with numpy broadcasting to `out_sizes`.
inline Floats binary(const Floats& a, const Sizes& as, const Floats& b, const Sizes& bs, const Sizes& out_sizes,
                     const std::function<float(float, float)>& op) {
  Floats y;
  y.reserve(static_cast<size_t>(count(out_sizes)));
  for_each_index(out_sizes, [&](const Sizes& idx) {
    y.push_back(op(a[static_cast<size_t>(broadcast_offset(as, out_sizes, idx))],
                   b[static_cast<size_t>(broadcast_offset(bs, out_sizes, idx))]));
  });
  return y;
}

inline Floats map(Floats x, const std::function<float(float)>& f) {
  for (float& v : x) v = f(v);
  return x;
}

/// Softmax (or log-softmax) along `axis`.
inline Floats softmax(const Floats& x, const Sizes& sizes, int axis, bool log) {
  Floats y(x.size());
  const Sizes strides = strides_of(sizes);
  Sizes outer = sizes;
  outer[static_cast<size_t>(axis)] = 1;
  const int64_t n = sizes[static_cast<size_t>(axis)], step = strides[static_cast<size_t>(axis)];
  for_each_index(outer, [&](const Sizes& idx) {
    int64_t base = 0;
    for (size_t d = 0; d < sizes.size(); ++d) base += idx[d] * strides[d];
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; ++i) mx = std::max(mx, double(x[static_cast<size_t>(base + i * step)]));
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(x[static_cast<size_t>(base + i * step)]) - mx);
    for (int64_t i = 0; i < n; ++i) {
      const double v = double(x[static_cast<size_t>(base + i * step)]) - mx;
      y[static_cast<size_t>(base + i * step)] = static_cast<float>(log ? v - std::log(sum) : std::exp(v) / sum);
    }
  });
  return y;
}

/// Layer norm over the last `k` dims with weight/bias of their product (or empty).
inline Floats layer_norm(const Floats& x, const Sizes& sizes, size_t k, const Floats& weight, const Floats& bias,
                         float eps) {
  int64_t c = 1;
  for (size_t d = sizes.size() - k; d < sizes.size(); ++d) c *= sizes[d];
  Floats y(x.size());
  for (size_t row = 0; row < x.size() / static_cast<size_t>(c); ++row) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; ++i) mean += x[row * c + i];
    mean /= double(c);
    for (int64_t i = 0; i < c; ++i) var += (x[row * c + i] - mean) * (x[row * c + i] - mean);
    var /= double(c);
    for (int64_t i = 0; i < c; ++i) {
      double v = (x[row * c + i] - mean) / std::sqrt(var + eps);
      if (!weight.empty()) v *= weight[static_cast<size_t>(i)];
      if (!bias.empty()) v += bias[static_cast<size_t>(i)];
      y[row * c + i] = static_cast<float>(v);
    }
  }
  return y;
}

/// Inference batch norm over dim 1.
inline Floats batch_norm(const Floats& x, const Sizes& sizes, const Floats& mean, const Floats& var,
                         const Floats& weight, const Floats& bias, float eps) {
  Floats y(x.size());
  const int64_t C = sizes[1], inner = count(sizes) / (sizes[0] * C);
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % C);
    double v = (x[i] - mean[c]) / std::sqrt(double(var[c]) + eps);
    if (!weight.empty()) v *= weight[c];
    if (!bias.empty()) v += bias[c];
    y[i] = static_cast<float>(v);
  }
  return y;
}

enum class Pool { Max, AvgInclude, AvgExclude };

/// 2-D pooling of (N, C, H, W) into out_sizes with kernel, stride, padding (t, l).
inline Floats pool2d(const Floats& x, const Sizes& xs, const Sizes& out_sizes, int64_t kh, int64_t kw, int64_t sh,
                     int64_t sw, int64_t pt, int64_t pl, int64_t pb, int64_t pr, Pool kind) {
  const int64_t H = xs[2], W = xs[3];
  Floats y;
  for_each_index(out_sizes, [&](const Sizes& idx) {
    double acc = kind == Pool::Max ? -INFINITY : 0.0;
    int64_t inside = 0;
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        const int64_t h = idx[2] * sh - pt + i, w = idx[3] * sw - pl + j;
        if (h < 0 || h >= H || w < 0 || w >= W) continue;
        const double v = x[static_cast<size_t>(((idx[0] * xs[1] + idx[1]) * H + h) * W + w)];
        acc = kind == Pool::Max ? std::max(acc, v) : acc + v;
        ++inside;
      }
    if (kind == Pool::AvgExclude) acc /= double(inside);
    if (kind == Pool::AvgInclude) {
      // PyTorch counts the padded window, clipped to the padded input.
      const int64_t h0 = idx[2] * sh - pt, w0 = idx[3] * sw - pl;
      const int64_t h1 = std::min(h0 + kh, H + pb), w1 = std::min(w0 + kw, W + pr);
      acc /= double((h1 - h0) * (w1 - w0));
    }
    y.push_back(static_cast<float>(acc));
  });
  return y;
}

/// Mean over the dims where out_sizes is 1 and sizes is not (keepdim).
inline Floats reduce_mean(const Floats& x, const Sizes& sizes, const Sizes& out_sizes) {
  std::vector<double> acc(static_cast<size_t>(count(out_sizes)), 0.0);
  const Sizes out_strides = strides_of(out_sizes);
  int64_t flat = 0;
  for_each_index(sizes, [&](const Sizes& idx) {
    int64_t o = 0;
    for (size_t d = 0; d < sizes.size(); ++d) o += (out_sizes[d] == 1 ? 0 : idx[d]) * out_strides[d];
    acc[static_cast<size_t>(o)] += x[static_cast<size_t>(flat++)];
  });
  const double n = double(count(sizes)) / double(count(out_sizes));
  Floats y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<float>(acc[i] / n);
  return y;
}

/// upsample_nearest2d / upsample_bilinear2d (align_corners=False) of (N, C, H, W).
inline Floats upsample(const Floats& x, const Sizes& xs, const Sizes& out_sizes, bool bilinear) {
  const int64_t H = xs[2], W = xs[3], OH = out_sizes[2], OW = out_sizes[3];
  const double sh = double(H) / double(OH), sw = double(W) / double(OW);
  Floats y;
  for_each_index(out_sizes, [&](const Sizes& idx) {
    const float* plane = x.data() + (idx[0] * xs[1] + idx[1]) * H * W;
    if (!bilinear) {
      const int64_t h = std::min(static_cast<int64_t>(std::floor(idx[2] * sh)), H - 1);
      const int64_t w = std::min(static_cast<int64_t>(std::floor(idx[3] * sw)), W - 1);
      y.push_back(plane[h * W + w]);
      return;
    }
    const double fh = std::max(0.0, (idx[2] + 0.5) * sh - 0.5), fw = std::max(0.0, (idx[3] + 0.5) * sw - 0.5);
    const int64_t h0 = static_cast<int64_t>(fh), w0 = static_cast<int64_t>(fw);
    const int64_t h1 = std::min(h0 + 1, H - 1), w1 = std::min(w0 + 1, W - 1);
    const double lh = fh - h0, lw = fw - w0;
    y.push_back(static_cast<float>((1 - lh) * ((1 - lw) * plane[h0 * W + w0] + lw * plane[h0 * W + w1]) +
                                   lh * ((1 - lw) * plane[h1 * W + w0] + lw * plane[h1 * W + w1])));
  });
  return y;
}

/// dst dim i = src dim perm[i].
inline Floats permute(const Floats& x, const Sizes& sizes, const Sizes& perm) {
  Sizes out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = sizes[static_cast<size_t>(perm[i])];
  const Sizes strides = strides_of(sizes);
  Floats y;
  for_each_index(out, [&](const Sizes& idx) {
    int64_t o = 0;
    for (size_t i = 0; i < perm.size(); ++i) o += idx[i] * strides[static_cast<size_t>(perm[i])];
    y.push_back(x[static_cast<size_t>(o)]);
  });
  return y;
}

/// constant_pad_nd with before/after per dim (negative crops).
inline Floats pad(const Floats& x, const Sizes& sizes, const Sizes& before, const Sizes& after, float value) {
  Sizes out(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) out[d] = sizes[d] + before[d] + after[d];
  const Sizes strides = strides_of(sizes);
  Floats y;
  for_each_index(out, [&](const Sizes& idx) {
    int64_t o = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const int64_t i = idx[d] - before[d];
      if (i < 0 || i >= sizes[d]) {
        o = -1;
        break;
      }
      o += i * strides[d];
    }
    y.push_back(o < 0 ? value : x[static_cast<size_t>(o)]);
  });
  return y;
}

/// Concatenation along `axis`.
inline Floats concat(const std::vector<Floats>& xs, const std::vector<Sizes>& sizes, int axis) {
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= sizes[0][static_cast<size_t>(d)];
  Floats y;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t t = 0; t < xs.size(); ++t) {
      const int64_t chunk = count(sizes[t]) / outer;
      y.insert(y.end(), xs[t].begin() + o * chunk, xs[t].begin() + (o + 1) * chunk);
    }
  return y;
}

}  // namespace kiln::backends::onednn::testing::reference
