// convolution: direct (im2col-free) 1-D, 2-D and 3-D convolution and 1-D and
// 2-D transposed convolution, NC(D)HW. A 1-D convolution is a 2-D one of
// height 1, a 2-D one a 3-D one of depth 1: each output plane sums the 2-D
// convolutions of the input planes its kernel depth reaches.
//
// Forward: each output row is cut into tiles of a few output channels by a
// few SIMD vectors of columns; a tile's accumulators stay in registers while
// every (input channel, kernel tap) of the group is added in, so each loaded
// input vector serves all the tile's channels. Tiles cover the columns whose
// whole window lies inside the input (a last tile overlapping its neighbour
// rather than a narrower one); the few border columns that reach into the
// padding are summed one by one. Depthwise convolutions (one input channel
// per group, a reduction of only the kernel's taps) use single-channel tiles
// four times as wide.
//
// Transposed: each input element is scattered into the output plane, one
// (input channel, kernel tap) at a time along contiguous input rows, taps
// clipped to the output instead of testing every element. With a horizontal
// stride the rows are accumulated in phase order, so that the scatter stays
// contiguous, and reordered once at the end.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

constexpr const char* kOp = "aten::convolution.out";

struct ConvGeometry {
  bool transposed = false;
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t in_d = 1, in_h = 1, in_w = 0, k_d = 1, k_h = 1, k_w = 0, out_d = 1, out_h = 1, out_w = 0;
  int64_t stride_d = 1, stride_h = 1, stride_w = 1, pad_d = 0, pad_h = 0, pad_w = 0;
  int64_t dilation_d = 1, dilation_h = 1, dilation_w = 1;
  int64_t out_pad_h = 0, out_pad_w = 0;

  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
};

// ceil(a / b) for b > 0 and any a.
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The positions o in [0, count) whose target o * stride + offset lies in
// [0, limit), as [*lo, *hi).
void valid_range(int64_t offset, int64_t stride, int64_t limit, int64_t count, int64_t* lo, int64_t* hi) {
  *lo = std::min(count, offset >= 0 ? 0 : ceil_div(-offset, stride));
  *hi = limit - 1 - offset < 0 ? 0 : std::min(count, (limit - 1 - offset) / stride + 1);
  *hi = std::max(*hi, *lo);
}

// The kernel taps k in [0, taps) whose input position origin + k * dilation
// lies in [0, limit), as [*lo, *hi); a scan, as kernels are short and this
// runs per output row and per border column, where a division would cost more.
inline void tap_range(int64_t origin, int64_t dilation, int64_t limit, int64_t taps, int64_t* lo, int64_t* hi) {
  int64_t l = 0, h = taps;
  while (l < h && origin + l * dilation < 0) ++l;
  while (h > l && origin + (h - 1) * dilation >= limit) --h;
  *lo = l;
  *hi = h;
}

// A short SIMD vector through the GCC/Clang vector extension (one lane
// elsewhere). The compilers keep a tile of explicit vectors in registers; a
// tile written as plain arrays and loops ends up in memory.
#if defined(__GNUC__) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define KILN_CONV_VECTORS 1
#endif
#endif
#if defined(KILN_CONV_VECTORS)
// Tiles get their own registers rather than the caller's leftovers.
#define KILN_CONV_TILE __attribute__((noinline))
template <typename T>
struct Lanes {
  static constexpr int kCount = 16 / sizeof(T);
  typedef T Vec __attribute__((vector_size(16)));
  static Vec load(const T* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static Vec splat(T x) {
    if constexpr (kCount == 4) {
      return Vec{x, x, x, x};
    } else {
      return Vec{x, x};
    }
  }
  // p[0], p[2], ... from two loads, reading no further than the last one.
  static Vec load_even(const T* p) {
    const Vec a = load(p), b = load(p + kCount - 1);
    if constexpr (kCount == 4) {
      return __builtin_shufflevector(a, b, 0, 2, 5, 7);
    } else {
      return __builtin_shufflevector(a, b, 0, 3);
    }
  }
  static Vec load_strided(const T* p, int64_t stride) {
    if constexpr (kCount == 4) {
      return Vec{p[0], p[stride], p[2 * stride], p[3 * stride]};
    } else {
      return Vec{p[0], p[stride]};
    }
  }
  static void store(T* p, Vec v) { std::memcpy(p, &v, sizeof v); }
};
#else
#define KILN_CONV_TILE
template <typename T>
struct Lanes {
  static constexpr int kCount = 1;
  using Vec = T;
  static Vec load(const T* p) { return *p; }
  static Vec splat(T x) { return x; }
  static Vec load_even(const T* p) { return *p; }
  static Vec load_strided(const T* p, int64_t) { return *p; }
  static void store(T* p, Vec v) { *p = v; }
};
#endif

// One (batch, group, output depth) of a forward convolution and the output
// channels [oc, oc + kOc) being computed, with the strides the tiles step by.
// The kernel depths [kd_lo, kd_hi) reach input planes id0 + kd * dilation_d.
template <typename T>
struct ForwardBlock {
  const ConvGeometry* g;
  const T* in;      // the group's first input channel
  const T* weight;  // the block's first output channel's weights
  const T* bias;    // the block's first bias, or nullptr
  T* out;           // the block's first output plane
  // Elements per input and per output channel; weights per kernel plane, per
  // input channel and per output channel.
  int64_t in_channel, out_channel, taps, weight_channel, weight_stride;
  int64_t id0, kd_lo, kd_hi;

  // The first element of input row `iy` of input channel `icg` at kernel depth `kd`.
  const T* row(int64_t icg, int64_t kd, int64_t iy) const {
    return in + icg * in_channel + ((id0 + kd * g->dilation_d) * g->in_h + iy) * g->in_w;
  }
  const T* weights(int64_t icg, int64_t kd) const { return weight + icg * weight_channel + kd * taps; }
};

// How a tile reads its input columns: contiguous (stride 1), every other
// one (stride 2) or any stride.
enum class Columns { kUnit, kEven, kStrided };

// Output row `oy`, columns [ox, ox + kVecs * lanes) of kOc channels, over
// the kernel rows [ky_lo, ky_hi) that fall inside the input; every column tap
// of these outputs must lie inside the input.
template <typename T, int kOc, int kVecs, Columns kColumns>
KILN_CONV_TILE void forward_tile(const ForwardBlock<T>& b, int64_t oy, int64_t ky_lo, int64_t ky_hi, int64_t ox) {
  using L = Lanes<T>;
  using Vec = typename L::Vec;
  const ConvGeometry& g = *b.g;
  Vec acc[kOc][kVecs];
#pragma GCC unroll 16
  for (int o = 0; o < kOc; ++o) {
#pragma GCC unroll 16
    for (int v = 0; v < kVecs; ++v) acc[o][v] = L::splat(T(0));
  }
  const int64_t in_per_group = g.in_per_group(), k_w = g.k_w, stride_w = g.stride_w, dilation_w = g.dilation_w;
  const int64_t iy0 = oy * g.stride_h - g.pad_h, ix0 = ox * stride_w - g.pad_w;
  for (int64_t icg = 0; icg < in_per_group; ++icg) {
    for (int64_t kd = b.kd_lo; kd < b.kd_hi; ++kd) {
      for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
        const T* row = b.row(icg, kd, iy0 + ky * g.dilation_h) + ix0;
        const T* w = b.weights(icg, kd) + ky * k_w;
        for (int64_t kx = 0; kx < k_w; ++kx) {
          const T* src = row + kx * dilation_w;
          Vec x[kVecs];
#pragma GCC unroll 16
          for (int v = 0; v < kVecs; ++v) {
            if constexpr (kColumns == Columns::kUnit) {
              x[v] = L::load(src + v * L::kCount);
            } else if constexpr (kColumns == Columns::kEven) {
              x[v] = L::load_even(src + v * L::kCount * 2);
            } else {
              x[v] = L::load_strided(src + v * L::kCount * stride_w, stride_w);
            }
          }
#pragma GCC unroll 16
          for (int o = 0; o < kOc; ++o) {
            const Vec wv = L::splat(w[o * b.weight_stride + kx]);
#pragma GCC unroll 16
            for (int v = 0; v < kVecs; ++v) acc[o][v] += wv * x[v];
          }
        }
      }
    }
  }
  // Bias last, as oneDNN (PyTorch's CPU float conv) adds it.
#pragma GCC unroll 16
  for (int o = 0; o < kOc; ++o) {
    T* dst = b.out + o * b.out_channel + oy * g.out_w + ox;
#pragma GCC unroll 16
    for (int v = 0; v < kVecs; ++v) {
      L::store(dst + v * L::kCount, b.bias != nullptr ? acc[o][v] + L::splat(b.bias[o]) : acc[o][v]);
    }
  }
}

// Output (oy, ox) of kOc channels over the taps inside the input: kernel
// rows [ky_lo, ky_hi) and the columns clipped here.
template <typename T, int kOc>
void forward_point(const ForwardBlock<T>& b, int64_t oy, int64_t ky_lo, int64_t ky_hi, int64_t ox) {
  const ConvGeometry& g = *b.g;
  const int64_t ix0 = ox * g.stride_w - g.pad_w;
  const int64_t iy0 = oy * g.stride_h - g.pad_h;
  int64_t kx_lo, kx_hi;
  tap_range(ix0, g.dilation_w, g.in_w, g.k_w, &kx_lo, &kx_hi);
  T acc[kOc] = {};
  for (int64_t icg = 0; icg < g.in_per_group(); ++icg) {
    for (int64_t kd = b.kd_lo; kd < b.kd_hi; ++kd) {
      for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
        const T* row = b.row(icg, kd, iy0 + ky * g.dilation_h);
        const T* w = b.weights(icg, kd) + ky * g.k_w;
        for (int64_t kx = kx_lo; kx < kx_hi; ++kx) {
          const T x = row[ix0 + kx * g.dilation_w];
          for (int o = 0; o < kOc; ++o) acc[o] += w[o * b.weight_stride + kx] * x;
        }
      }
    }
  }
  for (int o = 0; o < kOc; ++o) {
    b.out[o * b.out_channel + oy * g.out_w + ox] = b.bias != nullptr ? acc[o] + b.bias[o] : acc[o];
  }
}

// Tiles of kVecs vectors from *ox while they end by `end`, inside the input.
template <typename T, int kOc, int kVecs>
void forward_inner_tiles(const ForwardBlock<T>& b, int64_t oy, int64_t ky_lo, int64_t ky_hi, int64_t* ox, int64_t end) {
  constexpr int64_t kWidth = kVecs * Lanes<T>::kCount;
  const int64_t stride = b.g->stride_w;
  for (; *ox + kWidth <= end; *ox += kWidth) {
    if (stride == 1)
      forward_tile<T, kOc, kVecs, Columns::kUnit>(b, oy, ky_lo, ky_hi, *ox);
    else if (stride == 2)
      forward_tile<T, kOc, kVecs, Columns::kEven>(b, oy, ky_lo, ky_hi, *ox);
    else
      forward_tile<T, kOc, kVecs, Columns::kStrided>(b, oy, ky_lo, ky_hi, *ox);
  }
}

// Columns [*ox, end), which may reach into the padding, one by one.
template <typename T, int kOc>
void forward_border(const ForwardBlock<T>& b, int64_t oy, int64_t ky_lo, int64_t ky_hi, int64_t* ox, int64_t end) {
  for (; *ox < end; ++*ox) forward_point<T, kOc>(b, oy, ky_lo, ky_hi, *ox);
}

// Output rows [oy_begin, oy_end) of the block's kOc channels.
template <typename T, int kOc, int kVecs>
void forward_rows(const ForwardBlock<T>& b, int64_t oy_begin, int64_t oy_end) {
  const ConvGeometry& g = *b.g;
  constexpr int64_t kWidth = kVecs * Lanes<T>::kCount;
  constexpr int64_t kLanes = Lanes<T>::kCount;
  // Columns whose first and last taps are both inside the input.
  int64_t first_lo, first_hi, last_lo, last_hi;
  valid_range(-g.pad_w, g.stride_w, g.in_w, g.out_w, &first_lo, &first_hi);
  valid_range((g.k_w - 1) * g.dilation_w - g.pad_w, g.stride_w, g.in_w, g.out_w, &last_lo, &last_hi);
  const int64_t inner_lo = std::max(first_lo, last_lo);
  const int64_t inner_hi = std::max(inner_lo, std::min(first_hi, last_hi));
  for (int64_t oy = oy_begin; oy < oy_end; ++oy) {
    int64_t ky_lo, ky_hi;
    tap_range(oy * g.stride_h - g.pad_h, g.dilation_h, g.in_h, g.k_h, &ky_lo, &ky_hi);
    int64_t ox = 0;
    forward_border<T, kOc>(b, oy, ky_lo, ky_hi, &ox, inner_lo);
    // Tiles that overlap columns already written write the same values again.
    if (inner_hi - inner_lo >= kWidth) {
      forward_inner_tiles<T, kOc, kVecs>(b, oy, ky_lo, ky_hi, &ox, inner_hi);
      if (ox < inner_hi) {
        ox = inner_hi - kWidth;
        forward_inner_tiles<T, kOc, kVecs>(b, oy, ky_lo, ky_hi, &ox, inner_hi);
      }
    } else if (inner_hi - inner_lo >= kLanes && kLanes > 1) {
      forward_inner_tiles<T, kOc, 1>(b, oy, ky_lo, ky_hi, &ox, inner_hi);
      if (ox < inner_hi) {
        ox = inner_hi - kLanes;
        forward_inner_tiles<T, kOc, 1>(b, oy, ky_lo, ky_hi, &ox, inner_hi);
      }
    }
    forward_border<T, kOc>(b, oy, ky_lo, ky_hi, &ox, g.out_w);
  }
}

// Output rows handled per pass over the channel blocks, so that the input
// rows they read are still in cache for the next block.
constexpr int64_t kOutputRowBlock = 8;

template <typename T>
void conv_forward(const T* input, const T* weight, const T* bias, T* output, const ConvGeometry& g) {
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t in_channel = g.in_d * in_plane;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t out_channel = g.out_d * out_plane;
  const int64_t taps = g.k_h * g.k_w;
  const int64_t weight_channel = g.k_d * taps;
  const int64_t in_per_group = g.in_per_group();
  const int64_t out_per_group = g.out_per_group();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t group = 0; group < g.groups; ++group) {
      for (int64_t od = 0; od < g.out_d; ++od) {
        const int64_t id0 = od * g.stride_d - g.pad_d;
        int64_t kd_lo, kd_hi;
        tap_range(id0, g.dilation_d, g.in_d, g.k_d, &kd_lo, &kd_hi);
        for (int64_t oy = 0; oy < g.out_h; oy += kOutputRowBlock) {
          const int64_t oy_end = std::min(g.out_h, oy + kOutputRowBlock);
          for (int64_t ocg = 0; ocg < out_per_group;) {
            const int64_t oc = group * out_per_group + ocg;
            const ForwardBlock<T> block{
                .g = &g,
                .in = input + (n * g.in_channels + group * in_per_group) * in_channel,
                .weight = weight + oc * in_per_group * weight_channel,
                .bias = bias != nullptr ? bias + oc : nullptr,
                .out = output + (n * g.out_channels + oc) * out_channel + od * out_plane,
                .in_channel = in_channel,
                .out_channel = out_channel,
                .taps = taps,
                .weight_channel = weight_channel,
                .weight_stride = in_per_group * weight_channel,
                .id0 = id0,
                .kd_lo = kd_lo,
                .kd_hi = kd_hi};
            if (out_per_group - ocg >= 4) {
              forward_rows<T, 4, 2>(block, oy, oy_end);
              ocg += 4;
            } else if (in_per_group == 1) {
              forward_rows<T, 1, 8>(block, oy, oy_end);  // depthwise: short reductions, wide tiles
              ++ocg;
            } else {
              forward_rows<T, 1, 2>(block, oy, oy_end);
              ++ocg;
            }
          }
        }
      }
    }
  }
}

// Widest output row the strided transposed convolution accumulates in
// phase order (see below); wider rows scatter with strided stores.
constexpr int64_t kPhaseRow = 1024;

template <typename T>
void conv_transposed2d(const T* input, const T* weight, const T* bias, T* output, const ConvGeometry& g) {
  const int64_t in_per_group = g.in_per_group();
  const int64_t out_per_group = g.out_per_group();
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t taps = g.k_h * g.k_w;
  const int64_t stride = g.stride_w;
  // With a horizontal stride s, consecutive input columns land s output
  // columns apart. Rows are then accumulated in phase order (the columns
  // c = r + s * j of phase r stored contiguously from phase_start(r)), so
  // every scatter is contiguous, and put back in column order at the end.
  const bool phases = stride > 1 && g.out_w <= kPhaseRow;
  const auto phase_start = [&](int64_t r) { return r * (g.out_w / stride) + std::min(r, g.out_w % stride); };
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oc = 0; oc < g.out_channels; ++oc) {
      T* __restrict plane = output + (n * g.out_channels + oc) * out_plane;
      std::fill(plane, plane + out_plane, T(0));
      const int64_t group = oc / out_per_group;
      const int64_t ocg = oc % out_per_group;
      for (int64_t icg = 0; icg < in_per_group; ++icg) {
        const int64_t ic = group * in_per_group + icg;
        const T* in = input + (n * g.in_channels + ic) * in_plane;
        const T* w = weight + (ic * out_per_group + ocg) * taps;
        for (int64_t ky = 0; ky < g.k_h; ++ky) {
          // Input rows iy land on output rows iy * stride + ky * dilation -
          // pad.
          const int64_t y_offset = ky * g.dilation_h - g.pad_h;
          int64_t iy_lo, iy_hi;
          valid_range(y_offset, g.stride_h, g.out_h, g.in_h, &iy_lo, &iy_hi);
          for (int64_t kx = 0; kx < g.k_w; ++kx) {
            const T wv = w[ky * g.k_w + kx];
            const int64_t x_offset = kx * g.dilation_w - g.pad_w;
            int64_t ix_lo, ix_hi;
            valid_range(x_offset, stride, g.out_w, g.in_w, &ix_lo, &ix_hi);
            const int64_t len = ix_hi - ix_lo;
            if (len == 0) continue;
            const int64_t ox = ix_lo * stride + x_offset;
            const int64_t column = phases ? phase_start(ox % stride) + ox / stride : ox;
            for (int64_t iy = iy_lo; iy < iy_hi; ++iy) {
              const T* __restrict src = in + iy * g.in_w + ix_lo;
              T* __restrict dst = plane + (iy * g.stride_h + y_offset) * g.out_w + column;
              if (phases || stride == 1) {
                for (int64_t i = 0; i < len; ++i) dst[i] += wv * src[i];
              } else {
                for (int64_t i = 0; i < len; ++i) dst[i * stride] += wv * src[i];
              }
            }
          }
        }
      }
      const T b = bias != nullptr ? bias[oc] : T(0);
      if (phases) {
        T row[kPhaseRow];
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          T* out_row = plane + oy * g.out_w;
          std::copy(out_row, out_row + g.out_w, row);
          for (int64_t r = 0; r < std::min(stride, g.out_w); ++r) {
            const T* phase = row + phase_start(r);
            for (int64_t c = r, j = 0; c < g.out_w; c += stride, ++j)
              out_row[c] = bias != nullptr ? phase[j] + b : phase[j];
          }
        }
      } else if (bias != nullptr) {
        for (int64_t i = 0; i < out_plane; ++i) plane[i] += b;
      }
    }
  }
}

// Reads a per-spatial-dim int list of 1 or `spatial` entries (one entry
// applies to every dim) into values[0..spatial), each in [min, INT32_MAX] so
// that the geometry's products cannot overflow.
bool read_spatial_list(KernelArgs& a, size_t index, const char* name, size_t spatial, int64_t min, int64_t* values) {
  Span<const int64_t> list;
  if (!a.int_list(index, name, &list)) return false;
  if (list.size() != 1 && list.size() != spatial) {
    a.fail(Error::InvalidArgument, "'%s' has %zu entries, expected %zu", name, list.size(), spatial);
    return false;
  }
  for (size_t i = 0; i < spatial; ++i) {
    values[i] = list[list.size() == 1 ? 0 : i];
    if (values[i] < min || values[i] > INT32_MAX) {
      a.fail(Error::InvalidArgument, "'%s' entry %lld must be in [%lld, INT32_MAX]", name,
             static_cast<long long>(values[i]), static_cast<long long>(min));
      return false;
    }
  }
  return true;
}

// Fills in everything about g except the channels and the output size.
bool read_geometry(KernelArgs& a, const Tensor& input, const Tensor& weight, ConvGeometry* g) {
  if (input.dim() < 3 || input.dim() > (g->transposed ? 4 : 5)) {
    a.fail(Error::InvalidArgument, "'input' must have 3 (NCL), 4 (NCHW)%s dims, got %zd",
           g->transposed ? " (transposed: 3-D not supported yet)" : " or 5 (NCDHW)", input.dim());
    return false;
  }
  if (weight.dim() != input.dim()) {
    a.fail(Error::InvalidArgument, "'weight' must have %zd dims like 'input', got %zd", input.dim(), weight.dim());
    return false;
  }
  const size_t spatial = static_cast<size_t>(input.dim()) - 2;
  int64_t stride[3], padding[3], dilation[3], out_pad[3] = {0, 0, 0};
  if (!read_spatial_list(a, 3, "stride", spatial, 1, stride) ||
      !read_spatial_list(a, 4, "padding", spatial, 0, padding) ||
      !read_spatial_list(a, 5, "dilation", spatial, 1, dilation)) {
    return false;
  }
  // PyTorch ignores output_padding unless the convolution is transposed.
  if (g->transposed) {
    if (!read_spatial_list(a, 7, "output_padding", spatial, 0, out_pad)) return false;
    for (size_t d = 0; d < spatial; ++d) {
      if (out_pad[d] >= stride[d] && out_pad[d] >= dilation[d]) {
        a.fail(Error::InvalidArgument,
               "'output_padding' %lld must be smaller than the stride %lld or "
               "the dilation %lld",
               static_cast<long long>(out_pad[d]), static_cast<long long>(stride[d]),
               static_cast<long long>(dilation[d]));
        return false;
      }
    }
  }
  g->batch = input.size(0);
  g->in_channels = input.size(1);
  // The spatial dims from the last: w, then h and d where there are.
  const auto from_last = [spatial](const int64_t* values, size_t back, int64_t absent) {
    return back < spatial ? values[spatial - 1 - back] : absent;
  };
  int64_t in_sizes[3], k_sizes[3];
  for (size_t d = 0; d < spatial; ++d) {
    in_sizes[d] = input.size(static_cast<ssize_t>(d) + 2);
    k_sizes[d] = weight.size(static_cast<ssize_t>(d) + 2);
  }
  g->in_d = from_last(in_sizes, 2, 1);
  g->in_h = from_last(in_sizes, 1, 1);
  g->in_w = from_last(in_sizes, 0, 1);
  g->k_d = from_last(k_sizes, 2, 1);
  g->k_h = from_last(k_sizes, 1, 1);
  g->k_w = from_last(k_sizes, 0, 1);
  g->stride_d = from_last(stride, 2, 1);
  g->stride_h = from_last(stride, 1, 1);
  g->stride_w = from_last(stride, 0, 1);
  g->pad_d = from_last(padding, 2, 0);
  g->pad_h = from_last(padding, 1, 0);
  g->pad_w = from_last(padding, 0, 0);
  g->dilation_d = from_last(dilation, 2, 1);
  g->dilation_h = from_last(dilation, 1, 1);
  g->dilation_w = from_last(dilation, 0, 1);
  g->out_pad_h = from_last(out_pad, 1, 0);
  g->out_pad_w = from_last(out_pad, 0, 0);
  if (g->in_d == 0 || g->in_h == 0 || g->in_w == 0) {
    a.fail(Error::InvalidArgument,
           "'input' has an empty spatial dim (only the "
           "batch and channel dims may be empty)");
    return false;
  }
  if (g->k_d < 1 || g->k_h < 1 || g->k_w < 1) {
    a.fail(Error::InvalidArgument, "'weight' has an empty kernel");
    return false;
  }
  return true;
}

// Weight is [out, in / groups, kh, kw], or [in, out / groups, kh, kw] when
// transposed. Sets g's output channels.
bool read_channels(KernelArgs& a, const Tensor& weight, ConvGeometry* g) {
  if (g->groups < 1 || g->groups > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'groups' must be in [1, INT32_MAX], got %lld", static_cast<long long>(g->groups));
    return false;
  }
  const int64_t w0 = weight.size(0), w1 = weight.size(1);
  if (w0 < g->groups || w0 % g->groups != 0) {
    a.fail(Error::InvalidArgument, "'weight' dim 0 (%lld) must be a positive multiple of 'groups' (%lld)",
           static_cast<long long>(w0), static_cast<long long>(g->groups));
    return false;
  }
  const bool fits = g->transposed ? w0 == g->in_channels : w1 * g->groups == g->in_channels;
  if (!fits) {
    a.fail(Error::InvalidArgument,
           "'weight' [%lld, %lld, ...] does not fit %lld input channels in "
           "%lld groups%s",
           static_cast<long long>(w0), static_cast<long long>(w1), static_cast<long long>(g->in_channels),
           static_cast<long long>(g->groups), g->transposed ? " (transposed)" : "");
    return false;
  }
  g->out_channels = g->transposed ? w1 * g->groups : w0;
  if (g->out_channels > INT32_MAX) {
    a.fail(Error::InvalidArgument, "'weight' gives %lld output channels, more than INT32_MAX",
           static_cast<long long>(g->out_channels));
    return false;
  }
  return true;
}

// Output extent of one spatial dim; below 1 if the input is too small.
int64_t output_extent(const ConvGeometry& g, int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                      int64_t out_pad) {
  const int64_t span = dilation * (kernel - 1) + 1;
  if (g.transposed) return (in - 1) * stride - 2 * pad + span + out_pad;
  if (in + 2 * pad < span) return 0;
  return (in + 2 * pad - span) / stride + 1;
}

}  // namespace

void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, kOp, args);
  Tensor input, weight, out;
  std::optional<Tensor> bias;
  Span<const int64_t> output_padding;
  ConvGeometry g;
  if (!a.check_count(10) || !a.tensor(0, "input", &input) || !a.tensor(1, "weight", &weight) ||
      !a.optional_tensor(2, "bias", &bias) || !a.boolean(6, "transposed", &g.transposed) ||
      !a.int_list(7, "output_padding", &output_padding) || !a.integer(8, "groups", &g.groups) ||
      !a.tensor(9, "out", &out)) {
    return;
  }
  if (!read_geometry(a, input, weight, &g) || !read_channels(a, weight, &g)) return;
  if (bias.has_value() && (bias->dim() != 1 || bias->size(0) != g.out_channels)) {
    a.fail(Error::InvalidArgument, "'bias' must have shape [%lld]", static_cast<long long>(g.out_channels));
    return;
  }
  const ScalarType dtype = input.scalar_type();
  if (!util::is_floating(dtype)) {
    a.fail(Error::InvalidArgument, "'input' has unsupported dtype %s", runtime::to_string(dtype));
    return;
  }
  if (!a.check_dtype(weight, "weight", dtype) || (bias.has_value() && !a.check_dtype(*bias, "bias", dtype)) ||
      !a.check_dtype(out, "out", dtype)) {
    return;
  }
  g.out_d = output_extent(g, g.in_d, g.k_d, g.stride_d, g.pad_d, g.dilation_d, 0);
  g.out_h = output_extent(g, g.in_h, g.k_h, g.stride_h, g.pad_h, g.dilation_h, g.out_pad_h);
  g.out_w = output_extent(g, g.in_w, g.k_w, g.stride_w, g.pad_w, g.dilation_w, g.out_pad_w);
  const int64_t extents[3] = {g.out_d, g.out_h, g.out_w};
  for (int64_t extent : extents) {
    if (extent < 1 || extent > INT32_MAX) {
      a.fail(Error::InvalidArgument,
             "'input' of spatial size %lldx%lldx%lld gives an output of "
             "%lldx%lldx%lld (too small%s)",
             static_cast<long long>(g.in_d), static_cast<long long>(g.in_h), static_cast<long long>(g.in_w),
             static_cast<long long>(g.out_d), static_cast<long long>(g.out_h), static_cast<long long>(g.out_w),
             g.transposed ? "" : " for the dilated kernel, or overflowing");
      return;
    }
  }
  const size_t spatial = static_cast<size_t>(input.dim()) - 2;
  SizesType shape[5] = {static_cast<SizesType>(g.batch), static_cast<SizesType>(g.out_channels)};
  for (size_t d = 0; d < spatial; ++d) shape[2 + d] = static_cast<SizesType>(extents[3 - spatial + d]);
  if (!a.resize_out(out, "out", {shape, static_cast<size_t>(input.dim())})) return;
  if (!a.check_contiguous(input, "input") || !a.check_contiguous(weight, "weight") ||
      (bias.has_value() && !a.check_contiguous(*bias, "bias")) || !a.check_contiguous(out, "out")) {
    return;
  }
  util::visit_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    if (g.transposed) {
      conv_transposed2d(input.const_data_ptr<T>(), weight.const_data_ptr<T>(), b, out.mutable_data_ptr<T>(), g);
    } else {
      conv_forward(input.const_data_ptr<T>(), weight.const_data_ptr<T>(), b, out.mutable_data_ptr<T>(), g);
    }
  });
}

}  // namespace kiln::kernels::portable
