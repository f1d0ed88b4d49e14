// OneDnnBackend's weights: float32 tensors stored in the program's named data
// under a key made from their content, so identical tensors (tied weights,
// the same constant in two delegates) are stored once; and batch norm folded
// into a convolution's weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/ir/host_tensor.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

/// Alignment of every named-data entry OneDnnBackend writes (a cache line,
/// what oneDNN's kernels prefer for their sources).
inline constexpr size_t kWeightAlignment = 64;

/// "onednn_w_<32 hex digits>_<byte count>": two 64-bit FNV-1a hashes of the bytes.
std::string content_key(const std::vector<uint8_t>& bytes);

/// The named data a preprocess collects.
class WeightStore {
 public:
  /// Stores `tensor`'s elements (float32 or int8, contiguous) and returns their key.
  std::string add(const aot::HostTensor& tensor);
  const aot::NamedDataStoreOutput& output() const { return store_.get_named_data_store_output(); }

 private:
  aot::NamedDataStore store_;
};

/// The entries of `named_data` a constant of `graph` names: a fast form
/// (fast_forms.h) may leave a constant no operation reads any more.
aot::NamedDataStoreOutput named_data_read_by(const ::kiln::onednn::GraphT& graph,
                                             const aot::NamedDataStoreOutput& named_data);

/// A convolution's weights and bias with a following batch norm folded in.
struct FoldedConvolution {
  aot::HostTensor weight;
  aot::HostTensor bias;
};

/// conv(x, w, b) then batch_norm(mean, var, gamma, beta, eps), as one
/// convolution: per output channel o, s = gamma[o] / sqrt(var[o] + eps),
/// w'[o] = w[o] * s, b'[o] = (b[o] - mean[o]) * s + beta[o]; computed in
/// float64, stored as float32. `weight` is (O, I/groups, ...); null bias,
/// gamma or beta mean 0, 1, 0.
FoldedConvolution fold_batch_norm(const aot::HostTensor& weight, const aot::HostTensor* bias, const aot::HostTensor& mean,
                                  const aot::HostTensor& var, const aot::HostTensor* gamma, const aot::HostTensor* beta,
                                  double eps);

}  // namespace kiln::backends::onednn
