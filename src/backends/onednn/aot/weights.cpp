#include "backends/onednn/aot/weights.h"

#include <cmath>
#include <cstdio>

#include "aot/ir/error.h"

namespace kiln::backends::onednn {

namespace {

uint64_t fnv1a(const std::vector<uint8_t>& bytes, uint64_t basis) {
  uint64_t hash = basis;
  for (uint8_t byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::vector<uint8_t> bytes_of(const aot::HostTensor& tensor) {
  if (tensor.dtype() != aot::ScalarType::Float) {
    throw aot::AotError("OneDnnBackend stores float32 weights only, got " + tensor.describe());
  }
  const aot::HostTensor dense = tensor.clone();
  const auto* data = static_cast<const uint8_t*>(dense.data());
  return std::vector<uint8_t>(data, data + dense.nbytes());
}

std::vector<double> values_or(const aot::HostTensor* tensor, size_t count, double fill) {
  return tensor == nullptr ? std::vector<double>(count, fill) : tensor->to_doubles();
}

}  // namespace

std::string content_key(const std::vector<uint8_t>& bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(fnv1a(bytes, 0xcbf29ce484222325ULL)),
                static_cast<unsigned long long>(fnv1a(bytes, 0x84222325cbf29ce4ULL)));
  return "onednn_w_" + std::string(text) + "_" + std::to_string(bytes.size());
}

std::string WeightStore::add(const aot::HostTensor& tensor) {
  std::vector<uint8_t> bytes = bytes_of(tensor);
  std::string key = content_key(bytes);
  store_.add_named_data(key, std::move(bytes), kWeightAlignment);
  return key;
}

FoldedConvolution fold_batch_norm(const aot::HostTensor& weight, const aot::HostTensor* bias, const aot::HostTensor& mean,
                                  const aot::HostTensor& var, const aot::HostTensor* gamma, const aot::HostTensor* beta,
                                  double eps) {
  const auto channels = static_cast<size_t>(weight.sizes().at(0));
  const std::vector<double> w = weight.to_doubles();
  const std::vector<double> b = values_or(bias, channels, 0.0);
  const std::vector<double> m = mean.to_doubles();
  const std::vector<double> v = var.to_doubles();
  const std::vector<double> g = values_or(gamma, channels, 1.0);
  const std::vector<double> t = values_or(beta, channels, 0.0);
  if (b.size() != channels || m.size() != channels || v.size() != channels || g.size() != channels || t.size() != channels) {
    throw aot::AotError("fold_batch_norm: the statistics do not have one value per output channel (" + std::to_string(channels) + ")");
  }
  const size_t per_channel = w.size() / channels;
  std::vector<float> folded_w(w.size());
  std::vector<float> folded_b(channels);
  for (size_t o = 0; o < channels; ++o) {
    const double scale = g[o] / std::sqrt(v[o] + eps);
    for (size_t i = 0; i < per_channel; ++i) folded_w[o * per_channel + i] = static_cast<float>(w[o * per_channel + i] * scale);
    folded_b[o] = static_cast<float>((b[o] - m[o]) * scale + t[o]);
  }
  return {aot::HostTensor::from_vector(weight.sizes(), folded_w),
          aot::HostTensor::from_vector({static_cast<int64_t>(channels)}, folded_b)};
}

}  // namespace kiln::backends::onednn
