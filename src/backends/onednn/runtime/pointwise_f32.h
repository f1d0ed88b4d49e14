// Kiln's own kernel for a Pointwise operation (onednn_graph.fbs): a small
// program of elementwise float32 steps over one result's elements, its
// sources read through views (an offset and a stride per result dimension,
// 0 where a source broadcasts). A recurrent cell's gates (sigmoid, tanh and
// the products between them over a hidden state of 64) were a dozen oneDNN
// operations and crops a time step, each costing more to dispatch than its
// arithmetic; here they are one pass over the elements.
//
// The result is computed a tile of kPointwiseTile elements at a time: each
// source's tile is gathered into a register (or read in place where its view
// is the result's own order), then each step writes the next register, the
// last one the result. The transcendental functions are Kiln's own
// polynomials (exp within 2 ulp over float32's range), written so that the
// compiler vectorizes them, and tanh and the logistic built on them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

/// Elements of the result each pass over the program computes.
inline constexpr int64_t kPointwiseTile = 256;

struct PointwiseF32 {
  /// One step: `op` of register `a` (and `b` for the binary ones) into the
  /// next register.
  enum class Op : uint8_t {
    // binary: a <op> b
    kAdd, kSub, kMul, kDiv, kMax, kMin,
    // unary, as onednn_graph.fbs's EltwiseAlgorithm of the same name reads alpha and beta
    kRelu, kClip, kHardSwish, kHardSigmoid, kLogistic, kSwish, kGeluTanh, kElu, kTanh, kExp, kAbs, kSqrt, kSquare,
    kLinear,
  };
  struct Step {
    Op op;
    uint16_t a, b;
    float alpha, beta;
  };
  static constexpr bool is_binary(Op op) { return op <= Op::kMin; }

  uint32_t num_inputs = 0;
  uint32_t num_steps = 0;
  uint32_t rank = 0;
  int64_t sizes[kMaxRank] = {};  ///< the result's
  int64_t numel = 1;
  const Step* steps = nullptr;      ///< num_steps
  const int64_t* offsets = nullptr;  ///< num_inputs, in elements of each source
  const int64_t* strides = nullptr;  ///< num_inputs x rank, in elements
};

/// Floats of scratch run_pointwise_f32 uses.
size_t pointwise_f32_scratch_floats(const PointwiseF32& p);

/// dst (p.numel floats, row-major) from `inputs` (each source's row-major
/// elements, read through its view). `scratch`: pointwise_f32_scratch_floats.
void run_pointwise_f32(const PointwiseF32& p, const float* const* inputs, float* dst, float* scratch);

/// exp(x) by Kiln's polynomial, as the kernel computes it (for tests).
float pointwise_exp(float x);

}  // namespace kiln::backends::onednn
