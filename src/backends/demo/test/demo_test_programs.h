// Small programs the demo backends' tests share (AOT side; test code).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "aot/ir/graph_builder.h"
#include "aot/ir/host_tensor.h"

namespace kiln::backends::demo::testing {

/// A float32 tensor of `sizes` holding start, start + step, start + 2 step, ...
inline aot::HostTensor ramp(const std::vector<int64_t>& sizes, float start, float step) {
  aot::HostTensor t = aot::HostTensor::zeros(aot::ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i);
  return t;
}

/// y = relu(sin(x) * w + 2) - 2 * x / 4, and cos(x / 4) over x: float32[2, 3]:
/// one constant, two outputs, every DemoBackend instruction kind.
inline aot::ExportedProgram elementwise_program() {
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::f32({2, 3}));
  aot::Node* w = b.parameter("w", ramp({2, 3}, -1.0f, 0.4f));
  aot::Node* y = b.call("aten::mul.Tensor", {b.call("aten::sin", {x}), w});
  y = b.call("aten::relu", {b.call("aten::add.Tensor", {y, 2.0})});
  aot::Node* q = b.call("aten::div.Tensor", {x, 4.0});
  y = b.call("aten::sub.Tensor", {y, q}, {{"alpha", 2.0}});
  b.output({y, b.call("aten::cos", {q})});
  return std::move(b).build();
}

}  // namespace kiln::backends::demo::testing
