#include "models/conv_relu_tan.h"

#include <cmath>

#include "aot/ir/graph_builder.h"

namespace kiln::models {

using aot::Argument;
using aot::ArgumentList;
using aot::Node;

aot::HostTensor uniform_tensor(const std::vector<int64_t>& sizes, float low, float high, uint64_t seed) {
  aot::HostTensor tensor = aot::HostTensor::zeros(runtime::ScalarType::Float, sizes);
  float* data = tensor.data<float>();
  uint64_t state = seed;
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const float unit = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);  // [0, 1)
    data[i] = low + (high - low) * unit;
  }
  return tensor;
}

namespace {

Node* conv3x3(aot::GraphBuilder& b, Node* x, const std::string& prefix, int64_t in, int64_t out, uint64_t seed) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(in * 9));
  Node* weight = b.parameter(prefix + ".weight", uniform_tensor({out, in, 3, 3}, -bound, bound, seed));
  Node* bias = b.parameter(prefix + ".bias", uniform_tensor({out}, -bound, bound, seed + 1));
  const ArgumentList ones = {int64_t{1}, int64_t{1}};
  const ArgumentList zeros = {int64_t{0}, int64_t{0}};
  return b.call("aten::convolution", {x, weight, bias, ones, ones, ones, false, zeros, int64_t{1}});
}

}  // namespace

aot::ExportedProgram conv_relu_tan(const ConvReLUTanOptions& options) {
  aot::GraphBuilder b;
  Node* x = b.input("x", aot::f32({options.batch, 3, options.height, options.width}));
  Node* h = conv3x3(b, x, "conv_layer.conv1", 3, 16, options.seed * 16 + 1);
  h = b.call("aten::relu", {h});
  h = conv3x3(b, h, "conv_layer.conv2", 16, 32, options.seed * 16 + 3);
  h = b.call("aten::relu", {h});
  b.output({b.call("aten::tan", {h})});
  return std::move(b).build();
}

aot::HostTensor conv_relu_tan_input(const ConvReLUTanOptions& options) {
  return uniform_tensor({options.batch, 3, options.height, options.width}, -1.0f, 1.0f, options.seed * 16 + 7);
}

}  // namespace kiln::models
