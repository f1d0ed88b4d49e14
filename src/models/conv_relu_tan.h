// The seed demo model, ConvReLUTanModel, built with GraphBuilder:
//   conv 3->16 (3x3, padding 1), relu, conv 16->32 (3x3, padding 1), relu, tan.
#pragma once

#include <cstdint>

#include "aot/ir/exported_program.h"

namespace kiln::models {

struct ConvReLUTanOptions {
  int64_t batch = 4;
  int64_t height = 64;
  int64_t width = 64;
  uint64_t seed = 0;
};

/// The program, with weights drawn as nn.Conv2d initializes them (uniform in
/// +-1/sqrt(fan_in)) from a fixed-seed generator.
aot::ExportedProgram conv_relu_tan(const ConvReLUTanOptions& options = {});

/// An input for the model: values uniform in [-1, 1) from `seed`.
aot::HostTensor conv_relu_tan_input(const ConvReLUTanOptions& options = {});

/// Uniform values in [low, high) from a portable generator (splitmix64), so
/// that every platform draws the same weights.
aot::HostTensor uniform_tensor(const std::vector<int64_t>& sizes, float low, float high, uint64_t seed);

}  // namespace kiln::models
