// The activation Kiln's own kernels apply to a float result, as a blob's
// eltwise post-op gives it: the runtime reads a post-op into this one
// description (kernel_activation_of, operation_builders.cpp), and each own
// kernel (the float matrix-vector product, the int8 depthwise convolution)
// takes the kinds it has.
#pragma once

#include <cstdint>

namespace kiln::backends::onednn {

struct KernelActivation {
  enum class Kind : uint8_t { kNone, kRelu, kClip, kHardSwish, kHardSigmoid, kLogistic, kSwish };
  Kind kind = Kind::kNone;
  /// kRelu: alpha the negative slope; kClip: the bounds [alpha, beta];
  /// kHardSwish: x * clamp(alpha * x + beta, 0, 1); kHardSigmoid:
  /// clamp(alpha * x + beta, 0, 1); kSwish: x * sigmoid(alpha * x).
  float alpha = 0, beta = 0;
};

}  // namespace kiln::backends::onednn
