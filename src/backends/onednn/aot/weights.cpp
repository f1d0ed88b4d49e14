#include "backends/onednn/aot/weights.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

#include "aot/ir/error.h"

namespace kiln::backends::onednn {

namespace {

// Two independent 64-bit hashes of `bytes`, eight bytes a step (a byte-wise
// FNV-1a took 40% of lowering ResNet-18). A key names the content only:
// NamedDataStore refuses one key for two different byte strings, so a
// collision is an error, never wrong weights.
std::pair<uint64_t, uint64_t> hash_pair(const std::vector<uint8_t>& bytes) {
  const auto finish = [](uint64_t h) {  // splitmix64's finalizer
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
  };
  uint64_t a = 0x243f6a8885a308d3ULL ^ bytes.size(), b = 0x13198a2e03707344ULL ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, sizeof word);
    a = (a ^ word) * 0x9e3779b97f4a7c15ULL;
    a ^= a >> 32;
    b = (b + word) * 0xc2b2ae3d27d4eb4fULL;
    b ^= b >> 29;
  }
  for (; i < bytes.size(); ++i) {
    a = (a ^ bytes[i]) * 0x100000001b3ULL;
    b = (b + bytes[i]) * 0x9e3779b97f4a7c15ULL;
  }
  return {finish(a), finish(b)};
}

std::vector<uint8_t> bytes_of(const aot::HostTensor& tensor) {
  if (tensor.dtype() != aot::ScalarType::Float && tensor.dtype() != aot::ScalarType::Char) {
    throw aot::AotError("OneDnnBackend stores float32 and int8 weights only, got " + tensor.describe());
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
  const auto [a, b] = hash_pair(bytes);
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
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

aot::NamedDataStoreOutput named_data_read_by(const ::kiln::onednn::GraphT& graph,
                                             const aot::NamedDataStoreOutput& named_data) {
  std::set<int32_t> read;
  for (const auto& op : graph.operations) {
    read.insert(op->inputs.begin(), op->inputs.end());
    for (const auto& post : op->post_ops) {
      if (const auto* binary = post->op.AsBinaryPostOp()) read.insert(binary->input);
    }
  }
  // In the order the bytes were stored, so that the program's data keeps its order.
  std::set<std::pair<size_t, std::string>> kept;
  for (int32_t v : read) {
    if (v < 0 || graph.values.at(static_cast<size_t>(v))->kind != ::kiln::onednn::ValueKind::Constant) continue;
    const std::string& key = graph.values[static_cast<size_t>(v)]->constant_key;
    kept.emplace(named_data.pte_data.at(key).buffer_index, key);
  }
  aot::NamedDataStore store;
  for (const auto& [index, key] : kept) store.add_named_data(key, named_data.buffers.at(index), named_data.pte_data.at(key).alignment);
  return store.get_named_data_store_output();
}

}  // namespace kiln::backends::onednn
