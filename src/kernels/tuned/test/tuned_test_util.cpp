#include "kernels/tuned/test/tuned_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kiln::kernels::tuned::testing {

namespace {

// 64-byte aligned scratch, freed on scope exit.
struct Aligned {
  explicit Aligned(size_t bytes) : data(std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64))) {}
  ~Aligned() { std::free(data); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  void* data;
};

}  // namespace

double Layer::weight(int64_t n, int64_t k) const {
  if (desc.format == WeightFormat::kF32) return wf[n * desc.k + k];
  const int64_t g = k / (desc.group_size >= desc.k ? desc.k : desc.group_size);
  const int z = zeros.empty() ? 0 : zeros[n * groups + g];
  return static_cast<double>(q[n * desc.k + k] - z) * scales[n * groups + g];
}

Layer make_layer(WeightFormat format, int64_t n, int64_t k, int64_t group_size, bool zero_points, bool bias,
                 uint32_t seed) {
  std::mt19937 rng(seed);
  Layer layer;
  layer.desc = {n, k, format, group_size == 0 ? k : group_size, zero_points};
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  if (format == WeightFormat::kF32) {
    layer.desc.group_size = 0;
    layer.wf.resize(n * k);
    for (auto& v : layer.wf) v = unit(rng);
  } else {
    const int lo = format == WeightFormat::kQ8 ? -128 : -8, hi = format == WeightFormat::kQ8 ? 127 : 7;
    std::uniform_int_distribution<int> value(lo, hi);
    layer.groups = (k + layer.desc.group_size - 1) / layer.desc.group_size;
    layer.q.resize(n * k);
    for (auto& v : layer.q) v = static_cast<int8_t>(value(rng));
    std::uniform_real_distribution<float> scale(0.01f, 0.1f);
    layer.scales.resize(n * layer.groups);
    for (auto& v : layer.scales) v = scale(rng);
    if (zero_points) {
      layer.zeros.resize(n * layer.groups);
      for (auto& v : layer.zeros) v = static_cast<int8_t>(value(rng));
    }
  }
  if (bias) {
    layer.bias.resize(n);
    for (auto& v : layer.bias) v = unit(rng);
  }
  layer.packed.resize(packed_linear_bytes(layer.desc));
  const void* weights = format == WeightFormat::kF32 ? static_cast<const void*>(layer.wf.data()) : layer.q.data();
  const runtime::Error e = pack_linear(layer.desc, weights, layer.scales.empty() ? nullptr : layer.scales.data(),
                                       layer.zeros.empty() ? nullptr : layer.zeros.data(),
                                       {layer.packed.data(), layer.packed.size()});
  if (e != runtime::Error::Ok) std::abort();
  return layer;
}

std::vector<float> random_activations(int64_t m, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(m * k);
  for (auto& v : x) v = normal(rng);
  return x;
}

namespace {

LinearArgs args_for(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m, float* y,
                    void* scratch, float eps) {
  LinearArgs a;
  a.desc = &layer.desc;
  a.mode = mode;
  a.packed = layer.packed.data();
  a.x = x.data();
  a.m = m;
  a.x_stride = layer.desc.k;
  a.bias = layer.bias.empty() ? nullptr : layer.bias.data();
  a.y = y;
  a.y_stride = layer.desc.n;
  a.scratch = scratch;
  a.eps = eps;
  return a;
}

}  // namespace

std::vector<float> run(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m, Isa isa,
                       int parts, float eps) {
  std::vector<float> y(m * layer.desc.n, NAN);
  Aligned scratch(linear_scratch_bytes(layer.desc, mode, m));
  const LinearArgs a = args_for(layer, mode, x, m, y.data(), scratch.data, eps);
  prepare_linear(a);
  for (int part = parts - 1; part >= 0; --part) {
    int64_t begin = 0, end = 0;
    split_panels(linear_panels(layer.desc), parts, part, &begin, &end);
    compute_linear_on(isa, a, begin, end);
  }
  return y;
}

Quantized quantize(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m, float eps) {
  Aligned scratch(linear_scratch_bytes(layer.desc, mode, m));
  const LinearArgs a = args_for(layer, mode, x, m, nullptr, scratch.data, eps);
  prepare_linear(a);
  const detail::WeightLayout w = detail::weight_layout(layer.desc);
  const detail::Prepared p = detail::prepared_view(a, w);
  Quantized out;
  for (int64_t r = 0; r < m; ++r) {
    out.q.insert(out.q.end(), p.xq + r * p.xq_stride, p.xq + r * p.xq_stride + w.kpad);
    if (mode == ActivationMode::kInt8PerToken) {
      out.scale.push_back(p.sx[r]);
      out.zero.push_back(p.zx[r]);
    } else {
      out.scale.insert(out.scale.end(), p.dscale + r * p.xsum_stride, p.dscale + (r + 1) * p.xsum_stride);
    }
  }
  return out;
}

std::vector<double> reference(const Layer& layer, ActivationMode mode, const std::vector<float>& x, int64_t m,
                              std::vector<double>* bound) {
  const int64_t n = layer.desc.n, k = layer.desc.k;
  const int64_t kpad = detail::weight_layout(layer.desc).kpad;
  Quantized xq;
  if (mode != ActivationMode::kFloat) xq = quantize(layer, mode, x, m);
  std::vector<double> y(m * n);
  bound->assign(m * n, 0.0);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t o = 0; o < n; ++o) {
      double sum = layer.bias.empty() ? 0.0 : layer.bias[o];
      double abs = std::fabs(sum);
      for (int64_t i = 0; i < k; ++i) {
        double xv = x[r * k + i];
        if (mode == ActivationMode::kInt8PerToken) {
          xv = (xq.q[r * kpad + i] - xq.zero[r]) * static_cast<double>(xq.scale[r]);
        } else if (mode == ActivationMode::kInt8Block32) {
          xv = xq.q[r * kpad + i] * static_cast<double>(xq.scale[r * (kpad / 32) + i / 32]);
        }
        const double term = xv * layer.weight(o, i);
        sum += term;
        // The per-token kernels sum x_q w and z_x w apart.
        const double xabs = mode == ActivationMode::kInt8PerToken
                                ? (std::abs(xq.q[r * kpad + i]) + std::abs(xq.zero[r])) * static_cast<double>(xq.scale[r])
                                : std::fabs(xv);
        abs += xabs * std::fabs(layer.weight(o, i));
      }
      y[r * n + o] = sum;
      (*bound)[r * n + o] = abs;
    }
  }
  return y;
}

std::vector<Isa> supported_paths() {
  std::vector<Isa> paths;
  for (int i = 0; i < kIsaCount; ++i) {
    if (isa_supported(static_cast<Isa>(i))) paths.push_back(static_cast<Isa>(i));
  }
  return paths;
}

}  // namespace kiln::kernels::tuned::testing
