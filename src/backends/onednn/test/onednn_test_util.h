// Builders shared by OneDnnBackend's tests (tests only).
#pragma once

#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/host_tensor.h"

namespace kiln::backends::onednn::testing {

using aot::testing::ints;

/// A float32 tensor whose elements step through small, distinct values
/// (0.1 * ((i * 7 + seed) % 13) - 0.6), so that mixups show.
inline aot::HostTensor ramp(const std::vector<int64_t>& sizes, int seed = 0) {
  aot::HostTensor t = aot::HostTensor::zeros(aot::ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.1f * static_cast<float>((i * 7 + seed) % 13) - 0.6f;
  return t;
}

/// aten::convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups) on 2-D images.
inline aot::Node* conv2d(aot::GraphBuilder& b, aot::Node* x, aot::Node* w, aot::Argument bias, int64_t stride = 1,
                         int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool transposed = false,
                         int64_t output_padding = 0) {
  return b.call("aten::convolution", {x, w, std::move(bias), ints({stride, stride}), ints({padding, padding}),
                                      ints({dilation, dilation}), transposed, ints({output_padding, output_padding}), groups});
}

/// OneDnnBackend, as registered.
inline const aot::BackendDetails& backend() { return aot::get_backend("OneDnnBackend"); }

}  // namespace kiln::backends::onednn::testing
